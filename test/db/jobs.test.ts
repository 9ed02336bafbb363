import { test } from "node:test";
import assert from "node:assert/strict";
import { backends } from "../support/backends.ts";
import { freshArchive } from "../support/archive.ts";

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
      const tick = await q.enqueue(null, "test.tick", {});
      const fail = await q.enqueue(null, "test.fail", {}, { maxAttempts: 1 });
      const other = await q.enqueue(null, "test.other", {});
      await q.work({ once: true });
      assert.equal((await q.get(tick)).status, "done");
      assert.equal((await q.get(fail)).status, "failed");

      assert.equal(await q.forgetDone("test.tick", new Date(Date.now() - 3_600_000)), 0, "recent jobs stay");
      assert.equal(await q.forgetDone("test.tick", new Date(Date.now() + 60_000)), 1);
      assert.equal(await q.forgetDone("test.fail", new Date(Date.now() + 60_000)), 0, "failed jobs stay");
      await assert.rejects(q.get(tick), /No job/);
      assert.equal((await q.get(other)).status, "done", "other kinds stay");
    } finally {
      await close();
    }
  });
}
