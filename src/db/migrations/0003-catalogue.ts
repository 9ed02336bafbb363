import { sql, type Kysely } from "kysely";
import type { MigrationContext } from "../migrate.ts";
import { SEED, VOCABULARY_NAMES } from "./0003-vocabulary-seed.ts";

/**
 * Catalogue: bodies grouped from photos, their numbers, grouping proposals, OCR readings, controlled
 * vocabularies (seeded), entities (facilities, units, hospitals, persons of interest), typed links with their
 * evidence, and the per-field history of every change. Search: SQLite indexes `bodies.search_text` with FTS5
 * (kept in step by triggers); PostgreSQL with a generated tsvector over the same tokens and a GIN index.
 * Both index exactly the tokens the application computed (src/core/arabic.ts), so results are identical.
 */
export async function up(db: Kysely<unknown>, m: MigrationContext): Promise<void> {
  const bigint = "bigint" as const;
  const real = m.dialect === "postgres" ? ("double precision" as const) : ("real" as const);

  await db.schema
    .createTable("bodies")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("ref", "text", (c) => c.notNull().unique())
    .addColumn("ref_no", bigint, (c) => c.notNull().unique())
    .addColumn("external_ref", "text", (c) => c.unique())
    .addColumn("source_id", "text", (c) => c.references("sources.id"))
    .addColumn("detainee_no", "text")
    .addColumn("detainee_no_norm", "text")
    .addColumn("branch_no", "text")
    .addColumn("branch_no_norm", "text")
    .addColumn("examiner_no", "text")
    .addColumn("examiner_no_norm", "text")
    .addColumn("hospital", "text")
    .addColumn("photo_date", "text")
    .addColumn("photo_month", "text")
    .addColumn("death_date", "text")
    .addColumn("death_date_earliest", "text")
    .addColumn("death_date_latest", "text")
    .addColumn("sex", "text")
    .addColumn("age_min", "integer")
    .addColumn("age_max", "integer")
    .addColumn("marks", "text", (c) => c.notNull().defaultTo("[]"))
    .addColumn("clothing", "text")
    .addColumn("identification_status", "text", (c) => c.notNull().defaultTo("unidentified"))
    .addColumn("name_ar", "text")
    .addColumn("name_lat", "text")
    .addColumn("review_status", "text", (c) => c.notNull().defaultTo("unreviewed"))
    .addColumn("notes", "text")
    .addColumn("sensitivity", "text", (c) => c.notNull().defaultTo("restricted"))
    .addColumn("merged_into", "text")
    .addColumn("finding_codes", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("version", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("created_by", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  // What search filters, counts and sorts by, one row per body, in a narrow table kept in step with bodies by
  // triggers (whatever code writes a body). Each change takes the next value of the "facets" stamp and writes
  // it on the row; a merged body stays, inactive. Search holds the active rows in memory per process and, when
  // the stamp has moved, reads only the rows changed since (src/catalogue/facet-index.ts).
  await db.schema
    .createTable("body_facets")
    .addColumn("ref_no", m.dialect === "postgres" ? bigint : "integer", (c) => c.primaryKey())
    .addColumn("body_id", "text", (c) => c.notNull())
    .addColumn("active", "integer", (c) => c.notNull())
    .addColumn("stamp", bigint, (c) => c.notNull())
    .addColumn("sensitivity", "text", (c) => c.notNull())
    .addColumn("branch_no_norm", "text")
    .addColumn("hospital", "text")
    .addColumn("photo_month", "text")
    .addColumn("photo_date", "text")
    .addColumn("review_status", "text", (c) => c.notNull())
    .addColumn("identification_status", "text", (c) => c.notNull())
    .addColumn("sex", "text")
    .addColumn("finding_codes", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("body_facets_stamp").on("body_facets").column("stamp").execute();
  const facetCols =
    "ref_no, body_id, active, stamp, sensitivity, branch_no_norm, hospital, photo_month, photo_date, review_status, identification_status, sex, finding_codes, updated_at";
  const newCols = facetCols
    .split(", ")
    .map((c) =>
      c === "body_id"
        ? "new.id"
        : c === "active"
          ? "case when new.merged_into is null then 1 else 0 end"
          : c === "stamp"
            ? "(select next from ref_counters where name = 'facets')"
            : `new.${c}`,
    )
    .join(", ");
  if (m.dialect === "postgres") {
    await sql
      .raw(
        `create function dalil_body_facets() returns trigger language plpgsql as $$
        begin
          update ref_counters set next = next + 1 where name = 'facets';
          delete from body_facets where ref_no = new.ref_no;
          insert into body_facets (${facetCols}) values (${newCols});
          return null;
        end $$`,
      )
      .execute(db);
    await sql`create trigger bodies_facets after insert or update on bodies for each row execute function dalil_body_facets()`.execute(db);
  } else {
    for (const [name, event] of [
      ["bodies_facets_insert", "insert"],
      ["bodies_facets_update", "update"],
    ]) {
      await sql
        .raw(
          `create trigger ${name} after ${event} on bodies begin
            update ref_counters set next = next + 1 where name = 'facets';
            delete from body_facets where ref_no = new.ref_no;
            insert into body_facets (${facetCols}) values (${newCols}); end`,
        )
        .execute(db);
    }
  }
  await db.schema.createIndex("bodies_detainee_no").on("bodies").column("detainee_no_norm").execute();
  await db.schema.createIndex("bodies_examiner_no").on("bodies").column("examiner_no_norm").execute();
  await db.schema.createIndex("bodies_source").on("bodies").column("source_id").execute();

  await db.schema
    .createTable("body_findings")
    .addColumn("body_id", "text", (c) => c.notNull().references("bodies.id"))
    .addColumn("code", "text", (c) => c.notNull())
    .addColumn("source", "text", (c) => c.notNull())
    .addColumn("added_at", "text", (c) => c.notNull())
    .addColumn("added_by", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("body_findings_pk", ["body_id", "code", "source"])
    .execute();
  await db.schema.createIndex("body_findings_code").on("body_findings").columns(["code", "body_id"]).execute();

  await db.schema
    .createTable("body_photos")
    .addColumn("body_id", "text", (c) => c.notNull().references("bodies.id"))
    .addColumn("original_sha256", "text", (c) => c.notNull().references("originals.sha256"))
    .addColumn("role", "text", (c) => c.notNull())
    .addColumn("position", "integer", (c) => c.notNull())
    .addColumn("added_at", "text", (c) => c.notNull())
    .addColumn("added_by", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("body_photos_pk", ["body_id", "original_sha256"])
    .execute();
  await db.schema.createIndex("body_photos_original").on("body_photos").column("original_sha256").execute();

  await db.schema
    .createTable("body_numbers")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("seq", bigint, (c) => c.notNull().unique())
    .addColumn("body_id", "text", (c) => c.notNull().references("bodies.id"))
    .addColumn("role", "text", (c) => c.notNull())
    .addColumn("value", "text", (c) => c.notNull())
    .addColumn("value_norm", "text", (c) => c.notNull())
    .addColumn("source_sha256", "text")
    .addColumn("method", "text", (c) => c.notNull())
    .addColumn("confidence", real)
    .addColumn("origin", "text")
    .addColumn("entered_by", "text", (c) => c.notNull())
    .addColumn("entered_at", "text", (c) => c.notNull())
    .addColumn("checked_by", "text")
    .addColumn("checked_at", "text")
    .addColumn("retired_at", "text")
    .addColumn("retired_by", "text")
    .addColumn("retired_reason", "text")
    .execute();
  await db.schema.createIndex("body_numbers_body").on("body_numbers").columns(["body_id", "role"]).execute();
  await db.schema.createIndex("body_numbers_value").on("body_numbers").columns(["role", "value_norm"]).execute();

  await db.schema
    .createTable("photo_readings")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("original_sha256", "text", (c) => c.notNull())
    .addColumn("source_id", "text", (c) => c.notNull())
    .addColumn("job_id", "text")
    .addColumn("reader", "text", (c) => c.notNull())
    .addColumn("role", "text", (c) => c.notNull())
    .addColumn("value", "text", (c) => c.notNull())
    .addColumn("value_norm", "text", (c) => c.notNull())
    .addColumn("confidence", real)
    .addColumn("read_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("photo_readings_original").on("photo_readings").column("original_sha256").execute();
  await db.schema.createIndex("photo_readings_source").on("photo_readings").column("source_id").execute();

  await db.schema
    .createTable("grouping_proposals")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("source_id", "text", (c) => c.notNull())
    .addColumn("run_id", "text", (c) => c.notNull())
    .addColumn("position", "integer", (c) => c.notNull())
    .addColumn("photos", "text", (c) => c.notNull())
    .addColumn("roles", "text", (c) => c.notNull())
    .addColumn("numbers", "text", (c) => c.notNull())
    .addColumn("reasons", "text", (c) => c.notNull())
    .addColumn("score", real)
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("parents", "text", (c) => c.notNull())
    .addColumn("body_id", "text")
    .addColumn("decided_by", "text")
    .addColumn("decided_at", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("created_by", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("grouping_proposals_source")
    .on("grouping_proposals")
    .columns(["source_id", "status", "position"])
    .execute();

  await db.schema
    .createTable("vocabularies")
    .addColumn("vocabulary", "text", (c) => c.notNull())
    .addColumn("code", "text", (c) => c.notNull())
    .addColumn("label_ar", "text", (c) => c.notNull())
    .addColumn("label_en", "text", (c) => c.notNull())
    .addColumn("parent", "text")
    .addColumn("extra", "text", (c) => c.notNull().defaultTo("{}"))
    .addColumn("sort", "integer", (c) => c.notNull())
    .addColumn("retired_at", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("created_by", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("vocabularies_pk", ["vocabulary", "code"])
    .execute();

  await db.schema
    .createTable("entities")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("number", "text")
    .addColumn("number_norm", "text")
    .addColumn("name_ar", "text")
    .addColumn("name_en", "text")
    .addColumn("title", "text")
    .addColumn("governorate", "text")
    .addColumn("parent_id", "text")
    .addColumn("commander_id", "text")
    .addColumn("vocabulary_code", "text")
    .addColumn("description", "text")
    .addColumn("sensitivity", "text", (c) => c.notNull())
    .addColumn("search_text", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("version", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("created_by", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("entities_kind").on("entities").columns(["kind", "number_norm"]).execute();

  await db.schema
    .createTable("links")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("from_kind", "text", (c) => c.notNull())
    .addColumn("from_id", "text", (c) => c.notNull())
    .addColumn("to_kind", "text", (c) => c.notNull())
    .addColumn("to_id", "text", (c) => c.notNull())
    .addColumn("evidence", "text", (c) => c.notNull())
    .addColumn("reasoning", "text", (c) => c.notNull())
    .addColumn("confidence", "text", (c) => c.notNull())
    .addColumn("version", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("created_by", "text", (c) => c.notNull())
    .addColumn("retracted_at", "text")
    .addColumn("retracted_by", "text")
    .addColumn("retraction_reason", "text")
    .execute();
  await db.schema.createIndex("links_from").on("links").columns(["from_id", "type"]).execute();
  await db.schema.createIndex("links_to").on("links").columns(["to_id", "type"]).execute();

  await db.schema
    .createTable("field_history")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("record_type", "text", (c) => c.notNull())
    .addColumn("record_id", "text", (c) => c.notNull())
    .addColumn("field", "text", (c) => c.notNull())
    .addColumn("old_value", "text", (c) => c.notNull())
    .addColumn("new_value", "text", (c) => c.notNull())
    .addColumn("actor", "text", (c) => c.notNull())
    .addColumn("at", "text", (c) => c.notNull())
    .addColumn("event_seq", bigint, (c) => c.notNull())
    .addColumn("salt", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("field_history_record").on("field_history").columns(["record_id", "event_seq"]).execute();
  await db.schema.createIndex("field_history_event").on("field_history").column("event_seq").execute();

  await db.schema
    .createTable("ref_counters")
    .addColumn("name", "text", (c) => c.primaryKey())
    .addColumn("next", bigint, (c) => c.notNull())
    .execute();
  await db.insertInto("ref_counters" as never).values([{ name: "body", next: 1 }, { name: "number", next: 1 }, { name: "vocabulary", next: 1 }, { name: "facets", next: 1 }] as never).execute();

  // History is evidence of who changed what: like custody events, never edited or deleted.
  if (m.dialect === "postgres") {
    await sql`create trigger field_history_append_only before update or delete on field_history
      for each row execute function dalil_refuse_change()`.execute(db);
  } else {
    await sql`create trigger field_history_no_update before update on field_history
      begin select raise(abort, 'field history is append-only'); end`.execute(db);
    await sql`create trigger field_history_no_delete before delete on field_history
      begin select raise(abort, 'field history is append-only'); end`.execute(db);
  }

  // The search document of each active body, apart from the body rows so that they stay narrow.
  await db.schema
    .createTable("body_search")
    .addColumn("ref_no", bigint, (c) => c.primaryKey())
    .addColumn("search_text", "text", (c) => c.notNull())
    .execute();
  if (m.dialect === "postgres") {
    // array_to_tsvector takes the tokens as they are: no parser, no dictionary, so PostgreSQL indexes exactly
    // the tokens SQLite does (the 'simple' configuration would still run the default parser over them).
    await sql`alter table body_search add column search_vector tsvector
      generated always as (array_to_tsvector(string_to_array(search_text, ' '))) stored`.execute(db);
    await sql`create index body_search_vector on body_search using gin (search_vector)`.execute(db);
  } else {
    // External-content FTS5 over body_search.search_text keyed by ref_no (a stable integer, unlike an implicit
    // rowid). The tokens are already normalised; unicode61 without diacritic removal only splits on spaces.
    await sql`create virtual table bodies_fts using fts5(search_text, content='body_search', content_rowid='ref_no',
      tokenize = 'unicode61 remove_diacritics 0', prefix = '2 3')`.execute(db);
    await sql`create trigger body_search_insert after insert on body_search begin
      insert into bodies_fts(rowid, search_text) values (new.ref_no, new.search_text); end`.execute(db);
    await sql`create trigger body_search_update after update of search_text on body_search begin
      insert into bodies_fts(bodies_fts, rowid, search_text) values ('delete', old.ref_no, old.search_text);
      insert into bodies_fts(rowid, search_text) values (new.ref_no, new.search_text); end`.execute(db);
    await sql`create trigger body_search_delete after delete on body_search begin
      insert into bodies_fts(bodies_fts, rowid, search_text) values ('delete', old.ref_no, old.search_text); end`.execute(db);
  }

  const now = new Date().toISOString();
  const rows = VOCABULARY_NAMES.flatMap((vocabulary) =>
    SEED[vocabulary].map((t, i) => ({
      vocabulary,
      code: t.code,
      label_ar: t.ar,
      label_en: t.en,
      parent: t.parent ?? null,
      extra: JSON.stringify(t.extra ?? {}),
      sort: (i + 1) * 10,
      retired_at: null,
      created_at: now,
      created_by: "system:dalil",
    })),
  );
  for (let i = 0; i < rows.length; i += 100) {
    await db.insertInto("vocabularies" as never).values(rows.slice(i, i + 100) as never).execute();
  }
}
