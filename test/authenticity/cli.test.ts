import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { backends } from "../support/backends.ts";
import { dalil } from "../support/cli.ts";

/**
 * `dalil authenticity` on a demo card taken in: the run is a custody event, a second run of the same photos
 * gives the same report digest, the report reads in Arabic, the error-level map is written (and logged), files
 * outside the archive can be analysed, and bad input is refused with a sentence.
 */
for (const { backend, skip } of await backends()) {
  test(`dalil authenticity run, show, analyse and ela (${backend.name})`, { skip, timeout: 300_000 }, async () => {
    const fresh = await backend.fresh();
    const env: Record<string, string> = fresh.databaseUrl ? { DALIL_DATABASE_URL: fresh.databaseUrl } : {};
    const data = join(fresh.dataDir, "archive");
    const d = ["--data", data];
    const card = join(fresh.dataDir, "card");
    try {
      assert.equal((await dalil([...d, "init"], env)).code, 0);
      const made = await dalil([...d, "demo-card", card, "--bodies", "4"], env);
      assert.equal(made.code, 0, made.stderr);
      const ing = await dalil([...d, "--json", "ingest", card, "--source", "card-A"], env);
      assert.equal(ing.code, 0, ing.stderr);

      const run = await dalil([...d, "--json", "authenticity", "run", "card-A"], env);
      assert.equal(run.code, 0, run.stderr);
      const v = JSON.parse(run.stdout) as { run: string; reportSha256: string; eventSeq: number; report: { cameras: { label: string; model: string; serial: string | null }[]; counts: { photos: number; flagged: number } } };
      assert.equal(v.report.cameras[0]?.model, "NIKON D90");
      assert.ok(v.report.counts.photos > 4);
      assert.equal(v.report.counts.flagged, 0, "a clean demo card raises nothing above information");
      assert.ok(v.report.cameras[0]?.serial, "the operator (admin) sees the serial");

      const again = await dalil([...d, "--json", "authenticity", "run", "card-A"], env);
      const v2 = JSON.parse(again.stdout) as { run: string; reportSha256: string; eventSeq: number };
      assert.notEqual(v2.run, v.run);
      assert.equal(v2.reportSha256, v.reportSha256, "same photos, same version and parameters: same report");
      assert.ok(v2.eventSeq > v.eventSeq);

      const ar = await dalil([...d, "authenticity", "show", "card-A", "--lang", "ar"], env);
      assert.equal(ar.code, 0, ar.stderr);
      assert.match(ar.stdout, /الكاميرات وتواقيع الترويسات/);
      assert.match(ar.stdout, /NIKON D90/);

      // The error-level map of one photo.
      const sha = /"sha256":"([0-9a-f]{64})"/.exec(run.stdout)![1]!;
      const out = join(fresh.dataDir, "ela.png");
      const ela = await dalil([...d, "authenticity", "ela", sha, "--out", out], env);
      assert.equal(ela.code, 0, ela.stderr);
      assert.deepEqual([...readFileSync(out).subarray(1, 4)], [0x50, 0x4e, 0x47]);
      const twice = await dalil([...d, "authenticity", "ela", sha, "--out", out], env);
      assert.equal(twice.code, 2);
      assert.match(twice.stderr, /already exists; name a new file with --out/);

      // Outside the archive: the card's folder itself.
      const off = await dalil(["authenticity", "analyse", join(card, "DCIM"), "--no-content", "--json"], env);
      assert.equal(off.code, 0, off.stderr);
      assert.ok((JSON.parse(off.stdout) as { counts: { photos: number } }).counts.photos > 4);

      // Refusals, in words.
      const none = await dalil([...d, "authenticity", "show", "no-such-card"], env);
      assert.equal(none.code, 1);
      assert.equal(none.stderr, "dalil: No source with id or label “no-such-card”.\n");
      const badLang = await dalil([...d, "authenticity", "show", "card-A", "--lang", "fr"], env);
      assert.notEqual(badLang.code, 0);
      const badQ = await dalil([...d, "authenticity", "ela", sha, "--out", join(fresh.dataDir, "x.png"), "--quality", "12"], env);
      assert.match(badQ.stderr, /--quality takes a whole number from 50 to 99/);
      assert.equal(existsSync(join(fresh.dataDir, "x.png")), false);
    } finally {
      await fresh.cleanup?.();
    }
  });
}
