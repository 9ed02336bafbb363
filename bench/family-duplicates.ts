import { cpuUsage } from "node:process";
import { loadavg } from "node:os";
import { SEED, VOCABULARY_NAMES } from "../src/db/migrations/0003-vocabulary-seed.ts";
import { Vocabularies } from "../src/catalogue/index.ts";
import { DUPLICATE_THRESHOLD, findPairs, sideOf, type Side } from "../src/families/duplicates.ts";
import { reportNames } from "../src/families/matching.ts";
import { resetNameCaches } from "../src/names/index.ts";
import { reportColumns, toReportView } from "../src/families/reports.ts";
import { keysOf } from "../src/families/scoring.ts";
import type { CaseReportsTable } from "../src/families/casework-tables.ts";
import { duplicatePairs, generateSynthetic } from "../src/families/synthetic.ts";
import { row } from "./support.ts";

/**
 * Duplicate reports (src/families/duplicates.ts) on synthetic reports with a tenth of the people reported again
 * by another relative (another spelling or script, a year off, the arrest date as they remember it): precision and
 * recall of the proposals against the generator's truth, and the time of a full scan (every open report's
 * names prepared, blocked by key, every pair sharing a key weighed) beside a plain loop that only prepares each
 * report's names and blocking keys. BENCH_DUPLICATES_REPORTS (default 2,000; the target is 20,000 in under a
 * minute on 2 cores).
 */

function cpuMs(): number {
  const u = cpuUsage();
  return (u.user + u.system) / 1000;
}

function seedVocabularies(): Vocabularies {
  return new Vocabularies(
    VOCABULARY_NAMES.flatMap((v) =>
      SEED[v].map((t, i) => ({ vocabulary: v, code: t.code, labelAr: t.ar, labelEn: t.en, parent: t.parent ?? null, extra: t.extra ?? {}, sort: i, retired: false })),
    ),
  );
}

/** The stored row a synthetic report would become (the same columns `createReport` writes). */
function rowOf(input: Parameters<typeof reportColumns>[0] & { ref: string }, vocab: Vocabularies): CaseReportsTable {
  const at = "2026-01-01T00:00:00.000Z";
  return {
    ...reportColumns(input, vocab),
    id: `rep_${input.ref}`,
    ref: input.ref,
    consent: "{}",
    filed_by: null,
    caseworker_id: null,
    status: "open",
    version: 1,
    created_at: at,
    created_by: "bench",
    updated_at: at,
    other_reporters: "[]",
    merged_into: null,
  } as CaseReportsTable;
}

export async function benchDuplicates(opts: { reports?: number; share?: number; seed?: number } = {}): Promise<Record<string, number>> {
  const n = opts.reports ?? Number(process.env.BENCH_DUPLICATES_REPORTS ?? 2000);
  const share = opts.share ?? 0.1;
  const seed = opts.seed ?? 7;
  // about n reports in all: the first reports and the relatives' second (and third) ones
  const { reports } = generateSynthetic({ bodies: 0, reports: Math.round(n / (1 + share * 1.2)), duplicates: share, seed });
  const truth = duplicatePairs(reports);
  const dupReports = reports.filter((r) => r.duplicateOf).length;
  console.log(`\nfamilies: duplicate reports, ${reports.length.toLocaleString("en")} synthetic reports, ${dupReports} of them filed again by another relative (${truth.size} true pairs, seed ${seed})`);
  const vocab = seedVocabularies();
  const rows = reports.map((r) => rowOf(r.input, vocab)).sort((a, b) => (a.id < b.id ? -1 : 1));

  // the full scan as proposeDuplicates runs it after reading the open reports: sides (names prepared), pairs
  // both measured cold: the names module remembers analysed names and comparisons
  resetNameCaches();
  let c0 = cpuMs();
  let t = performance.now();
  const found = findPairs(rows.map(sideOf));
  const scanMs = performance.now() - t;
  const scanCpu = cpuMs() - c0;
  // the baseline: only each report's view, prepared names and blocking keys, nothing compared
  resetNameCaches();
  c0 = cpuMs();
  t = performance.now();
  let keys = 0;
  for (const r of rows) keys += keysOf(reportNames(toReportView(r))).size;
  const baseMs = performance.now() - t;
  const baseCpu = cpuMs() - c0;

  const refOf = (id: string): string => id.slice(4);
  const proposed = new Set(found.map((p) => [refOf(p.a), refOf(p.b)].sort().join("|")));
  const right = [...proposed].filter((p) => truth.has(p)).length;
  const precision = proposed.size ? right / proposed.size : 1;
  const recall = truth.size ? right / truth.size : 1;
  // which true pairs are missed: no shared blocking key, or weighed and found below the threshold
  const sides = new Map(rows.map((r) => [r.ref, sideOf(r) as Side]));
  let noKey = 0;
  for (const p of truth) {
    if (proposed.has(p)) continue;
    const [a, b] = p.split("|").map((x) => sides.get(x)!);
    const ka = keysOf(a!.names);
    if (![...keysOf(b!.names)].some((k) => ka.has(k))) noKey++;
  }
  console.log(`  proposals: ${proposed.size}, ${right} right; precision ${precision.toFixed(3)}, recall ${recall.toFixed(3)} (${truth.size - right} true pairs missed: ${noKey} share no name key, ${truth.size - right - noKey} below the threshold)`);
  // what a higher threshold would trade (the scan proposes from DUPLICATE_THRESHOLD; most wrong proposals are
  // namesakes: the same three names, ages within ten years)
  const scored = found.map((p) => ({ score: p.score, right: truth.has([refOf(p.a), refOf(p.b)].sort().join("|")) }));
  console.log(
    `  by threshold: ${[DUPLICATE_THRESHOLD, 5, 6, 7, 8]
      .map((th) => {
        const above = scored.filter((x) => x.score >= th);
        const r = above.filter((x) => x.right).length;
        return `≥${th} P ${(above.length ? r / above.length : 1).toFixed(3)} R ${(truth.size ? r / truth.size : 1).toFixed(3)}`;
      })
      .join("; ")}`,
  );
  row(`full scan of ${rows.length.toLocaleString("en")} reports`, `${(scanMs / 1000).toFixed(2)} s wall`, {
    label: "names and keys only",
    value: `${(baseMs / 1000).toFixed(2)} s wall`,
    ratio: scanMs / baseMs,
  });
  row("  CPU", `${(scanCpu / 1000).toFixed(2)} s`, { label: "names and keys only", value: `${(baseCpu / 1000).toFixed(2)} s (${keys} keys)`, ratio: scanCpu / baseCpu });
  console.log(`  load average during the run: ${loadavg().map((x) => x.toFixed(1)).join(" ")}`);
  return { duplicatePrecision: precision, duplicateRecall: recall, duplicateScanSeconds: scanMs / 1000 };
}

if (import.meta.url === `file://${process.argv[1]}`) await benchDuplicates();
