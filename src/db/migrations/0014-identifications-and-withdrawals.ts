import { sql, type Kysely } from "kysely";
import type { MigrationContext } from "../migrate.ts";
import { nameKeyTokens } from "../../names/index.ts";

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
 *
 * The search documents of named bodies gain their names' cross-script keys (names/names.ts, as catalogue/search-index.ts indexes them), so a
 * name searched in one script finds bodies named in the other; new and changed bodies get them when indexed.
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
  await addNameKeys(db);
}

/** Adds the names' cross-script keys to the search documents of bodies that lack them (exported for its test). */
export async function addNameKeys(db: Kysely<unknown>): Promise<void> {
  const named = await sql<{ ref_no: number; name_ar: string | null; name_lat: string | null; search_text: string }>`
    select b.ref_no, b.name_ar, b.name_lat, s.search_text from bodies b join body_search s on s.ref_no = b.ref_no
    where b.name_ar is not null or b.name_lat is not null`.execute(db);
  for (const r of named.rows) {
    const have = new Set(r.search_text.split(" "));
    const add = [...nameKeyTokens(r.name_ar), ...nameKeyTokens(r.name_lat)].filter((t) => !have.has(t) && (have.add(t), true));
    if (add.length) await sql`update body_search set search_text = ${[r.search_text, ...add].filter(Boolean).join(" ")} where ref_no = ${r.ref_no}`.execute(db);
  }
}
