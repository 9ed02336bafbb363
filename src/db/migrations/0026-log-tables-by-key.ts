import { sql, type Kysely } from "kysely";
import type { MigrationContext } from "../migrate.ts";

/**
 * The custody log's tables on SQLite stored by their keys (issue 18 item 5, decision 0037). A `bigint primary
 * key` is not SQLite's rowid, so every row of custody_events and log_hashes was written twice (the table by rowid
 * and an index by key) and every read by seq or idx went through both; event_objects and log_openings likewise
 * kept a rowid table beside their primary key. Here custody_events.seq and log_hashes.idx become `integer primary
 * key` (the rowid itself) and the two others WITHOUT ROWID tables (the primary key is the table). Same columns,
 * same rows, same bytes; the append-only triggers and the type index are made again. PostgreSQL's tables already
 * are heaps with one index per key: nothing changes there.
 */
export async function up(db: Kysely<unknown>, m: MigrationContext): Promise<void> {
  if (m.dialect !== "sqlite") return;
  await rebuild(
    db,
    "custody_events",
    `"seq" integer primary key, "id" text not null unique, "type" text not null, "at" text not null, "actor" text not null, "outcome" text not null, "leaf" blob not null`,
    `"seq", "id", "type", "at", "actor", "outcome", "leaf"`,
  );
  await sql`create index "custody_events_type" on "custody_events" ("type")`.execute(db);
  await sql`create trigger custody_events_no_update before update on custody_events
    begin select raise(abort, 'custody events are append-only'); end`.execute(db);
  await sql`create trigger custody_events_no_delete before delete on custody_events
    begin select raise(abort, 'custody events are append-only'); end`.execute(db);
  await rebuild(db, "log_hashes", `"idx" integer primary key, "hash" blob not null`, `"idx", "hash"`);
  await rebuild(
    db,
    "event_objects",
    `"seq" integer not null, "sha256" text not null, "role" text not null, constraint "event_objects_pk" primary key ("sha256", "seq", "role")`,
    `"seq", "sha256", "role"`,
    " without rowid",
  );
  await rebuild(
    db,
    "log_openings",
    `"seq" integer not null, "event_id" text not null, "field" text not null, "salt" text not null, "value" text not null, constraint "log_openings_pk" primary key ("seq", "field")`,
    `"seq", "event_id", "field", "salt", "value"`,
    " without rowid",
  );
}

/** The table made again under its own name from a renamed copy (which takes its indexes and triggers with it when dropped). */
async function rebuild(db: Kysely<unknown>, table: string, columns: string, names: string, options = ""): Promise<void> {
  const old = `${table}_before_0026`;
  await sql.raw(`alter table "${table}" rename to "${old}"`).execute(db);
  await sql.raw(`create table "${table}" (${columns})${options}`).execute(db);
  await sql.raw(`insert into "${table}" (${names}) select ${names} from "${old}" order by 1`).execute(db);
  await sql.raw(`drop table "${old}"`).execute(db);
}
