import { test } from "node:test";
import assert from "node:assert/strict";
import { IntegrityError } from "../../src/core/errors.ts";
import { WorkerPool } from "../../src/core/worker-pool.ts";
import { echo } from "../support/echo-worker.ts";

const entry = new URL("../support/echo-worker.ts", import.meta.url);
const rebuild = (message: string, code?: string): Error => (code === "integrity" ? new IntegrityError(message) : new Error(message));

test("a pool runs a TypeScript module on worker threads, answers in order of the jobs, and brings errors back typed", async () => {
  const pool = new WorkerPool(entry, echo, rebuild, 2);
  const got = await Promise.all(Array.from({ length: 20 }, (_, n) => pool.run({ n })));
  assert.deepEqual(got.map((g) => g.n), Array.from({ length: 20 }, (_, n) => n * 2));
  assert.ok(got.every((g) => g.thread !== 0), "every job ran off the main thread");
  assert.ok(new Set(got.map((g) => g.thread)).size <= 2, "no more workers than the pool's size");
  await assert.rejects(pool.run({ n: 7, fail: true }), (e: unknown) => e instanceof IntegrityError && /job 7 failed on purpose/.test(e.message));
  // and with the message key a screen words it by (the reader's language), not only the English sentence
  const failed = await pool.run({ n: 7, fail: true }).then(() => null, (e: unknown) => e as IntegrityError);
  assert.equal(failed?.key, "blob.tempSize");
  assert.deepEqual(failed?.params, { bytes: 7, expected: 0 });
  assert.equal((await pool.run({ n: 1 })).n, 2, "a failed job leaves the worker serving");
});

test("a worker whose module cannot load fails its jobs with the reason instead of hanging", async () => {
  const pool = new WorkerPool(new URL("file:///nonexistent/worker.ts"), echo, rebuild, 1);
  // The worker fails to load its module: the job is rejected with the reason, not lost or hung.
  await assert.rejects(pool.run({ n: 1 }));
});
