import type { Kysely } from "kysely";
import type { MigrationContext } from "../migrate.ts";

/**
 * Mirrors (issue 14, decision 0025): one row per follower the archive granted. The token is stored as its SHA-256
 * only (it carries 256 random bits); a grant is revoked by setting revoked_at, never deleted, so the list says who
 * held a copy and until when. The name is the custodian's, for the admin's list: the custody log carries only
 * a commitment to it.
 */
export async function up(db: Kysely<unknown>, _m: MigrationContext): Promise<void> {
  await db.schema
    .createTable("mirror_grants")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("token_hash", "text", (c) => c.notNull().unique())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("created_by", "text", (c) => c.notNull())
    .addColumn("revoked_at", "text")
    .addColumn("last_seen_at", "text")
    .execute();
}
