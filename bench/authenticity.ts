import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeDemoCard, type DemoCardTruth } from "../src/archive/demo-card/index.ts";
import { analyseCard, readHeader, type PhotoInput } from "../src/authenticity/index.ts";
import { row, sha256sumSeconds, timed } from "./support.ts";

/**
 * Authenticity on a demo card with planted anomalies (`withAnomalies`): whether every planted anomaly is flagged
 * with its finding and how many clean photos get a finding above "information" (issue 15 asks ≤ 1 %); then the
 * speed of the header analysis (parse, EXIF layout, quality, signature, card checks) and of the content checks
 * (thumbnail, ghosts), each against `sha256sum` over the same files in the same run.
 */
export async function benchAuthenticity(bodies: number): Promise<void> {
  const seed = "bench-authenticity";
  const dir = join(tmpdir(), `dalil-bench-card-${bodies}-${seed}`);
  if (!existsSync(join(dir, "truth.json"))) {
    process.stderr.write(`generating a demo card of ${bodies} bodies with anomalies in ${dir} …\n`);
    await writeDemoCard(dir, { bodies, seed, withFaults: false, withAnomalies: true });
  }
  const truth = JSON.parse(readFileSync(join(dir, "truth.json"), "utf8")) as DemoCardTruth;
  // One file per distinct photo, the first the card lists (the camera's folder before 900_COPY), as intake keeps
  // the first sighting.
  const firstOf = new Map<string, DemoCardTruth["photos"][number]>();
  for (const p of truth.photos) if (!firstOf.has(p.sha256)) firstOf.set(p.sha256, p);
  const files = [...firstOf.values()];
  const paths = files.map((p) => join(dir, ...p.path.split("/")));
  const inputs = (): PhotoInput[] => files.map((p, i) => ({ sha256: p.sha256, path: p.path, phash: null, bytes: () => readFile(paths[i]!) }));
  const bytes = paths.reduce((a, p) => a + readFileSync(p).length, 0);
  console.log(`\nauthenticity — demo card of ${bodies} bodies: ${files.length} distinct photos, ${(bytes / 1e6).toFixed(1)} MB, ${truth.anomalies?.length ?? 0} planted anomalies`);

  // Warm the page cache so both sides read from memory.
  sha256sumSeconds(paths);
  const floor = sha256sumSeconds(paths);
  const header = await timed(() => analyseCard(inputs(), { content: false }));
  const parseOnly = await timed(async () => {
    for (const p of paths) readHeader(await readFile(p));
  });
  const hashOnly = await timed(async () => {
    for (const p of paths) createHash("sha256").update(await readFile(p)).digest();
  });
  const content = await timed(() => analyseCard(inputs(), { content: true }));

  const report = content.value;
  const planted = new Map((truth.anomalies ?? []).map((a) => [a.sha256, a]));
  let found = 0;
  for (const a of planted.values()) {
    const keys = report.findings.filter((f) => f.photo === a.sha256 && f.severity !== "information").map((f) => f.key as string);
    const ok = keys.includes(a.expect);
    if (ok) found++;
    console.log(`  ${ok ? "flagged" : "MISSED "} ${a.anomaly.padEnd(18)} expected ${a.expect.padEnd(18)} found ${[...new Set(keys)].join(", ") || "nothing"}`);
  }
  const clean = report.photos.filter((p) => !planted.has(p.sha256));
  const cleanFlaggedPhotos = clean.filter((p) => p.worst === "look" || p.worst === "strong");
  const cleanFlagged = cleanFlaggedPhotos.length;
  for (const p of cleanFlaggedPhotos) {
    const keys = report.findings.filter((f) => f.photo === p.sha256 && f.severity !== "information").map((f) => `${f.key} ${JSON.stringify(f.params)}`);
    console.log(`  clean but flagged: ${p.name ?? p.sha256.slice(0, 12)}: ${keys.join("; ")}`);
  }
  row("planted anomalies flagged", `${found} of ${planted.size}`);
  row("clean photos above information", `${cleanFlagged} of ${clean.length} (${((cleanFlagged / Math.max(1, clean.length)) * 100).toFixed(2)} %)`);
  const rate = (s: number) => `${(files.length / s).toFixed(0)} photos/s`;
  row("header analysis (card)", rate(header.seconds), { label: "sha256sum", value: rate(floor), ratio: header.seconds / floor });
  row("header parse only", rate(parseOnly.seconds), { label: "sha256sum", value: rate(floor), ratio: parseOnly.seconds / floor });
  row("read + SHA-256 in node", rate(hashOnly.seconds), { label: "sha256sum", value: rate(floor), ratio: hashOnly.seconds / floor });
  row("with content checks", rate(content.seconds), { label: "header analysis", value: rate(header.seconds), ratio: content.seconds / header.seconds });
}
