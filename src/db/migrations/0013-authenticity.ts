import type { Kysely } from "kysely";
import type { MigrationContext } from "../migrate.ts";

/**
 * Authenticity analyses of a card (src/authenticity): each run with the software version and parameters it ran
 * with, the digest of its input (the photos' SHA-256s) and of its report, the report itself, and one row per
 * finding so a photo's findings are read without the whole report. Runs are never changed; a new run is a new row.
 */
export async function up(db: Kysely<unknown>, _m: MigrationContext): Promise<void> {
  await db.schema
    .createTable("authenticity_runs")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("source_id", "text", (c) => c.notNull())
    .addColumn("software_version", "text", (c) => c.notNull())
    .addColumn("parameters", "text", (c) => c.notNull())
    .addColumn("input_sha256", "text", (c) => c.notNull())
    .addColumn("report_sha256", "text", (c) => c.notNull())
    .addColumn("report", "text", (c) => c.notNull())
    .addColumn("photos", "integer", (c) => c.notNull())
    .addColumn("flagged", "integer", (c) => c.notNull())
    .addColumn("run_by", "text", (c) => c.notNull())
    .addColumn("run_at", "text", (c) => c.notNull())
    .addColumn("event_seq", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("authenticity_runs_source").on("authenticity_runs").columns(["source_id", "run_at"]).execute();
  await db.schema
    .createTable("authenticity_findings")
    .addColumn("run_id", "text", (c) => c.notNull().references("authenticity_runs.id"))
    .addColumn("n", "integer", (c) => c.notNull())
    .addColumn("original_sha256", "text")
    .addColumn("check_name", "text", (c) => c.notNull())
    .addColumn("severity", "text", (c) => c.notNull())
    .addColumn("message_key", "text", (c) => c.notNull())
    .addColumn("params", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("authenticity_findings_pk", ["run_id", "n"])
    .execute();
  await db.schema.createIndex("authenticity_findings_original").on("authenticity_findings").columns(["original_sha256", "run_id"]).execute();
}
