import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { linkSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import pg from "pg";
import { startS3rver } from "../test/support/s3rver.ts";
import { postgresUrl } from "./search.ts";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { loadConfig } from "../src/core/config.ts";
import { openArchive } from "../src/app/open-archive.ts";
import type { Actor } from "../src/core/actor.ts";
import { makeRenditions } from "../src/archive/media/renditions.ts";
import { acceptProposals, runProposals, type CardReading } from "../src/catalogue/index.ts";
import { defaultEngine } from "../src/catalogue/engine-default.ts";
import { createCardReader, defaultLangPaths } from "../src/catalogue/ocr.ts";
import { makePool } from "../src/catalogue/ocr/tesseract.ts";
import type { DemoCardTruth } from "../src/archive/demo-card/index.ts";
import { growHeapInLargeSteps } from "../src/core/heap.ts";
import { cachedCard, listFiles, localHttp, mb, pct, row, sha256sumSeconds, timed } from "./support.ts";

/**
 * The whole card (issue 18 item 1): `npm run bench card` takes in a demo card of BENCH_CARD_BODIES bodies
 * (default 11,000: about 57,000 files) on the embedded default and then does at that size what comes after:
 * proposing bodies from the photos (the grouping, with the card's numbers taken from the card's truth so that
 * it does not wait on OCR; OCR is measured on its own below), accepting every proposal, search, gallery and
 * statistics over HTTP, and `dalil verify`. Each figure beside its floor from the same run:
 * - ingest against `sha256sum` over every file plus the same renditions made by sharp alone (on every
 *   BENCH_CARD_FLOOR_EVERY-th file, default 5 on a card this size, scaled to the whole card);
 * - memory sampled through the ingest (first quarter against last quarter: flat or not);
 * - the card reader against a plain tesseract.js loop over the same photos (BENCH_CARD_OCR photos, default 200);
 * - HTTP requests against GET /api/health.
 * With PostgreSQL reachable, the same intake on PostgreSQL + S3 (s3rver) of the card's first BENCH_CARD_SCALEOUT
 * files (default 5,000; 0 skips it: s3rver, a test server in JavaScript, is not what a deployment would use, so
 * this leg says what the scale-out path costs, not what S3 does), beside the embedded default over the same files.
 */
const ADMIN: Actor = { kind: "user", id: "usr_bench", role: "admin" };

interface ChildResult {
  seconds: number;
  maxRssKb: number;
  rss: number[];
  result: Record<string, unknown>;
}

function child(args: string[], env: Record<string, string> = {}): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ["--import", "tsx", "bench/card-child.ts", ...args], { stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, ...env } });
    let out = "";
    p.stdout.on("data", (b: Buffer) => (out += b.toString()));
    p.on("error", reject);
    p.on("close", (code) => {
      if (code !== 0) reject(new Error(`${args[0]} failed (exit ${code}): ${out.slice(-500)}`));
      else resolve(JSON.parse(out.trim().split("\n").pop()!) as ChildResult);
    });
  });
}

const minutes = (s: number) => `${(s / 60).toFixed(1)} min`;

/** The truth's numbers for each photo: what a perfect card reader would give (OCR is measured apart). */
function truthReader(truth: DemoCardTruth): (sha: string) => CardReading[] {
  const bodyOf = new Map<string, string>();
  for (const p of truth.photos) if (!bodyOf.has(p.sha256)) bodyOf.set(p.sha256, p.body);
  const bodies = new Map(truth.bodies.map((b) => [b.ref, b]));
  return (sha) => {
    const b = bodies.get(bodyOf.get(sha) ?? "");
    if (!b) return [];
    return [
      { role: "detainee", value: b.detainee_no, confidence: 0.97 },
      { role: "branch", value: b.branch_no, confidence: 0.99 },
      { role: "examiner", value: b.examiner_no, confidence: 0.9 },
    ];
  };
}

async function floorOf(files: string[], every: number): Promise<{ hashS: number; rendS: number }> {
  // The floor gets the heap setting the intake runs with, so that it is the same renditions at their best.
  growHeapInLargeSteps();
  const hashS = sha256sumSeconds(files);
  const sample = files.filter((_, i) => i % every === 0);
  const concurrency = availableParallelism() * 2;
  const rend = await timed(async () => {
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < sample.length) await makeRenditions(readFileSync(sample[next++]!));
      }),
    );
  });
  return { hashS, rendS: (rend.seconds * files.length) / sample.length };
}

