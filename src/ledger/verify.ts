import { sql } from "kysely";
import type { Ctx } from "../app/context.ts";
import { WorkerPool } from "../core/worker-pool.ts";
import { HASH_SIZE, MerkleAppender, storedHashCount, storedHashIndex } from "./merkle.ts";
import { checkEventRange, checkEventRangeJob, type RangeJob, type RangeResult } from "./verify-events.ts";
import { paths } from "../core/config.ts";
import { assertTimestampCovers } from "./timestamp.ts";
import { parseCosignerVkey, verifyCosignatureLines } from "./cosignature.ts";
import type { StoredCheckpoint } from "./tree.ts";

/**
 * The log checked against itself, without trusting any derived table: the tree is recomputed from the stored
 * event bytes and compared, leaf by leaf and subtree by subtree, with the hashes stored at append time (proofs are
 * made of them), and root by root with every signed checkpoint (whose signatures are checked with the archive's
 * registered keys). Each finding names the
 * event, checkpoint or item. `covered` holds every record named by an event that did not fail: the archive
 * checks its originals, renditions and sources against it (src/archive/coverage.ts), so the ledger reads no
 * other module's tables.
 */
export interface Finding {
  item: string;
  what: "original" | "rendition" | "event" | "checkpoint" | "log" | "key" | "coverage" | "opening";
  problem: string;
}

export interface LedgerReport {
  events: number;
  checkpoints: number;
  findings: Finding[];
  covered: ReadonlySet<string>;
}

/** Events per read: large ranges, so the database answers in few round trips; one range is one worker's job. */
export const VERIFY_PAGE = 20_000;

