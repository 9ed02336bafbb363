import { openEvent, openingsOf } from "../ledger/index.ts";
import type { Readable } from "node:stream";
import type { SelectQueryBuilder } from "kysely";
import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { Forbidden, NotFound } from "../core/errors.ts";
import { blindScope, hiddenByBlind, metadataFor, withoutSensitiveFields } from "../access/index.ts";
import { downloadOriginal, revealOriginal, type RevealGrant } from "./reveals.ts";
import * as contracts from "./contracts.ts";
import { parseInput } from "../core/input.ts";
import type { z } from "zod";
import { say } from "../core/messages.ts";

/**
 * What the web app shows of the archive, as each viewer may see it: a gallery page, one original's blurred
 * rendition, its metadata with sensitive fields hidden by policy, its custody history, a source's sightings,
 * and the reveal of an unblurred rendition or the original bytes — which goes through the
 * reveal (a reason, a custody event; src/archive/reveals.ts) before a single byte is read.
 */
export const BLURRED = "blurred";
export type RevealKind = "thumbnail" | "preview";

export type GalleryItem = contracts.GalleryItem;

export type GalleryPage = contracts.GalleryPage;

/** What the archive itself can filter the gallery by: quarantine, the source a photo was seen on, the day it came in. */
export interface GalleryFilter {
  status?: "preserved" | "quarantined" | undefined;
  /** A source's id: photos sighted on that medium. */
  source?: string | undefined;
  /** YYYY-MM-DD, inclusive: the day the original was first seen. */
  intakeFrom?: string | undefined;
  intakeTo?: string | undefined;
}

/**
 * A restriction another module adds (the catalogue: photos of identified bodies, photos whose numbers were
 * checked): a query answering original SHA-256s, kept (`in`) or left out (`negate`). The owner of the tables it
 * reads builds it; the gallery keeps its order and paging.
 */
export interface GalleryRestriction {
  photos: SelectQueryBuilder<object, never, { sha256: string }>;
  negate?: boolean;
}

function nextDay(day: string): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString().slice(0, 10);
}

/**
 * Originals in capture order (then by hash), undated ones after, by offset: the web app's virtualised grid asks
 * for the pages that come into view, in any order, so a scrollbar dragged to the middle of 55,000 photos needs
 * one request. The order is read from the capture-time index (dated) and the primary key (undated) in two
 * segments, and only the page's rows are then joined to their renditions: no sort of the whole table per page.
 */
export async function galleryPage(ctx: Ctx, actor: Actor, input: GalleryFilter & { offset: number; limit: number }, within: GalleryRestriction[] = []): Promise<GalleryPage> {
  ctx.policy.require(actor, "archive.read");
  const db = ctx.db.db;
  const base = (dated: boolean) => {
    let q = db.selectFrom("originals").where("media_kind", "!=", "medium").where("capture_time", dated ? "is not" : "is", null);
    if (input.status) q = q.where("status", "=", input.status);
    if (input.source) {
      const source = input.source;
      q = q.where("sha256", "in", db.selectFrom("sightings").select("original_sha256").where("source_id", "=", source).where("original_sha256", "is not", null).$narrowType<{ original_sha256: string }>());
    }
    // The day of intake (first seen), as the archive's UTC dates: from the start of `intakeFrom` to the end of `intakeTo`.
    if (input.intakeFrom) q = q.where("first_seen_at", ">=", `${input.intakeFrom}T00:00:00`);
    if (input.intakeTo) q = q.where("first_seen_at", "<", `${nextDay(input.intakeTo)}T00:00:00`);
    for (const r of within) q = q.where("sha256", r.negate ? "not in" : "in", r.photos);
    return q;
  };
  const [datedCount, undatedCount] = await Promise.all(
    [true, false].map(async (dated) => Number((await base(dated).select((eb) => eb.fn.countAll<number | string>().as("n")).executeTakeFirstOrThrow()).n)),
  );
  const total = datedCount! + undatedCount!;
  const page: string[] = [];
  if (input.offset < datedCount!) {
    const rows = await base(true).select("sha256").orderBy("capture_time").orderBy("sha256").offset(input.offset).limit(input.limit).execute();
    page.push(...rows.map((r) => r.sha256));
  }
  if (page.length < input.limit && input.offset + page.length < total) {
    const rows = await base(false)
      .select("sha256")
      .orderBy("sha256")
      .offset(Math.max(0, input.offset - datedCount!))
      .limit(input.limit - page.length)
      .execute();
    page.push(...rows.map((r) => r.sha256));
  }
  const details = page.length
    ? await db
        .selectFrom("originals")
        .leftJoin("renditions", (j) => j.onRef("renditions.original_sha256", "=", "originals.sha256").on("renditions.kind", "=", BLURRED))
        .select([
          "originals.sha256",
          "originals.status",
          "originals.format",
          "originals.media_kind",
          "originals.capture_time",
          "originals.width",
          "originals.height",
          "renditions.sha256 as blurred_sha256",
        ])
        .where("originals.sha256", "in", page)
        .execute()
    : [];
  const bySha = new Map(details.map((r) => [r.sha256, r]));
  return {
    total,
    offset: input.offset,
    items: page.map((sha) => {
      const r = bySha.get(sha)!;
      return {
        sha256: r.sha256,
        status: r.status,
        format: r.format,
        mediaKind: r.media_kind,
        captureTime: r.capture_time,
        width: r.width,
        height: r.height,
        blurred: r.blurred_sha256 !== null,
      };
    }),
  };
}

