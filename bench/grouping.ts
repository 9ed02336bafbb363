/**
 * Bodies from photos, measured against a demo card's truth.json: the OCR of the paper card in every photo
 * (share of numbers read exactly, photos per second) and the grouping proposals built on it (pairwise
 * precision, recall and F1: of all pairs of photos put in one group, how many show one body, and of all
 * pairs that show one body, how many were put together). Targets: F1 ≥ 0.98, numbers exact ≥ 0.95.
 *
 * Standalone: `npx tsx bench/grouping.ts [bodies] [--sample N]` (N: OCR only the first N bodies' photos).
 * Readings are cached beside the card, so a second run measures grouping without waiting for OCR; set
 * BENCH_FRESH_OCR=1 to read every photo again.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import sharp from "sharp";
import { perceptualHash } from "../src/archive/media/phash.ts";
import type { DemoCardTruth } from "../src/archive/demo-card/index.ts";
import type { CardNumbers } from "../src/catalogue/card-numbers.ts";
import { proposeBodies } from "../src/catalogue/grouping.ts";
import type { GroupingPhoto } from "../src/catalogue/grouping.ts";
import { createCardReader } from "../src/catalogue/ocr.ts";
import { cachedCard, row } from "./support.ts";

/** Bump when the reader changes, so cached readings are not mistaken for the new reader's. */
const READER_VERSION = 3;

interface Reading {
  path: string;
  numbers: CardNumbers;
  phash: string;
}

export interface GroupingScores {
  precision: number;
  recall: number;
  f1: number;
  /** Share of bodies whose proposal carries all three numbers exactly, and per role. */
  exact: number;
  perRole: { detainee: number; branch: number; examiner: number };
  /** Share of photos whose own reading is exact on all three numbers. */
  photoExact: number;
  groups: number;
  bodies: number;
}

/** Pairwise precision/recall/F1 of a partition against the truth, counted without listing the pairs. */
export function pairwiseScores(truthOf: ReadonlyMap<string, string>, groups: readonly string[][]): { precision: number; recall: number; f1: number } {
  const pairs = (n: number): number => (n * (n - 1)) / 2;
  let together = 0;
  let correct = 0;
  const perBody = new Map<string, number>();
  for (const t of truthOf.values()) perBody.set(t, (perBody.get(t) ?? 0) + 1);
  let truePairs = 0;
  for (const n of perBody.values()) truePairs += pairs(n);
  for (const g of groups) {
    together += pairs(g.length);
    const counts = new Map<string, number>();
    for (const p of g) {
      const b = truthOf.get(p) ?? `unknown:${p}`;
      counts.set(b, (counts.get(b) ?? 0) + 1);
    }
    for (const n of counts.values()) correct += pairs(n);
  }
  const precision = together === 0 ? 1 : correct / together;
  const recall = truePairs === 0 ? 1 : correct / truePairs;
  return { precision, recall, f1: precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall) };
}

/** Scores proposals for the photos of `truth` that were read. */
export function scoreGrouping(truth: DemoCardTruth, readings: readonly Reading[]): GroupingScores {
  const photoByPath = new Map(truth.photos.map((p) => [p.path, p]));
  const bodyByRef = new Map(truth.bodies.map((b) => [b.ref, b]));
  const input: GroupingPhoto[] = readings.map((r) => {
    const p = photoByPath.get(r.path)!;
    return { sha256: p.sha256, path: p.path, captureTime: p.capture_time, phash: r.phash, numbers: r.numbers };
  });
  const { groups } = proposeBodies(input);
  const bodyOfSha = new Map<string, string>();
  for (const r of readings) {
    const p = photoByPath.get(r.path)!;
    bodyOfSha.set(p.sha256, p.body);
  }
  const pw = pairwiseScores(
    bodyOfSha,
    groups.map((g) => g.photos),
  );
  // Each body is judged by the proposal holding most of its photos.
  const votes = new Map<string, Map<number, number>>();
  groups.forEach((g, i) => {
    for (const sha of g.photos) {
      const b = bodyOfSha.get(sha)!;
      const m = votes.get(b) ?? new Map<number, number>();
      m.set(i, (m.get(i) ?? 0) + 1);
      votes.set(b, m);
    }
  });
  let exact = 0;
  const perRole = { detainee: 0, branch: 0, examiner: 0 };
  for (const [ref, m] of votes) {
    const body = bodyByRef.get(ref)!;
    const gi = [...m.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0]![0];
    const n = groups[gi]!.numbers;
    const d = n.detainee === body.detainee_no;
    const b = n.branch === body.branch_no;
    const e = n.examiner === body.examiner_no;
    if (d) perRole.detainee++;
    if (b) perRole.branch++;
    if (e) perRole.examiner++;
    if (d && b && e) exact++;
  }
  let photoExact = 0;
  for (const r of readings) {
    const body = bodyByRef.get(photoByPath.get(r.path)!.body)!;
    if (r.numbers.detainee === body.detainee_no && r.numbers.branch === body.branch_no && r.numbers.examiner === body.examiner_no) photoExact++;
  }
  const nb = votes.size;
  return {
    ...pw,
    exact: exact / nb,
    perRole: { detainee: perRole.detainee / nb, branch: perRole.branch / nb, examiner: perRole.examiner / nb },
    photoExact: photoExact / readings.length,
    groups: groups.length,
    bodies: nb,
  };
}

