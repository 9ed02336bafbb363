import type { Ctx } from "../app/context.ts";
import { parseLeaf } from "./events.ts";
import { MerkleAppender, leafHash, storedHashIndex } from "./merkle.ts";
import { openingProblems, openingsBetween } from "./openings.ts";
import { assertTimestampCovers } from "./timestamp.ts";
import { parseCosignerVkey, verifyCosignatureLines } from "./cosignature.ts";
import type { StoredCheckpoint } from "./tree.ts";

/**
 * The log checked against itself, without trusting any derived table: the tree is recomputed from the stored
 * event bytes and compared, leaf by leaf, with the hashes stored at append time, and root by root with every
 * signed checkpoint (whose signatures are checked with the archive's registered keys). Each finding names the
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

/** Events per read: large pages, so the database answers in few round trips and the hashing runs in one pass. */
export const VERIFY_PAGE = 20_000;

export async function verifyLedger(ctx: Ctx): Promise<LedgerReport> {
  const findings: Finding[] = [];
  const db = ctx.db.db;
  const size = await ctx.log.size();
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
  let last = -1;
  while (true) {
    const rows = await db
      .selectFrom("custody_events")
      .select(["seq", "id", "type", "at", "outcome", "actor", "leaf"])
      .where("seq", ">", last)
      .orderBy("seq")
      .limit(VERIFY_PAGE)
      .execute();
    if (rows.length === 0) break;
    const stored = await storedLeafHashes(ctx, rows[0]!.seq, rows[rows.length - 1]!.seq);
    const openings = await openingsBetween(db, rows[0]!.seq, rows[rows.length - 1]!.seq);
    for (const r of rows) {
      if (r.seq !== expected) {
        findings.push({ item: `event ${expected}`, what: "event", problem: `events ${expected}…${r.seq - 1} are missing from the log (deleted)` });
        // Keep the recomputation aligned with stored indexes so later events are still checked one by one.
        while (expected < r.seq) {
          appender.appendLeafHash(Buffer.alloc(32));
          expected++;
        }
      }
      const lh = leafHash(r.leaf);
      scratch.length = 0;
      appender.appendLeafHash(lh, scratch);
      const want = stored.get(r.seq);
      if (!want) {
        findings.push({ item: `event ${r.seq}`, what: "event", problem: "no hash was stored for this event when it was appended (inserted later)" });
      } else if (!want.equals(lh)) {
        findings.push({ item: `event ${r.seq}`, what: "event", problem: "the event's bytes differ from those hashed into the log when it was appended (edited, reordered or replaced)" });
      }
      try {
        const e = parseLeaf(r.leaf);
        if (e.id !== r.id || e.type !== r.type || e.at !== r.at || e.outcome !== r.outcome || e.actor.id !== r.actor) {
          findings.push({ item: `event ${r.seq}`, what: "event", problem: "the event's indexed columns differ from its leaf bytes" });
        }
        if (e.outcome !== "failure") for (const o of e.objects) covered.add(o.sha256 ?? o.id ?? "");
        for (const problem of openingProblems(e, openings.get(r.seq) ?? [])) findings.push({ item: `event ${r.seq}`, what: "opening", problem });
        openings.delete(r.seq);
      } catch (err) {
        findings.push({ item: `event ${r.seq}`, what: "event", problem: `leaf bytes are not a custody event: ${(err as Error).message}` });
      }
      expected++;
      last = r.seq;
      checkRoot(expected);
    }
  }
  const orphans = await db.selectFrom("log_openings").select(["seq", "field"]).where("seq", ">=", expected).execute();
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

async function storedLeafHashes(ctx: Ctx, from: number, to: number): Promise<Map<number, Buffer>> {
  const lo = storedHashIndex(0, from);
  const hi = storedHashIndex(0, to);
  const rows = await ctx.db.db.selectFrom("log_hashes").select(["idx", "hash"]).where("idx", ">=", lo).where("idx", "<=", hi).execute();
  const byIdx = new Map(rows.map((r) => [r.idx, r.hash]));
  const out = new Map<number, Buffer>();
  // The leaf hashes of consecutive leaves: leaf n+1's comes after leaf n's and the subtrees n completes, one per
  // trailing one bit of n (the stored-hash layout), so the index is stepped rather than recomputed per leaf.
  let idx = lo;
  for (let seq = from; seq <= to; seq++) {
    const h = byIdx.get(idx);
    if (h) out.set(seq, h);
    idx += 1 + trailingOnes(seq);
  }
  return out;
}

function trailingOnes(n: number): number {
  let c = 0;
  while (n % 2 === 1) {
    c++;
    n = (n - 1) / 2;
  }
  return c;
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
