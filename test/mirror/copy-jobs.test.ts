import { test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { operatorActor } from "../../src/core/actor.ts";
import { ingestCard } from "../../src/archive/intake.ts";
import { JOB_AUDIT_COPY, scheduleCopyAudits } from "../../src/mirror/index.ts";
import { parseLeaf } from "../../src/ledger/events.ts";
import { backends, tempDir } from "../support/backends.ts";
import { demoCard } from "../support/archive.ts";
import { freshAccessArchive } from "../support/accounts.ts";

const HOUR = 3_600_000;

/**
 * Each copy's own audit job (src/mirror/copy-jobs.ts), run by the queue under a test clock: on its own schedule,
 * again after each run, failing at once (with the audit's message key) when the copy cannot be read, and ended
 * when the copy leaves copies.json.
 */
for (const { backend, skip } of await backends()) {
  test(`each copy in copies.json is audited by its own periodic job; one that cannot run fails loudly, on ${backend.name}`, { skip, timeout: 300_000 }, async () => {
    const t = await freshAccessArchive(backend);
    const a = t.ctx;
    try {
      const { dir } = await demoCard(1, false, "copy-jobs");
      await ingestCard(a, operatorActor(), { path: dir });
      const usb = join(tempDir("dalil-copy-"), "blobs");
      cpSync(join(t.dataDir, "blobs"), usb, { recursive: true });
      const gone = join(tempDir("dalil-copy-"), "unmounted");
      const config = (list: unknown[]) => writeFileSync(join(t.dataDir, "copies.json"), JSON.stringify(list));
      config([
        { name: "usb drive", kind: "folder", path: usb, everyHours: 6 },
        { name: "museum", kind: "mirror", path: gone },
      ]);

      const scheduled = await scheduleCopyAudits(a);
      assert.deepEqual(scheduled.map((s) => s.copy), ["usb drive", "museum"]);
      assert.deepEqual(await scheduleCopyAudits(a), scheduled, "a restart does not start a second chain");
      assert.equal(await a.jobs.claim([JOB_AUDIT_COPY]), null, "nothing runs before its time");

      // six hours on: the USB drive's audit runs, passes, is logged, and its next run is queued six hours on
      t.clock.advance(6 * HOUR);
      const before = await a.log.size();
      const first = await a.jobs.claim([JOB_AUDIT_COPY]);
      assert.equal(first?.payload.copy, "usb drive");
      const done = await a.jobs.runOne(first!);
      assert.equal(done.status, "done", done.error ?? "");
      assert.equal((done.result as { audited: boolean; missing: number }).audited, true);
      const events = (await a.db.db.selectFrom("custody_events").select("leaf").where("seq", ">=", before).execute()).map((x) => parseLeaf(x.leaf));
      assert.deepEqual(events.map((e) => `${e.type}:${String(e.detail.audit)}:${e.outcome}`), ["fixity check:copies:success"]);
      const queued = async () =>
        (await a.db.db.selectFrom("jobs").select(["payload", "run_after"]).where("kind", "=", JOB_AUDIT_COPY).where("status", "=", "queued").execute())
          .map((j) => `${String((JSON.parse(j.payload) as { copy: string }).copy)} ${j.run_after}`)
          .sort();
      assert.deepEqual(await queued(), ["museum 2026-03-02T10:00:00.000Z", "usb drive 2026-03-01T22:00:00.000Z"]);

      // a day on: the museum's copy is not there; its job fails at once with the audit's key, says so in the
      // log of the process, and the next audit is still queued (a day on)
      t.clock.advance(18 * HOUR);
      const runDue = async () => {
        const out = [];
        for (let j = await a.jobs.claim([JOB_AUDIT_COPY]); j; j = await a.jobs.claim([JOB_AUDIT_COPY])) out.push(await a.jobs.runOne(j));
        return out;
      };
      const ran = await runDue();
      const museum = ran.find((j) => j.payload.copy === "museum")!;
      assert.equal(museum.status, "failed");
      assert.equal(museum.errorKey, "copies.unreadable");
      assert.equal(museum.attempts, 1, "no silent retries: it fails on the first attempt");
      assert.ok(t.logger.lines.some((l) => l.includes("copy audit failed") && l.includes("museum")));
      assert.ok((await queued()).some((q) => q.startsWith("museum 2026-03-03T10:00")));

      // the museum taken out of copies.json: its chain ends after its next turn; a broken schedule is refused
      config([{ name: "usb drive", kind: "folder", path: usb, everyHours: 6 }]);
      t.clock.advance(24 * HOUR);
      await runDue();
      assert.ok(!(await queued()).some((q) => q.startsWith("museum")));
      assert.ok((await queued()).some((q) => q.startsWith("usb drive")));
      config([{ name: "usb drive", kind: "folder", path: usb, everyHours: 0 }]);
      await assert.rejects(scheduleCopyAudits(a), /everyHours/);
    } finally {
      await t.close();
    }
  });
}
