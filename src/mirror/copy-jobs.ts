import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Ctx } from "../app/context.ts";
import { systemActor } from "../core/actor.ts";
import { DalilError } from "../core/errors.ts";
import { auditCopies, DEFAULT_EVERY_HOURS, loadCopies, type CopySpec } from "./copies.ts";

/**
 * Each configured copy's own audit, as a periodic job: when DATA/copies.json names copies, `dalil serve` (with its
 * worker) and `dalil worker` queue one job per copy, which runs `dalil audit copies` for that copy alone every
 * `everyHours` hours (24 unless copies.json says). The job re-reads copies.json each time, so a changed schedule
 * applies from the next run and a copy taken out of the file ends its chain. An audit that cannot run (the copy
 * unmounted, copies.json broken) or finds what it cannot repair fails the job at once, with the audit's message
 * key, and is logged as an error; the next run is still queued. Two alternating dedupe keys per copy, as the
 * other periodic jobs have: a running audit can queue its successor, and two chains started apart merge.
 */
export const JOB_AUDIT_COPY = "mirror.audit-copy";
const HOUR_MS = 3_600_000;

function keyOf(copy: string, n: number): string {
  return `${JOB_AUDIT_COPY}:${copy}:${n % 2}`;
}

function copiesOf(ctx: Ctx): CopySpec[] {
  return existsSync(join(ctx.config.dataDir, "copies.json")) ? loadCopies(ctx.config.dataDir) : [];
}

async function queue(ctx: Ctx, copy: string, everyHours: number, n: number): Promise<string> {
  return ctx.jobs.enqueue(null, JOB_AUDIT_COPY, { copy, everyHours, n }, {
    dedupeKey: keyOf(copy, n),
    runAfter: new Date(ctx.clock.now().getTime() + everyHours * HOUR_MS),
    maxAttempts: 1,
  });
}

/**
 * Queues each configured copy's next audit (one interval from now), unless one is already waiting or running
 * (a restart does not start a second chain). Nothing when
 * there is no copies.json; a copies.json that cannot be read is refused (Invalid) so the process says so at start.
 */
export async function scheduleCopyAudits(ctx: Ctx): Promise<{ copy: string; job: string }[]> {
  const copies = copiesOf(ctx);
  if (copies.length === 0) return [];
  const waiting = new Map<string, string>();
  for (const status of ["queued", "running"]) {
    for (const j of await ctx.jobs.list({ kind: JOB_AUDIT_COPY, status, limit: 10_000 })) waiting.set(String(j.payload.copy), j.id);
  }
  const out: { copy: string; job: string }[] = [];
  for (const c of copies) out.push({ copy: c.name, job: waiting.get(c.name) ?? (await queue(ctx, c.name, c.everyHours ?? DEFAULT_EVERY_HOURS, 0)) });
  return out;
}

export function registerMirrorJobs(ctx: Ctx): void {
  ctx.jobs.register(JOB_AUDIT_COPY, async (jc) => {
    const p = jc.job.payload as { copy: string; everyHours?: number; n?: number };
    const n = Number(p.n ?? 0);
    let next: number | null = Number(p.everyHours ?? DEFAULT_EVERY_HOURS);
    try {
      const spec = copiesOf(ctx).find((c) => c.name === p.copy);
      if (!spec) {
        next = null; // taken out of copies.json (or the file removed): its chain ends
        return { copy: p.copy, audited: false };
      }
      next = spec.everyHours ?? DEFAULT_EVERY_HOURS;
      const r = await auditCopies(ctx, systemActor, { copies: [spec] });
      const c = r.copies[0]!;
      return { copy: spec.name, audited: true, objects: c.objects, missing: c.missing, corrupt: c.corrupt, extra: c.extra, repaired: c.repaired + r.archive.repaired };
    } catch (err) {
      ctx.logger.log("error", "copy audit failed", { copy: p.copy, job: jc.job.id, error: err instanceof Error ? err.message : String(err), key: err instanceof DalilError ? (err.key ?? null) : null });
      throw err;
    } finally {
      if (next !== null) await queue(ctx, p.copy, next, n + 1);
    }
  });
}
