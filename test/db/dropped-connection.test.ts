import { test } from "node:test";
import assert from "node:assert/strict";
import pg from "pg";
import { sql } from "kysely";
import { backends, PG_URL } from "../support/backends.ts";
import { openDatabase } from "../../src/db/database.ts";

/**
 * PostgreSQL drops an idle connection (a restart, a failover, pg_terminate_backend): the process that held it in
 * its pool goes on, and its next query runs on a new connection. Before the pool heard its 'error' event, such a
 * drop was an uncaught exception that ended the process with a stack trace (found by the fault harness,
 * bench/chaos.ts: a worker died when PostgreSQL restarted); here it would fail this test as uncaught.
 */
const [, pgLeg] = await backends();

test("postgres: an idle pooled connection dropped by the server does not end the process", { skip: pgLeg!.skip, timeout: 60_000 }, async () => {
  const fresh = await pgLeg!.backend.fresh();
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  const h = await openDatabase({ url: fresh.databaseUrl!, sqlitePath: "/nonexistent", migrate: false });
  try {
    const pid = (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(h.db)).rows[0]!.pid;
    const killed = await admin.query<{ ok: boolean }>("select pg_terminate_backend($1) as ok", [pid]);
    assert.equal(killed.rows[0]!.ok, true, "the server dropped the pooled connection");
    // the drop reaches the idle client as an 'error' event
    await new Promise((r) => setTimeout(r, 500));
    const again = (await sql<{ n: number; pid: number }>`select 41 + 1 as n, pg_backend_pid() as pid`.execute(h.db)).rows[0]!;
    assert.equal(again.n, 42, "the next query ran");
    assert.notEqual(again.pid, pid, "on a new connection");
  } finally {
    await h.close();
    await admin.end();
    await fresh.cleanup();
  }
});