export async function verifyLedger(ctx: Ctx): Promise<LedgerReport> {
  const findings: Finding[] = [];
  const db = ctx.db.db;
  // The recorded size and the events to read in one statement, so that events appended meanwhile are in neither.
  const { size, top } = await db
    .selectFrom("log_state")
    .select((eb) => ["size", eb.selectFrom("custody_events").select((e) => e.fn.max("seq").as("m")).as("top")])
    .where("id", "=", 1)
    .executeTakeFirstOrThrow();
  const end = top === null ? 0 : Number(top) + 1;
  if (!ctx.tree.keyRegistered) {
    findings.push({
      item: "log key",
      what: "key",
      problem: "the log signing key in the keys directory is not a key registered for this archive's log (the key file was replaced)",
    });
  }

  const checkpoints = await ctx.tree.checkpoints();
  for (const cp of checkpoints) {
    try {
      ctx.tree.openStored(cp);
    } catch (err) {
      findings.push({ item: `checkpoint ${cp.size}`, what: "checkpoint", problem: `signature or content invalid: ${(err as Error).message}` });
    }
    if (cp.timestampToken) {
      try {
        assertTimestampCovers(cp.timestampToken, Buffer.from(cp.note, "utf8"));
      } catch (err) {
        findings.push({ item: `checkpoint ${cp.size}`, what: "checkpoint", problem: `its timestamp token does not cover it: ${(err as Error).message}` });
      }
    }
  }
  findings.push(...(await cosignatureProblems(ctx, checkpoints)));
  const rootsWanted = new Map(checkpoints.map((c) => [c.size, c.root]));

  const covered = new Set<string>();
  const appender = MerkleAppender.empty();
  const scratch: Buffer[] = [];
  if (rootsWanted.has(0)) checkRoot(0);
  let expected = 0;
  /** Once an event is missing or differs, the recomputed subtrees over it differ from the stored ones by that alone. */
  let recomputedDiffers = false;
  // Events are read and checked in ranges, a few ahead of the one being folded into the tree.
  const check = rangeChecker(ctx, end > VERIFY_PAGE);
  const ahead: { from: number; to: number; result: Promise<RangeResult> }[] = [];
  for (let from = 0; from < end || ahead.length > 0; ) {
    while (from < end && ahead.length < RANGES_AHEAD) {
      const to = Math.min(end, from + VERIFY_PAGE);
      const result = check(from, to);
      // Awaited in order below; until then a failure must not count as unhandled (it would end the process).
      result.catch(() => undefined);
      ahead.push({ from, to, result });
      from = to;
    }
    const next = ahead.shift()!;
    // The stored hashes the range's leaves wrote: from those of leaf `from` to the last subtree leaf `to − 1` completed.
    const stored = await storedHashes(ctx, storedHashCount(next.from), storedHashCount(next.to));
    fold(stored, await next.result);
  }
  const orphans = await db
    .selectFrom("log_openings")
    .select(["seq", "field"])
    .where("seq", ">=", expected)
    .where(({ not, exists, selectFrom }) => not(exists(selectFrom("custody_events").select("seq").whereRef("custody_events.seq", "=", "log_openings.seq"))))
    .execute();
  for (const o of orphans) findings.push({ item: `event ${o.seq}`, what: "opening", problem: `an opening of ${o.field} is stored for an event the log does not hold` });
  if (expected !== size) {
    findings.push({ item: "log", what: "log", problem: `the log's recorded size is ${size} but ${expected} events are stored` });
  }
  for (const cp of checkpoints) {
    if (cp.size > expected) {
      findings.push({ item: `checkpoint ${cp.size}`, what: "checkpoint", problem: `signed for ${cp.size} events but only ${expected} are stored (events removed from the end)` });
    }
  }

  return { events: expected, checkpoints: checkpoints.length, findings, covered };

  /** Folds one checked range into the tree, in event order, and compares what was stored when each was appended. */
  function fold(stored: StoredHashes, result: RangeResult): void {
    let f = 0;
    for (let i = 0; i < result.seqs.length; i++) {
      const seq = result.seqs[i]!;
      if (seq !== expected) {
        findings.push({ item: `event ${expected}`, what: "event", problem: `events ${expected}…${seq - 1} are missing from the log (deleted)` });
        recomputedDiffers = true;
        // Keep the recomputation aligned with stored indexes so later events are still checked one by one.
        while (expected < seq) {
          appender.appendLeafHash(Buffer.alloc(32));
          expected++;
        }
      }
      const lh = Buffer.from(result.leafHashes.buffer, result.leafHashes.byteOffset + i * HASH_SIZE, HASH_SIZE);
      scratch.length = 0;
      appender.appendLeafHash(lh, scratch);
      const at = storedHashIndex(0, seq);
      const want = stored.at(at);
      if (!want) {
        findings.push({ item: `event ${seq}`, what: "event", problem: "no hash was stored for this event when it was appended (inserted later)" });
        recomputedDiffers = true;
      } else if (!want.equals(lh)) {
        findings.push({ item: `event ${seq}`, what: "event", problem: "the event's bytes differ from those hashed into the log when it was appended (edited, reordered or replaced)" });
        recomputedDiffers = true;
      } else if (!recomputedDiffers) {
        // The subtrees this leaf completes: proofs are made from these stored hashes, so a changed one would give a
        // court a proof that fails.
        for (let level = 1; level < scratch.length; level++) {
          const kept = stored.at(at + level);
          if (!kept || !kept.equals(scratch[level]!)) {
            findings.push({
              item: `event ${seq}`,
              what: "log",
              problem: `the tree's stored hash of the ${2 ** level} events ending here differs from the one recomputed from them: inclusion proofs that use it would fail`,
            });
          }
        }
      }
      for (; f < result.findings.length && result.findings[f]!.seq === seq; f++) {
        const x = result.findings[f]!;
        findings.push({ item: `event ${seq}`, what: x.what, problem: x.problem });
      }
      expected++;
      checkRoot(expected);
    }
    for (const c of result.covered) covered.add(c);
  }

  function checkRoot(n: number): void {
    const want = rootsWanted.get(n);
    if (want && !want.equals(appender.root())) {
      findings.push({
        item: `checkpoint ${n}`,
        what: "checkpoint",
        problem: "its signed root differs from the tree recomputed from the stored events: the log was changed after it was signed, or forked",
      });
    }
  }
}

