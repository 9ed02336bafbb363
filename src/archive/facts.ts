import type { Tx } from "../db/database.ts";

/**
 * What other modules may know of the archive's originals, renditions and sources, read in the caller's
 * transaction (a use case that checks an original before it links it reads both in one snapshot). These are the
 * archive's tables; other modules ask here instead of querying them (docs/modules.md).
 */
export interface OriginalFacts {
  sha256: string;
  status: string;
  mediaKind: string;
  width: number | null;
  height: number | null;
  captureTime: string | null;
  cameraModel: string | null;
  format: string;
}

/** Whether the archive holds a source with this id. */
export async function sourceExists(db: Tx, sourceId: string): Promise<boolean> {
  const row = await db.selectFrom("sources").select("id").where("id", "=", sourceId).executeTakeFirst();
  return row !== undefined;
}

/** The facts of these originals that the archive holds, by SHA-256 (an unknown hash is absent from the map). */
export async function originalFacts(db: Tx, sha256s: readonly string[]): Promise<Map<string, OriginalFacts>> {
  const out = new Map<string, OriginalFacts>();
  const unique = [...new Set(sha256s)];
  for (let i = 0; i < unique.length; i += 500) {
    const rows = await db
      .selectFrom("originals")
      .select(["sha256", "status", "media_kind", "width", "height", "capture_time", "camera_model", "format"])
      .where("sha256", "in", unique.slice(i, i + 500))
      .execute();
    for (const r of rows) {
      out.set(r.sha256, { sha256: r.sha256, status: r.status, mediaKind: r.media_kind, width: r.width, height: r.height, captureTime: r.capture_time, cameraModel: r.camera_model, format: r.format });
    }
  }
  return out;
}

/** One original's facts, or null when the archive has no original with this SHA-256. */
export async function originalFact(db: Tx, sha256: string): Promise<OriginalFacts | null> {
  return (await originalFacts(db, [sha256])).get(sha256) ?? null;
}

/** The SHA-256s of every preserved original. */
export async function preservedOriginals(db: Tx): Promise<string[]> {
  return (await db.selectFrom("originals").select("sha256").where("status", "=", "preserved").execute()).map((r) => r.sha256);
}

/** How many originals are preserved. */
export async function countPreserved(db: Tx): Promise<number> {
  const r = await db.selectFrom("originals").where("status", "=", "preserved").select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow();
  return Number(r.n);
}

/** The SHA-256 of an original's rendition of this kind, or null if it has none. */
export async function renditionOf(db: Tx, originalSha256: string, kind: string): Promise<string | null> {
  const r = await db.selectFrom("renditions").select(["sha256"]).where("original_sha256", "=", originalSha256).where("kind", "=", kind).executeTakeFirst();
  return r?.sha256 ?? null;
}

/** Sources whose id or label is `ref` (labels need not be unique). */
export async function sourcesNamed(db: Tx, ref: string): Promise<{ id: string; label: string }[]> {
  return db.selectFrom("sources").select(["id", "label"]).where((eb) => eb.or([eb("id", "=", ref), eb("label", "=", ref)])).execute();
}

/** Labels of these sources, by id. */
export async function sourceLabels(db: Tx, ids: readonly string[]): Promise<Map<string, string>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const rows = await db.selectFrom("sources").select(["id", "label"]).where("id", "in", unique).execute();
  return new Map(rows.map((r) => [r.id, r.label]));
}

/** Every sighting on a source of an original in `format`: its SHA-256, perceptual hash, path and entry number. */
export async function sightedOriginals(db: Tx, sourceId: string, format: string): Promise<{ sha256: string; phash: string | null; path: string; entryNo: number }[]> {
  const rows = await db
    .selectFrom("sightings")
    .innerJoin("originals", "originals.sha256", "sightings.original_sha256")
    .select(["originals.sha256", "originals.phash", "sightings.path", "sightings.entry_no"])
    .where("sightings.source_id", "=", sourceId)
    .where("originals.format", "=", format)
    .orderBy("sightings.entry_no")
    .execute();
  return rows.map((r) => ({ sha256: r.sha256, phash: r.phash, path: r.path, entryNo: r.entry_no }));
}

/** The sources an original was sighted on. */
export async function sourcesOfOriginal(db: Tx, sha256: string): Promise<string[]> {
  const rows = await db.selectFrom("sightings").select("source_id").distinct().where("original_sha256", "=", sha256).execute();
  return rows.map((r) => r.source_id);
}
