/**
 * A package job whose process dies after logging the handover: when its lease runs out the job runs again, marks
 * the dead attempt's handover interrupted, removes the incomplete bag and builds a whole package under a new id.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Actor } from "../../src/core/actor.ts";
import { enqueueDossierPackage } from "../../src/dossiers/dossier-package.ts";
import { verifyPackage } from "../../src/dossiers/package-verify.ts";
import type { PackageIndex } from "../../src/dossiers/package.ts";
import { custody } from "../../src/ledger/events.ts";
import { backends } from "../support/backends.ts";
import { ensureAccounts, freshArchive } from "../support/archive.ts";
import { frozenPhotoDossier } from "../support/packages.ts";

const archivist: Actor = { kind: "user", id: "usr_arch", role: "archivist" };

for (const { backend, skip } of await backends()) {
  test(`a package job that died after its handover resumes: the dead attempt is marked interrupted, the new one builds a whole package (${backend.name})`, { skip, timeout: 180_000 }, async () => {
    const t = await freshArchive(backend);
    try {
      const a = t.archive;
      await ensureAccounts(a, [archivist]);
      const { dossierId, photos } = await frozenPhotoDossier(a, "pkg-job");
      const q = await enqueueDossierPackage(a, archivist, { dossierId, version: 1, recipient: "ICC", clearance: "original", purpose: "Case 12", report: false });

      // Attempt 1 claims the job, marks its directory, logs its handover and writes part of the bag, then dies.
      const claimed = await a.jobs.claim();
      assert.equal(claimed?.id, q.job);
      const dead = `pkg_${q.job.replace(/^job_/, "")}_a1`;
      const handover = custody("export", archivist, new Date(), [{ id: dead, role: "package" }, ...photos.map((sha256) => ({ sha256, role: "exhibit" }))], { package: dead, recipient: "ICC", purpose: "Case 12" });
      await a.db.transaction((tx) => a.log.append(tx, handover));
      mkdirSync(join(q.out, "data", "E-0001"), { recursive: true });
      writeFileSync(join(q.out, ".dalil-package-building"), `${JSON.stringify({ package: dead })}\n`);
      writeFileSync(join(q.out, "data", "E-0001", "original.jpg"), "half a photo");
      // Its lease runs out.
      await a.db.db.updateTable("jobs").set({ locked_until: new Date(Date.now() - 1000).toISOString() }).where("id", "=", q.job).execute();

      await a.jobs.work({ once: true });
      const job = await a.jobs.get(q.job);
      assert.equal(job.status, "done", job.error ?? "");
      const v = await verifyPackage(q.out);
      assert.deepEqual(v.problems, []);
      const index = JSON.parse(readFileSync(join(q.out, "data/package.json"), "utf8")) as PackageIndex;
      assert.equal(index.id, `pkg_${q.job.replace(/^job_/, "")}_a2`);
      const deadEvents = (await a.log.eventsFor(dead)).map((e) => e.event);
      assert.deepEqual(deadEvents.map((e) => [e.outcome, e.detail.reason ?? null]), [["success", null], ["failure", "interrupted"]]);
      assert.ok(existsSync(join(q.out, "bagit.txt")));
    } finally {
      await t.close();
    }
  });
}
