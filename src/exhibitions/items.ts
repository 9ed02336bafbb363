/**
 * An exhibition's items: photos (an original by SHA-256), bodies (a body's photo: the body by id or reference,
 * the photo one of its own), text panels and charts (one of the catalogue's aggregate breakdowns, its numbers
 * frozen into the item by the review); their order, captions in Arabic and English, the content warning,
 * the redaction layers and the regions of each layer; and the second person's review of each item. Items change
 * only while the exhibition is a draft, except the review, which is given while it is in review.
 */
import type { Readable } from "node:stream";
import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { Conflict, Invalid, NotFound } from "../core/errors.ts";
import { newId } from "../core/ids.ts";
import { canonicalJson } from "../core/canonical-json.ts";
import type { Tx } from "../db/database.ts";
import { originalFact } from "../archive/index.ts";
import { findBodyRow, photosOfBodies, publishableBreakdown, PUBLIC_MIN_COUNT } from "../catalogue/index.ts";
import { uprightSize } from "./clean-copy.ts";
import { authorsOf, loadDraft, refuseAuthor, words } from "./exhibitions.ts";
import { logExhibition } from "./log.ts";
import { activeItems, activeRegions, consentStates, loadExhibition, loadItem, redactionRecord, recordSha256, reviewSha256, toItem, toRegion, chartDataSha256 } from "./records.ts";
import { xdb, type ExhibitionItemsTable, type ExhibitionRegionsTable } from "./tables.ts";
import * as contracts from "./contracts.ts";
import type { Layers, ExhibitionItem, ExhibitionRegion, ChartData } from "./contracts.ts";
import { parseInput } from "../core/input.ts";
import { say } from "../core/messages.ts";
import type { z } from "zod";

/** Every layer on but the everything layer: what a new photo item hides until the curator decides otherwise. */
export const DEFAULT_LAYERS: Layers = { faces: true, numbers: true, marks: true, background: true, everything: "off" };

/** `sha256`: photo: the original; body: which of the body's photos (its first by default). `body`: its id or reference (B-000123). */
export type AddItem = z.input<typeof contracts.AddItemInput>;

