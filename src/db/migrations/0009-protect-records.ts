import type { Kysely } from "kysely";
import type { MigrationContext } from "../migrate.ts";

/**
 * Jobs carry a MAC of their payload (HMAC-SHA-256 under the archive's job key, keys/job-mac.key), so a row written
 * into the jobs table by anyone but the archive is refused instead of run. Jobs queued before this migration have
 * none and are refused when claimed: queue them again (docs/operations.md).
 */
export async function up(db: Kysely<unknown>, _m: MigrationContext): Promise<void> {
  await db.schema.alterTable("jobs").addColumn("payload_mac", "text").execute();
}
