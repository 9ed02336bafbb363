import { test } from "node:test";
import assert from "node:assert/strict";
import SQLite from "better-sqlite3";
import { Kysely, SqliteDialect, sql } from "kysely";
import { up } from "../../src/db/migrations/0026-log-tables-by-key.ts";

/**
 * Migration 0026 rebuilds the log's SQLite tables stored by their keys: an archive made before it keeps every row
 * byte for byte, and the append-only triggers still refuse edits. (On PostgreSQL it changes nothing.)
 */
test("migration 0026 keeps an existing SQLite log's rows and its append-only guard, and stores the tables by key", async () => {
  const raw = new SQLite(":memory:");
  const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: raw }) });
  try {
    // The tables as migrations 0001 and 0008 made them.
    raw.exec(`create table "custody_events" ("seq" bigint primary key, "id" text not null unique, "type" text not null, "at" text not null, "actor" text not null, "outcome" text not null, "leaf" blob not null);
      create index "custody_events_type" on "custody_events" ("type");
      create table "event_objects" ("seq" bigint not null, "sha256" text not null, "role" text not null, constraint "event_objects_pk" primary key ("sha256", "seq", "role"));
      create table "log_hashes" ("idx" bigint primary key, "hash" blob not null);
      create table "log_openings" ("seq" integer not null, "event_id" text not null, "field" text not null, "salt" text not null, "value" text not null, constraint "log_openings_pk" primary key ("seq", "field"));
      create trigger custody_events_no_update before update on custody_events begin select raise(abort, 'custody events are append-only'); end;
      create trigger custody_events_no_delete before delete on custody_events begin select raise(abort, 'custody events are append-only'); end;`);
    const ins = raw.prepare(`insert into custody_events values (?, ?, ?, ?, ?, ?, ?)`);
    for (let s = 0; s < 300; s++) {
      ins.run(s, `evt_${s}`, s % 7 ? "ingestion" : "transfer", "2026-01-01T00:00:00.000Z", "operator", "success", Buffer.from(`{"leaf":${s}}`));
      raw.prepare(`insert into event_objects values (?, ?, 'original')`).run(s, `h${s % 50}`);
      raw.prepare(`insert into log_hashes values (?, ?)`).run(s, Buffer.alloc(32, s % 256));
      raw.prepare(`insert into log_openings values (?, ?, 'actor.id', ?, '"x"')`).run(s, `evt_${s}`, "ab".repeat(32));
    }
    const dump = (): unknown[] =>
      ["custody_events", "event_objects", "log_hashes", "log_openings"].map((t) => raw.prepare(`select * from "${t}" order by 1, 2`).all());
    const before = dump();

    await up(db, { dialect: "sqlite", bytesType: "blob" });

    assert.deepEqual(dump(), before, "every row kept, byte for byte");
    const ddl = (t: string): string => (raw.prepare(`select sql from sqlite_master where type = 'table' and name = ?`).get(t) as { sql: string }).sql;
    assert.match(ddl("custody_events"), /"seq" integer primary key/);
    assert.match(ddl("log_hashes"), /"idx" integer primary key/);
    assert.match(ddl("event_objects"), /without rowid$/);
    assert.match(ddl("log_openings"), /without rowid$/);
    const leftovers = raw.prepare(`select name from sqlite_master where name like '%before_0026%'`).all();
    assert.deepEqual(leftovers, []);
    const indexes = raw.prepare(`select name from sqlite_master where type = 'index' and tbl_name = 'custody_events' and name = 'custody_events_type'`).all();
    assert.equal(indexes.length, 1, "the type index is made again");
    await assert.rejects(sql`update custody_events set outcome = 'failure' where seq = 1`.execute(db), /append-only/);
    await assert.rejects(sql`delete from custody_events where seq = 1`.execute(db), /append-only/);
    assert.throws(() => ins.run(300, "evt_0", "ingestion", "t", "a", "success", Buffer.from("x")), /UNIQUE/, "event ids stay unique");
  } finally {
    await db.destroy();
  }
});
