import { sql } from "kysely";
import { openDatabase, type DatabaseHandle, type OpenDatabaseOptions } from "../db/database.ts";
import { parseLeaf } from "./events.ts";
import { HASH_SIZE, leafHash } from "./merkle.ts";
import { openingProblems } from "./openings.ts";

/**
 * The part of `dalil verify` that looks at each event on its own: its leaf hash, whether its bytes are a custody
 * event, whether its indexed columns agree with them, whether its openings reproduce its commitments, and which
 * records it names. Nothing here depends on other events, so a long log is read and checked in ranges on worker
 * threads (verify-worker.ts), each with its own connection, while the calling thread folds the hashes into the
 * tree in order. Reading the rows is most of the cost, so it is the reading that is spread.
 */

export interface RangeResult {
  /** The events found in the range, in order (a missing seq is one the log lost). */
  seqs: number[];
  /** Event i's leaf hash is leafHashes[32i, 32i + 32). */
  leafHashes: Uint8Array;
  /** In event order; for each event, in the order the checks run. */
  findings: { seq: number; what: "event" | "opening"; problem: string }[];
  /** Every record named by an event that did not fail. */
  covered: string[];
}

/** A range of the log for a worker thread: which database, and events [from, to). */
export interface RangeJob {
  database: OpenDatabaseOptions;
  from: number;
  to: number;
}

/**
 * The indexed columns are read joined in one string a row: one value to carry rather than five. A leaf whose own
 * values hold the separator is reported as differing, since the join could not tell its columns apart.
 */
const COLUMN_SEPARATOR = "\x1f";

function joined(values: unknown[]): string | null {
  for (const v of values) if (typeof v !== "string" || v.includes(COLUMN_SEPARATOR)) return null;
  return values.join(COLUMN_SEPARATOR);
}

export async function checkEventRange(dbh: DatabaseHandle, from: number, to: number): Promise<RangeResult> {
  const rows = await dbh.db
    .selectFrom("custody_events")
    .select((eb) => [
      "seq",
      "leaf",
      sql<string | null>`${eb.ref("id")} || ${COLUMN_SEPARATOR} || ${eb.ref("type")} || ${COLUMN_SEPARATOR} || ${eb.ref("at")} || ${COLUMN_SEPARATOR} || ${eb.ref("outcome")} || ${COLUMN_SEPARATOR} || ${eb.ref("actor")}`.as(
        "columns",
      ),
    ])
    .where("seq", ">=", from)
    .where("seq", "<", to)
    .orderBy("seq")
    .execute();
  const openings = await openingsOf(dbh, from, to);
  const leafHashes = new Uint8Array(rows.length * HASH_SIZE);
  const findings: RangeResult["findings"] = [];
  const covered: string[] = [];
  rows.forEach(({ seq, leaf, columns }, i) => {
    leafHashes.set(leafHash(leaf), i * HASH_SIZE);
    try {
      const e = parseLeaf(leaf);
      if (joined([e.id, e.type, e.at, e.outcome, e.actor.id]) !== columns) {
        findings.push({ seq, what: "event", problem: "the event's indexed columns differ from its leaf bytes" });
      }
      if (e.outcome !== "failure") for (const o of e.objects) covered.push(o.sha256 ?? o.id ?? "");
      for (const problem of openingProblems(e, openings.get(seq) ?? [])) findings.push({ seq, what: "opening", problem });
    } catch (err) {
      findings.push({ seq, what: "event", problem: `leaf bytes are not a custody event: ${(err as Error).message}` });
    }
  });
  return { seqs: rows.map((r) => r.seq), leafHashes, findings, covered };
}

/**
 * The openings of events [from, to) by seq, read as one JSON text the database writes: parsed whole, it costs a
 * fraction of building an object a row.
 */
async function openingsOf(dbh: DatabaseHandle, from: number, to: number): Promise<Map<number, { field: string; salt: string; value: string }[]>> {
  const q =
    dbh.dialect === "postgres"
      ? sql<{ j: string }>`select coalesce(json_agg(json_build_array(seq, field, salt, value)), '[]')::text as j from log_openings where seq >= ${from} and seq < ${to}`
      // cast: SQLite lets a column hold any type, and json_array refuses a blob, which would end verify rather than report
      : sql<{ j: string }>`select json_group_array(json_array(seq, cast(field as text), cast(salt as text), cast(value as text))) as j from log_openings where seq >= ${from} and seq < ${to}`;
  const text = (await q.execute(dbh.db)).rows[0]?.j ?? "[]";
  const out = new Map<number, { field: string; salt: string; value: string }[]>();
  for (const [seq, field, salt, value] of JSON.parse(text) as [number, string, string, string][]) {
    const list = out.get(seq);
    if (list) list.push({ field, salt, value });
    else out.set(seq, [{ field, salt, value }]);
  }
  return out;
}

/**
 * A worker's connection to the archive's database, opened at its first range and kept for the next (a verify sends
 * dozens). Closed after a few idle seconds, so a worker holds no connection between one verify and the next.
 */
const IDLE_CLOSE_MS = 3000;
let open: { key: string; handle: Promise<DatabaseHandle>; active: number; idle?: NodeJS.Timeout } | null = null;

export async function checkEventRangeJob(job: RangeJob): Promise<RangeResult> {
  const key = JSON.stringify(job.database);
  if (open?.key !== key) {
    const before = open;
    open = { key, handle: openDatabase({ ...job.database, migrate: false }), active: 0 };
    if (before && before.active === 0) void before.handle.then((h) => h.close());
  }
  const mine = open;
  clearTimeout(mine.idle);
  mine.active++;
  try {
    return await checkEventRange(await mine.handle, job.from, job.to);
  } finally {
    if (--mine.active === 0) {
      mine.idle = setTimeout(() => {
        if (open === mine) open = null;
        void mine.handle.then((h) => h.close());
      }, IDLE_CLOSE_MS);
      mine.idle.unref();
    }
  }
}
