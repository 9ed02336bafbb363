import type { Kysely } from "kysely";
import type { MigrationContext } from "../migrate.ts";

/**
 * Exhibitions (issue 16): a curated, redacted, consented selection for the public. An exhibition moves
 * draft → review → approved → published → withdrawn; its items (photos, bodies, text panels) are ordered, captioned
 * in Arabic and English, and carry redaction layers; each photo item's regions (upright pixels) belong to one
 * layer. An item's review names the redaction record (its SHA-256) the reviewer saw: a change to the regions or
 * layers after the review voids it. Rows are never deleted: items and regions are removed with who and when.
 */
export async function up(db: Kysely<unknown>, m: MigrationContext): Promise<void> {
  void m;
  await db.schema
    .createTable("exhibitions")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("ref", "text", (c) => c.notNull().unique())
    .addColumn("title_ar", "text")
    .addColumn("title_en", "text")
    .addColumn("statement_ar", "text")
    .addColumn("statement_en", "text")
    .addColumn("languages", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("created_by", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .addColumn("submitted_by", "text")
    .addColumn("submitted_at", "text")
    .addColumn("approved_by", "text")
    .addColumn("approved_at", "text")
    .addColumn("published_by", "text")
    .addColumn("published_at", "text")
    .addColumn("withdrawn_by", "text")
    .addColumn("withdrawn_at", "text")
    .execute();

  await db.schema
    .createTable("exhibition_items")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("exhibition_id", "text", (c) => c.notNull().references("exhibitions.id"))
    .addColumn("position", "integer", (c) => c.notNull())
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("sha256", "text")
    .addColumn("body_id", "text")
    .addColumn("caption_ar", "text")
    .addColumn("caption_en", "text")
    .addColumn("graphic", "integer", (c) => c.notNull())
    .addColumn("layers", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("reviewed_by", "text")
    .addColumn("reviewed_at", "text")
    .addColumn("reviewed_record", "text")
    .addColumn("review_seq", "bigint")
    .addColumn("withheld_at", "text") // taken down from a published exhibition: the family's consent is missing
    .addColumn("added_by", "text", (c) => c.notNull())
    .addColumn("added_at", "text", (c) => c.notNull())
    .addColumn("updated_by", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .addColumn("removed_by", "text")
    .addColumn("removed_at", "text")
    .execute();
  await db.schema.createIndex("exhibition_items_by_exhibition").on("exhibition_items").columns(["exhibition_id", "position"]).execute();

  await db.schema
    .createTable("exhibition_regions")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("item_id", "text", (c) => c.notNull().references("exhibition_items.id"))
    .addColumn("layer", "text", (c) => c.notNull())
    .addColumn("x", "integer", (c) => c.notNull())
    .addColumn("y", "integer", (c) => c.notNull())
    .addColumn("w", "integer", (c) => c.notNull())
    .addColumn("h", "integer", (c) => c.notNull())
    .addColumn("origin", "text", (c) => c.notNull())
    .addColumn("marked_by", "text", (c) => c.notNull())
    .addColumn("marked_at", "text", (c) => c.notNull())
    .addColumn("removed_by", "text")
    .addColumn("removed_at", "text")
    .execute();
  await db.schema.createIndex("exhibition_regions_by_item").on("exhibition_regions").columns(["item_id"]).execute();
}
