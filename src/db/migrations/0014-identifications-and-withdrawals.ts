import { sql, type Kysely } from "kysely";
import type { MigrationContext } from "../migrate.ts";

/**
 * Identifications and withdrawn disclosures (issue 19, decision 0020).
 *
 * `body_identifications` is the catalogue's record that a body is the person of a missing-person report: the
 * report is named by its id and reference only (the catalogue holds no family data and does not import the
 * families module). A row is ended, never deleted, when the caseworker reverses the confirmed decision; the
 * body's identification status before it is kept so reversing restores it. At most one standing row per body
 * and per report: the partial unique indexes make the rule hold under concurrent writers too.
 *
 * `family_disclosures` gains who withdrew a disclosure, why (a reason key the portal words in the family's
 * language) and a note for the family.
 */
export async function up(db: Kysely<unknown>, _m: MigrationContext): Promise<void> {
  await db.schema
    .createTable("body_identifications")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("body_id", "text", (c) => c.notNull().references("bodies.id"))
    .addColumn("report_id", "text", (c) => c.notNull())
    .addColumn("report_ref", "text", (c) => c.notNull())
    .addColumn("decision_id", "text", (c) => c.notNull())
    .addColumn("previous_status", "text", (c) => c.notNull())
    .addColumn("names_filled", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("created_by", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("ended_by", "text")
    .addColumn("ended_at", "text")
    .addColumn("end_decision_id", "text")
    .execute();
  await db.schema.createIndex("body_identifications_body").on("body_identifications").column("body_id").execute();
  await sql`create unique index body_identifications_standing_body on body_identifications (body_id) where ended_at is null`.execute(db);
  await sql`create unique index body_identifications_standing_report on body_identifications (report_id) where ended_at is null`.execute(db);

  await db.schema.alterTable("family_disclosures").addColumn("withdrawn_by", "text").execute();
  await db.schema.alterTable("family_disclosures").addColumn("withdraw_reason", "text").execute();
  await db.schema.alterTable("family_disclosures").addColumn("withdraw_note", "text").execute();
}
