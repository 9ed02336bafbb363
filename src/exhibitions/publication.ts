/**
 * What an exhibition publishes, as files: the pages, the style sheet, one clean copy per shown image, manifest.json
 * (per image: its file, its original's SHA-256, the redaction record and who approved it, the log index of that
 * review) and VERIFY.txt. One function builds it for the live pages and for the static export, so both show the
 * same; the same records give the same bytes (no clock, no random names, a fixed order). Items that show an
 * identified person whose family has not consented to public display (or withdrew it) are left out, read anew
 * every time.
 */
import { createHash } from "node:crypto";
import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { canonicalJson } from "../core/canonical-json.ts";
import type { Tx } from "../db/database.ts";
import { cleanCopy, type LayerRegion } from "./clean-copy.ts";
import { originalBytes } from "./items.ts";
import { activeItems, activeRegions, consentStates, loadExhibition, loadItem, redactionRecord, recordSha256, chartDataSha256 } from "./records.ts";
import { NotFound } from "../core/errors.ts";
import { say } from "../core/messages.ts";
import { recordOriginalRead } from "../access/index.ts";
import { doorPage, exhibitionPage, STYLE, type Lang, type PageItem } from "./pages.ts";
import { verifyText } from "./verify-text.ts";
import type { ExhibitionsTable } from "./tables.ts";
import type { ChartData, Layers, Manifest, ManifestChart, ManifestImage } from "./contracts.ts";

export const MANIFEST_FORMAT = "dalil.exhibition-manifest/1";

export interface Publication {
  /** Relative path → bytes, in a fixed order. */
  files: Map<string, Buffer>;
  manifest: Manifest;
  /** Items left out because consent is missing (ids). */
  withheld: string[];
}

function sha256(b: Buffer | string): string {
  return createHash("sha256").update(b).digest("hex");
}

async function publishSeq(ctx: Ctx, exhibitionId: string): Promise<number | null> {
  const events = await ctx.log.eventsFor(exhibitionId);
  const last = events.filter((e) => e.event.detail.action === "exhibition.publish").at(-1);
  return last ? last.seq : null;
}

/** A key that changes whenever what would be published changes (records, reviews, consent, status). */
export async function publicationKey(tx: Tx, ex: ExhibitionsTable): Promise<string> {
  const items = await activeItems(tx, ex.id);
  const regions = await activeRegions(tx, items.map((i) => i.id));
  const consent = await consentStates(tx, items);
  return sha256(canonicalJson({ ex, items, regions: items.map((i) => (regions.get(i.id) ?? []).map((r) => r.id)), consent: items.map((i) => consent.get(i.id) ?? "missing") }));
}

