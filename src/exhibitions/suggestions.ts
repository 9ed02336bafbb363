/**
 * Suggested face regions on an exhibition's photo items (decision 0029). The detector (face-suggestions.ts) runs
 * as a job for one item, or directly; what it finds is kept as pending suggestions, which are not regions: they
 * hide nothing, they are not in the redaction record, and an exhibition with a pending suggestion is not submitted
 * for review. A curator accepts one (it becomes a faces region through addRegion, which is logged as any region
 * is, origin "suggested") or discards it. Finding and discarding are not custody events: nothing in the evidence or
 * its redaction changes.
 */
import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { actorNow } from "../access/index.ts";
import { Conflict, Invalid, NotFound } from "../core/errors.ts";
import { say } from "../core/messages.ts";
import { newId } from "../core/ids.ts";
import type { Tx } from "../db/database.ts";
import { loadDraft } from "./exhibitions.ts";
import { addRegion, originalBytes } from "./items.ts";
import { DETECTOR, suggestFaceRegions } from "./face-suggestions.ts";
import { loadItem } from "./records.ts";
import { xdb, type ExhibitionSuggestionsTable } from "./tables.ts";
import type { ExhibitionRegion, ExhibitionSuggestion } from "./contracts.ts";

export const JOB_FACE_SUGGEST = "exhibitions.face-suggest";

export function toSuggestion(s: ExhibitionSuggestionsTable): ExhibitionSuggestion {
  return { id: s.id, item: s.item_id, layer: "faces", x: s.x, y: s.y, w: s.w, h: s.h, score: s.score, angle: s.angle, angles: JSON.parse(s.angles) as number[], detector: s.detector, status: s.status as ExhibitionSuggestion["status"], foundAt: s.found_at };
}

async function photoItemOfDraft(tx: Tx, itemId: string) {
  const it = await loadItem(tx, itemId);
  if (!it.sha256) throw new Invalid(say("exhibition.textNoFaces"), "item");
  await loadDraft(tx, it.exhibition_id);
  return it;
}

/**
 * Runs the detector on the item's photograph (upright, at 0/90/180/270°) and keeps what it finds as the item's
 * pending suggestions, replacing earlier pending ones (those accepted or discarded stay as they were decided).
 * A box that an active faces region already covers mostly (IoU ≥ 0.5) is not suggested again.
 */
export async function suggestFaces(ctx: Ctx, actor: Actor, itemId: string): Promise<ExhibitionSuggestion[]> {
  ctx.policy.require(actor, "exhibition.edit");
  const it0 = await ctx.db.transaction((tx) => photoItemOfDraft(tx, itemId));
  const found = await suggestFaceRegions(await originalBytes(ctx, it0.sha256!));
  return ctx.db.transaction(async (tx) => {
    const it = await photoItemOfDraft(tx, itemId);
    const now = ctx.clock.now().toISOString();
    const decided = await xdb(tx).selectFrom("exhibition_suggestions").selectAll().where("item_id", "=", it.id).where("status", "!=", "pending").execute();
    const regions = await xdb(tx).selectFrom("exhibition_regions").selectAll().where("item_id", "=", it.id).where("removed_at", "is", null).where("layer", "=", "faces").execute();
    const known = [...decided, ...regions];
    await xdb(tx).deleteFrom("exhibition_suggestions").where("item_id", "=", it.id).where("status", "=", "pending").execute();
    for (const s of found) {
      if (known.some((k) => overlap(k, s) >= 0.5)) continue;
      const row: ExhibitionSuggestionsTable = { id: newId("exs"), item_id: it.id, layer: "faces", x: s.x, y: s.y, w: s.w, h: s.h, score: s.score, angle: s.angle, angles: JSON.stringify(s.angles), detector: DETECTOR, status: "pending", found_at: now, decided_by: null, decided_at: null, region_id: null };
      await xdb(tx).insertInto("exhibition_suggestions").values(row).execute();
    }
    return pendingOf(tx, it.id);
  });
}

