import { sql, type Kysely } from "kysely";
import type { MigrationContext } from "../migrate.ts";

/** Foundation: source media, originals, sightings, renditions, custody events and the log, jobs. */
export async function up(db: Kysely<unknown>, m: MigrationContext): Promise<void> {
  const bytes = m.bytesType;
  const bigint = "bigint" as const;

  await db.schema
    .createTable("sources")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("label", "text", (c) => c.notNull())
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("intake_path", "text", (c) => c.notNull())
    .addColumn("medium_sha256", "text")
    .addColumn("medium_size", bigint)
    .addColumn("volume_label", "text")
    .addColumn("volume_serial", "text")
    .addColumn("fs_type", "text")
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("started_at", "text", (c) => c.notNull())
    .addColumn("finished_at", "text")
    .addColumn("actor", "text", (c) => c.notNull())
    .addColumn("files", bigint, (c) => c.notNull().defaultTo(0))
    .addColumn("ingested", bigint, (c) => c.notNull().defaultTo(0))
    .addColumn("duplicates", bigint, (c) => c.notNull().defaultTo(0))
    .addColumn("quarantined", bigint, (c) => c.notNull().defaultTo(0))
    .addColumn("bytes", bigint, (c) => c.notNull().defaultTo(0))
    .execute();

  await db.schema
    .createTable("originals")
    .addColumn("sha256", "text", (c) => c.primaryKey())
    .addColumn("size", bigint, (c) => c.notNull())
    .addColumn("format", "text", (c) => c.notNull())
    .addColumn("mime", "text", (c) => c.notNull())
    .addColumn("media_kind", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("quarantine_reason", "text")
    .addColumn("first_seen_at", "text", (c) => c.notNull())
    .addColumn("first_source_id", "text", (c) => c.notNull().references("sources.id"))
    .addColumn("width", "integer")
    .addColumn("height", "integer")
    .addColumn("phash", "text")
    .addColumn("capture_time", "text")
    .addColumn("camera_make", "text")
    .addColumn("camera_model", "text")
    .addColumn("camera_serial", "text")
    .addColumn("metadata_json", "text")
    .addColumn("exif_raw", bytes)
    .addColumn("xmp_raw", "text")
    .execute();
  await db.schema.createIndex("originals_capture_time").on("originals").column("capture_time").execute();
  await db.schema.createIndex("originals_status").on("originals").column("status").execute();

  await db.schema
    .createTable("sightings")
    .addColumn("source_id", "text", (c) => c.notNull().references("sources.id"))
    .addColumn("entry_no", "integer", (c) => c.notNull())
    .addColumn("path", "text", (c) => c.notNull())
    .addColumn("size", bigint, (c) => c.notNull())
    .addColumn("modified", "text")
    .addColumn("original_sha256", "text")
    .addColumn("outcome", "text", (c) => c.notNull())
    .addColumn("reason", "text")
    .addColumn("seen_at", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("sightings_pk", ["source_id", "entry_no"])
    .execute();
  await db.schema.createIndex("sightings_original").on("sightings").column("original_sha256").execute();

  await db.schema
    .createTable("renditions")
    .addColumn("original_sha256", "text", (c) => c.notNull().references("originals.sha256"))
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("sha256", "text", (c) => c.notNull())
    .addColumn("size", bigint, (c) => c.notNull())
    .addColumn("width", "integer", (c) => c.notNull())
    .addColumn("height", "integer", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("renditions_pk", ["original_sha256", "kind"])
    .execute();

  await db.schema
    .createTable("custody_events")
    .addColumn("seq", bigint, (c) => c.primaryKey())
    .addColumn("id", "text", (c) => c.notNull().unique())
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("at", "text", (c) => c.notNull())
    .addColumn("actor", "text", (c) => c.notNull())
    .addColumn("outcome", "text", (c) => c.notNull())
    .addColumn("leaf", bytes, (c) => c.notNull())
    .execute();
  await db.schema.createIndex("custody_events_type").on("custody_events").column("type").execute();

  await db.schema
    .createTable("event_objects")
    .addColumn("seq", bigint, (c) => c.notNull())
    .addColumn("sha256", "text", (c) => c.notNull())
    .addColumn("role", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("event_objects_pk", ["sha256", "seq", "role"])
    .execute();

  await db.schema
    .createTable("log_state")
    .addColumn("id", "integer", (c) => c.primaryKey())
    .addColumn("size", bigint, (c) => c.notNull())
    .execute();
  await db.insertInto("log_state" as never).values({ id: 1, size: 0 } as never).execute();

  await db.schema
    .createTable("log_hashes")
    .addColumn("idx", bigint, (c) => c.primaryKey())
    .addColumn("hash", bytes, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("checkpoints")
    .addColumn("size", bigint, (c) => c.primaryKey())
    .addColumn("root", bytes, (c) => c.notNull())
    .addColumn("note", "text", (c) => c.notNull())
    .addColumn("key_name", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("timestamp_token", bytes)
    .addColumn("timestamp_authority", "text")
    .execute();

  await db.schema
    .createTable("jobs")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("payload", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("max_attempts", "integer", (c) => c.notNull().defaultTo(3))
    .addColumn("run_after", "text", (c) => c.notNull())
    .addColumn("locked_by", "text")
    .addColumn("locked_until", "text")
    .addColumn("progress_done", bigint, (c) => c.notNull().defaultTo(0))
    .addColumn("progress_total", bigint, (c) => c.notNull().defaultTo(0))
    .addColumn("progress_note", "text")
    .addColumn("result", "text")
    .addColumn("error", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .addColumn("dedupe_key", "text", (c) => c.unique())
    .execute();
  await db.schema.createIndex("jobs_ready").on("jobs").columns(["status", "run_after"]).execute();

  await db.schema
    .createTable("settings")
    .addColumn("key", "text", (c) => c.primaryKey())
    .addColumn("value", "text", (c) => c.notNull())
    .execute();

  // Events are never edited or deleted: the database refuses it, so a slip in code cannot do it either.
  if (m.dialect === "postgres") {
    await sql`create function dalil_refuse_change() returns trigger language plpgsql as $$
      begin raise exception 'custody events are append-only'; end $$`.execute(db);
    await sql`create trigger custody_events_append_only before update or delete on custody_events
      for each row execute function dalil_refuse_change()`.execute(db);
  } else {
    await sql`create trigger custody_events_no_update before update on custody_events
      begin select raise(abort, 'custody events are append-only'); end`.execute(db);
    await sql`create trigger custody_events_no_delete before delete on custody_events
      begin select raise(abort, 'custody events are append-only'); end`.execute(db);
  }
}
