import { test } from "node:test";
import assert from "node:assert/strict";
import { backends } from "../support/backends.ts";
import { mkdirSync, statSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import { ensureAccounts, freshArchive } from "../support/archive.ts";
import { JOB_KEY_FILE } from "../../src/app/open-archive.ts";
import type { Archive } from "../../src/app/context.ts";
import { operatorActor, type Actor } from "../../src/core/actor.ts";
import { FORGED_JOB } from "../../src/db/jobs.ts";
import { JOB_INGEST } from "../../src/archive/jobs.ts";
import { createUpload, receiveUploadFile, startUploadIngest, uploadsRoot } from "../../src/archive/uploads.ts";
import { JOB_DOSSIER_PACKAGE } from "../../src/dossiers/dossier-package.ts";
import { disableUser, enableUser } from "../../src/access/users.ts";
import { adb } from "../../src/access/tables.ts";
import { Conflict } from "../../src/core/errors.ts";
import { say } from "../../src/core/messages.ts";

/**
 * A recurring watcher job leaves one finished row a minute; forgetDone deletes the finished ones of its kind
 * older than a moment, and leaves failed jobs, other kinds and recent ones for the operator.
 */
for (const b of await backends()) {
  test(`${b.backend.name}: forgetDone deletes only old finished jobs of one kind`, { skip: b.skip }, async () => {
    const { archive, close } = await freshArchive(b.backend);
    try {
      const q = archive.jobs;
      q.register("test.tick", async () => "ok");
      q.register("test.fail", async () => {
        throw new Error("deliberately failing");
      });
      q.register("test.other", async () => "ok");
      q.register("test.said", async () => {
        throw new Conflict(say("body.alreadyMerged", { ref: "B-0001" }));
      });
      const said = await q.enqueue(null, "test.said", {}, { maxAttempts: 1 });
      const tick = await q.enqueue(null, "test.tick", {});
      const fail = await q.enqueue(null, "test.fail", {}, { maxAttempts: 1 });
      const other = await q.enqueue(null, "test.other", {});
      await q.work({ once: true });
      assert.equal((await q.get(tick)).status, "done");
      assert.equal((await q.get(fail)).status, "failed");
      // A failure said as a key is kept as its key and parameters beside its English text; any other as text only.
      const saidJob = await q.get(said);
      assert.deepEqual([saidJob.status, saidJob.error, saidJob.errorKey, saidJob.errorParams], ["failed", "Body B-0001 was already merged into another record.", "body.alreadyMerged", { ref: "B-0001" }]);
      assert.deepEqual([(await q.get(fail)).error, (await q.get(fail)).errorKey], ["deliberately failing", null]);

      assert.equal(await q.forgetDone("test.tick", new Date(Date.now() - 3_600_000)), 0, "recent jobs stay");
      assert.equal(await q.forgetDone("test.tick", new Date(Date.now() + 60_000)), 1);
      assert.equal(await q.forgetDone("test.fail", new Date(Date.now() + 60_000)), 0, "failed jobs stay");
      await assert.rejects(q.get(tick), /no such background job/);
      assert.equal((await q.get(other)).status, "done", "other kinds stay");
    } finally {
      await close();
    }
  });
}

const archivist: Actor = { kind: "user", id: "usr_jobarchivistaaaaaaaaaaaaaa", role: "archivist" };

/** An upload of one small file, queued for ingest by the archivist: a job whose payload names a path. */
async function queuedIngest(a: Archive): Promise<string> {
  const up = await createUpload(a, archivist, { kind: "folder", label: "card" });
  await receiveUploadFile(a, archivist, { id: up.id, path: "DCIM/IMG_1.JPG", body: Readable.from([Buffer.from("bytes")]) });
  return (await startUploadIngest(a, archivist, { id: up.id })).job;
}

for (const b of await backends()) {
  test(`${b.backend.name}: a job row rewritten in the database, or written there directly, is refused with the reason and not run`, { skip: b.skip }, async () => {
    const { archive: a, close } = await freshArchive(b.backend);
    try {
      const ran: unknown[] = [];
      a.jobs.register("test.echo", async (jc) => ran.push(jc.job.payload));
      const honest = await a.jobs.enqueue(null, "test.echo", { n: 1 });
      const altered = await a.jobs.enqueue(null, "test.echo", { n: 2 });
      // someone with the database's password (not the archive's keys) changes one payload and inserts another job
      await a.db.db.updateTable("jobs").set({ payload: JSON.stringify({ n: 666 }) }).where("id", "=", altered).execute();
      const row = await a.db.db.selectFrom("jobs").selectAll().where("id", "=", honest).executeTakeFirstOrThrow();
      await a.db.db.insertInto("jobs").values({ ...row, id: "job_inserted", payload: JSON.stringify({ n: 999 }), dedupe_key: null }).execute();
      await a.jobs.work({ once: true });
      assert.deepEqual(ran, [{ n: 1 }], "only the archive's own job ran");
      for (const id of [altered, "job_inserted"]) {
        const j = await a.jobs.get(id);
        assert.equal(j.status, "failed");
        assert.equal(j.error, FORGED_JOB);
        assert.deepEqual([j.errorKey, j.errorParams], ["job.forged", {}], "the reason is said as a key too, for the reader's language");
        assert.equal(j.attempts, 1, "refused once, not retried");
      }
      assert.equal((await a.jobs.get(honest)).status, "done");
      const key = join(a.config.dataDir, "keys", JOB_KEY_FILE);
      assert.equal(statSync(key).mode & 0o777, 0o600, "the job key is kept 0600 with the other keys");
    } finally {
      await close();
    }
  });

  test(`${b.backend.name}: an ingest job whose payload points outside the uploads folder (a path, or a link in an upload) is refused`, { skip: b.skip }, async () => {
    const { archive: a, close } = await freshArchive(b.backend);
    try {
      await ensureAccounts(a, [archivist]);
      // a payload with a valid MAC (a bug, or a future caller) still cannot name the server's own files
      const outside = await a.jobs.enqueue(null, JOB_INGEST, { path: "/etc", actor: archivist });
      const dotdot = await a.jobs.enqueue(null, JOB_INGEST, { path: join(uploadsRoot(a), "..", "keys"), actor: archivist });
      mkdirSync(uploadsRoot(a), { recursive: true });
      symlinkSync("/etc", join(uploadsRoot(a), "upl_link"));
      const linked = await a.jobs.enqueue(null, JOB_INGEST, { path: join(uploadsRoot(a), "upl_link"), actor: archivist });
      await a.jobs.work({ once: true });
      for (const id of [outside, dotdot, linked]) {
        const j = await a.jobs.get(id);
        assert.equal(j.status, "failed");
        assert.match(j.error ?? "", /outside the archive's own folder/);
      }
      assert.equal(await a.db.db.selectFrom("sources").select("id").executeTakeFirst(), undefined, "nothing was taken in");
      const pkg = await a.jobs.enqueue(null, JOB_DOSSIER_PACKAGE, { dossierId: "dos_x", version: 1, recipient: "ICC", purpose: "p", clearance: "original", out: "/tmp/elsewhere", actor: archivist });
      await a.jobs.work({ once: true });
      assert.match((await a.jobs.get(pkg)).error ?? "", /package folder in this job lies outside/);
    } finally {
      await close();
    }
  });

  test(`${b.backend.name}: a disabled or demoted user's queued job does not run with their old rights`, { skip: b.skip }, async () => {
    const { archive: a, close } = await freshArchive(b.backend);
    try {
      await ensureAccounts(a, [archivist]);
      const first = await queuedIngest(a);
      await disableUser(a, operatorActor(), archivist.id);
      await a.jobs.work({ once: true });
      assert.match((await a.jobs.get(first)).error ?? "", /account that queued this work is disabled/);
      await enableUser(a, operatorActor(), archivist.id);
      const second = await queuedIngest(a);
      // an administrator moves the archivist to curator (no ingest): the job queued before runs as a curator, so not
      await adb(a.db.db).updateTable("users").set({ role: "curator" }).where("id", "=", archivist.id).execute();
      await a.jobs.work({ once: true });
      const j = await a.jobs.get(second);
      assert.equal(j.status, "failed");
      assert.match(j.error ?? "", /Your role \(curator\) may not do this \(archive\.ingest\)/);
      assert.equal(j.attempts, 1, "a refusal is not retried");
      assert.equal(await a.db.db.selectFrom("sources").select("id").executeTakeFirst(), undefined);
    } finally {
      await close();
    }
  });
}