/** Reads every photo (originals and near duplicates: exact duplicates are one photo) and times it. */
async function readAll(dir: string, paths: string[]): Promise<{ readings: Reading[]; seconds: number; cpuSeconds: number }> {
  const reader = await createCardReader();
  const readings: Reading[] = new Array(paths.length);
  const t0 = process.hrtime.bigint();
  const c0 = process.cpuUsage();
  let next = 0;
  let done = 0;
  // Two photos in flight: one decoding and measuring on the main thread while the other is in Tesseract.
  await Promise.all(
    [0, 1].map(async () => {
      while (next < paths.length) {
        const i = next++;
        const bytes = readFileSync(join(dir, paths[i]!));
        const [numbers, phash] = await Promise.all([reader.read(bytes), perceptualHash(bytes)]);
        readings[i] = { path: paths[i]!, numbers, phash };
        if (++done % 100 === 0) process.stderr.write(`  read ${done}/${paths.length}\n`);
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const c = process.cpuUsage(c0);
  await reader.close();
  return { readings, seconds, cpuSeconds: (c.user + c.system) / 1e6 };
}

function exactReading(truth: DemoCardTruth, r: Reading): boolean {
  const ref = truth.photos.find((p) => p.path === r.path)?.body;
  const b = truth.bodies.find((x) => x.ref === ref);
  return !!b && r.numbers.detainee === b.detainee_no && r.numbers.branch === b.branch_no && r.numbers.examiner === b.examiner_no;
}

/** The floor under any reader: decoding the JPEGs (EXIF orientation applied) to pixels, nothing else. */
async function decodeRate(dir: string, paths: readonly string[]): Promise<number> {
  const t0 = process.hrtime.bigint();
  for (const p of paths) await sharp(readFileSync(join(dir, p))).rotate().raw().toBuffer();
  return paths.length / (Number(process.hrtime.bigint() - t0) / 1e9);
}

export async function benchGrouping(bodies = 500, sample?: number): Promise<GroupingScores> {
  console.log(`\nbodies from photos — demo card of ${bodies} bodies${sample ? `, OCR on the photos of the first ${sample}` : ""}`);
  const { dir, truth } = await cachedCard(bodies, "grouping");
  const refs = new Set(truth.bodies.slice(0, sample ?? bodies).map((b) => b.ref));
  const paths = truth.photos.filter((p) => p.kind !== "exact-duplicate" && refs.has(p.body)).map((p) => p.path);
  const cache = join(dir, `readings-v${READER_VERSION}-${paths.length}.json`);
  let readings: Reading[];
  if (existsSync(cache) && !process.env.BENCH_FRESH_OCR) {
    readings = JSON.parse(readFileSync(cache, "utf8")) as Reading[];
    row("OCR", "cached readings");
  } else {
    const r = await readAll(dir, paths);
    readings = r.readings;
    writeFileSync(cache, JSON.stringify(readings));
    row("OCR photos", String(paths.length));
    row("OCR wall time", `${r.seconds.toFixed(1)} s`);
    const floor = await decodeRate(dir, paths.slice(0, 100));
    row("OCR photos/s (wall, 2 in flight)", (paths.length / r.seconds).toFixed(2), {
      label: "JPEG decode alone, photos/s",
      value: floor.toFixed(1),
      ratio: paths.length / r.seconds / floor,
    });
    row("OCR CPU-seconds per photo", (r.cpuSeconds / paths.length).toFixed(3), { label: "cores busy on average", value: (r.cpuSeconds / r.seconds).toFixed(2), ratio: r.cpuSeconds / r.seconds / cpus().length });
    row("55,000 photos at this rate", `${(55000 / (paths.length / r.seconds) / 3600).toFixed(1)} h`);
  }
  const s = scoreGrouping(truth, readings);
  row("photos read exactly (3 numbers)", s.photoExact.toFixed(4));
  row("bodies, numbers exact (all 3)", s.exact.toFixed(4), { label: "target", value: "0.95", ratio: s.exact / 0.95 });
  row("  detainee / branch / examiner", `${s.perRole.detainee.toFixed(3)} ${s.perRole.branch.toFixed(3)} ${s.perRole.examiner.toFixed(3)}`);
  row("grouping precision (pairs)", s.precision.toFixed(4));
  row("grouping recall (pairs)", s.recall.toFixed(4));
  row("grouping F1", s.f1.toFixed(4), { label: "target", value: "0.98", ratio: s.f1 / 0.98 });
  row("groups proposed / true bodies", `${s.groups} / ${s.bodies}`);
  // How far a reading's confidence can be trusted: share of exact readings per confidence band.
  for (const [lo, hi] of [[0, 0.5], [0.5, 0.8], [0.8, 0.95], [0.95, 1.01]] as const) {
    const band = readings.filter((r) => r.numbers.confidence >= lo && r.numbers.confidence < hi);
    if (band.length === 0) continue;
    const ok = band.filter((r) => exactReading(truth, r)).length;
    row(`  confidence ${lo.toFixed(2)}–${Math.min(1, hi).toFixed(2)}`, `${ok}/${band.length} exact`);
  }
  return s;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const args = process.argv.slice(2);
  const at = args.indexOf("--sample");
  const sample = at >= 0 ? Number(args[at + 1]) : undefined;
  const bodies = Number(args.find((a, i) => !a.startsWith("-") && (at < 0 || i !== at + 1)) ?? 500);
  await benchGrouping(bodies, sample);
}
