/**
 * Perceptual hash for finding near-duplicates (re-encoded, resized, lightly edited copies of one photo).
 *
 * The hash is the DCT hash of pHash.org (ph_dct_imagehash): the luma plane reduced to 32×32, a 2-D DCT-II,
 * the 8×8 block of lowest frequencies just after the DC row and column (coefficients 1..8 on both axes, so the
 * DC term and the pure-horizontal / pure-vertical averages do not vote), each bit set when its coefficient is
 * above the median of the 64. Bits are read row by row (vertical frequency major), most significant first,
 * and written as 16 lowercase hex digits. Two photos are near-duplicates when few bits differ.
 *
 * The 32×32 reduction is an exact area average, which is the low-pass pHash.org gets from its 7×7 mean filter.
 */
import type { Sharp } from "sharp";
import { Invalid } from "../../core/errors.ts";

/** Interleaved 8-bit pixels: 1 (grey), 2 (grey+alpha), 3 (RGB) or 4 (RGBA) channels. */
export interface Pixels {
  data: Uint8Array;
  width: number;
  height: number;
  channels: number;
}

const GRID = 32;
const BLOCK = 8;
const HEX = /^[0-9a-f]{16}$/;

/** cos((2x+1)uπ/64) for u = 1..8, x = 0..31; row u-1. */
const COS: Float64Array = (() => {
  const t = new Float64Array(BLOCK * GRID);
  for (let u = 1; u <= BLOCK; u++) {
    for (let x = 0; x < GRID; x++) t[(u - 1) * GRID + x] = Math.cos(((2 * x + 1) * u * Math.PI) / (2 * GRID));
  }
  return t;
})();

function checkPixels(px: Pixels): void {
  const ok =
    Number.isInteger(px.width) &&
    Number.isInteger(px.height) &&
    px.width > 0 &&
    px.height > 0 &&
    Number.isInteger(px.channels) &&
    px.channels >= 1 &&
    px.channels <= 4 &&
    px.data.length >= px.width * px.height * px.channels;
  if (!ok) throw new Invalid("The pixel buffer does not match its stated width, height and channels.");
}

/**
 * Exact area-average weights from `src` samples to `dst` cells, in either direction: cell i covers the source
 * interval [i·src/dst, (i+1)·src/dst), and each sample it overlaps counts by the overlap. Stored compactly:
 * cell i uses entries start[i] .. start[i+1]-1 of (index, weight); a cell's weights sum to 1.
 */
function areaWeights(src: number, dst: number): { start: Int32Array; index: Int32Array; weight: Float32Array } {
  const start = new Int32Array(dst + 1);
  const index = new Int32Array(src + 2 * dst);
  const weight = new Float32Array(src + 2 * dst);
  let n = 0;
  for (let i = 0; i < dst; i++) {
    start[i] = n;
    const a = (i * src) / dst;
    const b = ((i + 1) * src) / dst;
    for (let k = Math.floor(a); k < Math.min(src, Math.ceil(b)); k++) {
      const w = (Math.min(b, k + 1) - Math.max(a, k)) / (b - a);
      if (w <= 0) continue;
      index[n] = k;
      weight[n] = w;
      n++;
    }
  }
  start[dst] = n;
  return { start, index, weight };
}

/**
 * Resamples pixels to `dw`×`dh` by area averaging (every source pixel counts by the area it covers), keeping
 * `outChannels` channels: 1 gives luma (BT.601 weights), 3 gives RGB. Returns interleaved floats in 0..255.
 */
