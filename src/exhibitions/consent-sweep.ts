/**
 * Taking items down when a family withdraws consent. The live pages and every export read consent anew, so a
 * withdrawal takes effect on the next request; this sweep records it: for each item of a published exhibition
 * that shows an identified person without the family's consent to public display, one custody event
 * (exhibition.item-takedown) when it is first found, and one (exhibition.item-restore) if consent is given again.
 * Run after every publication and export and by a job every minute while an exhibition is published.
 */
import type { Ctx } from "../app/context.ts";
import { systemActor, type Actor } from "../core/actor.ts";
import { logExhibition } from "./log.ts";
import { activeItems, consentStates } from "./records.ts";
import { xdb } from "./tables.ts";
import { registerFaceSuggestionJobs } from "./suggestions.ts";

export const JOB_CONSENT_SWEEP = "exhibitions.consent-sweep";
export const SWEEP_INTERVAL_MS = 60_000;

export interface SweepResult {
  takenDown: number;
  restored: number;
  published: number;
}

export async function sweepConsent(ctx: Ctx, actor: Actor): Promise<SweepResult> {
  return ctx.db.transaction(async (tx) => {
    const published = await xdb(tx).selectFrom("exhibitions").selectAll().where("status", "=", "published").orderBy("id").execute();
    let takenDown = 0;
    let restored = 0;
    for (const ex of published) {
      const items = await activeItems(tx, ex.id);
      const consent = await consentStates(tx, items);
      for (const it of items) {
        const missing = consent.get(it.id) === "missing";
        if (missing && !it.withheld_at) {
          await xdb(tx).updateTable("exhibition_items").set({ withheld_at: ctx.clock.now().toISOString() }).where("id", "=", it.id).execute();
          await logExhibition(ctx, tx, actor, ex.id, [{ id: it.id, role: "exhibition item" }], { action: "exhibition.item-takedown", item: it.id, cause: "consent" });
          takenDown++;
        } else if (!missing && it.withheld_at) {
          await xdb(tx).updateTable("exhibition_items").set({ withheld_at: null }).where("id", "=", it.id).execute();
          await logExhibition(ctx, tx, actor, ex.id, [{ id: it.id, role: "exhibition item" }], { action: "exhibition.item-restore", item: it.id });
          restored++;
        }
      }
    }
    return { takenDown, restored, published: published.length };
  });
}

/** Two alternating keys: a running sweep can enqueue its successor (as families' body watch does). */
function keyOf(n: number): string {
  return `${JOB_CONSENT_SWEEP}:${n % 2}`;
}

/** The sweep job: runs, and comes back in a minute while any exhibition is published. */
export async function startConsentWatch(ctx: Ctx, n = 0, delayMs = SWEEP_INTERVAL_MS): Promise<void> {
  await ctx.jobs.enqueue(null, JOB_CONSENT_SWEEP, { n }, { dedupeKey: keyOf(n), runAfter: new Date(ctx.clock.now().getTime() + delayMs) });
}

export function registerExhibitionJobs(ctx: Ctx): void {
  ctx.jobs.register(JOB_CONSENT_SWEEP, async (jc) => {
    const n = Number((jc.job.payload as { n?: number }).n ?? 0);
    const result = await sweepConsent(ctx, systemActor);
    if (result.published > 0) await startConsentWatch(ctx, n + 1);
    return result;
  });
  registerFaceSuggestionJobs(ctx);
}
