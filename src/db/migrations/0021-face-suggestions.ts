import type { Kysely } from "kysely";
import type { MigrationContext } from "../migrate.ts";

/**
 * Face suggestions (issue 16, decision 0029): boxes a face detector proposes on an exhibition item's photograph,
 * in pixels of the upright image, with the detector's score and the angle (0/90/180/270) they were found at.
 * A suggestion is never a region: it waits (pending) until a curator accepts it (it becomes a faces region through
 * the logged region path, named here) or discards it. Rows are never deleted.
 */
export async function up(db: Kysely<unknown>, m: MigrationContext): Promise<void> {
  const real = m.dialect === "postgres" ? ("double precision" as const) : ("real" as const);
  await db.schema
    .createTable("exhibition_suggestions")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("item_id", "text", (c) => c.notNull().references("exhibition_items.id"))
    .addColumn("layer", "text", (c) => c.notNull())
    .addColumn("x", "integer", (c) => c.notNull())
    .addColumn("y", "integer", (c) => c.notNull())
    .addColumn("w", "integer", (c) => c.notNull())
    .addColumn("h", "integer", (c) => c.notNull())
    .addColumn("score", real, (c) => c.notNull())
    .addColumn("angle", "integer", (c) => c.notNull())
    .addColumn("angles", "text", (c) => c.notNull())
    .addColumn("detector", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull()) // pending | accepted | discarded
    .addColumn("found_at", "text", (c) => c.notNull())
    .addColumn("decided_by", "text")
    .addColumn("decided_at", "text")
    .addColumn("region_id", "text")
    .execute();
  await db.schema.createIndex("exhibition_suggestions_by_item").on("exhibition_suggestions").columns(["item_id", "status"]).execute();
}
