import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../src/core/config.ts";
import { openArchive, type Archive } from "../../src/app/context.ts";
import { writeDemoCard, type DemoCardTruth } from "../../src/archive/demo-card/index.ts";
import type { Backend } from "./backends.ts";
import { tempDir } from "./backends.ts";

/** An archive on a fresh back-end; close() also drops its schema and data dir. */
export async function freshArchive(
  backend: Backend,
  extraEnv: Record<string, string> = {},
): Promise<{ archive: Archive; dataDir: string; env: Record<string, string>; close(): Promise<void> }> {
  const fresh = await backend.fresh();
  const env: Record<string, string> = { ...extraEnv };
  if (fresh.databaseUrl) env.DALIL_DATABASE_URL = fresh.databaseUrl;
  const archive = await openArchive(loadConfig({ data: fresh.dataDir }, env));
  return {
    archive,
    dataDir: fresh.dataDir,
    env,
    async close() {
      await archive.close();
      await fresh.cleanup();
    },
  };
}

const cards = new Map<string, Promise<{ dir: string; truth: DemoCardTruth }>>();

/** A demo card generated once per test process and shared (cards are read-only inputs). */
export function demoCard(bodies: number, withFaults: boolean, seed = "test"): Promise<{ dir: string; truth: DemoCardTruth }> {
  const key = `${bodies}:${withFaults}:${seed}`;
  let p = cards.get(key);
  if (!p) {
    p = (async () => {
      const dir = join(tempDir("dalil-card-"), "card");
      if (!existsSync(join(dir, "truth.json"))) await writeDemoCard(dir, { bodies, seed, withFaults });
      const truth = JSON.parse(readFileSync(join(dir, "truth.json"), "utf8")) as DemoCardTruth;
      return { dir, truth };
    })();
    cards.set(key, p);
  }
  return p;
}
