/**
 * Reading the exhibitions module's rows into views, the redaction record of an item (what its SHA-256 commits to),
 * and whether the families of the identified people an item shows consented to public display.
 */
import { createHash } from "node:crypto";
import { canonicalJson } from "../core/canonical-json.ts";
import { NotFound } from "../core/errors.ts";
import { say } from "../core/messages.ts";
import type { Tx } from "../db/database.ts";
import { bodiesOfPhoto, identificationsOf } from "../catalogue/index.ts";
import { publicDisplayConsents } from "../families/index.ts";
import { BLOCK, FILL } from "./clean-copy.ts";
import { xdb, type ExhibitionItemsTable, type ExhibitionRegionsTable, type ExhibitionsTable } from "./tables.ts";
import type * as contracts from "./contracts.ts";

export const RECORD_FORMAT = "dalil.exhibition-redaction/1";

export function toSummary(r: ExhibitionsTable, items: number): contracts.ExhibitionSummary {
  return {
    id: r.id,
    ref: r.ref,
    title: { ar: r.title_ar, en: r.title_en },
    statement: { ar: r.statement_ar, en: r.statement_en },
    languages: JSON.parse(r.languages) as contracts.ExhibitionSummary["languages"],
    status: r.status as contracts.ExhibitionSummary["status"],
    items,
    createdBy: r.created_by,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    submittedBy: r.submitted_by,
    approvedBy: r.approved_by,
    publishedAt: r.published_at,
    withdrawnAt: r.withdrawn_at,
  };
}

export function toRegion(r: ExhibitionRegionsTable): contracts.ExhibitionRegion {
  return { id: r.id, layer: r.layer as contracts.ExhibitionRegion["layer"], x: r.x, y: r.y, w: r.w, h: r.h, origin: r.origin as "drawn" | "suggested", markedBy: r.marked_by, markedAt: r.marked_at };
}

/** The exhibition by id or reference (X-0001). */
export async function loadExhibition(tx: Tx, idOrRef: string): Promise<ExhibitionsTable> {
  const q = xdb(tx).selectFrom("exhibitions").selectAll();
  const row = await (/^X-\d+$/i.test(idOrRef) ? q.where("ref", "=", idOrRef.toUpperCase()) : q.where("id", "=", idOrRef)).executeTakeFirst();
  if (!row) throw new NotFound(say("record.notFound", { kind: "exhibition" }));
  return row;
}

export async function loadItem(tx: Tx, id: string): Promise<ExhibitionItemsTable> {
  const row = await xdb(tx).selectFrom("exhibition_items").selectAll().where("id", "=", id).where("status", "=", "active").executeTakeFirst();
  if (!row) throw new NotFound(say("record.notFound", { kind: "exhibitionItem" }));
  return row;
}

export async function activeItems(tx: Tx, exhibitionId: string): Promise<ExhibitionItemsTable[]> {
  return xdb(tx).selectFrom("exhibition_items").selectAll().where("exhibition_id", "=", exhibitionId).where("status", "=", "active").orderBy("position").orderBy("id").execute();
}

export async function activeRegions(tx: Tx, itemIds: readonly string[]): Promise<Map<string, ExhibitionRegionsTable[]>> {
  const out = new Map<string, ExhibitionRegionsTable[]>(itemIds.map((id) => [id, []]));
  if (itemIds.length === 0) return out;
  const rows = await xdb(tx).selectFrom("exhibition_regions").selectAll().where("item_id", "in", [...itemIds]).where("removed_at", "is", null).orderBy("marked_at").orderBy("id").execute();
  for (const r of rows) out.get(r.item_id)!.push(r);
  return out;
}

/** The redaction record of a photo item: what its layers and regions hide, and how. Null for a text panel. */
export function redactionRecord(item: ExhibitionItemsTable, regions: readonly ExhibitionRegionsTable[]): Record<string, unknown> | null {
  if (!item.sha256) return null;
  const rs = regions.map((r) => ({ layer: r.layer, x: r.x, y: r.y, w: r.w, h: r.h }));
  rs.sort((a, b) => canonicalJson(a).localeCompare(canonicalJson(b)));
  return { v: RECORD_FORMAT, item: item.id, original: item.sha256, layers: JSON.parse(item.layers) as unknown, regions: rs, fills: FILL, block: BLOCK };
}

export function recordSha256(record: Record<string, unknown> | null): string | null {
  return record ? createHash("sha256").update(canonicalJson(record), "utf8").digest("hex") : null;
}