async function ocrAgainstPlainLoop(files: string[], n: number): Promise<void> {
  const step = Math.max(1, Math.floor(files.length / n));
  const sample = files.filter((_, i) => i % step === 0).slice(0, n).map((f) => readFileSync(f));
  const reader = await createCardReader({ workers: 2 });
  let withNumbers = 0;
  const ours = await timed(async () => {
    let next = 0;
    await Promise.all(
      [0, 1].map(async () => {
        while (next < sample.length) if ((await reader.read(sample[next++]!)).detainee) withNumbers++;
      }),
    );
  });
  await reader.close();
  const pool = await makePool("eng", defaultLangPaths().eng, 2);
  const plain = await timed(async () => {
    let next = 0;
    await Promise.all([0, 1].map(async () => { while (next < sample.length) await pool.run(sample[next++]!, "3", ""); }));
  });
  await pool.terminate();
  row("card reader photos/s", (sample.length / ours.seconds).toFixed(2), { label: "plain tesseract.js loop photos/s", value: (sample.length / plain.seconds).toFixed(2), ratio: ours.seconds / plain.seconds });
  row("  photos read with a detainee number", `${withNumbers}/${sample.length}`);
  row("  the whole card at this rate", minutes((files.length * ours.seconds) / sample.length), { label: "plain loop", value: minutes((files.length * plain.seconds) / sample.length), ratio: ours.seconds / plain.seconds });
}

export async function benchCard(bodies = Number(process.env.BENCH_CARD_BODIES ?? 11_000)): Promise<void> {
  console.log(`\n# the whole card: ${bodies.toLocaleString("en")} bodies (load average ${loadavg().map((x) => x.toFixed(1)).join(" ")} on ${availableParallelism()} cores)`);
  const { dir, truth } = await cachedCard(bodies);
  const files = listFiles(dir, (name) => name === "truth.json");
  let bytes = 0;
  for (const f of files) bytes += readFileSync(f).length;
  console.log(`  card: ${files.length.toLocaleString("en")} files, ${truth.photos.length.toLocaleString("en")} photos, ${mb(bytes)}`);

  const every = Number(process.env.BENCH_CARD_FLOOR_EVERY ?? (files.length > 5000 ? 5 : 1));
  const floor = await floorOf(files, every);
  const floorS = floor.hashS + floor.rendS;

  const data = mkdtempSync(join(tmpdir(), "dalil-bench-card-data-"));
  try {
    const ingest = await child(["ingest", data, dir]);
    const quarter = Math.max(1, Math.floor(ingest.rss.length / 4));
    const early = Math.max(...ingest.rss.slice(0, quarter));
    const late = Math.max(...ingest.rss.slice(-quarter));
    row("ingest wall time", minutes(ingest.seconds), {
      label: `sha256sum ${floor.hashS.toFixed(0)} s + renditions by sharp ${floor.rendS.toFixed(0)} s${every > 1 ? ` (every ${every}th file, scaled)` : ""}`,
      value: minutes(floorS),
      ratio: ingest.seconds / floorS,
    });
    row("ingest photos/s", (files.length / ingest.seconds).toFixed(1), { label: "floor", value: (files.length / floorS).toFixed(1), ratio: ingest.seconds / floorS });
    row("ingest peak RSS", `${(ingest.maxRssKb / 1024).toFixed(0)} MB`, { label: "largest in the first quarter", value: `${(early / 1e6).toFixed(0)} MB`, ratio: late / early });
    row("  largest in the last quarter", `${(late / 1e6).toFixed(0)} MB`);
    console.log(`  ingest: ${JSON.stringify(ingest.result)}`);

    const a = await openArchive(loadConfig({ data }));
    try {
      const source = (await a.db.db.selectFrom("sources" as never).select("id" as never).execute()) as unknown as { id: string }[];
      const read = truthReader(truth);
      const real = await defaultEngine();
      const engine = { ...real, readerName: "card truth (bench)", readCard: async (_img: Buffer, sha: string) => read(sha) };
      const propose = await timed(() => runProposals(a, ADMIN, { sourceId: source[0]!.id, engine }));
      await real.close();
      row("propose bodies (grouping)", `${propose.seconds.toFixed(1)} s`);
      row("  per photo", `${((propose.seconds * 1000) / propose.value.photos).toFixed(2)} ms`);
      row("  proposals", String(propose.value.proposals), { label: "bodies on the card", value: String(truth.bodies.length), ratio: propose.value.proposals / truth.bodies.length });
      const ids = ((await a.db.db.selectFrom("grouping_proposals" as never).select("id" as never).where("status" as never, "=", "proposed" as never).orderBy("position" as never).execute()) as unknown as { id: string }[]).map((r) => r.id);
      const accept = await timed(async () => {
        for (let i = 0; i < ids.length; i += 500) await acceptProposals(a, ADMIN, { proposalIds: ids.slice(i, i + 500) });
      });
      row("accept every proposal", `${accept.seconds.toFixed(1)} s`);
      row("  per body", `${((accept.seconds * 1000) / Math.max(1, ids.length)).toFixed(1)} ms`);

      const http = await localHttp(a, ADMIN);
      const get = http.get;
      try {
        const times = async (path: string) => {
          for (let i = 0; i < 3; i++) await get(path);
          const out: number[] = [];
          for (let i = 0; i < 30; i++) {
            const t = process.hrtime.bigint();
            await get(path);
            out.push(Number(process.hrtime.bigint() - t) / 1e6);
          }
          return out;
        };
        const health = await times("/api/health");
        const some = truth.bodies[Math.floor(truth.bodies.length / 2)]!;
        for (const [label, path] of [
          ["search, landing (all facets)", "/api/search"],
          ["search, a detainee number", `/api/search?q=${encodeURIComponent(some.detainee_no)}`],
          ["gallery, first page", "/api/gallery"],
          ["statistics", "/api/statistics"],
        ] as const) {
          const s = await times(path);
          row(`HTTP ${label} p50/p95`, `${pct(s, 50).toFixed(1)}/${pct(s, 95).toFixed(1)} ms`, { label: "health p50", value: `${pct(health, 50).toFixed(2)} ms`, ratio: pct(s, 50) / pct(health, 50) });
        }
      } finally {
        await http.close();
      }
    } finally {
      await a.close();
    }

    const verify = await child(["verify", data]);
    row("dalil verify", minutes(verify.seconds), { label: "sha256sum over the card", value: minutes(floor.hashS), ratio: verify.seconds / floor.hashS });
    row("  verify peak RSS", `${(verify.maxRssKb / 1024).toFixed(0)} MB`);
    console.log(`  verify: ${JSON.stringify(verify.result)}`);

    await ocrAgainstPlainLoop(files, Number(process.env.BENCH_CARD_OCR ?? 200));
    await scaleOut(dir, files, Number(process.env.BENCH_CARD_SCALEOUT ?? 5000));
  } finally {
    if (process.env.BENCH_CARD_KEEP === "1") console.log(`  archive kept in ${data}`);
    else rmSync(data, { recursive: true, force: true });
  }
}

