import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeDemoCard } from "../../src/archive/demo-card/index.ts";
import { analyseCard, type PhotoInput } from "../../src/authenticity/index.ts";

/**
 * The demo card's planted anomalies (recorded truth) against the analysis: each is flagged, above information,
 * with the finding that names it; no photo the camera wrote and no one touched is flagged above information.
 */
test("every planted anomaly of a demo card is flagged for its reason, and the clean photos are not", { timeout: 300_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), "dalil-aut-card-"));
  try {
    const truth = await writeDemoCard(dir, { bodies: 12, seed: "authenticity-test", withAnomalies: true });
    assert.equal(truth.anomalies?.length, 6);
    const inputs: PhotoInput[] = [];
    const seen = new Set<string>();
    for (const p of truth.photos) {
      const bytes = readFileSync(join(dir, ...p.path.split("/")));
      const sha256 = createHash("sha256").update(bytes).digest("hex");
      assert.equal(sha256, p.sha256, `truth follows the bytes of ${p.path}`);
      if (seen.has(sha256)) continue;
      seen.add(sha256);
      inputs.push({ sha256, path: p.path, phash: null, bytes: async () => bytes });
    }
    const r = await analyseCard(inputs, { content: true });
    for (const a of truth.anomalies!) {
      const mine = r.findings.filter((f) => f.photo === a.sha256 && f.severity !== "information").map((f) => f.key);
      assert.ok((mine as string[]).includes(a.expect), `${a.anomaly} (${a.path}) is flagged as ${a.expect}; found ${mine.join(", ") || "nothing"}`);
    }
    const planted = new Set(truth.anomalies!.map((a) => a.sha256));
    const flaggedClean = r.findings.filter((f) => f.photo && !planted.has(f.photo) && f.severity !== "information");
    assert.deepEqual(flaggedClean.map((f) => `${f.key} ${JSON.stringify(f.params)}`), []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
