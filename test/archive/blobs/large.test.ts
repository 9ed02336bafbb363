import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { openBlobStore } from "../../../src/archive/blobs/index.ts";
import { collect, fsLeg, patternStream, s3Leg, testKeys } from "../../support/blob-legs.ts";

const MiB = 1024 * 1024;

/** Highest RSS seen while fn runs, sampled every 20 ms, above the RSS just before it. */
async function rssGrowth<T>(fn: () => Promise<T>): Promise<{ value: T; growth: number }> {
  const base = process.memoryUsage.rss();
  let peak = base;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 20);
  try {
    const value = await fn();
    peak = Math.max(peak, process.memoryUsage.rss());
    return { value, growth: peak - base };
  } finally {
    clearInterval(timer);
  }
}

async function shaOf(size: number): Promise<string> {
  const h = createHash("sha256");
  for await (const p of patternStream(size)) h.update(p as Buffer);
  return h.digest("hex");
}

async function sliceOf(size: number, start: number, end: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  let pos = 0;
  for await (const p of patternStream(size)) {
    const b = p as Buffer;
    const a = Math.max(start - pos, 0);
    const z = Math.min(end + 1 - pos, b.length);
    if (z > a) parts.push(b.subarray(a, z));
    pos += b.length;
    if (pos > end) break;
  }
  return Buffer.concat(parts);
}

// The filesystem leg streams 384 MiB; s3rver is slower, so 72 MiB there (nine 8 MiB upload parts).
for (const [leg, size, limit] of [
  [fsLeg(), 384 * MiB, 48 * MiB],
  [s3Leg(), 72 * MiB + 12345, 64 * MiB],
] as const) {
  describe(`large blobs on ${leg.name}`, () => {
    before(() => leg.start());
    after(() => leg.stop());

    test(`a ${Math.round(size / MiB)} MiB stream is stored, verified and range-read in flat memory`, async () => {
      const store = await openBlobStore(leg.location(), testKeys(), { env: leg.env });
      // Warm up (JIT, sockets, buffers) so the measurement sees the steady state.
      await store.putStream(patternStream(8 * MiB, MiB, 7));
      const expected = await shaOf(size);

      const put = await rssGrowth(() => store.putStream(patternStream(size)));
      assert.deepEqual(put.value, { sha256: expected, size, created: true });
      assert.ok(put.growth < limit, `RSS grew by ${(put.growth / MiB).toFixed(1)} MiB while storing (limit ${limit / MiB})`);

      const verified = await rssGrowth(() => store.verify(expected));
      assert.deepEqual(verified.value, { ok: true, size });
      assert.ok(verified.growth < limit, `RSS grew by ${(verified.growth / MiB).toFixed(1)} MiB while verifying`);

      // A range across an S3 part boundary and many chunks, far from the start.
      const start = 8 * MiB - 70_000;
      const end = 8 * MiB + 200_000;
      const got = await collect(await store.get(expected, { start, end }));
      assert.ok(got.equals(await sliceOf(size, start, end)), "range content");
      const tail = await collect(await store.get(expected, { start: size - 10, end: size - 1 }));
      assert.ok(tail.equals(await sliceOf(size, size - 10, size - 1)), "last bytes");
      await store.close();
    });
  });
}