export async function originalBytes(ctx: Ctx, sha256: string): Promise<Buffer> {
  const stream: Readable = await ctx.blobs.get(sha256);
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

function captionOf(c: AddItem["caption"], prev?: ExhibitionItemsTable): { caption_ar: string | null; caption_en: string | null } {
  return {
    caption_ar: c?.ar !== undefined ? words(c.ar) : (prev?.caption_ar ?? null),
    caption_en: c?.en !== undefined ? words(c.en) : (prev?.caption_en ?? null),
  };
}

function layersOf(patch: Partial<Layers> | undefined, prev: Layers = DEFAULT_LAYERS): Layers {
  return { ...prev, ...(patch ?? {}) };
}

async function itemView(tx: Tx, it: ExhibitionItemsTable): Promise<ExhibitionItem> {
  const regions = (await activeRegions(tx, [it.id])).get(it.id) ?? [];
  return toItem(it, regions, (await consentStates(tx, [it])).get(it.id) ?? "missing");
}

export async function addItem(ctx: Ctx, actor: Actor, sent: AddItem): Promise<ExhibitionItem> {
  ctx.policy.require(actor, "exhibition.edit");
  const input = parseInput(contracts.AddItemInput, sent);
  let sha256: string | null = null;
  let bodyId: string | null = null;
  if (input.kind === "chart") {
    if (!input.chart) throw new Invalid(say("exhibition.chartNeeded"), "chart");
  } else if (input.kind === "text") {
    if (!input.caption?.ar?.trim() && !input.caption?.en?.trim()) throw new Invalid(say("exhibition.textNeedsWords"), "caption");
  } else if (input.kind === "body") {
    if (!input.body) throw new Invalid(say("exhibition.bodyNeeded"), "body");
    const body = await findBodyRow(ctx.db.db, input.body);
    bodyId = body.id;
    const photos = (await photosOfBodies(ctx.db.db, [body.id])).map((p) => p.sha256).sort();
    if (photos.length === 0) throw new Conflict(say("exhibition.bodyNoPhoto", { ref: body.ref }));
    if (input.sha256 && !photos.includes(input.sha256)) throw new Invalid(say("exhibition.notBodysPhoto", { ref: body.ref }), "sha256");
    sha256 = input.sha256 ?? photos[0]!;
  } else {
    if (!input.sha256) throw new Invalid(say("exhibition.photoNeeded"), "sha256");
    sha256 = input.sha256;
  }
  if (sha256) {
    const fact = await originalFact(ctx.db.db, sha256);
    if (!fact || fact.status !== "preserved") throw new NotFound(say("record.notFound", { kind: "original" }));
    if (fact.mediaKind !== "image") throw new Invalid(say("exhibition.photographOnly"), "sha256");
  }
  const layers = layersOf(input.layers);
  return ctx.db.transaction(async (tx) => {
    const ex = await loadDraft(tx, input.exhibition);
    const position = (await activeItems(tx, ex.id)).length + 1;
    const now = ctx.clock.now().toISOString();
    const row: ExhibitionItemsTable = {
      id: newId("exi"),
      exhibition_id: ex.id,
      position,
      kind: input.kind,
      sha256,
      body_id: bodyId,
      chart: input.kind === "chart" ? input.chart! : null,
      chart_data: null,
      ...captionOf(input.caption),
      graphic: input.kind === "chart" ? 0 : input.graphic ?? input.kind !== "text" ? 1 : 0,
      layers: canonicalJson(layers),
      status: "active",
      reviewed_by: null,
      reviewed_at: null,
      reviewed_record: null,
      review_seq: null,
      withheld_at: null,
      added_by: actor.id,
      added_at: now,
      updated_by: actor.id,
      updated_at: now,
      removed_by: null,
      removed_at: null,
    };
    await xdb(tx).insertInto("exhibition_items").values(row).execute();
    const objects = [{ id: row.id, role: "exhibition item" }, ...(sha256 ? [{ sha256, role: "original" }] : []), ...(bodyId ? [{ id: bodyId, role: "body" }] : [])];
    await logExhibition(ctx, tx, actor, ex.id, objects, { action: "exhibition.item-add", item: row.id, kind: row.kind, position, ...(row.chart ? { chart: row.chart } : {}) });
    await touch(tx, ex.id, now);
    return itemView(tx, row);
  });
}

async function touch(tx: Tx, exhibitionId: string, now: string): Promise<void> {
  await xdb(tx).updateTable("exhibitions").set({ updated_at: now }).where("id", "=", exhibitionId).execute();
}

async function draftItem(tx: Tx, itemId: string): Promise<ExhibitionItemsTable> {
  const it = await loadItem(tx, itemId);
  await loadDraft(tx, it.exhibition_id);
  return it;
}

/** Captions, the content warning and the layers of an item. */
export async function updateItem(ctx: Ctx, actor: Actor, sent: z.input<typeof contracts.UpdateItemInput>): Promise<ExhibitionItem> {
  ctx.policy.require(actor, "exhibition.edit");
  const input = parseInput(contracts.UpdateItemInput, sent);
  return ctx.db.transaction(async (tx) => {
    const it = await draftItem(tx, input.item);
    const next: ExhibitionItemsTable = {
      ...it,
      ...captionOf(input.caption, it),
      graphic: input.graphic === undefined ? it.graphic : input.graphic ? 1 : 0,
      layers: canonicalJson(layersOf(input.layers, JSON.parse(it.layers) as Layers)),
      updated_by: actor.id,
      updated_at: ctx.clock.now().toISOString(),
    };
    const fields = (["caption_ar", "caption_en", "graphic", "layers"] as const).filter((k) => next[k] !== it[k]).map((k) => k.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase()));
    if (fields.length === 0) return itemView(tx, it);
    await xdb(tx).updateTable("exhibition_items").set(next).where("id", "=", it.id).execute();
    const layers = JSON.parse(next.layers) as Layers;
    await logExhibition(ctx, tx, actor, it.exhibition_id, [{ id: it.id, role: "exhibition item" }], { action: "exhibition.item-update", item: it.id, fields, layers });
    await touch(tx, it.exhibition_id, next.updated_at);
    return itemView(tx, next);
  });
}

