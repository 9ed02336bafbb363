import { spawnSync } from "node:child_process";
import { readFileSync, rmSync, mkdtempSync } from "node:fs";
import { join } from "node:path";
import { tmpdir, cpus } from "node:os";
import { makeRenditions } from "../src/archive/media/renditions.ts";
import { cachedCard, listFiles, mb, row, sha256sumSeconds, timed } from "./support.ts";

/**
 * Ingest: a demo card of ≥ 2,000 photos taken in by `dalil ingest` in a child process (so its peak RSS is its
 * own), against the floor measured in the same run on the same files: `sha256sum` over every file plus the
 * same renditions made by sharp in a tight loop at full concurrency. Then the card doubled, for RSS flatness.
 */
export async function benchIngest(bodies = 420, doubled = true): Promise<void> {
  console.log(`\n# ingest (demo card of ${bodies} bodies${doubled ? `, then ${bodies * 2}` : ""})`);
  const rss: number[] = [];
  for (const n of doubled ? [bodies, bodies * 2] : [bodies]) {
    const { dir, truth } = await cachedCard(n);
    const files = listFiles(dir, (name) => name === "truth.json");
    const bytes = files.reduce((s, f) => s + readFileSync(f).length, 0);
    const photos = truth.photos.length;

    const hashS = sha256sumSeconds(files);
    const concurrency = cpus().length * 2;
    const rend = await timed(async () => {
      let next = 0;
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next < files.length) await makeRenditions(readFileSync(files[next++]!));
        }),
      );
    });
    const floor = hashS + rend.seconds;

    const data = mkdtempSync(join(tmpdir(), "dalil-bench-data-"));
    const child = await timed(async () =>
      spawnSync(process.execPath, ["--import", "tsx", "bench/card-child.ts", "ingest", data, dir], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }),
    );
    const out = child.value;
    if (out.status !== 0) throw new Error(`ingest child failed: ${out.stdout}`);
    const result = JSON.parse(out.stdout.trim().split("\n").pop()!) as { seconds: number; maxRssKb: number; result: { files: number; ingested: number } };
    rmSync(data, { recursive: true, force: true });
    rss.push(result.maxRssKb);

    console.log(`  card: ${files.length} files, ${photos} photos, ${mb(bytes)}`);
    row("ingest photos/s", (photos / result.seconds).toFixed(1), { label: "floor photos/s", value: (photos / floor).toFixed(1), ratio: result.seconds / floor });
    row("ingest MB/s", (bytes / 1e6 / result.seconds).toFixed(1), { label: "sha256sum MB/s", value: (bytes / 1e6 / hashS).toFixed(1), ratio: result.seconds / hashS });
    row("ingest wall time", `${result.seconds.toFixed(1)} s`, { label: `sha256sum ${hashS.toFixed(1)} s + renditions (sharp, ${concurrency} at once)`, value: `${floor.toFixed(1)} s`, ratio: result.seconds / floor });
    row("ingest peak RSS", `${(result.maxRssKb / 1024).toFixed(0)} MB`);
    row("55,000 photos at this rate", `${((55000 / (photos / result.seconds)) / 60).toFixed(1)} min`);
  }
  if (rss.length === 2) row("peak RSS, card doubled", `${(rss[1]! / 1024).toFixed(0)} MB`, { label: "single card", value: `${(rss[0]! / 1024).toFixed(0)} MB`, ratio: rss[1]! / rss[0]! });
}
