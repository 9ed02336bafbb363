import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { loadConfig } from "../src/core/config.ts";
import { openArchive } from "../src/app/open-archive.ts";
import { operatorActor } from "../src/core/actor.ts";
import { ingestCard } from "../src/archive/intake.ts";
import { buildReport, type Clearance } from "../src/dossiers/report/index.ts";
import { catalogueDemoCard } from "../src/dossiers/report/demo.ts";
import { cachedCard, mb, row, timed } from "./support.ts";

/** Resident memory of this process and all its descendants (Chromium's browser, renderer and GPU processes). */
function treeRss(root: number): number {
  const parent = new Map<number, number>();
  const rss = new Map<number, number>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const status = readFileSync(`/proc/${name}/status`, "utf8");
      parent.set(Number(name), Number(/PPid:\s+(\d+)/.exec(status)?.[1] ?? 0));
      rss.set(Number(name), Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024);
    } catch {
      // gone between the listing and the read
    }
  }
  let total = 0;
  for (const [pid, bytes] of rss) {
    for (let p: number | undefined = pid; p; p = parent.get(p)) {
      if (p === root) {
        total += bytes;
        break;
      }
    }
  }
  return total;
}

async function measured<T>(fn: () => Promise<T>): Promise<{ value: T; seconds: number; peakTree: number; peakNode: number }> {
  let peakTree = 0;
  let peakNode = 0;
  const sample = () => {
    peakTree = Math.max(peakTree, treeRss(process.pid));
    peakNode = Math.max(peakNode, process.memoryUsage().rss);
  };
  const timer = setInterval(sample, 250);
  try {
    const r = await timed(fn);
    sample();
    return { ...r, peakTree, peakNode };
  } finally {
    clearInterval(timer);
  }
}

/**
 * The report: N exhibits (default 500, BENCH_REPORT_EXHIBITS) from a demo card of N bodies ingested and catalogued
 * into a temp archive, printed at BENCH_REPORT_CLEARANCE (default blurred; "original" decodes and downscales every
 * original). Baseline: a report of 10 exhibits from the same archive, so the per-exhibit cost is compared with a
 * small report's. Peak resident memory is sampled every 250 ms over node and its Chromium processes together.
 * BENCH_REPORT_REUSE=1 keeps the catalogued archive between runs.
 */
export async function benchReport(exhibits = Number(process.env.BENCH_REPORT_EXHIBITS ?? 500)): Promise<void> {
  const clearance = (process.env.BENCH_REPORT_CLEARANCE ?? "blurred") as Clearance;
  const lang = process.env.BENCH_REPORT_LANG === "en" ? "en" : "ar";
  // A demo card of 500 bodies takes long to generate on a busy machine; BENCH_REPORT_BODIES reuses a smaller cached
  // one (the packages part makes 445), its bodies then appearing in more than one exhibit.
  const bodyCount = Number(process.env.BENCH_REPORT_BODIES ?? exhibits);
  console.log(`\n# report (${exhibits} exhibits over ${bodyCount} bodies, ${clearance}, ${lang})`);
  const { dir, truth } = await cachedCard(bodyCount);
  const reuse = process.env.BENCH_REPORT_REUSE === "1";
  const data = reuse ? join(tmpdir(), `dalil-bench-report-archive-${bodyCount}`) : mkdtempSync(join(tmpdir(), "dalil-bench-report-"));
  const marker = join(data, "bodies.json");
  const archive = await openArchive(loadConfig({ data }));
  const actor = operatorActor();
  try {
    let bodies: { bodyId: string; photos: string[] }[];
    if (reuse && existsSync(marker)) {
      bodies = JSON.parse(readFileSync(marker, "utf8")) as typeof bodies;
      console.log("  reusing the archive catalogued by an earlier run");
    } else {
      const ingest = await timed(async () => {
        await ingestCard(archive, actor, { path: dir, concurrency: 4 });
        return catalogueDemoCard(archive, actor, truth);
      });
      bodies = ingest.value;
      writeFileSync(marker, JSON.stringify(bodies));
      console.log(`  ingested and catalogued ${bodies.length} bodies in ${ingest.seconds.toFixed(1)} s (not part of the figures below)`);
    }
    const list = Array.from({ length: exhibits }, (_, i) => ({
      number: `E-${String(i + 1).padStart(4, "0")}`,
      bodyId: bodies[i % bodies.length]!.bodyId,
      reasoning: ["The branch number on the card ties this body to the branch."],
    }));
    const small = await measured(() => buildReport(archive, actor, { title: "Bench", lang, clearance, exhibits: list.slice(0, 10), outDir: join(data, `small-${process.pid}`) }));
    let lastLog = Date.now();
    const big = await measured(() =>
      buildReport(archive, actor, {
        title: "Bench",
        lang,
        clearance,
        exhibits: list,
        outDir: join(data, `report-${process.pid}`),
        onProgress: (d, t) => {
          if (Date.now() - lastLog > 15_000 || d === t) {
            lastLog = Date.now();
            console.log(`  … ${d}/${t}`);
          }
        },
      }),
    );
    const photos = list.reduce((s, e) => s + (bodies.find((b) => b.bodyId === e.bodyId)?.photos.length ?? 0), 0);
    const pdfBytes = statSync(big.value.pdf).size;
    const perSmall = small.seconds / 10;
    const perBig = big.seconds / list.length;
    row("exhibits / photos / pages", `${list.length} / ${photos} / ${big.value.pages}`);
    row("report time", `${big.seconds.toFixed(1)} s (${(perBig * 1000).toFixed(0)} ms per exhibit)`, { label: "10 exhibits", value: `${small.seconds.toFixed(1)} s (${(perSmall * 1000).toFixed(0)} ms per exhibit)`, ratio: perBig / perSmall });
    row("peak RSS, node + Chromium", mb(big.peakTree), { label: "10 exhibits", value: mb(small.peakTree), ratio: big.peakTree / Math.max(1, small.peakTree) });
    row("peak RSS, node alone", mb(big.peakNode));
    row("PDF size", mb(pdfBytes));
  } finally {
    await archive.close();
    if (!reuse) rmSync(data, { recursive: true, force: true });
    else for (const d of readdirSync(data)) if (/^(small|report)-\d+$/.test(d)) rmSync(join(data, d), { recursive: true, force: true });
  }
}