export function resampleArea(px: Pixels, dw: number, dh: number, outChannels: 1 | 3): Float32Array {
  checkPixels(px);
  if (!(Number.isInteger(dw) && Number.isInteger(dh) && dw > 0 && dh > 0)) {
    throw new Invalid("The target size of a resample must be positive whole numbers.");
  }
  const { data, width, height, channels } = px;
  const oc = outChannels;
  const H = areaWeights(width, dw);
  const V = areaWeights(height, dh);
  // Horizontal pass straight from the interleaved bytes into `mid` (height × dw × oc).
  const mid = new Float32Array(height * dw * oc);
  const colour = channels >= 3;
  for (let y = 0; y < height; y++) {
    const rowBase = y * width * channels;
    const midBase = y * dw * oc;
    for (let i = 0; i < dw; i++) {
      let r = 0;
      let g = 0;
      let b = 0;
      for (let e = H.start[i]!; e < H.start[i + 1]!; e++) {
        const p = rowBase + H.index[e]! * channels;
        const w = H.weight[e]!;
        if (colour) {
          r += w * data[p]!;
          g += w * data[p + 1]!;
          b += w * data[p + 2]!;
        } else {
          r += w * data[p]!;
        }
      }
      if (!colour) g = b = r;
      if (oc === 1) {
        mid[midBase + i] = 0.299 * r + 0.587 * g + 0.114 * b;
      } else {
        mid[midBase + i * 3] = r;
        mid[midBase + i * 3 + 1] = g;
        mid[midBase + i * 3 + 2] = b;
      }
    }
  }
  const rowLen = dw * oc;
  const out = new Float32Array(dh * rowLen);
  for (let j = 0; j < dh; j++) {
    const o = j * rowLen;
    for (let e = V.start[j]!; e < V.start[j + 1]!; e++) {
      const m = V.index[e]! * rowLen;
      const w = V.weight[e]!;
      for (let k = 0; k < rowLen; k++) out[o + k]! += w * mid[m + k]!;
    }
  }
  return out;
}

/** The 64-bit DCT hash of an image given as pixels. */
export function phashFromPixels(px: Pixels): string {
  const g = resampleArea(px, GRID, GRID, 1);
  // Row transform: for each of the 32 rows, the 8 coefficients u = 1..8.
  const rowT = new Float64Array(GRID * BLOCK);
  for (let y = 0; y < GRID; y++) {
    for (let u = 0; u < BLOCK; u++) {
      let s = 0;
      for (let x = 0; x < GRID; x++) s += g[y * GRID + x]! * COS[u * GRID + x]!;
      rowT[y * BLOCK + u] = s;
    }
  }
  const coef = new Float64Array(BLOCK * BLOCK);
  for (let v = 0; v < BLOCK; v++) {
    for (let u = 0; u < BLOCK; u++) {
      let s = 0;
      for (let y = 0; y < GRID; y++) s += rowT[y * BLOCK + u]! * COS[v * GRID + y]!;
      coef[v * BLOCK + u] = s;
    }
  }
  const sorted = Float64Array.from(coef).sort();
  const median = (sorted[31]! + sorted[32]!) / 2;
  let hex = "";
  for (let n = 0; n < 16; n++) {
    let nibble = 0;
    for (let b = 0; b < 4; b++) nibble = (nibble << 1) | (coef[n * 4 + b]! > median ? 1 : 0);
    hex += nibble.toString(16);
  }
  return hex;
}

function isPixels(x: unknown): x is Pixels {
  return typeof x === "object" && x !== null && "data" in x && "width" in x && "height" in x && "channels" in x;
}

/**
 * The perceptual hash of an image.
 * - Buffer: untrusted file bytes; decoded exactly as makeRenditions decodes them (same limits, EXIF orientation
 *   applied, same working size), so the hash equals the `phash` makeRenditions returns for those bytes, and
 *   bad input throws the same MediaRejected.
 * - sharp instance: used as the image source; it is cloned and reduced to at most 320 px (a resize already set
 *   on it is replaced).
 * - Pixels: hashed as given.
 */
export async function perceptualHash(input: Buffer | Sharp | Pixels): Promise<string> {
  if (Buffer.isBuffer(input)) {
    // Loaded on demand: renditions.ts imports this module for the hash itself.
    const { hashPixels } = await import("./renditions.ts");
    return phashFromPixels(await hashPixels(input));
  }
  if (isPixels(input)) return phashFromPixels(input);
  const { data, info } = await input
    .clone()
    .resize({ width: 320, height: 320, fit: "inside", withoutEnlargement: true })
    .raw({ depth: "uchar" })
    .toBuffer({ resolveWithObject: true });
  return phashFromPixels({ data, width: info.width, height: info.height, channels: info.channels });
}

/** Number of differing bits between two hashes from perceptualHash (0 = same, 64 = opposite). */
export function hammingDistance(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  if (!HEX.test(x) || !HEX.test(y)) {
    throw new Invalid("A perceptual hash is 16 hexadecimal digits; compare two hashes made by perceptualHash.");
  }
  let d = 0;
  for (let i = 0; i < 16; i++) {
    let v = parseInt(x[i]!, 16) ^ parseInt(y[i]!, 16);
    while (v) {
      d += v & 1;
      v >>= 1;
    }
  }
  return d;
}
