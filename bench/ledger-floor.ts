import SQLite from "better-sqlite3";
import pg from "pg";
import { storedHashIndex } from "../src/ledger/merkle.ts";

/**
 * The database's own floor for the custody log's appends: the very rows an append wrote (events, their objects,
 * their openings, the tree's stored hashes), copied from the archive's tables into fresh tables of the same
 * definition (keys, indexes, durability settings), in the same batches and one transaction a batch, by the
 * database driver alone: no dalil code, no query builder, no hashing or serialising. Only the writing and the
 * commits are timed; reading the rows back from the archive is not. What dalil spends above this is dalil's.
 */
const TABLES = ["custody_events", "event_objects", "log_openings", "log_hashes"] as const;

/** Which rows of a table belong to events [from, to). */
function range(table: (typeof TABLES)[number], from: number, to: number): { column: string; lo: number; hi: number } {
  if (table === "log_hashes") return { column: "idx", lo: storedHashIndex(0, from), hi: storedHashIndex(0, to) };
  return { column: "seq", lo: from, hi: to };
}

/** SQLite: prepared single-row INSERTs reused for every row, a transaction a batch, WAL with synchronous = FULL. */
export function sqliteFloorSeconds(sourcePath: string, targetPath: string, events: number, batch: number): number {
  const source = new SQLite(sourcePath, { readonly: true });
  const target = new SQLite(targetPath);
  try {
    target.pragma("journal_mode = WAL");
    target.pragma("synchronous = FULL");
    const ddl = source
      .prepare(`select sql from sqlite_master where tbl_name in (${TABLES.map(() => "?").join(",")}) and type in ('table', 'index') and sql is not null order by type desc`)
      .pluck()
      .all(...TABLES) as string[];
    for (const s of ddl) target.exec(s);
    const read = TABLES.map((t) => source.prepare(`select * from "${t}" where "${range(t, 0, 0).column}" >= ? and "${range(t, 0, 0).column}" < ?`).raw());
    const write = TABLES.map((t) => {
      const width = source.prepare(`select * from "${t}" limit 0`).columns().length;
      return target.prepare(`insert into "${t}" values (${Array.from({ length: width }, () => "?").join(",")})`);
    });
    const insertAll = target.transaction((rows: unknown[][][]) => {
      rows.forEach((tableRows, i) => {
        for (const r of tableRows) write[i]!.run(r);
      });
    });
    let seconds = 0;
    for (let from = 0; from < events; from += batch) {
      const to = Math.min(events, from + batch);
      const rows = TABLES.map((t, i) => {
        const { lo, hi } = range(t, from, to);
        return read[i]!.all(lo, hi) as unknown[][];
      });
      const t0 = process.hrtime.bigint();
      insertAll(rows);
      seconds += Number(process.hrtime.bigint() - t0) / 1e9;
    }
    return seconds;
  } finally {
    source.close();
    target.close();
  }
}

/**
 * PostgreSQL: one `INSERT … SELECT FROM unnest(…)` a table a batch (each column sent as one array parameter), a
 * transaction a batch, into tables made `like` the archive's `including all`, in a schema of their own.
 */
export async function postgresFloorSeconds(url: string, sourceSchema: string, targetSchema: string, events: number, batch: number): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`create schema "${targetSchema}"`);
    const columns = new Map<string, { name: string; type: string }[]>();
    for (const t of TABLES) {
      await client.query(`create table "${targetSchema}"."${t}" (like "${sourceSchema}"."${t}" including all)`);
      const { rows } = await client.query<{ column_name: string; udt_name: string }>(
        "select column_name, udt_name from information_schema.columns where table_schema = $1 and table_name = $2 order by ordinal_position",
        [sourceSchema, t],
      );
      columns.set(t, rows.map((r) => ({ name: r.column_name, type: r.udt_name })));
    }
    let seconds = 0;
    for (let from = 0; from < events; from += batch) {
      const to = Math.min(events, from + batch);
      const statements: { text: string; values: unknown[] }[] = [];
      for (const t of TABLES) {
        const cols = columns.get(t)!;
        const { column, lo, hi } = range(t, from, to);
        const { rows } = await client.query({ text: `select * from "${sourceSchema}"."${t}" where "${column}" >= $1 and "${column}" < $2`, values: [lo, hi], rowMode: "array" });
        const arrays = cols.map((_, i) => rows.map((r: unknown[]) => r[i]));
        statements.push({
          text: `insert into "${targetSchema}"."${t}" select * from unnest(${cols.map((c, i) => `$${i + 1}::${c.type}[]`).join(", ")})`,
          values: arrays,
        });
      }
      const t0 = process.hrtime.bigint();
      await client.query("begin");
      for (const s of statements) await client.query(s);
      await client.query("commit");
      seconds += Number(process.hrtime.bigint() - t0) / 1e9;
    }
    return seconds;
  } finally {
    await client.query(`drop schema if exists "${targetSchema}" cascade`).catch(() => undefined);
    await client.end();
  }
}

/** What verify reads: every event, its openings and the tree's stored hashes (event_objects is derived from the leaves). */
const READ = ["custody_events", "log_openings", "log_hashes"] as const;

/**
 * The database's own floor for verify's reading: the rows verify reads, handed to the driver as arrays in the
 * same ranges of events, on one connection, and dropped: no dalil code, no parsing, no hashing. Verify reads on
 * two threads and checks what it reads; this says how much of its time the rows alone would take on one.
 */
export async function readFloorSeconds(
  backend: "sqlite" | "postgres",
  where: { sqlitePath: string } | { url: string; schema: string },
  events: number,
  page: number,
): Promise<number> {
  if (backend === "sqlite") {
    const db = new SQLite((where as { sqlitePath: string }).sqlitePath, { readonly: true });
    try {
      const read = READ.map((t) => db.prepare(`select * from "${t}" where "${range(t, 0, 0).column}" >= ? and "${range(t, 0, 0).column}" < ?`).raw());
      const t0 = process.hrtime.bigint();
      for (let from = 0; from < events; from += page) {
        const to = Math.min(events, from + page);
        READ.forEach((t, i) => {
          const { lo, hi } = range(t, from, to);
          for (const r of read[i]!.iterate(lo, hi)) void r;
        });
      }
      return Number(process.hrtime.bigint() - t0) / 1e9;
    } finally {
      db.close();
    }
  }
  const { url, schema } = where as { url: string; schema: string };
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const t0 = process.hrtime.bigint();
    for (let from = 0; from < events; from += page) {
      const to = Math.min(events, from + page);
      for (const t of READ) {
        const { column, lo, hi } = range(t, from, to);
        await client.query({ text: `select * from "${schema}"."${t}" where "${column}" >= $1 and "${column}" < $2`, values: [lo, hi], rowMode: "array" });
      }
    }
    return Number(process.hrtime.bigint() - t0) / 1e9;
  } finally {
    await client.end();
  }
}
