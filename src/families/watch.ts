import type { Ctx } from "../app/context.ts";
import { systemActor } from "../core/actor.ts";
import { getSetting, setSetting } from "../db/settings.ts";
import { bodiesStamp } from "../catalogue/index.ts";
import { rerank, type RerankResult } from "./matching.ts";
import { sweepOutranked } from "./disclosure.ts";

/**
 * Re-ranking when the catalogue changes, without the catalogue knowing about families. Every change to a body
 * (an edit, a number, an import, a merge or split, a review, from any process) moves the catalogue's "facets"
 * stamp in the writing transaction (triggers on bodies, see src/catalogue/facet-index.ts). A watcher job reads
 * that stamp; when it has moved since the last re-rank it re-ranks every open report, then looks for cases
 * reopened by the new ranking (a candidate now above a disclosed one), and remembers the stamp it ranked at.
 * The job (registered in jobs.ts) re-enqueues itself every WATCH_INTERVAL_MS; the chain starts with the first
 * report's re-rank (rerank-requests.ts).
 */
export { JOB_WATCH_BODIES } from "./rerank-requests.ts";
const SETTING = "families.ranked_at_bodies_stamp";

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
