import { test } from "node:test";
import assert from "node:assert/strict";
import { backends } from "../support/backends.ts";
import { freshArchive } from "../support/archive.ts";
import { operatorActor, type Actor, type Role } from "../../src/core/actor.ts";
import { Forbidden, NotFound } from "../../src/core/errors.ts";
import { JOB_FIXITY_AUDIT, JOB_INGEST, queueFixityAudit } from "../../src/archive/jobs.ts";
import { getJob, listJobs } from "../../src/archive/job-views.ts";
import { listSources } from "../../src/archive/sources.ts";
import { JOB_PROPOSE } from "../../src/catalogue/proposals.ts";
import { JOB_RERANK } from "../../src/families/index.ts";
import { JOB_DOSSIER_PACKAGE } from "../../src/dossiers/dossier-package.ts";
import { JOB_KINDS } from "../../src/access/policy.ts";

const as = (role: Role): Actor => ({ kind: "user", id: `usr_${role}`, role });

test("every job kind the archive registers is in the policy's JOB_KINDS", () => {
  for (const kind of [JOB_FIXITY_AUDIT, JOB_INGEST, JOB_PROPOSE, JOB_RERANK, JOB_DOSSIER_PACKAGE]) assert.ok(JOB_KINDS[kind], kind);
});

for (const b of await backends()) {
  test(`${b.backend.name}: each role sees only the jobs of the work it may do; another kind's job is "not found" like a missing one`, { skip: b.skip }, async () => {
    const { archive: a, close } = await freshArchive(b.backend);
    try {
      // queued, never run: the kinds' handlers are not what this test is about
      const ingest = await a.jobs.enqueue(null, JOB_INGEST, { path: "/somewhere/card" });
      const propose = await a.jobs.enqueue(null, JOB_PROPOSE, { source: "src_x" });
      const rerank = await a.jobs.enqueue(null, JOB_RERANK, { reportId: "rep_x" });
      const seen = async (role: Role) => (await listJobs(a, as(role))).map((j) => j.kind).sort();

      assert.deepEqual(await seen("admin"), [JOB_INGEST, JOB_PROPOSE, JOB_RERANK].sort());
      assert.deepEqual(await seen("archivist"), [JOB_INGEST]);
      assert.deepEqual(await seen("investigator"), [JOB_PROPOSE]);
      assert.deepEqual(await seen("family_caseworker"), [JOB_RERANK]);
      assert.deepEqual(await seen("curator"), []);
      await assert.rejects(listJobs(a, as("family_member")), (e: unknown) => e instanceof Forbidden && /family_member/.test((e as Error).message));

      // one job: the caseworker's own kind opens, an intake job answers as a missing id would
      assert.equal((await getJob(a, as("family_caseworker"), rerank)).kind, JOB_RERANK);
      const hidden = await getJob(a, as("family_caseworker"), ingest).then(() => null, (e: unknown) => e);
      const missing = await getJob(a, as("family_caseworker"), "job_none").then(() => null, (e: unknown) => e);
      assert.ok(hidden instanceof NotFound && missing instanceof NotFound);
      assert.equal((hidden as Error).message, "There is no such background job, or you may not see it.");
      assert.equal((missing as Error).message, (hidden as Error).message);
      assert.equal((await getJob(a, as("investigator"), propose)).id, propose);

      // no view carries the payload (the card's path on the server)
      for (const j of await listJobs(a, operatorActor())) assert.ok(!("payload" in j) && !JSON.stringify(j).includes("/somewhere"));
      assert.deepEqual((await listJobs(a, operatorActor(), { status: "done" })).length, 0);
    } finally {
      await close();
    }
  });

  test(`${b.backend.name}: a fixity audit is queued once by a custodian; others are refused with the reason`, { skip: b.skip }, async () => {
    const { archive: a, close } = await freshArchive(b.backend);
    try {
      const first = await queueFixityAudit(a, as("archivist"));
      assert.deepEqual(await queueFixityAudit(a, operatorActor()), first, "a second request while one waits is the same job");
      await assert.rejects(queueFixityAudit(a, as("investigator")), (e: unknown) => e instanceof Forbidden && /archive\.verify/.test((e as Error).message));
      assert.equal((await getJob(a, as("archivist"), first.id)).kind, JOB_FIXITY_AUDIT);
      await assert.rejects(getJob(a, as("investigator"), first.id), NotFound);
    } finally {
      await close();
    }
  });

  test(`${b.backend.name}: sources are listed for roles that read the archive, without the intake path`, { skip: b.skip }, async () => {
    const { archive: a, close } = await freshArchive(b.backend);
    try {
      assert.deepEqual(await listSources(a, as("investigator")), []);
      const row = { label: "card", kind: "folder", intake_path: "/home/someone/card", medium_sha256: null, medium_size: null, volume_label: "NIKON", volume_serial: "ABCD-1234", fs_type: null, status: "complete", finished_at: null, actor: "usr_archivist", files: 3, ingested: 2, duplicates: 1, quarantined: 0, bytes: 300 };
      await a.db.db.insertInto("sources").values([
        { ...row, id: "src_old", started_at: "2026-01-01T00:00:00.000Z" },
        { ...row, id: "src_new", started_at: "2026-02-01T00:00:00.000Z" },
      ]).execute();
      const listed = await listSources(a, as("investigator"));
      assert.deepEqual(listed.map((s) => s.id), ["src_new", "src_old"], "newest first");
      assert.equal(listed[0]!.ingested, 2);
      assert.ok(!JSON.stringify(listed).includes("/home/someone") && !JSON.stringify(listed).includes("ABCD-1234"), "no path, no volume serial");
      await assert.rejects(listSources(a, as("family_member")), Forbidden);
    } finally {
      await close();
    }
  });
}
