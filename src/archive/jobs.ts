import type { Ctx } from "../app/context.ts";
import { systemActor } from "../core/actor.ts";
import { auditFixity } from "./fixity.ts";
import { repairRenditions } from "./renditions-repair.ts";

/** The archive module's background work: scheduled fixity audits and rendition repair. */
export const JOB_FIXITY_AUDIT = "archive.fixity-audit";
export const JOB_RENDITIONS = "archive.renditions";

export function registerArchiveJobs(ctx: Ctx): void {
  ctx.jobs.register(JOB_FIXITY_AUDIT, async (jc) => {
    const report = await auditFixity(ctx, systemActor, {
      onProgress: (done, total) => {
        if (done % 100 === 0 || done === total) void jc.progress(done, total);
      },
    });
    return { checked: report.checked, bytes: report.bytes, findings: report.findings.length };
  });
  ctx.jobs.register(JOB_RENDITIONS, async (jc) => {
    const made = await repairRenditions(ctx, systemActor, (done, total) => void jc.progress(done, total));
    return { made };
  });
}
