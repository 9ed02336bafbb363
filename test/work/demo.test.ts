import { test } from "node:test";
import assert from "node:assert/strict";
import { operatorActor } from "../../src/core/actor.ts";
import { ingestCard } from "../../src/archive/intake.ts";
import { listUsers } from "../../src/access/index.ts";
import { DEMO_PEOPLE, seedDemo } from "../../src/cli/demo.ts";
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
}
