/**
 * Checks that decode pixels (slower than the header checks, measured apart in the benchmark):
 * - the EXIF thumbnail against the image, by perceptual hash (Forensically's and Sherloq's "thumbnail" check);
 * - double JPEG compression by "JPEG ghosts" (Farid, "Exposing Digital Forgeries from JPEG Ghosts", IEEE TIFS
 *   4(1), 2009): re-saving at quality q and measuring the difference gives a minimum at the file's own quality
 *   and, if it was saved before at a lower quality q₁, a second minimum at q₁;
 * - an error-level map on request (Krawetz, "A Picture's Worth", 2007): the difference after one re-save,
 *   amplified; regions saved fewer times stand out. A picture for a person to read, never a finding by itself.
 * - near-duplicates by the perceptual hashes intake stored.
 */
import sharp from "sharp";
import { hammingDistance, perceptualHash } from "../archive/index.ts";
import { finding, type Finding } from "./findings.ts";
import type { PhotoHeader } from "./header.ts";

/** Thumbnail and image of one picture differ by at most this many bits of 64 (re-scaling, letterbox bars). */
export const THUMBNAIL_LIMIT = 18;
/** Near-duplicates: at most this many bits of 64 apart. */
export const NEAR_LIMIT = 4;
/** Side of the centre crop the ghost is measured on, a multiple of 8 so the crop keeps the block grid. */
const GHOST_CROP = 256;
/** A second minimum must be this much below both its neighbours (mean squared difference, 8-bit grey). */
const GHOST_DEPTH = 0.5;

export async function thumbnailCheck(sha256: string, bytes: Uint8Array, h: PhotoHeader): Promise<Finding[]> {
  const thumb = h.layout?.thumbnail;
  if (!thumb) return [];
  let thumbHash: string;
  try {
    // Cameras letterbox thumbnails of 3:2 images into 4:3: the black bars are trimmed before hashing.
    const trimmed = await sharp(Buffer.from(thumb)).trim({ threshold: 12 }).toBuffer().catch(() => Buffer.from(thumb));
    thumbHash = await perceptualHash(sharp(trimmed));
  } catch {
    return [finding(sha256, "thumbnail", "look", "thumbnailUnreadable")];
  }
  // The thumbnail is stored as the image's pixels are (before EXIF orientation), so the image is not turned.
  const imageHash = await perceptualHash(sharp(Buffer.from(bytes), { failOn: "none" }));
  const distance = hammingDistance(thumbHash, imageHash);
  return distance > THUMBNAIL_LIMIT ? [finding(sha256, "thumbnail", "strong", "thumbnailDiffers", { distance, limit: THUMBNAIL_LIMIT })] : [];
}

/** Mean squared difference, per JPEG quality, of the centre crop re-saved at that quality. */
export async function ghostCurve(bytes: Uint8Array, qualities: number[]): Promise<{ quality: number; difference: number }[]> {
  const img = sharp(Buffer.from(bytes), { failOn: "none" });
  const meta = await img.metadata();
  const w = meta.width ?? 0;
  const hgt = meta.height ?? 0;
  const side = Math.min(GHOST_CROP, Math.floor(w / 8) * 8, Math.floor(hgt / 8) * 8);
  if (side < 64) return [];
  const left = Math.floor((w - side) / 16) * 8;
  const top = Math.floor((hgt - side) / 16) * 8;
  const { data } = await img.extract({ left, top, width: side, height: side }).greyscale().raw().toBuffer({ resolveWithObject: true });
  const out: { quality: number; difference: number }[] = [];
  for (const q of qualities) {
    const re = await sharp(data, { raw: { width: side, height: side, channels: 1 } }).jpeg({ quality: q }).toBuffer();
    const back = await sharp(re).greyscale().raw().toBuffer();
    let sum = 0;
    for (let i = 0; i < data.length; i++) sum += (data[i]! - back[i]!) ** 2;
    out.push({ quality: q, difference: Math.round((sum / data.length) * 1000) / 1000 });
  }
  return out;
}

export async function doubleCompressionCheck(sha256: string, bytes: Uint8Array, h: PhotoHeader): Promise<Finding[]> {
  const q = h.quality.luma?.quality;
  if (!q || q < 60) return [];
  const qualities: number[] = [];
  for (let x = 40; x < q - 4; x += 5) qualities.push(x);
  qualities.push(q);
  const curve = await ghostCurve(bytes, qualities);
  // A local minimum below the file's own quality, deep enough to be more than noise.
  for (let i = 1; i < curve.length - 2; i++) {
    const depth = Math.min(curve[i - 1]!.difference, curve[i + 1]!.difference) - curve[i]!.difference;
    if (depth > GHOST_DEPTH) {
      return [finding(sha256, "compression", "look", "doubleCompression", { earlier: curve[i]!.quality, quality: q, depth: Math.round(depth * 100) / 100 })];
    }
  }
  return [];
}

/** The error-level map: |image − image re-saved at `quality`| × `scale`, as PNG. */
export async function errorLevelMap(bytes: Uint8Array, quality = 90, scale = 15): Promise<Buffer> {
  const src = sharp(Buffer.from(bytes), { failOn: "none" }).rotate().removeAlpha();
  const { data, info } = await src.raw().toBuffer({ resolveWithObject: true });
  const re = await sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } }).jpeg({ quality }).toBuffer();
  const back = await sharp(re).raw().toBuffer();
  const out = Buffer.alloc(data.length);
  for (let i = 0; i < data.length; i++) out[i] = Math.min(255, Math.abs(data[i]! - back[i]!) * scale);
  return sharp(out, { raw: { width: info.width, height: info.height, channels: info.channels } }).png().toBuffer();
}

/** Pairs of photos at most NEAR_LIMIT bits apart, each pair once, in a stable order. */
export function nearDuplicates(photos: { sha256: string; phash: string | null; name: string | null }[]): Finding[] {
  const withHash = photos.filter((p) => p.phash && /^[0-9a-f]{16}$/.test(p.phash)).sort((a, b) => a.sha256.localeCompare(b.sha256));
  const hi = withHash.map((p) => parseInt(p.phash!.slice(0, 8), 16));
  const lo = withHash.map((p) => parseInt(p.phash!.slice(8), 16));
  const out: Finding[] = [];
  for (let i = 0; i < withHash.length; i++) {
    for (let j = i + 1; j < withHash.length; j++) {
      const d = popcount(hi[i]! ^ hi[j]!) + popcount(lo[i]! ^ lo[j]!);
      if (d <= NEAR_LIMIT) {
        const a = withHash[i]!;
        const b = withHash[j]!;
        out.push(finding(a.sha256, "duplicate", "information", "nearDuplicate", { other: b.name ?? b.sha256.slice(0, 12), distance: d }));
        out.push(finding(b.sha256, "duplicate", "information", "nearDuplicate", { other: a.name ?? a.sha256.slice(0, 12), distance: d }));
      }
    }
  }
  return out;
}

function popcount(x: number): number {
  x = x - ((x >>> 1) & 0x55555555);
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}
