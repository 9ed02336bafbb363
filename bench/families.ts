import { BANDS, rankBodies } from "../src/families/scoring.ts";
import { generateSynthetic, syntheticBodyFeatures, syntheticReportFeatures } from "../src/families/synthetic.ts";

/**
 * Candidate ranking on synthetic reports against a synthetic catalogue with ground truth: recall@1/5/10, mean
 * reciprocal rank, the share of "strong" candidates that are right, and the time to rank one report against
 * 11,000 bodies. Targets: recall@10 ≥ 0.95, strong precision ≥ 0.99, ≤ 50 ms a report.
 */
export async function benchFamilies(opts: { bodies?: number; reports?: number; seed?: number } = {}): Promise<Record<string, number>> {
  const nBodies = opts.bodies ?? 11_000;
  const nReports = opts.reports ?? 200;
  const t0 = performance.now();
  const { bodies, reports } = generateSynthetic({ bodies: nBodies, reports: nReports, seed: opts.seed ?? 7 });
  const features = bodies.map(syntheticBodyFeatures);
  const genMs = performance.now() - t0;
  let at1 = 0, at5 = 0, at10 = 0, rr = 0, present = 0, strong = 0, strongRight = 0;
  const times: number[] = [];
  for (const r of reports) {
    const f = syntheticReportFeatures(r.input);
    const s = performance.now();
    const ranked = rankBodies(f, features, 50);
    times.push(performance.now() - s);
    for (const c of ranked) {
      if (c.band !== "strong") continue;
      strong++;
      if (c.bodyId === r.truth) strongRight++;
    }
    if (r.truth === null) continue;
    present++;
    const pos = ranked.findIndex((c) => c.bodyId === r.truth);
    if (pos === 0) at1++;
    if (pos >= 0 && pos < 5) at5++;
    if (pos >= 0 && pos < 10) at10++;
    if (pos >= 0) rr += 1 / (pos + 1);
  }
  times.sort((a, b) => a - b);
  const out = {
    bodies: nBodies,
    reports: nReports,
    reportsInCatalogue: present,
    recallAt1: at1 / present,
    recallAt5: at5 / present,
    recallAt10: at10 / present,
    mrr: rr / present,
    strongCandidates: strong,
    strongPrecision: strong ? strongRight / strong : 1,
    strongThreshold: BANDS.strong,
    msPerReportMedian: times[Math.floor(times.length / 2)] ?? 0,
    msPerReportP95: times[Math.floor(times.length * 0.95)] ?? 0,
    generateMs: genMs,
  };
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await benchFamilies();
  for (const [k, v] of Object.entries(r)) console.log(`${k.padEnd(20)} ${typeof v === "number" && !Number.isInteger(v) ? v.toFixed(3) : v}`);
}
