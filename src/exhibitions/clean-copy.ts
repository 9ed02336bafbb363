/**
 * Clean copies: the image an exhibition publishes. The original is decoded, turned upright by its EXIF orientation
 * (as a viewer sees it), and the regions of every layer that is on are painted into the pixels as solid fills —
 * never blur or pixelation, which can be reversed or read through. The pixels are then encoded afresh (sharp from
 * a raw buffer, so nothing of the original's file travels) and the JPEG is rebuilt from its essential segments
 * only: no EXIF, XMP, ICC, APP13, JFIF, comment or thumbnail, nothing after EOI.
 *
 * Fills are snapped outward to the 16-pixel grid of the encoder's blocks, so a filled block is one flat colour
 * that the encoder keeps exactly (its DC coefficient only) and no edge of the photo rings into the fill: the
 * redaction covers at least what was drawn, never less. Same pixels in → the same bytes out.
 */
import sharp from "sharp";
import { essentialJpeg } from "./jpeg-markers.ts";
import type { Layers } from "./contracts.ts";

export interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface LayerRegion extends Rect {
  layer: "faces" | "numbers" | "marks" | "background" | "everything";
}

/** The colours painted: black over what is hidden; a plain ground and a dark silhouette for the everything layer. */
export const FILL = { hidden: [0, 0, 0], ground: [224, 224, 224], silhouette: [64, 64, 64] } as const;
export const BLOCK = 16;
export const JPEG_OPTIONS = { quality: 90, chromaSubsampling: "4:4:4", mozjpeg: false, progressive: false, optimiseCoding: true } as const;

export interface CleanCopy {
  bytes: Buffer;
  width: number;
  height: number;
  /** The rectangles filled (after snapping to the block grid), with the colour of each. */
  filled: { rect: Rect; fill: readonly [number, number, number] }[];
}

/** A rectangle grown outward to the block grid and clipped to the image. */
export function snap(r: Rect, width: number, height: number): Rect {
  const x0 = Math.max(0, Math.floor(r.x / BLOCK) * BLOCK);
  const y0 = Math.max(0, Math.floor(r.y / BLOCK) * BLOCK);
  const x1 = Math.min(width, Math.ceil((r.x + r.w) / BLOCK) * BLOCK);
  const y1 = Math.min(height, Math.ceil((r.y + r.h) / BLOCK) * BLOCK);
  return { x: x0, y: y0, w: Math.max(0, x1 - x0), h: Math.max(0, y1 - y0) };
}

/** Which rectangles to paint and with what, for these layers: pure, so the manifest and the test can name them. */
export function fillsFor(layers: Layers, regions: readonly LayerRegion[], width: number, height: number): { rect: Rect; fill: readonly [number, number, number] }[] {
  const whole = { x: 0, y: 0, w: width, h: height };
  if (layers.everything !== "off") {
    const out: { rect: Rect; fill: readonly [number, number, number] }[] = [{ rect: whole, fill: FILL.ground }];
    if (layers.everything === "silhouette") for (const r of regions) if (r.layer === "everything") out.push({ rect: snap(r, width, height), fill: FILL.silhouette });
    return out;
  }
  return regions.filter((r) => r.layer !== "everything" && layers[r.layer]).map((r) => ({ rect: snap(r, width, height), fill: FILL.hidden }));
}

/** The upright size of an image (EXIF orientations 5–8 swap width and height). */
export async function uprightSize(original: Buffer): Promise<{ width: number; height: number }> {
  const meta = await sharp(original).metadata();
  const swap = (meta.orientation ?? 1) >= 5;
  const w = meta.width ?? 0;
  const h = meta.height ?? 0;
  return swap ? { width: h, height: w } : { width: w, height: h };
}

/** Paints the fills into upright RGB pixels and encodes a clean JPEG from the pixels alone. */
export async function cleanCopy(original: Buffer, layers: Layers, regions: readonly LayerRegion[]): Promise<CleanCopy> {
  const { data, info } = await sharp(original).rotate().toColourspace("srgb").removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const { width, height, channels } = info;
  const px = Buffer.from(data);
  const filled = fillsFor(layers, regions, width, height);
  for (const { rect, fill } of filled) {
    for (let y = rect.y; y < rect.y + rect.h; y++) {
      for (let x = rect.x; x < rect.x + rect.w; x++) {
        const o = (y * width + x) * channels;
        px[o] = fill[0];
        px[o + 1] = fill[1];
        px[o + 2] = fill[2];
      }
    }
  }
  const encoded = await sharp(px, { raw: { width, height, channels } }).jpeg(JPEG_OPTIONS).toBuffer();
  return { bytes: essentialJpeg(encoded), width, height, filled };
}
