import type { Kysely } from "kysely";
import type { MigrationContext } from "../migrate.ts";

/**
 * What the card reader made of each photo, kept as it reads (issue 18 item 1), owned by the catalogue module.
 * Reading the cards of a whole card (55,000 photos) takes longer than an hour; a run that stops (a restart, a
 * kill) starts again from the photos not yet read by the same reader, and a later run over the same source reads
 * only what it has not read. One row per photo and reader: the readings as JSON (an empty list where the photo
 * showed no card), so "read, nothing found" is told apart from "not read". Derived data: nothing of an
 * original is changed, and the proposals that use it are stored (and logged) as before.
 */
export async function up(db: Kysely<unknown>, _m: MigrationContext): Promise<void> {
  await db.schema
    .createTable("card_reads")
    .addColumn("original_sha256", "text", (c) => c.notNull())
    .addColumn("reader", "text", (c) => c.notNull())
    .addColumn("readings", "text", (c) => c.notNull())
    .addColumn("read_at", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("card_reads_pk", ["original_sha256", "reader"])
    .execute();
}
