/**
 * Redacted copies of photos. An authorised person marks regions (faces, tattoos, documents, anything that
 * identifies someone who must not be identified) on a photo; each marking is a custody event. A redacted copy is
 * the original, turned upright by its EXIF orientation, with every region filled opaque; a photo with no region
 * marked is given a strongly blurred copy instead, so nothing identifying leaves by default. Copies are derived
 * on demand and never stored: the original is never changed, and a copy names the SHA-256 it was derived from.
 * Copies carry no EXIF (sharp writes none unless asked), so serial numbers and GPS positions do not travel.
 */
import sharp from "sharp";
import type { Readable } from "node:stream";
import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { Invalid, NotFound } from "../core/errors.ts";
import { newId } from "../core/ids.ts";
import { custody } from "../ledger/index.ts";
import { ddb, type RedactionRegionsTable } from "./tables.ts";
import { originalFact } from "../archive/index.ts";
import * as contracts from "./contracts.ts";
import { parseInput } from "../core/input.ts";
import { say } from "../core/messages.ts";
import type { z } from "zod";

export interface Region {
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface RedactedImage {
  bytes: Buffer;
  mediaType: string;
  /** The regions filled; empty when the copy is blurred whole. */
  regions: Region[];
  /** The SHA-256 of the original the copy was made from. */
  derivedFrom: string;
}

export const REGION_LABELS = contracts.REGION_LABELS;
export type RegionLabel = (typeof REGION_LABELS)[number];

export type RegionView = contracts.RegionView;

/** How a redacted copy was made: written into package manifests so a recipient knows what they hold. */
export const REDACTION_METHOD = { filled: "regions filled opaque (black)", blurred: "whole image blurred (Gaussian, sigma = longer side / 25)" } as const;
const JPEG_QUALITY = 90;

function toView(r: RedactionRegionsTable): RegionView {
  return { id: r.id, sha256: r.original_sha256, x: r.x, y: r.y, w: r.w, h: r.h, label: r.label, markedBy: r.marked_by, markedAt: r.marked_at, eventSeq: Number(r.event_seq) };
}

async function activeRegions(ctx: Ctx, sha256: string): Promise<RedactionRegionsTable[]> {
  return ddb(ctx.db.db)
    .selectFrom("redaction_regions")
    .selectAll()
    .where("original_sha256", "=", sha256)
    .where("withdrawn_at", "is", null)
    .orderBy("marked_at")
    .orderBy("id")
    .execute();
}

export async function regionsOf(ctx: Ctx, actor: Actor, sha256: string): Promise<RegionView[]> {
  ctx.policy.require(actor, "original.view");
  return (await activeRegions(ctx, sha256)).map(toView);
}

export type MarkRegion = z.input<typeof contracts.MarkRegionInput>;

/** Records a region to hide on a photo; a custody event names the photo, the region and who marked it. */
export async function markRegion(ctx: Ctx, actor: Actor, sent: MarkRegion): Promise<RegionView> {
  ctx.policy.require(actor, "redaction.mark");
  const input = parseInput(contracts.MarkRegionInput, sent);
  const label = input.label ?? "face";
  if (input.w < 1 || input.h < 1) throw new Invalid(say("region.tooSmall"), "w");
  const orig = await originalFact(ctx.db.db, input.sha256);
  if (!orig) throw new NotFound(say("record.notFound", { kind: "original" }));
  const size = await uprightSize(ctx, input.sha256);
  if (input.x >= size.width || input.y >= size.height) {
    throw new Invalid(say("region.outside", { width: size.width, height: size.height }), "x");
  }
  const region = { x: input.x, y: input.y, w: Math.min(input.w, size.width - input.x), h: Math.min(input.h, size.height - input.y) };
  return ctx.db.transaction(async (tx) => {
    const id = newId("rdr");
    const now = ctx.clock.now();
    const ev = await ctx.log.append(
      tx,
      custody("metadata modification", actor, now, [{ sha256: input.sha256, role: "original" }, { id, role: "redaction region" }], { action: "redaction.mark", region: id, label, ...region }),
    );
    const row: RedactionRegionsTable = {
      id,
      original_sha256: input.sha256,
      ...region,
      label,
      marked_by: actor.id,
      marked_at: now.toISOString(),
      event_seq: ev.seq,
      withdrawn_by: null,
      withdrawn_at: null,
    };
    await ddb(tx).insertInto("redaction_regions").values(row).execute();
    return toView(row);
  });
}

/** Withdraws a region marked in error; it stays on record, and the withdrawal is a custody event. */
export async function withdrawRegion(ctx: Ctx, actor: Actor, id: string): Promise<RegionView> {
  ctx.policy.require(actor, "redaction.mark");
  return ctx.db.transaction(async (tx) => {
    const r = await ddb(tx).selectFrom("redaction_regions").selectAll().where("id", "=", id).executeTakeFirst();
    if (!r) throw new NotFound(say("record.notFound", { kind: "redactionRegion" }));
    if (r.withdrawn_at) throw new Invalid(say("region.alreadyWithdrawn"), "id");
    const now = ctx.clock.now();
    await ctx.log.append(tx, custody("metadata modification", actor, now, [{ sha256: r.original_sha256, role: "original" }, { id, role: "redaction region" }], { action: "redaction.withdraw", region: id }));
    await ddb(tx).updateTable("redaction_regions").set({ withdrawn_at: now.toISOString(), withdrawn_by: actor.id }).where("id", "=", id).execute();
    return toView(r);
  });
}

async function originalBytes(ctx: Ctx, sha256: string): Promise<Buffer> {
  const row = await originalFact(ctx.db.db, sha256);
  if (!row) throw new NotFound(say("record.notFound", { kind: "original" }));
  const stream: Readable = await ctx.blobs.get(sha256);
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

async function uprightSize(ctx: Ctx, sha256: string): Promise<{ width: number; height: number }> {
  const meta = await sharp(await originalBytes(ctx, sha256)).metadata();
  const swap = (meta.orientation ?? 1) >= 5;
  const width = meta.width ?? 0;
  const height = meta.height ?? 0;
  return swap ? { width: height, height: width } : { width, height };
}

/**
 * The redacted copy of a photo: its marked regions filled opaque, or, with none marked, the whole photo strongly
 * blurred. Callers check the policy (a report or a package decides what its reader may see); this only derives.
 */
export async function redactedImage(ctx: Ctx, sha256: string): Promise<RedactedImage> {
  return derive(ctx, sha256, await activeRegions(ctx, sha256));
}

/** The whole photo strongly blurred, whatever regions are marked (for a recipient cleared for nothing more). */
export async function blurredImage(ctx: Ctx, sha256: string): Promise<RedactedImage> {
  return derive(ctx, sha256, []);
}

async function derive(ctx: Ctx, sha256: string, rows: RedactionRegionsTable[]): Promise<RedactedImage> {
  const original = await originalBytes(ctx, sha256);
  const upright = await sharp(original).rotate().toBuffer({ resolveWithObject: true });
  const { width, height } = upright.info;
  let img = sharp(upright.data);
  const regions: Region[] = [];
  if (rows.length === 0) {
    img = img.blur(Math.max(8, Math.round(Math.max(width, height) / 25)));
  } else {
    const overlays = [];
    for (const r of rows) {
      const x = Math.min(r.x, width - 1);
      const y = Math.min(r.y, height - 1);
      const w = Math.max(1, Math.min(r.w, width - x));
      const h = Math.max(1, Math.min(r.h, height - y));
      regions.push({ x, y, w, h });
      overlays.push({ input: { create: { width: w, height: h, channels: 3 as const, background: { r: 0, g: 0, b: 0 } } }, left: x, top: y });
    }
    img = img.composite(overlays);
  }
  const bytes = await img.jpeg({ quality: JPEG_QUALITY }).toBuffer();
  return { bytes, mediaType: "image/jpeg", regions, derivedFrom: sha256 };
}
