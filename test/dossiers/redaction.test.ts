import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import sharp from "sharp";
import { operatorActor, type Actor } from "../../src/core/actor.ts";
import { ingestCard } from "../../src/archive/intake.ts";
import { markRegion, redactedImage, regionsOf, withdrawRegion } from "../../src/dossiers/redaction.ts";
import { backends } from "../support/backends.ts";
import { demoCard, freshArchive } from "../support/archive.ts";

const operator = operatorActor();
const investigator: Actor = { kind: "user", id: "usr_inv", role: "investigator" };
const prosecutor: Actor = { kind: "user", id: "usr_pros", role: "prosecutor" };

async function blobSha(a: { blobs: { get(s: string): Promise<AsyncIterable<unknown>> } }, sha: string): Promise<string> {
  const h = createHash("sha256");
  for await (const c of await a.blobs.get(sha)) h.update(c as Buffer);
  return h.digest("hex");
}

for (const { backend, skip } of await backends()) {
  test(`redacted copies fill marked regions, blur unmarked photos, log each marking, and leave the original intact (${backend.name})`, { skip, timeout: 120_000 }, async () => {
    const { dir } = await demoCard(2, false, "redact");
    const t = await freshArchive(backend);
    try {
      const a = t.archive;
      await ingestCard(a, operator, { path: dir, label: "card" });
      const [p1, p2] = (await a.db.db.selectFrom("originals").select("sha256").where("status", "=", "preserved").where("media_kind", "=", "image").orderBy("sha256").limit(2).execute()).map((r) => r.sha256);
      assert.ok(p1 && p2);

      await assert.rejects(markRegion(a, prosecutor, { sha256: p1, x: 0, y: 0, w: 10, h: 10 }), /may not do this \(redaction\.mark\)/);
      await assert.rejects(markRegion(a, investigator, { sha256: p1, x: 0, y: 0, w: 0, h: 10 }), /at least one pixel/);
      const before = await a.log.size();
      const r = await markRegion(a, investigator, { sha256: p1, x: 20, y: 30, w: 60, h: 40, label: "face" });
      const stray = await markRegion(a, investigator, { sha256: p1, x: 0, y: 0, w: 5, h: 5, label: "other" });
      await withdrawRegion(a, investigator, stray.id);
      assert.equal(await a.log.size(), before + 3, "two markings and a withdrawal, each a custody event");
      const events = (await a.log.eventsFor(p1)).map((e) => e.event).filter((e) => e.type === "metadata modification");
      assert.deepEqual(events.map((e) => e.detail.action), ["redaction.mark", "redaction.mark", "redaction.withdraw"]);
      assert.equal(events[0]!.actor.id, investigator.id);
      assert.deepEqual((await regionsOf(a, prosecutor, p1)).map((x) => x.id), [r.id]);

      const red = await redactedImage(a, p1);
      assert.equal(red.derivedFrom, p1);
      assert.equal(red.mediaType, "image/jpeg");
      assert.deepEqual(red.regions, [{ x: 20, y: 30, w: 60, h: 40 }]);
      const { data, info } = await sharp(red.bytes).raw().toBuffer({ resolveWithObject: true });
      const px = (x: number, y: number): number[] => [...data.subarray((y * info.width + x) * info.channels, (y * info.width + x) * info.channels + 3)];
      for (const [x, y] of [[25, 35], [50, 50], [78, 68]] as const) assert.ok(px(x, y).every((v) => v < 16), `(${x},${y}) is filled: ${px(x, y).join(",")}`);
      assert.ok(px(5, 5).some((v) => v > 16) || px(150, 150).some((v) => v > 16), "outside the region the photo remains");
      assert.notEqual(createHash("sha256").update(red.bytes).digest("hex"), p1);
      assert.equal(await blobSha(a, p1), p1, "the original is unchanged");
      assert.equal((await sharp(red.bytes).metadata()).exif, undefined, "no EXIF travels with a copy");

      // Unmarked: blurred whole — far less detail than the original.
      const blurred = await redactedImage(a, p2);
      assert.deepEqual(blurred.regions, []);
      // Edge energy (a Laplacian's spread) at one scale; stats() reads its input, so the pipeline is rendered first.
      const detail = async (b: Buffer): Promise<number> => {
        const edges = await sharp(b).greyscale().resize(256, 256, { fit: "fill" }).convolve({ width: 3, height: 3, kernel: [0, -1, 0, -1, 4, -1, 0, -1, 0], offset: 128 }).png().toBuffer();
        return (await sharp(edges).stats()).channels[0]!.stdev;
      };
      const orig = Buffer.concat(await (await a.blobs.get(p2)).toArray() as Buffer[]);
      const [db, dorig] = [await detail(blurred.bytes), await detail(orig)];
      assert.ok(db < dorig / 3, `strongly blurred: ${db} vs ${dorig}`);
      assert.equal(await blobSha(a, p2), p2);
    } finally {
      await t.close();
    }
  });
}