/** The stored hashes with indexes [lo, hi), by index. */
interface StoredHashes {
  at(idx: number): Buffer | undefined;
}

/**
 * The stored hashes [lo, hi) in one aggregate read (two for every leaf, so reading them as rows cost more than all
 * the hashing verify does). When a row is missing or not 32 bytes the aggregate cannot be cut by index, and they
 * are read again as rows, so that each finding still names its event.
 */
async function storedHashes(ctx: Ctx, lo: number, hi: number): Promise<StoredHashes> {
  const whole =
    ctx.db.dialect === "postgres"
      ? (
          await sql<{ n: string; b: Buffer | null }>`select count(*) as n, string_agg(hash, ''::bytea order by idx) as b from log_hashes where idx >= ${lo} and idx < ${hi}`.execute(
            ctx.db.db,
          )
        ).rows[0]
      : (await sql<{ n: number; b: string | null }>`select count(*) as n, group_concat(hex(hash), '' order by idx) as b from log_hashes where idx >= ${lo} and idx < ${hi}`.execute(ctx.db.db))
          .rows[0];
  const bytes = typeof whole?.b === "string" ? Buffer.from(whole.b, "hex") : whole?.b;
  if (bytes && Number(whole!.n) === hi - lo && bytes.length === (hi - lo) * HASH_SIZE) {
    return { at: (idx) => (idx >= lo && idx < hi ? bytes.subarray((idx - lo) * HASH_SIZE, (idx - lo + 1) * HASH_SIZE) : undefined) };
  }
  const rows = await ctx.db.db.selectFrom("log_hashes").select(["idx", "hash"]).where("idx", ">=", lo).where("idx", "<", hi).execute();
  const byIdx = new Map(rows.map((r) => [r.idx, r.hash]));
  return { at: (idx) => byIdx.get(idx) };
}

/** Ranges read and checked ahead of the one being folded: enough to keep every worker busy. */
const RANGES_AHEAD = 4;

let pool: WorkerPool<RangeJob, RangeResult> | null = null;

/**
 * Reads and checks events [from, to): on worker threads with connections of their own when `parallel` (a log longer
 * than a page: below that, starting them costs more than they save), else on this thread with its connection.
 */
function rangeChecker(ctx: Ctx, parallel: boolean): (from: number, to: number) => Promise<RangeResult> {
  if (!parallel) return (from, to) => checkEventRange(ctx.db, from, to);
  const database = { url: ctx.config.databaseUrl, sqlitePath: paths.sqlite(ctx.config) };
  pool ??= new WorkerPool<RangeJob, RangeResult>(new URL("./verify-worker.ts", import.meta.url), checkEventRangeJob);
  const workers = pool;
  return (from, to) => workers.run({ database, from, to });
}

/**
 * Every kept witness cosignature must verify over the body of the checkpoint it is kept for, with the witness key
 * kept beside it (not the current policy's: a witness may have left the policy since). A line altered or moved to
 * another checkpoint in the table would otherwise be published as a witness's word.
 */
async function cosignatureProblems(ctx: Ctx, checkpoints: StoredCheckpoint[]): Promise<Finding[]> {
  const bySize = new Map(checkpoints.map((c) => [c.size, c]));
  const rows = await ctx.db.db.selectFrom("checkpoint_cosignatures").selectAll().orderBy("size").execute();
  const out: Finding[] = [];
  for (const r of rows) {
    const item = `checkpoint ${r.size}, cosignature by ${r.witness_name}`;
    const cp = bySize.get(r.size);
    if (!cp) {
      out.push({ item, what: "checkpoint", problem: "kept for a checkpoint this archive never signed" });
      continue;
    }
    try {
      const ok = verifyCosignatureLines(cp.note.slice(0, cp.note.lastIndexOf("\n\n") + 1), r.line, parseCosignerVkey(r.witness_vkey));
      if (ok.length !== 1) out.push({ item, what: "checkpoint", problem: "the kept line is not a cosignature by the witness key kept with it" });
    } catch (err) {
      out.push({ item, what: "checkpoint", problem: (err as Error).message });
    }
  }
  return out;
}
