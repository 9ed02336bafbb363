import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createHash } from "node:crypto";
import { operatorActor } from "../../src/core/actor.ts";
import { ingestCard } from "../../src/archive/intake.ts";
import { verifyArchive } from "../../src/app/verify.ts";
import { backends } from "../support/backends.ts";
import { demoCard, freshArchive } from "../support/archive.ts";

const actor = operatorActor();

for (const { backend, skip } of await backends()) {
  test(`a card with faults: every file accounted for, every fault kept with its reason (${backend.name})`, { skip }, async () => {
    const { dir, truth } = await demoCard(3, true);
    const a = await freshArchive(backend);
    try {
      const s = await ingestCard(a.archive, actor, { path: dir, label: "test card" });
      const photoFiles = truth.photos.length;
      const files = photoFiles + truth.faults.length + 1; // + truth.json, itself a file on the card
      assert.equal(s.files, files);
      assert.equal(s.ingested + s.duplicates + s.quarantined, s.files, "ingested + duplicates + quarantined = files");
      const exact = truth.photos.filter((p) => p.kind === "exact-duplicate").length;
      assert.equal(s.duplicates, exact, "exact duplicates are sightings, not new originals");

      const sightings = await a.archive.db.db.selectFrom("sightings").selectAll().execute();
      const byPath = new Map(sightings.map((x) => [x.path, x]));
      for (const f of truth.faults) {
        const seen = byPath.get(f.path);
        assert.ok(seen, `fault ${f.fault} (${f.path}) is recorded`);
        if (f.expect === "quarantine") {
          assert.equal(seen.outcome, "quarantined", `${f.fault} is quarantined`);
          assert.ok(seen.reason && seen.reason.length > 10, `${f.fault} has a reason: ${seen.reason}`);
        } else {
          assert.notEqual(seen.outcome, "quarantined", `${f.fault} is preserved (${seen.reason})`);
        }
        // Every byte is evidence: a quarantined file is stored all the same, and reads back identical.
        const bytes = readFileSync(join(dir, f.path));
        const sha = createHash("sha256").update(bytes).digest("hex");
        assert.equal(seen.original_sha256, sha);
        assert.ok((await a.archive.blobs.read(sha)).equals(bytes), `${f.fault} is stored byte for byte`);
      }
      for (const p of truth.photos) {
        const seen = byPath.get(p.path);
        assert.ok(seen, `${p.path} recorded`);
        assert.equal(seen.original_sha256, p.sha256);
        assert.notEqual(seen.outcome, "quarantined", `${p.path}: ${seen.reason}`);
      }
      const originals = await a.archive.db.db.selectFrom("originals").selectAll().where("format", "=", "jpeg").where("status", "=", "preserved").execute();
      const one = originals.find((o) => o.sha256 === truth.photos[0]!.sha256)!;
      assert.equal(one.camera_make, truth.camera.make);
      assert.equal(one.camera_model, truth.camera.model);
      assert.ok(one.capture_time, "capture time parsed");
      assert.match(one.phash ?? "", /^[0-9a-f]{16}$/);
      assert.ok(one.exif_raw && one.exif_raw.length > 0, "raw EXIF kept");
      const rend = await a.archive.db.db.selectFrom("renditions").selectAll().where("original_sha256", "=", one.sha256).execute();
      assert.deepEqual(rend.map((r) => r.kind).sort(), ["blurred", "preview", "thumbnail"]);

      // One custody event per arrival, all in the log, and the archive verifies.
      const events = await a.archive.db.db.selectFrom("custody_events").select(["type", "outcome"]).execute();
      const count = (t: string, o?: string) => events.filter((e) => e.type === t && (!o || e.outcome === o)).length;
      assert.equal(count("accession"), 1);
      assert.equal(count("ingestion", "success"), s.ingested);
      assert.equal(count("ingestion", "duplicate"), s.duplicates);
      assert.equal(count("quarantine"), s.quarantined);
      const report = await verifyArchive(a.archive, actor);
      assert.deepEqual(report.findings, []);

      // The same card again: a new accession, nothing stored twice.
      const again = await ingestCard(a.archive, actor, { path: dir, label: "second copy" });
      assert.equal(again.files, files);
      assert.equal(again.ingested, 0);
      assert.equal(again.duplicates + again.quarantined, files);
    } finally {
      await a.close();
    }
  });
}

test("a path that is neither folder, zip nor disk image is refused with a sentence", async () => {
  const first = (await backends())[0]!;
  const a = await freshArchive(first.backend);
  try {
    await assert.rejects(ingestCard(a.archive, actor, { path: "/nonexistent/card" }), (err: Error) => {
      assert.match(err.message, /nonexistent/);
      return true;
    });
  } finally {
    await a.close();
  }
});

test("scale-out: a card taken in on PostgreSQL with S3 blobs, then verified", async (t) => {
  const pg = (await backends()).find((b) => b.backend.name === "postgres")!;
  if (pg.skip) return t.skip(pg.skip);
  const { startS3rver } = await import("../support/s3rver.ts");
  const s3 = await startS3rver();
  // The S3 client reads credentials from the process environment, as it would in production.
  Object.assign(process.env, s3.env);
  const { dir, truth } = await demoCard(3, true);
  const a = await freshArchive(pg.backend, { DALIL_BLOBS_URL: s3.urlFor("intake"), ...s3.env });
  try {
    const s = await ingestCard(a.archive, actor, { path: dir });
    assert.equal(s.files, truth.photos.length + truth.faults.length + 1);
    assert.equal(s.ingested + s.duplicates + s.quarantined, s.files);
    const photo = truth.photos[0]!;
    assert.ok((await a.archive.blobs.read(photo.sha256)).equals(readFileSync(join(dir, photo.path))), "read back from S3 byte for byte");
    assert.deepEqual((await verifyArchive(a.archive, actor)).findings, []);
  } finally {
    await a.close();
    await s3.stop();
  }
});