export async function removeItem(ctx: Ctx, actor: Actor, itemId: string): Promise<void> {
  ctx.policy.require(actor, "exhibition.edit");
  await ctx.db.transaction(async (tx) => {
    const it = await draftItem(tx, itemId);
    const now = ctx.clock.now().toISOString();
    await xdb(tx).updateTable("exhibition_items").set({ status: "removed", removed_by: actor.id, removed_at: now, updated_by: actor.id, updated_at: now }).where("id", "=", it.id).execute();
    const rest = (await activeItems(tx, it.exhibition_id)).map((r) => r.id);
    await renumber(tx, rest);
    await logExhibition(ctx, tx, actor, it.exhibition_id, [{ id: it.id, role: "exhibition item" }], { action: "exhibition.item-remove", item: it.id });
    await touch(tx, it.exhibition_id, now);
  });
}

async function renumber(tx: Tx, ids: readonly string[]): Promise<void> {
  for (const [i, id] of ids.entries()) await xdb(tx).updateTable("exhibition_items").set({ position: i + 1 }).where("id", "=", id).execute();
}

/** Puts the items in this order (every active item named once). */
export async function orderItems(ctx: Ctx, actor: Actor, sent: z.input<typeof contracts.OrderItemsInput>): Promise<ExhibitionItem[]> {
  ctx.policy.require(actor, "exhibition.edit");
  const input = parseInput(contracts.OrderItemsInput, sent);
  return ctx.db.transaction(async (tx) => {
    const ex = await loadDraft(tx, input.exhibition);
    const items = await activeItems(tx, ex.id);
    const have = new Set(items.map((i) => i.id));
    if (input.order.length !== items.length || new Set(input.order).size !== items.length || input.order.some((id) => !have.has(id))) {
      throw new Invalid(say("exhibition.orderAll", { count: items.length }), "order");
    }
    await renumber(tx, input.order);
    await logExhibition(ctx, tx, actor, ex.id, [], { action: "exhibition.order", order: input.order });
    await touch(tx, ex.id, ctx.clock.now().toISOString());
    const fresh = await activeItems(tx, ex.id);
    const regions = await activeRegions(tx, fresh.map((i) => i.id));
    const consent = await consentStates(tx, fresh);
    return fresh.map((it) => toItem(it, regions.get(it.id) ?? [], consent.get(it.id) ?? "missing"));
  });
}

/** `origin`: drawn by a person, or suggested by a detector and kept by a person. */
export type AddRegion = z.input<typeof contracts.AddRegionInput>;

/** A region of one layer on a photo item, in pixels of the upright image (as the viewer sees it). */
export async function addRegion(ctx: Ctx, actor: Actor, sent: AddRegion): Promise<ExhibitionRegion> {
  ctx.policy.require(actor, "exhibition.edit");
  const input = parseInput(contracts.AddRegionInput, sent);
  if (input.w < 1 || input.h < 1) throw new Invalid(say("region.tooSmall"), "w");
  const it0 = await loadItem(ctx.db.db, input.item);
  if (!it0.sha256) throw new Invalid(say("exhibition.textNoImage"), "item");
  const size = await uprightSize(await originalBytes(ctx, it0.sha256));
  if (input.x >= size.width || input.y >= size.height) throw new Invalid(say("region.outside", { width: size.width, height: size.height }), "x");
  const rect = { x: input.x, y: input.y, w: Math.min(input.w, size.width - input.x), h: Math.min(input.h, size.height - input.y) };
  return ctx.db.transaction(async (tx) => {
    const it = await draftItem(tx, input.item);
    const now = ctx.clock.now().toISOString();
    const row: ExhibitionRegionsTable = { id: newId("exr"), item_id: it.id, layer: input.layer, ...rect, origin: input.origin ?? "drawn", marked_by: actor.id, marked_at: now, removed_by: null, removed_at: null };
    await xdb(tx).insertInto("exhibition_regions").values(row).execute();
    await logExhibition(ctx, tx, actor, it.exhibition_id, [{ id: it.id, role: "exhibition item" }, { sha256: it.sha256!, role: "original" }], { action: "exhibition.region-add", item: it.id, region: row.id, layer: row.layer, origin: row.origin, ...rect });
    await xdb(tx).updateTable("exhibition_items").set({ updated_by: actor.id, updated_at: now }).where("id", "=", it.id).execute();
    await touch(tx, it.exhibition_id, now);
    return toRegion(row);
  });
}