export interface RenditionStream {
  stream: Readable;
  size: number;
  sha256: string;
  mime: string;
}

/** The blurred rendition: what every staff member sees by default. Unblurred ones only through `revealRendition`. */
export async function blurredRendition(ctx: Ctx, actor: Actor, sha256: string, kind: string): Promise<RenditionStream> {
  ctx.policy.require(actor, "original.view");
  if (kind !== BLURRED) {
    throw new Forbidden(say("rendition.afterReveal", { rendition: kind, sha256 }));
  }
  const r = await ctx.db.db
    .selectFrom("renditions")
    .select(["sha256", "size"])
    .where("original_sha256", "=", sha256)
    .where("kind", "=", BLURRED)
    .executeTakeFirst();
  if (!r) throw new NotFound(say("rendition.noBlurred", { sha256 }));
  return { stream: await ctx.blobs.get(r.sha256), size: r.size, sha256: r.sha256, mime: "image/jpeg" };
}

/**
 * A reveal: the unblurred rendition is looked up first, so nothing is logged for bytes that do not exist; then
 * the access module records "revealed graphic image" with the reason; only then are bytes read.
 */
export async function revealRendition(
  ctx: Ctx,
  actor: Actor,
  sent: z.input<typeof contracts.RevealInput>,
): Promise<RenditionStream & { grant: RevealGrant }> {
  ctx.policy.require(actor, "original.reveal");
  const input = parseInput(contracts.RevealInput, sent);
  const r = await ctx.db.db
    .selectFrom("renditions")
    .select(["sha256", "size"])
    .where("original_sha256", "=", input.sha256)
    .where("kind", "=", input.kind)
    .executeTakeFirst();
  if (!r) throw new NotFound(say("rendition.none", { sha256: input.sha256, rendition: input.kind }));
  const grant = await revealOriginal(ctx, actor, { sha256: input.sha256, reason: input.reason });
  return { grant, stream: await ctx.blobs.get(r.sha256), size: r.size, sha256: r.sha256, mime: "image/jpeg" };
}

/**
 * A download of the original's bytes: a file leaving the archive, recorded as "downloaded original" (not as a
 * reveal, which shows a photograph in one view) with the reason, before a byte is read.
 */
