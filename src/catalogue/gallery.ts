import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { galleryPage, type GalleryFilter, type GalleryPage, type GalleryRestriction } from "../archive/index.ts";
import { visibleSensitivities } from "./bodies.ts";
import { cdb } from "./tables.ts";
import type * as contracts from "./contracts.ts";

/**
 * The gallery as the catalogue sees it: the archive's photographs (in capture order, paged by offset, filtered by
 * source and day of intake by the archive) narrowed by what the catalogue knows of them — the body a photo belongs
 * to and how far that body is identified, and whether numbers were read from the photo and checked by a second
 * person. The catalogue builds the restriction over its own tables; the archive keeps the order and the paging.
 */
export const GALLERY_BODY_FILTERS = ["none", "any", "unidentified", "possible_match", "identified"] as const;
export const GALLERY_NUMBER_FILTERS = ["none", "read", "unchecked", "checked"] as const;

export interface PhotoGalleryQuery extends GalleryFilter {
  offset: number;
  limit: number;
  /** none: in no body; any: in a body; otherwise in a body of that identification status. */
  body?: (typeof GALLERY_BODY_FILTERS)[number] | undefined;
  /** none: no number read from the photo; read: some (by the card reader or a person); unchecked: read, none checked; checked: a number from it checked by a second person. */
  numbers?: (typeof GALLERY_NUMBER_FILTERS)[number] | undefined;
}

export async function photoGallery(ctx: Ctx, actor: Actor, q: PhotoGalleryQuery): Promise<GalleryPage> {
  ctx.policy.require(actor, "archive.read");
  const within: GalleryRestriction[] = [];
  if (q.body || q.numbers) ctx.policy.require(actor, "catalogue.read");
  const db = cdb(ctx.db.db);
  if (q.body) {
    const inBodies = db
      .selectFrom("body_photos")
      .innerJoin("bodies", "bodies.id", "body_photos.body_id")
      .select("body_photos.original_sha256 as sha256")
      .where("bodies.merged_into", "is", null);
    if (q.body === "none") within.push({ photos: inBodies, negate: true });
    else {
      const readable = visibleSensitivities(ctx, actor);
      let these = inBodies.where("bodies.sensitivity", "in", readable.length ? readable : ["none"]);
      if (q.body !== "any") these = these.where("bodies.identification_status", "=", q.body);
      within.push({ photos: these });
    }
  }
  if (q.numbers) {
    const entered = db.selectFrom("body_numbers").select("source_sha256 as sha256").where("retired_at", "is", null).where("source_sha256", "is not", null).$narrowType<{ sha256: string }>();
    const read = db.selectFrom("photo_readings").select("original_sha256 as sha256").union(entered);
    const checked = entered.where("checked_by", "is not", null);
    if (q.numbers === "none") within.push({ photos: read, negate: true });
    else if (q.numbers === "read") within.push({ photos: read });
    else if (q.numbers === "checked") within.push({ photos: checked });
    else within.push({ photos: read }, { photos: checked, negate: true });
  }
  return galleryPage(ctx, actor, q, within);
}

/**
 * The bodies a photograph is filed under that the actor may read, by reference, each with its photographs in the
 * body's order: the viewer's link to the body and its previous/next within it.
 */
export async function photoBodies(ctx: Ctx, actor: Actor, sha256: string): Promise<contracts.PhotoBodies> {
  ctx.policy.require(actor, "catalogue.read");
  const db = cdb(ctx.db.db);
  const readable = visibleSensitivities(ctx, actor);
  const bodies = await db
    .selectFrom("body_photos")
    .innerJoin("bodies", "bodies.id", "body_photos.body_id")
    .select(["bodies.id", "bodies.ref"])
    .where("body_photos.original_sha256", "=", sha256)
    .where("bodies.merged_into", "is", null)
    .where("bodies.sensitivity", "in", readable.length ? readable : ["none"])
    .orderBy("bodies.ref_no")
    .execute();
  if (bodies.length === 0) return { bodies: [] };
  const photos = await db
    .selectFrom("body_photos")
    .select(["body_id", "original_sha256"])
    .where("body_id", "in", bodies.map((b) => b.id))
    .orderBy("body_id")
    .orderBy("position")
    .orderBy("original_sha256")
    .execute();
  return { bodies: bodies.map((b) => ({ ref: b.ref, photos: photos.filter((p) => p.body_id === b.id).map((p) => p.original_sha256) })) };
}
