import type { Kysely } from "kysely";
import type { MigrationContext } from "../migrate.ts";

/**
 * Families casework: family members tied to reports, duplicate-report proposals and merges, caseworkers'
 * decisions on candidates, the family's requests to see more, staged disclosures with the images shown, and the
 * flags that tell a caseworker a case has reopened. Nothing here is deleted: a merged report points to the one
 * it went into, a decision is superseded by a later one, a link is ended, a flag is cleared.
 */
export async function up(db: Kysely<unknown>, m: MigrationContext): Promise<void> {
  await db.schema.alterTable("family_reports").addColumn("merged_into", "text").execute();
  // Reporters of reports merged into this one: JSON [{ reportId, ref, name, relationship, contact, filedBy }].
  await db.schema.alterTable("family_reports").addColumn("other_reporters", "text", (c) => c.notNull().defaultTo("[]")).execute();

  await db.schema
    .createTable("family_report_members")
    .addColumn("report_id", "text", (c) => c.notNull().references("family_reports.id"))
    .addColumn("user_id", "text", (c) => c.notNull())
    .addColumn("relationship", "text")
    .addColumn("linked_by", "text", (c) => c.notNull())
    .addColumn("linked_at", "text", (c) => c.notNull())
    .addColumn("ended_by", "text")
    .addColumn("ended_at", "text")
    .addPrimaryKeyConstraint("family_report_members_pk", ["report_id", "user_id"])
    .execute();
  await db.schema.createIndex("family_report_members_user").on("family_report_members").column("user_id").execute();

  await db.schema
    .createTable("family_duplicates")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("report_a", "text", (c) => c.notNull().references("family_reports.id"))
    .addColumn("report_b", "text", (c) => c.notNull().references("family_reports.id"))
    .addColumn("score", m.dialect === "postgres" ? "double precision" : "real", (c) => c.notNull())
    .addColumn("reasons", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("survivor_id", "text")
    .addColumn("decided_by", "text")
    .addColumn("decided_at", "text")
    .addColumn("reason", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addUniqueConstraint("family_duplicates_pair", ["report_a", "report_b"])
    .execute();
  await db.schema.createIndex("family_duplicates_status").on("family_duplicates").column("status").execute();

  await db.schema
    .createTable("family_decisions")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("report_id", "text", (c) => c.notNull().references("family_reports.id"))
    .addColumn("body_id", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("score", m.dialect === "postgres" ? "double precision" : "real")
    .addColumn("decided_by", "text", (c) => c.notNull())
    .addColumn("reason", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("family_decisions_pair").on("family_decisions").columns(["report_id", "body_id", "created_at"]).execute();

  await db.schema
    .createTable("family_view_requests")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("report_id", "text", (c) => c.notNull().references("family_reports.id"))
    .addColumn("body_id", "text", (c) => c.notNull())
    .addColumn("requested_by", "text", (c) => c.notNull())
    .addColumn("unblurred", "integer", (c) => c.notNull())
    .addColumn("note", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("decided_by", "text")
    .addColumn("decided_at", "text")
    .addColumn("reason", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("family_view_requests_report").on("family_view_requests").columns(["report_id", "status"]).execute();

  // A disclosure row is one step shown to one family member; images name the original and the bytes served.
  await db.schema.alterTable("family_disclosures").addColumn("photo_sha256", "text").execute();
  await db.schema.alterTable("family_disclosures").addColumn("image_sha256", "text").execute();
  await db.schema.alterTable("family_disclosures").addColumn("blurred", "integer", (c) => c.notNull().defaultTo(1)).execute();
  await db.schema.alterTable("family_disclosures").addColumn("request_id", "text").execute();
  await db.schema.alterTable("family_disclosures").addColumn("withdrawn_at", "text").execute();
  await db.schema.createIndex("family_disclosures_recipient").on("family_disclosures").columns(["recipient_id", "report_id"]).execute();

  await db.schema
    .createTable("family_flags")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("report_id", "text", (c) => c.notNull().references("family_reports.id"))
    .addColumn("body_id", "text", (c) => c.notNull())
    .addColumn("caseworker_id", "text")
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("detail", "text", (c) => c.notNull())
    // the detail as a message key and params (JSON), so the caseworker's screen words it in their language
    .addColumn("words", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("cleared_by", "text")
    .addColumn("cleared_at", "text")
    .addColumn("clear_note", "text")
    .execute();
  await db.schema.createIndex("family_flags_open").on("family_flags").columns(["caseworker_id", "cleared_at"]).execute();
}
