import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../src/core/config.ts";
import { openArchive } from "../../src/app/open-archive.ts";
import type { Archive } from "../../src/app/context.ts";
import { writeDemoCard, type DemoCardTruth } from "../../src/archive/demo-card/index.ts";
import type { Backend } from "./backends.ts";
import type { Actor } from "../../src/core/actor.ts";
import { adb } from "../../src/access/tables.ts";
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
/** The folders of this process's cards, removed when it exits (each is 15–20 MB; every test file made one). */
const cardFolders: string[] = [];
process.on("exit", () => {
  for (const d of cardFolders) rmSync(d, { recursive: true, force: true });
});

/** A demo card generated once per test process and shared (cards are read-only inputs). */
export function demoCard(bodies: number, withFaults: boolean, seed = "test"): Promise<{ dir: string; truth: DemoCardTruth }> {
  const key = `${bodies}:${withFaults}:${seed}`;
  let p = cards.get(key);
  if (!p) {
    p = (async () => {
      const folder = tempDir("dalil-card-");
      cardFolders.push(folder);
      const dir = join(folder, "card");
      if (!existsSync(join(dir, "truth.json"))) await writeDemoCard(dir, { bodies, seed, withFaults });
      const truth = JSON.parse(readFileSync(join(dir, "truth.json"), "utf8")) as DemoCardTruth;
      return { dir, truth };
    })();
    cards.set(key, p);
  }
  return p;
}

/**
 * Accounts for fixture actors (fixed ids): a queued job reads its actor again from the accounts when it runs, so
 * an actor with no account is refused. Each gets a row with the actor's id and role (no password: never signs in).
 */
export async function ensureAccounts(a: Archive, actors: readonly Actor[]): Promise<void> {
  const now = a.clock.now().toISOString();
  for (const actor of actors) {
    if (actor.kind !== "user") continue;
    await adb(a.db.db)
      .insertInto("users")
      .values({
        id: actor.id, email: `${actor.id}@fixture.example.org`, role: actor.role, password_hash: "!", must_change_password: 1, totp_secret: null, totp_enabled_at: null,
        totp_last_step: null, disabled_at: null, created_at: now, created_by: "fixture", password_changed_at: null, last_sign_in_at: null,
      })
      .onConflict((oc) => oc.column("id").doNothing())
      .execute();
  }
}
