import type { Kysely } from "kysely";
import type { MigrationContext } from "../migrate.ts";

/**
 * Facts read from documents (issue 19 item 4, decision 0032): numbers and names that detention papers or a hospital
 * register give for a body, imported from CSV with their source. One row per fact: the body, the source as the
 * importer named it and the row it came from, the kind (a number's role, or "name"), the value as written and its
 * matching form. Owned by the catalogue; never changed or deleted (a merge moves them with the body's numbers).
 */
export async function up(db: Kysely<unknown>, _m: MigrationContext): Promise<void> {
  await db.schema
    .createTable("body_documents")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("body_id", "text", (c) => c.notNull().references("bodies.id"))
    .addColumn("import_id", "text", (c) => c.notNull())
    .addColumn("source", "text", (c) => c.notNull())
    .addColumn("source_row", "integer", (c) => c.notNull())
    .addColumn("kind", "text", (c) => c.notNull()) // detainee | branch | examiner | hospital | name
    .addColumn("value", "text", (c) => c.notNull())
    .addColumn("value_norm", "text", (c) => c.notNull())
    .addColumn("imported_by", "text", (c) => c.notNull())
    .addColumn("imported_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("body_documents_by_body").on("body_documents").columns(["body_id", "kind"]).execute();
  await db.schema.createIndex("body_documents_by_value").on("body_documents").columns(["kind", "value_norm"]).execute();
}