function overlap(a: { x: number; y: number; w: number; h: number }, b: { x: number; y: number; w: number; h: number }): number {
  const ix = Math.max(0, Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x));
  const iy = Math.max(0, Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y));
  const u = a.w * a.h + b.w * b.h - ix * iy;
  return u > 0 ? (ix * iy) / u : 0;
}

async function pendingOf(tx: Tx, itemId: string): Promise<ExhibitionSuggestion[]> {
  const rows = await xdb(tx).selectFrom("exhibition_suggestions").selectAll().where("item_id", "=", itemId).where("status", "=", "pending").orderBy("score", "desc").orderBy("id").execute();
  return rows.map(toSuggestion);
}

/** An item's suggestions still waiting for a curator. */
export async function listSuggestions(ctx: Ctx, actor: Actor, itemId: string): Promise<ExhibitionSuggestion[]> {
  ctx.policy.require(actor, "exhibition.read");
  return ctx.db.transaction(async (tx) => {
    const it = await loadItem(tx, itemId);
    return pendingOf(tx, it.id);
  });
}

async function pendingRow(tx: Tx, id: string): Promise<ExhibitionSuggestionsTable> {
  const s = await xdb(tx).selectFrom("exhibition_suggestions").selectAll().where("id", "=", id).executeTakeFirst();
  if (!s) throw new NotFound(say("record.notFound", { kind: "suggestion" }));
  if (s.status === "accepted") throw new Conflict(say("exhibition.suggestionAccepted"));
  if (s.status !== "pending") throw new Conflict(say("exhibition.suggestionDiscarded"));
  await photoItemOfDraft(tx, s.item_id);
  return s;
}

/** A curator keeps a suggestion: it becomes a faces region (origin "suggested"), logged as every region is. */
export async function acceptSuggestion(ctx: Ctx, actor: Actor, id: string): Promise<ExhibitionRegion> {
  ctx.policy.require(actor, "exhibition.edit");
  const s = await ctx.db.transaction((tx) => pendingRow(tx, id));
  const region = await addRegion(ctx, actor, { item: s.item_id, layer: "faces", x: s.x, y: s.y, w: s.w, h: s.h, origin: "suggested" });
  await ctx.db.transaction(async (tx) => {
    await xdb(tx).updateTable("exhibition_suggestions").set({ status: "accepted", decided_by: actor.id, decided_at: ctx.clock.now().toISOString(), region_id: region.id }).where("id", "=", s.id).execute();
  });
  return region;
}

/** A curator discards a suggestion (no face there, or one already covered): nothing is hidden or logged. */
export async function discardSuggestion(ctx: Ctx, actor: Actor, id: string): Promise<void> {
  ctx.policy.require(actor, "exhibition.edit");
  await ctx.db.transaction(async (tx) => {
    const s = await pendingRow(tx, id);
    await xdb(tx).updateTable("exhibition_suggestions").set({ status: "discarded", decided_by: actor.id, decided_at: ctx.clock.now().toISOString() }).where("id", "=", s.id).execute();
  });
}

/** Asks for suggestions on one item as a job (the detector takes seconds); follow it at /api/jobs/:id. */
export async function enqueueFaceSuggestions(ctx: Ctx, actor: Actor, itemId: string): Promise<{ job: string; item: string }> {
  ctx.policy.require(actor, "exhibition.edit");
  const it = await ctx.db.transaction((tx) => photoItemOfDraft(tx, itemId));
  const job = await ctx.jobs.enqueue(null, JOB_FACE_SUGGEST, { item: it.id, actor }, { maxAttempts: 1 });
  return { job, item: it.id };
}

export function registerFaceSuggestionJobs(ctx: Ctx): void {
  ctx.jobs.register(JOB_FACE_SUGGEST, async (jc) => {
    const p = jc.job.payload as unknown as { item: string; actor: Actor };
    const actor = await actorNow(ctx.db.db, p.actor);
    const found = await suggestFaces(ctx, actor, p.item);
    return { item: p.item, suggestions: found.length };
  });
}
