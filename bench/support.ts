import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { fileURLToPath } from "node:url";
import { writeDemoCard, type DemoCardTruth } from "../src/archive/demo-card/index.ts";
import { progressBar } from "../src/cli/shell.ts";
import { buildHttpApp } from "../src/http/app.ts";
import type { Archive } from "../src/app/context.ts";
import type { Actor } from "../src/core/actor.ts";

/** Wall time of fn in seconds. */
export async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; seconds: number }> {
  const t0 = process.hrtime.bigint();
  const value = await fn();
  return { value, seconds: Number(process.hrtime.bigint() - t0) / 1e9 };
}

/** Prints one figure beside its baseline measured in the same run, as a ratio. */
export function row(label: string, value: string, baseline?: { label: string; value: string; ratio: number }): void {
  const base = baseline ? `   baseline ${baseline.label}: ${baseline.value}   ratio ${baseline.ratio.toFixed(2)}×` : "";
  console.log(`  ${label.padEnd(34)} ${value.padStart(14)}${base}`);
}

export function listFiles(dir: string, skip: (name: string) => boolean = () => false): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    if (skip(name)) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...listFiles(p, skip));
    else out.push(p);
  }
  return out;
}

/** `sha256sum` over files, run as the system tool (the floor any archive must pay to read and hash). */
export function sha256sumSeconds(files: string[]): number {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < files.length; i += 500) {
    const r = spawnSync("sha256sum", files.slice(i, i + 500), { stdio: ["ignore", "ignore", "inherit"] });
    if (r.status !== 0) throw new Error("sha256sum failed");
  }
  return Number(process.hrtime.bigint() - t0) / 1e9;
}

/** A demo card cached under the temp dir, so repeated bench runs measure the archive, not the generator. */
export async function cachedCard(bodies: number, seed = "bench"): Promise<{ dir: string; truth: DemoCardTruth }> {
  const dir = join(tmpdir(), `dalil-bench-card-${bodies}-${seed}`);
  if (!existsSync(join(dir, "truth.json"))) {
    process.stderr.write(`generating a demo card of ${bodies} bodies in ${dir} …\n`);
    const bar = progressBar("demo-card");
    await writeDemoCard(dir, { bodies, seed, withFaults: false }, (d, t) => bar.update(d, t));
    bar.end();
  }
  return { dir, truth: JSON.parse(readFileSync(join(dir, "truth.json"), "utf8")) as DemoCardTruth };
}

export function mb(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}

/** The archive's HTTP app on a real listen on 127.0.0.1, every request as `actor`; `get` fails on anything but 200. */
export async function localHttp(a: Archive, actor: Actor): Promise<{ url: string; get(path: string): Promise<unknown>; close(): Promise<void> }> {
  const http = await buildHttpApp(a, { actorFor: () => actor });
  await http.app.listen({ port: 0, host: "127.0.0.1" });
  const addr = http.app.server.address();
  const port = typeof addr === "object" && addr ? addr.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    async get(path) {
      const res = await fetch(`http://127.0.0.1:${port}${path}`);
      if (res.status !== 200) throw new Error(`${path}: HTTP ${res.status} ${await res.text()}`);
      return res.json();
    },
    close: () => http.app.close(),
  };
}

/**
 * Each path timed by a client in another process (bench/http-client.mjs), `runs` times after `warmups`, in order:
 * what a browser on another machine would wait, without the client's own work on the server's thread.
 */
export function timedFromAnotherProcess(base: string, paths: string[], runs: number, warmups = 3): Promise<Map<string, number[]>> {
  return new Promise((resolve, reject) => {
    const client = spawn(process.execPath, [fileURLToPath(new URL("./http-client.mjs", import.meta.url)), JSON.stringify({ base, paths, runs, warmups })], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let text = "";
    client.stdout.setEncoding("utf8").on("data", (d: string) => (text += d));
    client.on("error", reject);
    client.on("exit", (code) => {
      if (code !== 0) return reject(new Error(`the HTTP client exited with ${code}`));
      resolve(new Map(Object.entries(JSON.parse(text) as Record<string, number[]>)));
    });
  });
}

/** The p-th percentile of samples (nearest rank; NaN for none). */
export function pct(samples: number[], p: number): number {
  if (!samples.length) return NaN;
  const s = [...samples].sort((x, y) => x - y);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}
