import type { Ctx } from "../app/context.ts";
import { systemActor } from "../core/actor.ts";
import { rerank } from "./matching.ts";
import { JOB_RERANK, JOB_WATCH_BODIES, WATCH_INTERVAL_MS, watchKeyOf } from "./rerank-requests.ts";
import { rerankIfBodiesChanged } from "./watch.ts";

/**
 * The families module's background work, registered by the composition root (src/app/open-archive.ts): the
 * re-rank of one report or all, and the watcher that re-ranks when the catalogue's bodies change. The watcher
 * re-enqueues itself every WATCH_INTERVAL_MS; the chain starts with the first re-rank request.
 */
export function registerFamiliesJobs(ctx: Ctx): void {
  ctx.jobs.register(JOB_RERANK, async (jc) => {
    const p = jc.job.payload as { reportId?: string };
    return rerank(ctx, systemActor, { ...(p.reportId ? { reportId: p.reportId } : {}), onProgress: (d, t) => jc.progress(d, t) });
  });
  ctx.jobs.register(JOB_WATCH_BODIES, async (jc) => {
    const n = Number((jc.job.payload as { n?: number }).n ?? 0);
    try {
      return await rerankIfBodiesChanged(ctx);
    } finally {
      await ctx.jobs.forgetDone(JOB_WATCH_BODIES, new Date(ctx.clock.now().getTime() - 60 * WATCH_INTERVAL_MS));
      await ctx.jobs.enqueue(null, JOB_WATCH_BODIES, { n: n + 1 }, { dedupeKey: watchKeyOf(n + 1), runAfter: new Date(ctx.clock.now().getTime() + WATCH_INTERVAL_MS) });
    }
  });
}
