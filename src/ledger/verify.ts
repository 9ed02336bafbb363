import type { Ctx } from "../app/context.ts";
import { parseLeaf } from "./events.ts";
import { MerkleAppender, storedHashIndex } from "./merkle.ts";
import { openingProblems, openingsBetween } from "./openings.ts";
import { assertTimestampCovers } from "./timestamp.ts";

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

const PAGE = 5000;

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
  const rootsWanted = new Map(checkpoints.map((c) => [c.size, c.root]));

  const covered = new Set<string>();
  const appender = MerkleAppender.empty();
  if (rootsWanted.has(0)) checkRoot(0);
  let expected = 0;
  let last = -1;
  while (true) {
    const rows = await db
      .selectFrom("custody_events")
      .select(["seq", "id", "type", "at", "outcome", "actor", "leaf"])
      .where("seq", ">", last)
      .orderBy("seq")
      .limit(PAGE)
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
      const { leafHashes } = appender.appendLeaves([r.leaf]);
      const want = stored.get(r.seq);
      if (!want) {
        findings.push({ item: `event ${r.seq}`, what: "event", problem: "no hash was stored for this event when it was appended (inserted later)" });
      } else if (!want.equals(leafHashes[0]!)) {
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
  for (let seq = from; seq <= to; seq++) {
    const h = byIdx.get(storedHashIndex(0, seq));
    if (h) out.set(seq, h);
  }
  return out;
}
