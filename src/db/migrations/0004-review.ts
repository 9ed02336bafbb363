import type { Kysely } from "kysely";
import type { MigrationContext } from "../migrate.ts";

/**
 * Forensic review: samples drawn from the catalogue (with their seed and strata, so a draw can be repeated),
 * the bodies in each sample, who is assigned to review which body (two reviewers for blind double review, a
 * third for a disagreement), the submitted reviews (insert-only: a correction is a new version), and the
 * resolution of disagreements.
 */
export async function up(db: Kysely<unknown>, m: MigrationContext): Promise<void> {
  void m;
  await db.schema
    .createTable("review_samples")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("seed", "text", (c) => c.notNull())
    .addColumn("size", "integer", (c) => c.notNull())
    .addColumn("population", "integer", (c) => c.notNull())
    .addColumn("population_sha256", "text", (c) => c.notNull())
    .addColumn("double_share", "text", (c) => c.notNull())
    .addColumn("strata", "text", (c) => c.notNull())
    .addColumn("drawn_by", "text", (c) => c.notNull())
    .addColumn("drawn_at", "text", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("review_items")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("sample_id", "text", (c) => c.notNull().references("review_samples.id"))
    .addColumn("body_id", "text", (c) => c.notNull())
    .addColumn("position", "integer", (c) => c.notNull())
    .addColumn("stratum", "text", (c) => c.notNull())
    .addColumn("double_review", "integer", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("disagreement", "text")
    .addColumn("resolution", "text")
    .addUniqueConstraint("review_items_sample_body", ["sample_id", "body_id"])
    .execute();
  await db.schema.createIndex("review_items_body").on("review_items").column("body_id").execute();
  await db.schema.createIndex("review_items_status").on("review_items").columns(["status", "sample_id"]).execute();

  await db.schema
    .createTable("review_assignments")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("item_id", "text", (c) => c.notNull().references("review_items.id"))
    .addColumn("slot", "integer", (c) => c.notNull())
    .addColumn("reviewer_id", "text", (c) => c.notNull())
    .addColumn("assigned_by", "text", (c) => c.notNull())
    .addColumn("assigned_at", "text", (c) => c.notNull())
    .addColumn("submitted_at", "text")
    .addUniqueConstraint("review_assignments_item_slot", ["item_id", "slot"])
    .execute();
  await db.schema.createIndex("review_assignments_reviewer").on("review_assignments").columns(["reviewer_id", "item_id"]).execute();

  await db.schema
    .createTable("reviews")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("assignment_id", "text", (c) => c.notNull().references("review_assignments.id"))
    .addColumn("item_id", "text", (c) => c.notNull())
    .addColumn("body_id", "text", (c) => c.notNull())
    .addColumn("reviewer_id", "text", (c) => c.notNull())
    .addColumn("version", "integer", (c) => c.notNull())
    .addColumn("supersedes", "text")
    .addColumn("content", "text", (c) => c.notNull())
    .addColumn("sha256", "text", (c) => c.notNull())
    .addColumn("submitted_at", "text", (c) => c.notNull())
    .addColumn("event_seq", "bigint", (c) => c.notNull())
    .addUniqueConstraint("reviews_assignment_version", ["assignment_id", "version"])
    .execute();
  await db.schema.createIndex("reviews_item").on("reviews").columns(["item_id", "version"]).execute();
}
