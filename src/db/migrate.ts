import { Migrator, sql, type Kysely, type Migration, type MigrationProvider } from "kysely";
import * as m0001 from "./migrations/0001-intake.ts";
import * as m0002 from "./migrations/0002-access.ts";
import * as m0003 from "./migrations/0003-catalogue.ts";
import * as m0004 from "./migrations/0004-review.ts";
import * as m0005 from "./migrations/0005-families.ts";
import * as m0006 from "./migrations/0006-dossiers.ts";
import * as m0007 from "./migrations/0007-families-casework.ts";
import * as m0008 from "./migrations/0008-log-openings.ts";
import * as m0009 from "./migrations/0009-protect-records.ts";
import * as m0011 from "./migrations/0011-reading-evidence.ts";
import * as m0012 from "./migrations/0012-witnesses.ts";
import * as m0013 from "./migrations/0013-authenticity.ts";
import * as m0014 from "./migrations/0014-identifications-and-withdrawals.ts";
import * as m0015 from "./migrations/0015-families-previews-and-proposals.ts";
import * as m0016 from "./migrations/0016-mirrors.ts";
import * as m0017 from "./migrations/0017-exhibitions.ts";
import * as m0018 from "./migrations/0018-reasons-as-keys.ts";
import * as m0021 from "./migrations/0021-face-suggestions.ts";
import * as m0022 from "./migrations/0022-exhibition-charts.ts";
import * as m0024 from "./migrations/0024-body-documents.ts";
import * as m0025 from "./migrations/0025-dna-referrals.ts";
import * as m0026 from "./migrations/0026-log-tables-by-key.ts";
import * as m0027 from "./migrations/0027-card-reads.ts";
import * as m0028 from "./migrations/0028-body-words.ts";

export type Dialect = "sqlite" | "postgres";

/** What a migration needs to know to write one schema that both back-ends accept. */
export interface MigrationContext {
  dialect: Dialect;
  bytesType: "blob" | "bytea";
}

type MigrationModule = { up(db: Kysely<unknown>, m: MigrationContext): Promise<void> };

/**
 * Migrations are listed here, in order, rather than read from a folder: the set is part of the code that is
 * reviewed and shipped, and a stray file in a data directory can never become a migration.
 */
const MIGRATIONS: Record<string, MigrationModule> = {
  "0001-intake": m0001,
  "0002-access": m0002,
  "0003-catalogue": m0003,
  "0004-review": m0004,
  "0005-families": m0005,
  "0006-dossiers": m0006,
  "0007-families-casework": m0007,
  "0008-log-openings": m0008,
  "0009-protect-records": m0009,
  "0011-reading-evidence": m0011,
  "0012-witnesses": m0012,
  "0013-authenticity": m0013,
  "0014-identifications-and-withdrawals": m0014,
  "0015-families-previews-and-proposals": m0015,
  "0016-mirrors": m0016,
  "0017-exhibitions": m0017,
  "0018-reasons-as-keys": m0018,
  "0021-face-suggestions": m0021,
  "0022-exhibition-charts": m0022,
  "0024-body-documents": m0024,
  "0025-dna-referrals": m0025,
  "0026-log-tables-by-key": m0026,
  "0027-card-reads": m0027,
  "0028-body-words": m0028,
};

export function registerMigration(name: string, mod: MigrationModule): void {
  if (MIGRATIONS[name]) throw new Error(`migration ${name} registered twice`);
  MIGRATIONS[name] = mod;
}

/**
 * Brings the schema up to date. When it already is (the usual case for a second server process) nothing is
 * locked or created; when several processes race to create a fresh database, the losers retry.
 */
export async function migrateToLatest(db: Kysely<unknown>, dialect: Dialect, schema?: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    if (await isCurrent(db)) return;
    try {
      return await runMigrator(db, dialect, schema);
    } catch (err) {
      if (attempt >= 5) throw err;
      await new Promise((r) => setTimeout(r, 100 * attempt + Math.random() * 200));
    }
  }
}

async function isCurrent(db: Kysely<unknown>): Promise<boolean> {
  try {
    const rows = await sql<{ name: string }>`select name from dalil_migrations`.execute(db);
    const applied = new Set(rows.rows.map((r) => r.name));
    return Object.keys(MIGRATIONS).every((m) => applied.has(m));
  } catch {
    return false;
  }
}

async function runMigrator(db: Kysely<unknown>, dialect: Dialect, schema?: string): Promise<void> {
  const ctx: MigrationContext = { dialect, bytesType: dialect === "postgres" ? "bytea" : "blob" };
  const provider: MigrationProvider = {
    async getMigrations() {
      const out: Record<string, Migration> = {};
      for (const [name, mod] of Object.entries(MIGRATIONS)) out[name] = { up: (d) => mod.up(d, ctx) };
      return out;
    },
  };
  const migrator = new Migrator({
    db,
    provider,
    migrationTableName: "dalil_migrations",
    migrationLockTableName: "dalil_migrations_lock",
    // Named explicitly: Kysely otherwise looks for its tables in every schema of the database and, finding
    // another archive's, skips creating its own.
    ...(dialect === "postgres" ? { migrationTableSchema: schema ?? "public" } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === "Error")?.migrationName;
    // no migration failed: the database could not be reached or read at all, which its own error says best
    if (!failed && error instanceof Error) throw error;
    throw new Error(`database migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}