/** The first `n` files of the card as a card of their own (hard links, same folders), taken in both ways. */
async function scaleOut(dir: string, files: string[], n: number): Promise<void> {
  const url = n > 0 ? await postgresUrl() : null;
  if (!url) {
    console.log(n > 0 ? "  PostgreSQL + S3: PostgreSQL not reachable, skipped" : "  PostgreSQL + S3: skipped (BENCH_CARD_SCALEOUT=0)");
    return;
  }
  const root = mkdtempSync(join(tmpdir(), "dalil-bench-card-slice-"));
  const slice = join(root, "card");
  const some = files.slice(0, n);
  for (const f of some) {
    const to = join(slice, relative(dir, f));
    mkdirSync(dirname(to), { recursive: true });
    linkSync(f, to);
  }
  const schema = `card_${randomBytes(5).toString("hex")}`;
  const u = new URL(url);
  u.searchParams.set("schema", schema);
  const s3 = await startS3rver();
  try {
    const embedded = await child(["ingest", join(root, "embedded"), slice]);
    const scaled = await child(["ingest", join(root, "scale-out"), slice], { DALIL_DATABASE_URL: u.toString(), DALIL_BLOBS_URL: s3.urlFor("card"), ...s3.env });
    row(`ingest of ${some.length} files, PostgreSQL + S3`, `${scaled.seconds.toFixed(1)} s`, { label: "embedded default, same files", value: `${embedded.seconds.toFixed(1)} s`, ratio: scaled.seconds / embedded.seconds });
    row("  photos/s, PostgreSQL + S3", (some.length / scaled.seconds).toFixed(1));
    row("  peak RSS, PostgreSQL + S3", `${(scaled.maxRssKb / 1024).toFixed(0)} MB`);
    row("  the whole card at this rate", minutes((files.length * scaled.seconds) / some.length));
  } finally {
    await s3.stop();
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    await c.query(`drop schema if exists "${schema}" cascade`);
    await c.end();
    rmSync(root, { recursive: true, force: true });
  }
}
