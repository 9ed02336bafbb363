import { test } from "node:test";
import assert from "node:assert/strict";
import { backends, PG_URL } from "../support/backends.ts";
import { runChaos, printReport, type Fault } from "../../bench/chaos.ts";

/**
 * The fault harness (bench/chaos.ts, `npm run chaos`) in short: a few SIGKILLs of random dalil processes while a
 * small card is ingested, a package built and reports re-ranked, the S3 server killed and started again, a worker
 * three minutes behind (when libfaketime is installed) and the data folder on a full disk (when this runs as
 * root). PostgreSQL is a fresh schema on the machine's server, which is never restarted here (other tests use
 * it): the long run crashes a private cluster instead. Whatever the seed, the same invariants must hold. At the
 * test's timeout every process it started is killed, so a stuck run fails the test instead of holding up the suite.
 */
const [, pgLeg] = await backends();
const seed = Number(process.env.DALIL_CHAOS_SEED ?? Math.floor(Math.random() * 1_000_000));

test(`chaos, short: kills, an S3 restart, a skewed clock, a full disk — nothing lost or doubled (seed ${seed})`, { skip: pgLeg!.skip, timeout: 240_000 }, async (t) => {
  const faults: Fault[] = ["kill", "s3", "clock", ...(process.getuid?.() === 0 ? (["disk"] as const) : [])];
  const opts = { kills: 6, faults, seed, bodies: 4, intervalMs: [1200, 2500] as [number, number], clockOffset: "-3m", minCycles: 1, sharedPostgres: PG_URL, log: () => {}, signal: t.signal };
  const r = await runChaos(opts);
  const text = printReport(r, opts);
  console.log(text);
  assert.deepEqual(r.problems, [], text);
  assert.equal(r.kills, 6, text);
  assert.equal(r.s3Restarts, 1, text);
  assert.equal(r.lost, 0);
  assert.deepEqual(r.doubled, []);
  assert.ok(r.verify.ok, r.verify.text);
  // the worker three minutes behind the database refuses to start, and says why (its leases would be misread)
  assert.match(r.clockRefused ?? "", /^dalil: This machine's clock is 1\d\d s behind the database server's/, text);
  if (faults.includes("disk")) {
    assert.deepEqual([r.disk?.full, r.disk?.resumedAfterSpace], [true, true], text);
    assert.match(r.disk!.sentence ?? "", /^dalil: .*full/, "the full disk is said in a sentence");
  }
});
