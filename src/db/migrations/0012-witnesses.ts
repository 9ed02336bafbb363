import type { Kysely } from "kysely";
import type { MigrationContext } from "../migrate.ts";

/**
 * Witnesses (C2SP tlog-witness): the cosignature lines each witness returned for a checkpoint, published with
 * it, and the alarms raised when a witness refused one (403/404/422, an unresolved 409) or could not be reached.
 * A witness is known by its vkey; the policy's name for it is kept for people reading the rows.
 */
export async function up(db: Kysely<unknown>, m: MigrationContext): Promise<void> {
  await db.schema
    .createTable("checkpoint_cosignatures")
    .addColumn("size", "integer", (c) => c.notNull())
    .addColumn("witness_vkey", "text", (c) => c.notNull())
    .addColumn("witness_name", "text", (c) => c.notNull())
    .addColumn("line", "text", (c) => c.notNull())
    .addColumn("time", "bigint", (c) => c.notNull())
    .addColumn("received_at", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("checkpoint_cosignatures_pk", ["size", "witness_vkey"])
    .execute();
  await db.schema
    .createTable("witness_alarms")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("witness_vkey", "text", (c) => c.notNull())
    .addColumn("witness_name", "text", (c) => c.notNull())
    .addColumn("size", "integer", (c) => c.notNull())
    .addColumn("kind", "text", (c) => c.notNull()) // refused | unreachable | invalid-answer
    .addColumn("status", "integer")
    .addColumn("detail", "text", (c) => c.notNull())
    .addColumn("at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("witness_alarms_by_witness").on("witness_alarms").columns(["witness_vkey", "at"]).execute();
  void m;
}
