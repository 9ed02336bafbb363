import { Migrator, type Kysely, type Migration, type MigrationProvider } from "kysely";
import * as m0001 from "./migrations/0001-intake.ts";
import * as m0002 from "./migrations/0002-access.ts";

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
};

export function registerMigration(name: string, mod: MigrationModule): void {
  if (MIGRATIONS[name]) throw new Error(`migration ${name} registered twice`);
  MIGRATIONS[name] = mod;
}

export async function migrateToLatest(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
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
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === "Error")?.migrationName ?? "unknown";
    throw new Error(`database migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}
