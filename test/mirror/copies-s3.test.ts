import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { operatorActor } from "../../src/core/actor.ts";
import { ingestCard } from "../../src/archive/intake.ts";
import { blobLayout } from "../../src/archive/index.ts";
import { openS3Backend } from "../../src/archive/blobs/s3-backend.ts";
import { auditCopies, JOB_AUDIT_COPY, scheduleCopyAudits } from "../../src/mirror/index.ts";
import { parseLeaf } from "../../src/ledger/events.ts";
import { backends } from "../support/backends.ts";
import { demoCard } from "../support/archive.ts";
import { freshAccessArchive } from "../support/accounts.ts";
import { collect } from "../support/blob-legs.ts";
import { startS3rver } from "../support/s3rver.ts";

const HOUR = 3_600_000;

/** A port nothing listens on: taken from the system, then closed. */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", () => r()));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

/**
 * A copy of the blob store kept in a bucket (kind "s3" in copies.json), against a real S3-compatible server
 * (s3rver): filled by the first audit, a rotten and a deleted object found and written back, the archive's own
 * lost object restored from the bucket, a bucket out of reach refused with its sentence, and the copy's own job.
 */
for (const { backend, skip } of await backends()) {
  test(`dalil audit copies compares an S3 copy object by object, repairs it and repairs the archive from it; an unreachable one fails with its sentence, on ${backend.name}`, { skip, timeout: 300_000 }, async () => {
    const s3 = await startS3rver();
    const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };
    Object.assign(process.env, s3.env); // credentials from the environment, as the blob store takes them
    const t = await freshAccessArchive(backend);
    const a = t.ctx;
    try {
      const operator = operatorActor();
      const { dir } = await demoCard(2, false, "copies-s3");
      await ingestCard(a, operator, { path: dir });
      const url = s3.urlFor("offsite");
      const copies = [{ name: "offsite", kind: "s3" as const, url }];
      const raw = await openS3Backend(url, s3.env);
      const keysIn = async (): Promise<string[]> => {
        const out: string[] = [];
        for await (const k of raw.list("")) out.push(k);
        return out.sort();
      };
      const archiveKeys: string[] = [];
      for await (const o of a.blobs.listObjects()) archiveKeys.push(o.key);

      // an empty bucket: every object is missing, and written
      const first = await auditCopies(a, operator, { copies });
      assert.equal(first.copies[0]!.missing, archiveKeys.length);
      assert.equal(first.copies[0]!.repaired, archiveKeys.length);
      assert.deepEqual(await keysIn(), archiveKeys.sort());

      // one object rots in the bucket (a byte flipped), another is deleted, and the bucket holds one of its own
      const [sha1, sha2] = (await a.db.db.selectFrom("originals").select("sha256").orderBy("sha256").limit(2).execute()).map((r) => r.sha256);
      const keyOf = (sha: string): string => blobLayout.blob(a.blobs.nameOf(sha));
      const rotten = (await raw.readSmall(keyOf(sha1!)))!;
      rotten[rotten.length - 5] = rotten[rotten.length - 5]! ^ 0xff;
      await raw.writeSmall(keyOf(sha1!), rotten, "replace");
      await raw.remove(keyOf(sha2!));
      const stray = `${keyOf(sha2!).slice(0, -8)}00000000`;
      await raw.writeSmall(stray, Buffer.from("not the archive's"), "replace");

      const before = await a.log.size();
      const r = await auditCopies(a, operator, { copies });
      assert.deepEqual(
        r.findings.map((f) => `${f.copy} ${f.problem} ${f.key} ${f.repaired}`).sort(),
        [`offsite corrupt ${keyOf(sha1!)} true`, `offsite missing ${keyOf(sha2!)} true`, `offsite extra ${stray} false`].sort(),
      );
      for (const sha of [sha1!, sha2!]) {
        assert.deepEqual(await raw.readSmall(keyOf(sha)), await collect((await a.blobs.readObject(keyOf(sha)))!), "the bucket holds the archive's bytes again");
      }
      const events = (await a.db.db.selectFrom("custody_events").select("leaf").where("seq", ">=", before).orderBy("seq").execute()).map((x) => parseLeaf(x.leaf));
      assert.deepEqual(events.map((e) => `${e.type}:${String(e.detail.act ?? e.detail.audit)}`), ["replication:repaired", "replication:repaired", "fixity check:copies"]);
      assert.ok(!JSON.stringify(events).includes("offsite"), "the copy's name is a commitment in the log");

      // the archive loses an object of its own: the bucket's copy (which passes the log's check) brings it back
      rmSync(join(t.dataDir, "blobs", ...keyOf(sha2!).split("/")));
      assert.equal((await a.blobs.verify(sha2!)).ok, false);
      const back = await auditCopies(a, operator, { copies });
      assert.equal(back.archive.repaired, 1);
      assert.equal((await a.blobs.verify(sha2!)).ok, true);

      // a bucket out of reach stops the audit with its sentence, and nothing is logged as audited
      const size = await a.log.size();
      const nowhere = `s3://${s3.bucket}/offsite?endpoint=${encodeURIComponent(`http://127.0.0.1:${await closedPort()}`)}&region=us-east-1&forcePathStyle=true`;
      await assert.rejects(auditCopies(a, operator, { copies: [{ name: "offsite", kind: "s3", url: nowhere }] }), (err: Error & { key?: string }) => {
        assert.equal(err.key, "copies.s3Unreachable");
        assert.match(err.message, /The copy "offsite" cannot be reached at s3:\/\/.*\/offsite \(http:\/\/127\.0\.0\.1:\d+\): .*The audit did not run/);
        return true;
      });
      assert.equal(await a.log.size(), size);

      // the S3 copy's own periodic job: runs, finds the rot, repairs it; the unreachable one fails at once with the key
      await raw.writeSmall(keyOf(sha1!), rotten, "replace");
      writeFileSync(join(t.dataDir, "copies.json"), JSON.stringify([{ name: "offsite", kind: "s3", url, everyHours: 12 }, { name: "gone", kind: "s3", url: nowhere, everyHours: 12 }]));
      assert.deepEqual((await scheduleCopyAudits(a)).map((s) => s.copy), ["offsite", "gone"]);
      t.clock.advance(12 * HOUR);
      const ran = [];
      for (let j = await a.jobs.claim([JOB_AUDIT_COPY]); j; j = await a.jobs.claim([JOB_AUDIT_COPY])) ran.push(await a.jobs.runOne(j));
      const ok = ran.find((j) => j.payload.copy === "offsite")!;
      assert.equal(ok.status, "done", ok.error ?? "");
      assert.deepEqual({ corrupt: (ok.result as { corrupt: number }).corrupt, repaired: (ok.result as { repaired: number }).repaired }, { corrupt: 1, repaired: 1 });
      const gone = ran.find((j) => j.payload.copy === "gone")!;
      assert.equal(gone.status, "failed");
      assert.equal(gone.errorKey, "copies.s3Unreachable");
      await raw.close();
    } finally {
      await t.close();
      await s3.stop();
      process.env.AWS_ACCESS_KEY_ID = saved.id;
      process.env.AWS_SECRET_ACCESS_KEY = saved.secret;
      if (saved.id === undefined) delete process.env.AWS_ACCESS_KEY_ID;
      if (saved.secret === undefined) delete process.env.AWS_SECRET_ACCESS_KEY;
    }
  });
}