/**
 * What a reviewer confirms of an item: its redaction record and the words and warning it is shown with. A change
 * to any of them after the review voids it (the item must be reviewed again before publication).
 */
export function reviewSha256(item: ExhibitionItemsTable, regions: readonly ExhibitionRegionsTable[]): string {
  const body = { record: recordSha256(redactionRecord(item, regions)), kind: item.kind, captionAr: item.caption_ar, captionEn: item.caption_en, graphic: item.graphic === 1, ...(item.kind === "chart" ? { chart: item.chart, data: chartDataSha256(item) } : {}) };
  return createHash("sha256").update(canonicalJson(body), "utf8").digest("hex");
}

/** SHA-256 of a chart item's frozen data (its canonical JSON as stored), or null before its review. */
export function chartDataSha256(item: ExhibitionItemsTable): string | null {
  return item.chart_data === null ? null : createHash("sha256").update(item.chart_data, "utf8").digest("hex");
}

export type ConsentState = contracts.ExhibitionItem["consent"];

/**
 * For each item, whether it may be shown: an item that shows no identified person needs no consent; one that
 * shows a body identified as a report's person needs that family's `publicDisplay` consent, read now.
 */
export async function consentStates(tx: Tx, items: readonly ExhibitionItemsTable[]): Promise<Map<string, ConsentState>> {
  const reportsOf = new Map<string, string[]>();
  for (const it of items) {
    if (it.kind === "text" || !it.sha256) {
      reportsOf.set(it.id, []);
      continue;
    }
    const bodies = new Set(it.body_id ? [it.body_id, ...(await bodiesOfPhoto(tx, it.sha256))] : await bodiesOfPhoto(tx, it.sha256));
    const reports: string[] = [];
    for (const b of bodies) for (const idn of await identificationsOf(tx, b)) if (idn.endedAt === null) reports.push(idn.reportId);
    reportsOf.set(it.id, reports);
  }
  const consented = await publicDisplayConsents(tx, [...reportsOf.values()].flat());
  return new Map([...reportsOf].map(([id, reports]) => [id, reports.length === 0 ? "not-needed" : reports.every((r) => consented.has(r)) ? "given" : "missing"]));
}

export function toItem(it: ExhibitionItemsTable, regions: readonly ExhibitionRegionsTable[], consent: ConsentState): contracts.ExhibitionItem {
  const record = recordSha256(redactionRecord(it, regions));
  return {
    id: it.id,
    position: it.position,
    kind: it.kind as contracts.ExhibitionItem["kind"],
    sha256: it.sha256,
    bodyId: it.body_id,
    chart: it.chart as contracts.ExhibitionItem["chart"],
    chartData: it.chart_data === null ? null : (JSON.parse(it.chart_data) as contracts.ChartData),
    caption: { ar: it.caption_ar, en: it.caption_en },
    graphic: it.graphic === 1,
    layers: JSON.parse(it.layers) as contracts.Layers,
    regions: regions.map(toRegion),
    record,
    reviewed: it.reviewed_by && it.reviewed_at && it.reviewed_record ? { by: it.reviewed_by, at: it.reviewed_at, record: it.reviewed_record, current: it.reviewed_record === reviewSha256(it, regions) } : null,
    consent,
  };
}

/** The whole exhibition as its screens and pages read it. */
export async function exhibitionView(tx: Tx, ex: ExhibitionsTable): Promise<contracts.ExhibitionView> {
  const items = await activeItems(tx, ex.id);
  const regions = await activeRegions(tx, items.map((i) => i.id));
  const consent = await consentStates(tx, items);
  return { summary: toSummary(ex, items.length), items: items.map((it) => toItem(it, regions.get(it.id) ?? [], consent.get(it.id) ?? "missing")) };
}

/** The positions of an exhibition's items that still have pending suggestions (submission waits for them). */
export async function itemsWithPendingSuggestions(tx: Tx, exhibitionId: string): Promise<number[]> {
  const rows = await xdb(tx)
    .selectFrom("exhibition_suggestions")
    .innerJoin("exhibition_items", "exhibition_items.id", "exhibition_suggestions.item_id")
    .select("exhibition_items.position")
    .where("exhibition_items.exhibition_id", "=", exhibitionId)
    .where("exhibition_items.status", "=", "active")
    .where("exhibition_suggestions.status", "=", "pending")
    .distinct()
    .execute();
  return rows.map((r) => r.position).sort((a, b) => a - b);
}
