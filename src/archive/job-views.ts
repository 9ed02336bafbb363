import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { NotFound } from "../core/errors.ts";
import { jobView, type JobView } from "../db/jobs.ts";
import { readableJobKinds } from "../access/index.ts";
import { say } from "../core/messages.ts";

/**
 * Following background work: the jobs list and one job, for the HTTP route and the `jobs` command alike. Each
 * caller sees the jobs of the kinds its role may follow (JOB_KINDS in the policy); a job of another kind is
 * "not found", as a missing one is, so its id says nothing about work the caller has no part in.
 */
export interface ListJobs {
  status?: "queued" | "running" | "done" | "failed";
  limit?: number;
}

export async function listJobs(ctx: Ctx, actor: Actor, input: ListJobs = {}): Promise<JobView[]> {
  ctx.policy.require(actor, "jobs.read");
  const kinds = readableJobKinds(ctx.policy, actor);
  const jobs = await ctx.jobs.list({ status: input.status, limit: input.limit ?? 100, ...(kinds === "all" ? {} : { kinds }) });
  return jobs.map(jobView);
}

export async function getJob(ctx: Ctx, actor: Actor, id: string): Promise<JobView> {
  ctx.policy.require(actor, "jobs.read");
  const job = await ctx.jobs.get(id);
  const kinds = readableJobKinds(ctx.policy, actor);
  if (kinds !== "all" && !kinds.includes(job.kind)) throw new NotFound(say("record.notFound", { kind: "job" }));
  return jobView(job);
}