export async function downloadOriginalFile(
  ctx: Ctx,
  actor: Actor,
  sent: z.input<typeof contracts.DownloadInput>,
): Promise<RenditionStream & { grant: RevealGrant; filename: string }> {
  ctx.policy.require(actor, "original.reveal");
  const input = parseInput(contracts.DownloadInput, sent);
  const o = await ctx.db.db.selectFrom("originals").select(["sha256", "size", "mime", "format"]).where("sha256", "=", input.sha256).executeTakeFirst();
  if (!o) throw new NotFound(`No original with SHA-256 ${input.sha256}.`).says("record.notFound", { kind: "original" });
  const grant = await downloadOriginal(ctx, actor, { sha256: input.sha256, reason: input.reason });
  return {
    grant,
    stream: await ctx.blobs.get(o.sha256),
    size: o.size,
    sha256: o.sha256,
    mime: o.mime || "application/octet-stream",
    filename: `${o.sha256}.${o.format || "bin"}`,
  };
}

export type MetadataView = contracts.MetadataView;

function deletePath(obj: Record<string, unknown>, path: string): boolean {
  const parts = path.split(".");
  let cur: unknown = obj;
  for (const p of parts.slice(0, -1)) {
    if (!cur || typeof cur !== "object") return false;
    cur = (cur as Record<string, unknown>)[p];
  }
  const last = parts[parts.length - 1]!;
  if (cur && typeof cur === "object" && Object.hasOwn(cur, last)) {
    delete (cur as Record<string, unknown>)[last];
    return true;
  }
  return false;
}

export async function originalMetadata(ctx: Ctx, actor: Actor, sha256: string): Promise<MetadataView> {
  ctx.policy.require(actor, "archive.read");
  const row = await ctx.db.db.selectFrom("originals").select(["sha256", "metadata_json"]).where("sha256", "=", sha256).executeTakeFirst();
  if (!row) throw new NotFound(`No original with SHA-256 ${sha256}.`).says("record.notFound", { kind: "original" });
  const stored = (row.metadata_json ? JSON.parse(row.metadata_json) : {}) as {
    parsed?: Record<string, unknown>;
    sensitive?: string[];
    problems?: string[];
    software?: string | null;
    orientation?: number | null;
  };
  const parsed = stored.parsed ?? {};
  let shown = parsed;
  let hidden = false;
  if (!ctx.policy.allows(actor, "metadata.sensitive")) {
    // Two nets: the paths intake marked as able to reveal a source, and every field named like one.
    const copy = structuredClone(parsed);
    for (const p of stored.sensitive ?? []) hidden = deletePath(copy, p) || hidden;
    shown = metadataFor(ctx.policy, actor, copy);
    hidden = hidden || JSON.stringify(shown) !== JSON.stringify(copy);
  }
  return {
    sha256: row.sha256,
    parsed: shown,
    problems: stored.problems ?? [],
    software: stored.software ?? null,
    orientation: stored.orientation ?? null,
    hidden,
  };
}

export type HistoryEvent = contracts.HistoryEvent;

/** Every custody event that names this original, oldest first; details without sensitive fields unless allowed. */
export async function originalHistory(ctx: Ctx, actor: Actor, sha256: string): Promise<{ sha256: string; events: HistoryEvent[] }> {
  ctx.policy.require(actor, "archive.read");
  const exists = await ctx.db.db.selectFrom("originals").select("sha256").where("sha256", "=", sha256).executeTakeFirst();
  if (!exists) throw new NotFound(`No original with SHA-256 ${sha256}.`).says("record.notFound", { kind: "original" });
  const sensitive = ctx.policy.allows(actor, "metadata.sensitive");
  // a blind reviewer sees nothing the other reviewer of the same body did with this photo
  const blind = await blindScope(ctx, actor);
  const events = (await ctx.log.eventsFor(sha256)).filter(({ event: e }) => !hiddenByBlind(blind, e.actor.id, e.objects.flatMap((o) => [o.id, o.sha256])));
  // Events name a sighting by source and entry number; its path on the medium lives only in sightings and is
  // joined here for the roles that may see it.
  const paths = new Map<string, string>();
  if (sensitive) {
    const rows = await ctx.db.db.selectFrom("sightings").select(["source_id", "entry_no", "path"]).where("original_sha256", "=", sha256).execute();
    for (const r of rows) paths.set(`${r.source_id}#${r.entry_no}`, r.path);
  }
  // What people typed (reasons) is a commitment in the leaf; the readers of this history see the value.
  const openings = await openingsOf(ctx.db.db, events.map((e) => e.seq));
  return {
    sha256,
    events: events.map(({ seq, event: sealed }) => {
      const e = openEvent(sealed, openings.get(seq));
      const key = `${String(e.detail.source)}#${String(e.detail.entry)}`;
      const detail = sensitive ? { ...e.detail, ...(paths.has(key) ? { path: paths.get(key) } : {}) } : withoutSensitiveFields(e.detail);
      return { seq, id: e.id, type: e.type, at: e.at, actor: e.actor, outcome: e.outcome, detail };
    }),
  };
}

