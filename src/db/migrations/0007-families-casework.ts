import type { Kysely } from "kysely";
import type { MigrationContext } from "../migrate.ts";

/** (Filled in by the work that needs it; no deployed archive has run it yet.) */
export async function up(db: Kysely<unknown>, m: MigrationContext): Promise<void> {
  void db;
  void m;
}
