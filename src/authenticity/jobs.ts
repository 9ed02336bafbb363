import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { actorNow } from "../access/index.ts";
import { findSource, runAuthenticity } from "./runs.ts";
import * as contracts from "./contracts.ts";
import { parseInput } from "../core/input.ts";
import type { z } from "zod";

/**
 * An analysis asked for over HTTP runs as a job: a card of thousands of photos takes minutes with the content
 * checks. The job reads the actor's rights again when it runs; its result names the run, not the findings.
 */
export const JOB_AUTHENTICITY = "authenticity.run";

export interface AuthenticityJobPayload {
  source: string;
  content: boolean;
  actor: Actor;
}

export async function enqueueAuthenticity(ctx: Ctx, actor: Actor, sent: z.input<typeof contracts.RunAnalysisInput>): Promise<{ job: string; source: string }> {
  ctx.policy.require(actor, "authenticity.run");
  const input = parseInput(contracts.RunAnalysisInput, sent);
  const source = await findSource(ctx, input.source);
  const job = await ctx.jobs.enqueue(null, JOB_AUTHENTICITY, { source: source.id, content: input.content, actor }, { maxAttempts: 1 });
  return { job, source: source.id };
}

export function registerAuthenticityJobs(ctx: Ctx): void {
  ctx.jobs.register(JOB_AUTHENTICITY, async (jc) => {
    const p = jc.job.payload as unknown as AuthenticityJobPayload;
    const actor = await actorNow(ctx.db.db, p.actor);
    let last = 0;
    const v = await runAuthenticity(ctx, actor, { source: p.source, content: p.content }, (done, total) => {
      const now = Date.now();
      if (now - last > 500 || done === total) {
        last = now;
        void jc.progress(done, total);
      }
    });
    return { run: v.run, source: v.source.id, photos: v.report.counts.photos, flagged: v.report.counts.flagged, reportSha256: v.reportSha256 };
  });
}
