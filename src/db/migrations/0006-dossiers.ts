import type { Kysely } from "kysely";
import type { MigrationContext } from "../migrate.ts";

/**
 * Dossiers: named cases, their exhibits (a selection of a body, photo, review, facility, unit or person with the
 * reasoning for the link, numbered E-0001… once and for good), the frozen versions (immutable snapshots), and the
 * redaction regions marked on photos (what a redacted copy fills opaque). Rows are never deleted: an exhibit is
 * withdrawn, a region is withdrawn, a version is never updated.
 */
export async function up(db: Kysely<unknown>, m: MigrationContext): Promise<void> {
  void m;
  await db.schema
    .createTable("dossiers")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("description", "text")
    .addColumn("next_exhibit", "integer", (c) => c.notNull())
    .addColumn("frozen_versions", "integer", (c) => c.notNull())
    .addColumn("changed_since_freeze", "integer", (c) => c.notNull())
    .addColumn("created_by", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("dossier_exhibits")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("dossier_id", "text", (c) => c.notNull().references("dossiers.id"))
    .addColumn("number", "text", (c) => c.notNull())
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("ref", "text", (c) => c.notNull())
    .addColumn("reasoning", "text", (c) => c.notNull())
    .addColumn("evidence", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("added_by", "text", (c) => c.notNull())
    .addColumn("added_at", "text", (c) => c.notNull())
    .addColumn("withdrawn_by", "text")
    .addColumn("withdrawn_at", "text")
    .addColumn("withdraw_reason", "text")
    .addColumn("updated_at", "text", (c) => c.notNull())
    .addUniqueConstraint("dossier_exhibits_number", ["dossier_id", "number"])
    .addUniqueConstraint("dossier_exhibits_target", ["dossier_id", "kind", "ref"])
    .execute();

  await db.schema
    .createTable("dossier_versions")
    .addColumn("dossier_id", "text", (c) => c.notNull().references("dossiers.id"))
    .addColumn("version", "integer", (c) => c.notNull())
    .addColumn("snapshot", "text", (c) => c.notNull())
    .addColumn("sha256", "text", (c) => c.notNull())
    .addColumn("note", "text")
    .addColumn("frozen_by", "text", (c) => c.notNull())
    .addColumn("frozen_at", "text", (c) => c.notNull())
    .addColumn("event_seq", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("dossier_versions_pk", ["dossier_id", "version"])
    .execute();

  await db.schema
    .createTable("redaction_regions")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("original_sha256", "text", (c) => c.notNull())
    .addColumn("x", "integer", (c) => c.notNull())
    .addColumn("y", "integer", (c) => c.notNull())
    .addColumn("w", "integer", (c) => c.notNull())
    .addColumn("h", "integer", (c) => c.notNull())
    .addColumn("label", "text", (c) => c.notNull())
    .addColumn("marked_by", "text", (c) => c.notNull())
    .addColumn("marked_at", "text", (c) => c.notNull())
    .addColumn("event_seq", "bigint", (c) => c.notNull())
    .addColumn("withdrawn_by", "text")
    .addColumn("withdrawn_at", "text")
    .execute();
  await db.schema.createIndex("redaction_regions_original").on("redaction_regions").column("original_sha256").execute();
}