export type SightingView = contracts.SightingView;

/** What one intake saw, file by file: e.g. its quarantined files with their reasons. */
export async function sourceSightings(
  ctx: Ctx,
  actor: Actor,
  input: { source: string; outcome?: "ingested" | "duplicate" | "quarantined"; offset: number; limit: number },
): Promise<{ source: string; total: number; offset: number; items: SightingView[] }> {
  ctx.policy.require(actor, "archive.read");
  const src = await ctx.db.db.selectFrom("sources").select("id").where("id", "=", input.source).executeTakeFirst();
  if (!src) throw new NotFound(say("source.notFoundId", { source: input.source }));
  const sensitive = ctx.policy.allows(actor, "metadata.sensitive");
  let count = ctx.db.db.selectFrom("sightings").select((eb) => eb.fn.countAll<number | string>().as("n")).where("source_id", "=", input.source);
  let rows = ctx.db.db
    .selectFrom("sightings")
    .select(["entry_no", "path", "size", "outcome", "reason", "reason_key", "reason_params", "original_sha256", "seen_at"])
    .where("source_id", "=", input.source)
    .orderBy("entry_no")
    .offset(input.offset)
    .limit(input.limit);
  if (input.outcome) {
    count = count.where("outcome", "=", input.outcome);
    rows = rows.where("outcome", "=", input.outcome);
  }
  const [{ n }, page] = await Promise.all([count.executeTakeFirstOrThrow(), rows.execute()]);
  return {
    source: input.source,
    total: Number(n),
    offset: input.offset,
    items: page.map((r) => ({
      entry: r.entry_no,
      // Paths on the medium can name people (folder names): only for roles cleared for sensitive metadata.
      ...(sensitive ? { path: r.path } : {}),
      size: r.size,
      outcome: r.outcome,
      reason: r.reason,
      reasonKey: r.reason_key,
      reasonParams: r.reason_params ? (JSON.parse(r.reason_params) as Record<string, string | number>) : null,
      sha256: r.original_sha256,
      seenAt: r.seen_at,
    })),
  };
}

export type LogStatus = contracts.LogStatus;

export async function logStatus(ctx: Ctx, actor: Actor): Promise<LogStatus> {
  ctx.policy.require(actor, "log.read");
  const [events, cp, verify] = await Promise.all([
    ctx.log.size(),
    ctx.tree.latestCheckpointStatus(),
    ctx.log.lastOfType("fixity check"),
  ]);
  let lastVerify: LogStatus["lastVerify"] = null;
  if (verify) {
    const detail = (JSON.parse(verify.leaf.toString("utf8")) as { detail?: { checked?: number; failed?: number } }).detail ?? {};
    lastVerify = { at: verify.at, outcome: verify.outcome, checked: detail.checked ?? null, failed: detail.failed ?? null, seq: verify.seq };
  }
  return {
    origin: ctx.tree.origin,
    verifierKey: ctx.tree.verifierKey,
    events,
    checkpoint: cp
      ? {
          size: cp.size,
          rootHash: cp.root.toString("base64"),
          createdAt: cp.createdAt,
          note: cp.note,
          timestamped: cp.timestamped,
          authority: cp.authority,
        }
      : null,
    lastVerify,
  };
}
