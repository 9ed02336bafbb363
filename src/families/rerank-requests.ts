import type { Ctx } from "../app/context.ts";

/**
 * Asking for a re-rank: the names of the families' jobs and the requests that enqueue them. Kept apart from the
 * ranking (matching.ts) and from the jobs' handlers (jobs.ts), so reports.ts and duplicates.ts can ask for a
 * re-rank without importing the ranking, and no setter is needed to break a loop.
 */
export const JOB_RERANK = "families.rerank";
export const JOB_WATCH_BODIES = "families.watch-bodies";
export const WATCH_INTERVAL_MS = 60_000;

/** Two alternating keys: a running watcher can enqueue its successor, and two chains started apart merge. */
export function watchKeyOf(n: number): string {
  return `${JOB_WATCH_BODIES}:${n % 2}`;
}

export async function startBodyWatch(ctx: Ctx, delayMs = 0): Promise<void> {
  await ctx.jobs.enqueue(null, JOB_WATCH_BODIES, { n: 0 }, { dedupeKey: watchKeyOf(0), runAfter: new Date(ctx.clock.now().getTime() + delayMs) });
}

/**
 * Asks for a re-rank of one report (or all), then makes sure the watcher that re-ranks when bodies change is
 * running (the first re-rank request starts it; src/families/watch.ts).
 */
export async function enqueueRerank(ctx: Ctx, p: { reportId?: string }): Promise<void> {
  await ctx.jobs.enqueue(null, JOB_RERANK, p.reportId ? { reportId: p.reportId } : {}, { dedupeKey: `${JOB_RERANK}:${p.reportId ?? "all"}` });
  await startBodyWatch(ctx, WATCH_INTERVAL_MS);
}