export async function buildPublication(ctx: Ctx, ex: ExhibitionsTable): Promise<Publication> {
  const tx = ctx.db.db;
  const items = await activeItems(tx, ex.id);
  const regions = await activeRegions(tx, items.map((i) => i.id));
  const consent = await consentStates(tx, items);
  const files = new Map<string, Buffer>();
  const images: ManifestImage[] = [];
  const charts: ManifestChart[] = [];
  const pageItems: PageItem[] = [];
  const withheld: string[] = [];
  let n = 0;
  for (const it of items) {
    if (consent.get(it.id) === "missing") {
      withheld.push(it.id);
      continue;
    }
    const layers = JSON.parse(it.layers) as Layers;
    const base = { position: pageItems.length + 1, kind: it.kind as PageItem["kind"], caption: { ar: it.caption_ar, en: it.caption_en }, graphic: it.graphic === 1, layers };
    if (it.kind === "chart") {
      const chart = it.chart_data === null ? null : (JSON.parse(it.chart_data) as ChartData);
      if (chart && it.chart_data !== null) {
        const file = `charts/${String(charts.length + 1).padStart(3, "0")}.json`;
        files.set(file, Buffer.from(it.chart_data));
        charts.push({ file, item: it.id, chart: chart.chart, dataSha256: chartDataSha256(it)!, approvedBy: it.reviewed_by ?? "", approvedAt: it.reviewed_at ?? "", logIndex: Number(it.review_seq ?? -1) });
      }
      pageItems.push({ ...base, file: null, width: null, height: null, chart });
      continue;
    }
    if (!it.sha256 || layers.everything === "hidden") {
      pageItems.push({ ...base, file: null, width: null, height: null });
      continue;
    }
    const rs = regions.get(it.id) ?? [];
    const copy = await cleanCopy(await originalBytes(ctx, it.sha256), layers, rs.map((r) => ({ layer: r.layer as LayerRegion["layer"], x: r.x, y: r.y, w: r.w, h: r.h })));
    const file = `images/${String(++n).padStart(3, "0")}.jpg`;
    files.set(file, copy.bytes);
    const record = redactionRecord(it, rs)!;
    images.push({
      file,
      sha256: it.sha256,
      fileSha256: sha256(copy.bytes),
      item: it.id,
      width: copy.width,
      height: copy.height,
      redaction: {
        record: recordSha256(record)!,
        layers,
        regions: record.regions as ManifestImage["redaction"]["regions"],
        approvedBy: it.reviewed_by ?? "",
        approvedAt: it.reviewed_at ?? "",
        logIndex: Number(it.review_seq ?? -1),
      },
    });
    pageItems.push({ ...base, file, width: copy.width, height: copy.height });
  }
  const manifest: Manifest = { v: MANIFEST_FORMAT, exhibition: { ref: ex.ref, publishedAt: ex.published_at, publishLogIndex: await publishSeq(ctx, ex.id) }, images, ...(charts.length ? { charts } : {}) };
  const page = { ref: ex.ref, title: { ar: ex.title_ar, en: ex.title_en }, statement: { ar: ex.statement_ar, en: ex.statement_en }, languages: JSON.parse(ex.languages) as Lang[], items: pageItems };
  const out = new Map<string, Buffer>();
  out.set("index.html", Buffer.from(doorPage(page)));
  for (const lang of page.languages) {
    out.set(`${lang}.html`, Buffer.from(exhibitionPage(page, lang, false)));
    out.set(`${lang}-text.html`, Buffer.from(exhibitionPage(page, lang, true)));
  }
  out.set("style.css", Buffer.from(STYLE));
  for (const [k, v] of files) out.set(k, v);
  out.set("manifest.json", Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`));
  out.set("VERIFY.txt", Buffer.from(verifyText(manifest)));
  return { files: out, manifest, withheld };
}

const MEDIA: Record<string, string> = { html: "text/html; charset=utf-8", css: "text/css; charset=utf-8", json: "application/json", txt: "text/plain; charset=utf-8", jpg: "image/jpeg" };
const cache = new Map<string, { key: string; pub: Promise<Publication> }>();

/**
 * One file of a published exhibition as dalil serves it at /exhibitions/<ref>/<path>: what the export would write
 * now. Built once per state of the exhibition (its records, reviews and the families' consent, read on every
 * request), so a withdrawal of consent takes the item down on the next request.
 */
export async function publishedFile(ctx: Ctx, ref: string, path: string): Promise<{ bytes: Buffer; contentType: string }> {
  const ex = await loadExhibition(ctx.db.db, ref).catch(() => null);
  if (!ex || ex.status !== "published") throw new NotFound(say("record.notFound", { kind: "exhibition" }));
  const key = await publicationKey(ctx.db.db, ex);
  let hit = cache.get(ex.id);
  if (!hit || hit.key !== key) {
    hit = { key, pub: buildPublication(ctx, ex) };
    cache.set(ex.id, hit);
    if (cache.size > 32) cache.delete(cache.keys().next().value!);
  }
  const pub = await hit.pub.catch((err: unknown) => {
    cache.delete(ex.id);
    throw err;
  });
  const bytes = pub.files.get(path || "index.html");
  if (!bytes) throw new NotFound(say("exhibition.noFile", { ref: ex.ref, path }));
  return { bytes, contentType: MEDIA[(path || "index.html").split(".").pop() ?? ""] ?? "application/octet-stream" };
}

/** An item's image as it would be published now (its layers and regions applied): for the curator and the reviewer. */
export async function previewItem(ctx: Ctx, actor: Actor, itemId: string): Promise<{ bytes: Buffer; width: number; height: number }> {
  ctx.policy.require(actor, "exhibition.read");
  const it = await loadItem(ctx.db.db, itemId);
  if (!it.sha256) throw new NotFound(say("exhibition.textNoPreview", { position: it.position }));
  const rs = (await activeRegions(ctx.db.db, [it.id])).get(it.id) ?? [];
  const copy = await cleanCopy(await originalBytes(ctx, it.sha256), JSON.parse(it.layers) as Layers, rs.map((r) => ({ layer: r.layer as LayerRegion["layer"], x: r.x, y: r.y, w: r.w, h: r.h })));
  // With few regions or layers off the preview shows the photograph itself: a read of the original, logged.
  await ctx.db.transaction((tx) => recordOriginalRead(ctx, tx, actor, it.sha256!, { read: "exhibition-preview" }));
  return { bytes: copy.bytes, width: copy.width, height: copy.height };
}
