import { test } from "node:test";
import assert from "node:assert/strict";
import { operatorActor } from "../../src/core/actor.ts";
import { ingestCard } from "../../src/archive/intake.ts";
import { listUsers } from "../../src/access/index.ts";
import { DEMO_DOSSIER, DEMO_PEOPLE, furnishDemo, seedDemo } from "../../src/cli/demo.ts";
import { getBody, readBodies } from "../../src/catalogue/index.ts";
import { myAssignments } from "../../src/review/index.ts";
import { listCandidates, listReports } from "../../src/families/index.ts";
import { listDossiers, listPackages } from "../../src/dossiers/index.ts";
import { myWork } from "../../src/work/index.ts";
import { backends } from "../support/backends.ts";
import { demoCard, freshArchive } from "../support/archive.ts";

for (const { backend, skip } of await backends()) {
  test(`the demo (npm start) has an account per working role and the card's grouping waiting as the investigator's work (${backend.name})`, { skip, timeout: 240_000 }, async () => {
    const { archive, close } = await freshArchive(backend);
    try {
      const { dir } = await demoCard(2, false, "demo-seed");
      const s = await ingestCard(archive, operatorActor(), { path: dir, label: "demo card (synthetic)" });
      const demo = await seedDemo(archive, s.source);
      assert.deepEqual(demo.accounts.map((x) => [x.email, x.role]), DEMO_PEOPLE.map((p) => [p.email, p.role]));
      for (const x of demo.accounts) assert.ok(x.oneTimePassword.length >= 12, "each has a one-time password to sign in with");
      assert.ok(demo.groupingJob, "grouping queued");
      await archive.jobs.work({ once: true });
      const users = await listUsers(archive, operatorActor());
      const inv = users.find((u) => u.role === "investigator")!;
      const work = await myWork(archive, { kind: "user", id: inv.id, role: "investigator" });
      assert.ok((work.items.find((i) => i.kind === "proposals")?.count ?? 0) >= 1, "proposals wait for the investigator");
      // Started again: nobody is added twice and nothing is queued again.
      assert.deepEqual(await seedDemo(archive, null), { accounts: [], groupingJob: null });
    } finally {
      await close();
    }
  });

  test(`the demo is worth opening: bodies grouped, numbers checked, reviews, reports with candidates, a dossier with its package; a second start changes nothing (${backend.name})`, { skip, timeout: 400_000 }, async () => {
    const { archive, close } = await freshArchive(backend);
    try {
      const { dir } = await demoCard(5, false, "demo-furnish");
      const s = await ingestCard(archive, operatorActor(), { path: dir, label: "demo card (synthetic)" });
      await seedDemo(archive, s.source);
      const said: string[] = [];
      await furnishDemo(archive, (l) => said.push(l));
      const users = await listUsers(archive, operatorActor());
      const actor = (role: string) => {
        const u = users.find((x) => x.role === role)!;
        return { kind: "user" as const, id: u.id, role: u.role };
      };
      const inv = actor("investigator");
      const bodies = (await readBodies(archive, inv)).items;
      assert.ok(bodies.length >= 2, `${bodies.length} bodies grouped`);
      const work = await myWork(archive, inv);
      assert.ok((work.items.find((i) => i.kind === "proposals")?.count ?? 0) >= 1, "some proposals still wait for the investigator");
      const numbers = (await Promise.all(bodies.map((b) => getBody(archive, inv, b.id)))).flatMap((b) => b.numbers);
      assert.ok(numbers.length > 0 && numbers.some((n) => n.checkedBy) && numbers.some((n) => !n.checkedBy), "numbers read, some checked by a second person, some waiting");
      const reviews = await myAssignments(archive, actor("forensic_reviewer"));
      assert.ok(reviews.length >= 2 && reviews.some((r) => r.submittedAt) && reviews.some((r) => !r.submittedAt), JSON.stringify(reviews.map((r) => r.submittedAt)));
      const cw = actor("family_caseworker");
      const reports = await listReports(archive, cw);
      assert.equal(reports.length, 3);
      const candidates = (await Promise.all(reports.map((r) => listCandidates(archive, cw, r.id)))).flatMap((c) => c.candidates);
      assert.ok(candidates.length > 0, "the reports have candidates");
      const [dossier] = await listDossiers(archive, inv);
      assert.equal(dossier?.name, DEMO_DOSSIER);
      const packages = await listPackages(archive, actor("archivist"), dossier!.id);
      assert.deepEqual(packages.items.map((p) => p.status), ["done"]);

      // Started again: nothing happens twice (the custody log does not grow).
      const size = await archive.log.size();
      await furnishDemo(archive, () => {});
      const after = await archive.log.size();
      const added = [];
      for (let i = size; i < after; i++) added.push(String(await archive.log.leafAt(i)).slice(0, 300));
      assert.deepEqual(added, []);
    } finally {
      await close();
    }
  });
}
