import type { Ctx } from "../app/context.ts";
import { systemActor, type Actor } from "../core/actor.ts";
import { containedPath } from "../core/contained.ts";
import { actorNow } from "../access/index.ts";
import { ingestCard } from "./intake.ts";
import { removeIngestedUpload, uploadsRoot } from "./uploads.ts";
import { auditFixity } from "./fixity.ts";
import { repairRenditions } from "./renditions-repair.ts";

/** The archive module's background work: scheduled fixity audits and rendition repair. */
export const JOB_FIXITY_AUDIT = "archive.fixity-audit";
export const JOB_RENDITIONS = "archive.renditions";
export const JOB_INGEST = "archive.ingest";

/**
 * Payload of an ingest job: the card's path on the server (an upload area, under DATA/uploads/), a label, and who
 * asked. When it runs the path is contained in the uploads folder and the actor read again from the accounts.
 */
export interface IngestJobPayload {
  path: string;
  label?: string;
  actor: Actor;
}

/** Queues a fixity audit of every stored object (once: a second request while one waits answers the same job). */
export async function queueFixityAudit(ctx: Ctx, actor: Actor): Promise<{ id: string }> {
  ctx.policy.require(actor, "archive.verify");
  return { id: await ctx.jobs.enqueue(null, JOB_FIXITY_AUDIT, {}, { dedupeKey: JOB_FIXITY_AUDIT }) };
}

export function registerArchiveJobs(ctx: Ctx): void {
  ctx.jobs.register(JOB_FIXITY_AUDIT, async (jc) => {
    const report = await auditFixity(ctx, systemActor, {
      onProgress: (done, total) => {
        if (done % 100 === 0 || done === total) void jc.progress(done, total);
      },
    });
    return { checked: report.checked, bytes: report.bytes, findings: report.findings.length };
  });
  ctx.jobs.register(JOB_INGEST, async (jc) => {
    const p = jc.job.payload as unknown as IngestJobPayload;
    const actor = await actorNow(ctx.db.db, p.actor);
    const path = await containedPath(uploadsRoot(ctx), p.path, "card's path in this job");
    let last = 0;
    const summary = await ingestCard(ctx, actor, { path, label: p.label }, (pr) => {
      const now = Date.now();
      if (now - last > 500 || pr.done === pr.total) {
        last = now;
        // No path in the note: paths on a medium are sensitive metadata, and job progress is shown to all staff.
        void jc.progress(pr.done, pr.total, pr.outcome);
      }
    });
    // the card's plaintext copy goes once every byte is in the encrypted store (the removal is logged)
    const removed = await removeIngestedUpload(ctx, actor, path, summary.source);
    return { ...summary, uploadRemoved: removed };
  });
  ctx.jobs.register(JOB_RENDITIONS, async (jc) => {
    const made = await repairRenditions(ctx, systemActor, (done, total) => void jc.progress(done, total));
    return { made };
  });
}