export async function removeRegion(ctx: Ctx, actor: Actor, regionId: string): Promise<void> {
  ctx.policy.require(actor, "exhibition.edit");
  await ctx.db.transaction(async (tx) => {
    const r = await xdb(tx).selectFrom("exhibition_regions").selectAll().where("id", "=", regionId).where("removed_at", "is", null).executeTakeFirst();
    if (!r) throw new NotFound(say("record.notFound", { kind: "exhibitionItem" }));
    const it = await draftItem(tx, r.item_id);
    const now = ctx.clock.now().toISOString();
    await xdb(tx).updateTable("exhibition_regions").set({ removed_by: actor.id, removed_at: now }).where("id", "=", r.id).execute();
    await xdb(tx).updateTable("exhibition_items").set({ updated_by: actor.id, updated_at: now }).where("id", "=", it.id).execute();
    await logExhibition(ctx, tx, actor, it.exhibition_id, [{ id: it.id, role: "exhibition item" }], { action: "exhibition.region-remove", item: it.id, region: r.id });
    await touch(tx, it.exhibition_id, now);
  });
}

/**
 * The second person confirms one item as it stands: its redaction record (original, layers, regions, fills) and
 * the words and warning it is shown with. The review names the record's SHA-256 in a redaction custody event; a
 * later change voids it. Given while the exhibition is in review, never by one who prepared or edited it.
 */
export async function reviewItem(ctx: Ctx, actor: Actor, sent: z.input<typeof contracts.ReviewItemInput>): Promise<ExhibitionItem> {
  ctx.policy.require(actor, "exhibition.review");
  const input = parseInput(contracts.ReviewItemInput, sent);
  // A chart's numbers are read now, outside the review's transaction, and frozen into the item by the review.
  const pending = await loadItem(ctx.db.db, input.item);
  const chartData = pending.kind === "chart" && pending.chart ? await freezeChart(ctx, actor, pending.chart as ChartName) : null;
  return ctx.db.transaction(async (tx) => {
    const loaded = await loadItem(tx, input.item);
    const it = chartData === null ? loaded : { ...loaded, chart_data: chartData };
    const ex = await loadExhibition(tx, it.exhibition_id);
    if (ex.status !== "review") throw new Conflict(say("exhibition.reviewWhileInReview", { ref: ex.ref, status: ex.status }));
    refuseAuthor(await authorsOf(tx, ex), actor, ex.ref);
    const regions = (await activeRegions(tx, [it.id])).get(it.id) ?? [];
    const record = recordSha256(redactionRecord(it, regions));
    const reviewed = reviewSha256(it, regions);
    const now = ctx.clock.now().toISOString();
    const objects = [{ id: it.id, role: "exhibition item" }, ...(it.sha256 ? [{ sha256: it.sha256, role: "original" }] : [])];
    const data = it.kind === "chart" ? { chart: it.chart, data: chartDataSha256(it) } : {};
    const seq = await logExhibition(ctx, tx, actor, ex.id, objects, { action: "exhibition.item-review", item: it.id, record, review: reviewed, regions: regions.length, ...data }, "redaction");
    const next = { ...it, reviewed_by: actor.id, reviewed_at: now, reviewed_record: reviewed, review_seq: seq };
    await xdb(tx).updateTable("exhibition_items").set({ reviewed_by: actor.id, reviewed_at: now, reviewed_record: reviewed, review_seq: seq, chart_data: it.chart_data }).where("id", "=", it.id).execute();
    return toItem(next, regions, (await consentStates(tx, [it])).get(it.id) ?? "missing");
  });
}

type ChartName = (typeof contracts.CHARTS)[number];

/** A chart's numbers as the public may see them (bodies marked public, small cells withheld): canonical JSON. */
async function freezeChart(ctx: Ctx, actor: Actor, chart: ChartName): Promise<string> {
  const buckets = await publishableBreakdown(ctx, actor, chart);
  const data: ChartData = { v: contracts.CHART_FORMAT, chart, scope: "public", minCount: PUBLIC_MIN_COUNT, buckets };
  return canonicalJson(data);
}
