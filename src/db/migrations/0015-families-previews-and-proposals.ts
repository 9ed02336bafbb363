import type { Kysely } from "kysely";
import type { MigrationContext } from "../migrate.ts";

/**
 * The blurred face a caseworker saw, and what families propose (issues 19 and 20).
 *
 * `family_face_previews`: a blurred crop of the face made by the server from a photo a caseworker chose (one the
 * body's record marks as showing the face) and the region they drew, stored as a blob and named by its SHA-256,
 * with who looked at it and when. Stage 2 of a disclosure sends only such a crop, by its id: a family is never
 * sent an image no caseworker has seen. `family_disclosures.preview_id` names the crop a disclosure sent.
 *
 * `family_report_proposals`: a family member's new report, or a change to their report, waiting for a
 * caseworker to accept or refuse it (with a reason). The proposed fields are kept as JSON; the history of a
 * report's proposals stays (never deleted). A report filed from the portal has status `submitted` until a
 * caseworker accepts it: it is not matched, nor weighed for duplicates, before then.
 */
export async function up(db: Kysely<unknown>, _m: MigrationContext): Promise<void> {
  await db.schema
    .createTable("family_face_previews")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("report_id", "text", (c) => c.notNull())
    .addColumn("body_id", "text", (c) => c.notNull())
    .addColumn("photo_sha256", "text", (c) => c.notNull())
    .addColumn("region", "text", (c) => c.notNull())
    .addColumn("image_sha256", "text", (c) => c.notNull())
    .addColumn("previewed_by", "text", (c) => c.notNull())
    .addColumn("previewed_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("family_face_previews_report").on("family_face_previews").columns(["report_id", "body_id"]).execute();
  await db.schema.alterTable("family_disclosures").addColumn("preview_id", "text").execute();

  await db.schema
    .createTable("family_report_proposals")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("report_id", "text", (c) => c.notNull())
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("fields", "text", (c) => c.notNull())
    .addColumn("proposed_by", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("decided_by", "text")
    .addColumn("decided_at", "text")
    .addColumn("reason", "text")
    .execute();
  await db.schema.createIndex("family_report_proposals_report").on("family_report_proposals").column("report_id").execute();
}
