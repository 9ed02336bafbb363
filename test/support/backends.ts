import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import pg from "pg";

/**
 * The back-ends every storage test runs on. SQLite always; PostgreSQL at DALIL_TEST_DATABASE_URL (default: the
 * machine's server, database `test`), each run in a fresh schema so runs never collide. Under CI=true the
 * PostgreSQL leg is mandatory: an unreachable server fails the run instead of skipping.
 */
export interface Backend {
  name: "sqlite" | "postgres";
  /** A fresh data dir and (for PostgreSQL) a URL naming a fresh schema. */
  fresh(): Promise<{ dataDir: string; databaseUrl?: string; cleanup(): Promise<void> }>;
}

export const PG_URL = process.env.DALIL_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

let pgReachable: Promise<string | null> | undefined;
function checkPostgres(): Promise<string | null> {
  pgReachable ??= (async () => {
    const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 20_000 });
    try {
      await client.connect();
      await client.query("select 1");
      return null;
    } catch (err) {
      return err instanceof Error ? err.message : String(err);
    } finally {
      await client.end().catch(() => {});
    }
  })();
  return pgReachable;
}

export function tempDir(prefix = "dalil-test-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

const sqlite: Backend = {
  name: "sqlite",
  async fresh() {
    const dataDir = tempDir();
    return { dataDir, cleanup: async () => rmSync(dataDir, { recursive: true, force: true }) };
  },
};

const postgres: Backend = {
  name: "postgres",
  async fresh() {
    const dataDir = tempDir();
    const schema = `t_${randomBytes(6).toString("hex")}`;
    const url = new URL(PG_URL);
    url.searchParams.set("schema", schema);
    return {
      dataDir,
      databaseUrl: url.toString(),
      async cleanup() {
        rmSync(dataDir, { recursive: true, force: true });
        const client = new pg.Client({ connectionString: PG_URL });
        await client.connect();
        await client.query(`drop schema if exists "${schema}" cascade`);
        await client.end();
      },
    };
  },
};

/** The back-ends to run on, and for a skipped one why (never skipped under CI=true). */
export async function backends(): Promise<{ backend: Backend; skip: string | false }[]> {
  const problem = await checkPostgres();
  if (problem && process.env.CI === "true") {
    throw new Error(`PostgreSQL leg is mandatory under CI=true but ${PG_URL} is unreachable: ${problem}`);
  }
  return [
    { backend: sqlite, skip: false },
    { backend: postgres, skip: problem ? `PostgreSQL unreachable at ${PG_URL}: ${problem}` : false },
  ];
}
