import type { Kysely } from "kysely";
import type { MigrationContext } from "../migrate.ts";

/**
 * Families: missing-person reports (ante-mortem), the ranked candidates of each report against the catalogue's
 * bodies, and disclosures to families. Personal data lives only in `family_reports`; candidates and
 * disclosures name reports and bodies by id. Reports are never deleted: consent is withdrawn, a report closed.
 */
export async function up(db: Kysely<unknown>, m: MigrationContext): Promise<void> {
  const real = m.dialect === "postgres" ? ("double precision" as const) : ("real" as const);
  await db.schema
    .createTable("family_reports")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("ref", "text", (c) => c.notNull().unique())
    .addColumn("name_ar", "text")
    .addColumn("name_lat", "text")
    .addColumn("slots", "text", (c) => c.notNull().defaultTo("{}"))
    .addColumn("mother_name", "text")
    .addColumn("aliases", "text", (c) => c.notNull().defaultTo("[]"))
    .addColumn("sex", "text")
    .addColumn("birth_date", "text")
    .addColumn("birth_precision", "text")
    .addColumn("birth_place", "text")
    .addColumn("arrest_date", "text")
    .addColumn("arrest_earliest", "text")
    .addColumn("arrest_latest", "text")
    .addColumn("arrest_place", "text")
    .addColumn("arrest_governorate", "text")
    .addColumn("branch", "text")
    .addColumn("branch_certainty", "text")
    .addColumn("seen_in_detention", "text", (c) => c.notNull().defaultTo("[]"))
    .addColumn("marks", "text", (c) => c.notNull().defaultTo("[]"))
    .addColumn("numbers", "text", (c) => c.notNull().defaultTo("[]"))
    .addColumn("consent", "text", (c) => c.notNull().defaultTo("{}"))
    .addColumn("reporter_name", "text")
    .addColumn("reporter_relationship", "text")
    .addColumn("reporter_contact", "text")
    .addColumn("filed_by", "text")
    .addColumn("caseworker_id", "text")
    .addColumn("status", "text", (c) => c.notNull().defaultTo("open"))
    .addColumn("version", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("created_by", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("family_reports_filed_by").on("family_reports").column("filed_by").execute();

  await db.schema
    .createTable("family_candidates")
    .addColumn("report_id", "text", (c) => c.notNull().references("family_reports.id"))
    .addColumn("body_id", "text", (c) => c.notNull())
    .addColumn("rank", "integer", (c) => c.notNull())
    .addColumn("score", real, (c) => c.notNull())
    .addColumn("band", "text", (c) => c.notNull())
    .addColumn("evidence", "text", (c) => c.notNull())
    .addColumn("ranked_at", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("family_candidates_pk", ["report_id", "body_id"])
    .execute();
  await db.schema.createIndex("family_candidates_rank").on("family_candidates").columns(["report_id", "rank"]).execute();

  await db.schema
    .createTable("family_disclosures")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("report_id", "text", (c) => c.notNull().references("family_reports.id"))
    .addColumn("body_id", "text", (c) => c.notNull())
    .addColumn("recipient_id", "text", (c) => c.notNull())
    .addColumn("stage", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("text", "text", (c) => c.notNull())
    .addColumn("consent_note", "text", (c) => c.notNull())
    .addColumn("decided_by", "text", (c) => c.notNull())
    .addColumn("reason", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("family_disclosures_report").on("family_disclosures").columns(["report_id", "created_at"]).execute();
}
