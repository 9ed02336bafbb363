import type { Ctx } from "../app/context.ts";
import { systemActor } from "../core/actor.ts";
import type { Tx } from "../db/database.ts";
import { getSetting, setSetting } from "../db/settings.ts";
import { cdb } from "../catalogue/tables.ts";
import { rerank, type RerankResult } from "./matching.ts";
import { sweepOutranked } from "./disclosure.ts";
import { setAfterRerankRequest } from "./reports.ts";

/**
 * Re-ranking when the catalogue changes, without the catalogue knowing about families. Every change to a body
 * (an edit, a number, an import, a merge or split, a review, from any process) moves the catalogue's "facets"
 * stamp in the writing transaction (triggers on bodies, see src/catalogue/facet-index.ts). A watcher job reads
 * that stamp; when it has moved since the last re-rank it re-ranks every open report, then looks for cases
 * reopened by the new ranking (a candidate now above a disclosed one), and remembers the stamp it ranked at.
 * The job re-enqueues itself every WATCH_INTERVAL_MS; the chain starts with the first report's re-rank.
 */
export const JOB_WATCH_BODIES = "families.watch-bodies";
export const WATCH_INTERVAL_MS = 60_000;
const SETTING = "families.ranked_at_bodies_stamp";

async function bodiesStamp(tx: Tx): Promise<number> {
  const r = await cdb(tx).selectFrom("ref_counters").select("next").where("name", "=", "facets").executeTakeFirst();
  return Number(r?.next ?? 0);
}

export interface WatchResult {
  changed: boolean;
  stamp: number;
  rerank: RerankResult | null;
  flagged: number;
}

/** One look: re-ranks everything if a body changed since the last re-rank. Callable directly (tests, CLI). */
export async function rerankIfBodiesChanged(ctx: Ctx): Promise<WatchResult> {
  // the stamp is read before the bodies are: a change made during the re-rank is seen by the next look
  const stamp = await bodiesStamp(ctx.db.db);
  const last = Number((await getSetting(ctx.db.db, SETTING)) ?? "0");
  if (stamp <= last) return { changed: false, stamp, rerank: null, flagged: 0 };
  const result = await rerank(ctx, systemActor, {});
  const flagged = await sweepOutranked(ctx, systemActor);
  await setSetting(ctx.db.db, SETTING, String(stamp));
  return { changed: true, stamp, rerank: result, flagged };
}

/** Two alternating keys: a running watcher can enqueue its successor, and two chains started apart merge. */
function keyOf(n: number): string {
  return `${JOB_WATCH_BODIES}:${n % 2}`;
}

export async function startBodyWatch(ctx: Ctx, delayMs = 0): Promise<void> {
  await ctx.jobs.enqueue(null, JOB_WATCH_BODIES, { n: 0 }, { dedupeKey: keyOf(0), runAfter: new Date(ctx.clock.now().getTime() + delayMs) });
}

export function registerCaseworkJobs(ctx: Ctx): void {
  setAfterRerankRequest((c) => startBodyWatch(c, WATCH_INTERVAL_MS));
  ctx.jobs.register(JOB_WATCH_BODIES, async (jc) => {
    const n = Number((jc.job.payload as { n?: number }).n ?? 0);
    try {
      return await rerankIfBodiesChanged(ctx);
    } finally {
      await ctx.jobs.forgetDone(JOB_WATCH_BODIES, new Date(ctx.clock.now().getTime() - 60 * WATCH_INTERVAL_MS));
      await ctx.jobs.enqueue(null, JOB_WATCH_BODIES, { n: n + 1 }, { dedupeKey: keyOf(n + 1), runAfter: new Date(ctx.clock.now().getTime() + WATCH_INTERVAL_MS) });
    }
  });
}
