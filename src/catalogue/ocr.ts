/**
 * Reading the paper card in a photo: find the card (a bright, nearly colourless rectangle), turn it level,
 * cut it out at a fixed size, make it black on white, and let Tesseract read it with a character set made for
 * numbers. Everything runs offline: the language data comes from the npm packages next to this code.
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import sharp from "sharp";
import Tesseract from "tesseract.js";
import { Invalid } from "../core/errors.ts";
import { parseCardText, roleOfLabel } from "./card-numbers.ts";
import type { CardEvidence, CardNumbers } from "./card-numbers.ts";

/** Decoded pixels in display orientation, 3 channels (RGB), row-major. */
export interface Rgb {
  data: Uint8Array;
  width: number;
  height: number;
}

/** Where the card lies in a photo, in that photo's pixels: centre, size (width is the long side), angle. */
export interface CardQuad {
  cx: number;
  cy: number;
  width: number;
  height: number;
  /**
   * Degrees, clockwise: how far the card's long side is turned from the horizontal; within ±45° for a
   * landscape card, near ±90° for one standing on its short side (then read sideways: not handled).
   */
  angle: number;
  /** How rectangular and how card-shaped the region is, 0..1. */
  score: number;
}

/** The detector works on a reduced image with this long side: the card is large and its edges are straight. */
const WORK_LONG_SIDE = 400;
/** The card is at least this share of the photo, and at most this share. */
const MIN_AREA_SHARE = 0.006;
const MAX_AREA_SHARE = 0.6;
/** Paper is nearly colourless: channels differ by at most this much. */
const MAX_CHROMA = 40;

interface Grey {
  /** min(R,G,B) per pixel: paper stays bright, anything coloured or shaded drops. */
  lum: Uint8Array;
  ok: Uint8Array;
  width: number;
  height: number;
  factor: number;
}

/** Box-average reduction to about WORK_LONG_SIDE, keeping the darkest channel and whether the pixel is grey. */
function reduce(img: Rgb): Grey {
  const factor = Math.max(1, Math.round(Math.max(img.width, img.height) / WORK_LONG_SIDE));
  const w = Math.floor(img.width / factor);
  const h = Math.floor(img.height / factor);
  const sum = new Uint32Array(w * 3);
  const lum = new Uint8Array(w * h);
  const ok = new Uint8Array(w * h);
  const n = factor * factor;
  const d = img.data;
  const stride = img.width * 3;
  for (let oy = 0; oy < h; oy++) {
    sum.fill(0);
    for (let dy = 0; dy < factor; dy++) {
      let p = (oy * factor + dy) * stride;
      for (let ox = 0, o = 0; ox < w; ox++, o += 3) {
        let r = 0;
        let g = 0;
        let b = 0;
        for (let dx = 0; dx < factor; dx++, p += 3) {
          r += d[p]!;
          g += d[p + 1]!;
          b += d[p + 2]!;
        }
        sum[o]! += r;
        sum[o + 1]! += g;
        sum[o + 2]! += b;
      }
    }
    for (let ox = 0, o = 0; ox < w; ox++, o += 3) {
      const r = sum[o]! / n;
      const g = sum[o + 1]! / n;
      const b = sum[o + 2]! / n;
      const lo = Math.min(r, g, b);
      lum[oy * w + ox] = lo;
      ok[oy * w + ox] = Math.max(r, g, b) - lo <= MAX_CHROMA ? 1 : 0;
    }
  }
  return { lum, ok, width: w, height: h, factor };
}

/** Components of the mask (4-connected): a label per pixel (0 = none) and each label's size and box. */
function components(mask: Uint8Array, w: number, h: number): { labels: Int32Array; count: number; sizes: Int32Array; boxes: Int32Array } {
  const labels = new Int32Array(w * h);
  const stack = new Int32Array(w * h);
  let sizes = new Int32Array(256);
  let boxes = new Int32Array(256 * 4);
  let count = 0;
  for (let start = 0; start < w * h; start++) {
    if (!mask[start] || labels[start]) continue;
    const id = ++count;
    if (id >= sizes.length) {
      const s2 = new Int32Array(sizes.length * 2);
      s2.set(sizes);
      sizes = s2;
      const b2 = new Int32Array(boxes.length * 2);
      b2.set(boxes);
      boxes = b2;
    }
    let x0 = w;
    let y0 = h;
    let x1 = -1;
    let y1 = -1;
    let size = 0;
    let top = 0;
    const visit = (q: number): void => {
      if (mask[q] && !labels[q]) {
        labels[q] = id;
        stack[top++] = q;
      }
    };
    labels[start] = id;
    stack[top++] = start;
    while (top > 0) {
      const p = stack[--top]!;
      size++;
      const x = p % w;
      const y = (p - x) / w;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
      if (x > 0) visit(p - 1);
      if (x < w - 1) visit(p + 1);
      if (y > 0) visit(p - w);
      if (y < h - 1) visit(p + w);
    }
    sizes[id] = size;
    boxes.set([x0, y0, x1, y1], id * 4);
  }
  return { labels, count, sizes, boxes };
}

/**
 * The pixels of one component with its holes filled (the writing on a card makes holes in "bright"),
 * as coordinates. A hole is anything inside the component's box that the outside cannot reach.
 */
function filledPixels(labels: Int32Array, w: number, id: number, box: [number, number, number, number]): { xs: Int32Array; ys: Int32Array } {
  const [x0, y0, x1, y1] = box;
  const bw = x1 - x0 + 3;
  const bh = y1 - y0 + 3;
  // 1 = component, 2 = reached from outside; a one-pixel frame lets the flood start everywhere at once.
  const m = new Uint8Array(bw * bh);
  for (let y = y0; y <= y1; y++) {
    for (let x = x0; x <= x1; x++) if (labels[y * w + x] === id) m[(y - y0 + 1) * bw + (x - x0 + 1)] = 1;
  }
  const stack = [0];
  m[0] = 2;
  while (stack.length > 0) {
    const p = stack.pop()!;
    const x = p % bw;
    const next = [x > 0 ? p - 1 : -1, x < bw - 1 ? p + 1 : -1, p - bw, p + bw];
    for (const q of next) {
      if (q < 0 || q >= bw * bh || m[q] !== 0) continue;
      m[q] = 2;
      stack.push(q);
    }
  }
  let n = 0;
  for (let i = 0; i < m.length; i++) if (m[i] !== 2) n++;
  const xs = new Int32Array(n);
  const ys = new Int32Array(n);
  let k = 0;
  for (let i = 0; i < m.length; i++) {
    if (m[i] === 2) continue;
    xs[k] = (i % bw) + x0 - 1;
    ys[k] = Math.floor(i / bw) + y0 - 1;
    k++;
  }
  return { xs, ys };
}

/** The smallest rectangle around the points, searched over angles in (-45°, 45°]. */
function minAreaRect(xs: Int32Array, ys: Int32Array): { cx: number; cy: number; a: number; b: number; angle: number } {
  let best = { area: Infinity, cx: 0, cy: 0, a: 0, b: 0, angle: 0 };
  const tryAngle = (deg: number): void => {
    const t = (deg * Math.PI) / 180;
    const c = Math.cos(t);
    const s = Math.sin(t);
    let umin = Infinity;
    let umax = -Infinity;
    let vmin = Infinity;
    let vmax = -Infinity;
    for (let i = 0; i < xs.length; i++) {
      const x = xs[i]!;
      const y = ys[i]!;
      const u = x * c + y * s;
      const v = -x * s + y * c;
      if (u < umin) umin = u;
      if (u > umax) umax = u;
      if (v < vmin) vmin = v;
      if (v > vmax) vmax = v;
    }
    // +1: pixel centres span one pixel less than the region they cover.
    const a = umax - umin + 1;
    const b = vmax - vmin + 1;
    if (a * b < best.area) {
      const uc = (umin + umax) / 2;
      const vc = (vmin + vmax) / 2;
      best = { area: a * b, cx: uc * c - vc * s, cy: uc * s + vc * c, a, b, angle: deg };
    }
  };
  for (let d = -44; d <= 45; d += 2) tryAngle(d);
  const coarse = best.angle;
  for (let d = coarse - 2; d <= coarse + 2; d += 0.25) tryAngle(d);
  return best;
}

/**
 * Finds the paper card: over a ladder of brightness thresholds, the region that is most nearly a filled
 * rectangle of card-like proportions. Returns null when nothing in the photo looks like a card.
 */
export function locateCard(img: Rgb): CardQuad | null {
  if (img.data.length < img.width * img.height * 3) {
    throw new Invalid("The pixel buffer does not match its stated width and height.");
  }
  const g = reduce(img);
  const { width: w, height: h } = g;
  const total = w * h;
  const mask = new Uint8Array(total);
  let best: CardQuad | null = null;
  for (let t = 250; t >= 120; t -= 10) {
    let any = 0;
    for (let i = 0; i < total; i++) {
      const on = g.lum[i]! >= t && g.ok[i] ? 1 : 0;
      mask[i] = on;
      any += on;
    }
    if (any < total * MIN_AREA_SHARE) continue;
    const { labels, count, sizes, boxes } = components(mask, w, h);
    for (let id = 1; id <= count; id++) {
      if (sizes[id]! < total * MIN_AREA_SHARE * 0.7 || sizes[id]! > total * MAX_AREA_SHARE) continue;
      const box: [number, number, number, number] = [boxes[id * 4]!, boxes[id * 4 + 1]!, boxes[id * 4 + 2]!, boxes[id * 4 + 3]!];
      // A region touching the frame is cut off by it: its true shape is unknown.
      if (box[0] === 0 || box[1] === 0 || box[2] === w - 1 || box[3] === h - 1) continue;
      const { xs, ys } = filledPixels(labels, w, id, box);
      if (xs.length < total * MIN_AREA_SHARE) continue;
      const r = minAreaRect(xs, ys);
      const long = Math.max(r.a, r.b);
      const short = Math.min(r.a, r.b);
      const fill = xs.length / (r.a * r.b);
      const aspect = long / short;
      // Cards are landscape rectangles of about 3:2; the score prefers that shape without insisting on it.
      const shape = Math.max(0, 1 - Math.abs(Math.log(aspect / 1.5)) * 1.2);
      const score = fill * (0.6 + 0.4 * shape);
      if (fill < 0.85 || aspect > 3 || (best && best.score >= score)) continue;
      let angle = r.angle;
      if (r.b > r.a) angle = angle > 0 ? angle - 90 : angle + 90;
      const f = g.factor;
      best = { cx: (r.cx + 0.5) * f, cy: (r.cy + 0.5) * f, width: long * f, height: short * f, angle, score };
    }
    // Further down the ladder the card only merges with its surroundings.
    if (best && best.score >= 0.97) break;
  }
  return best;
}

/**
 * The card cut out, turned level and scaled to `outWidth` pixels across, as 8-bit grey (luma), sampled
 * bilinearly from the photo. `inset` trims that share of each side (the edge and its shadow).
 */
export function rectify(img: Rgb, quad: CardQuad, outWidth: number, inset = 0.01): { data: Uint8Array; width: number; height: number } {
  const outHeight = Math.round((outWidth * quad.height) / quad.width);
  const out = new Uint8Array(outWidth * outHeight);
  const t = (quad.angle * Math.PI) / 180;
  const c = Math.cos(t);
  const s = Math.sin(t);
  const uw = quad.width * (1 - 2 * inset);
  const vh = quad.height * (1 - 2 * inset);
  const ku = uw / outWidth;
  const kv = vh / outHeight;
  const { data, width, height } = img;
  for (let y = 0; y < outHeight; y++) {
    const v = (y + 0.5) * kv - vh / 2;
    for (let x = 0; x < outWidth; x++) {
      const u = (x + 0.5) * ku - uw / 2;
      const sx = quad.cx + u * c - v * s - 0.5;
      const sy = quad.cy + u * s + v * c - 0.5;
      const x0 = Math.max(0, Math.min(width - 2, Math.floor(sx)));
      const y0 = Math.max(0, Math.min(height - 2, Math.floor(sy)));
      const fx = Math.max(0, Math.min(1, sx - x0));
      const fy = Math.max(0, Math.min(1, sy - y0));
      const p = (y0 * width + x0) * 3;
      const q = p + width * 3;
      const l00 = 0.299 * data[p]! + 0.587 * data[p + 1]! + 0.114 * data[p + 2]!;
      const l10 = 0.299 * data[p + 3]! + 0.587 * data[p + 4]! + 0.114 * data[p + 5]!;
      const l01 = 0.299 * data[q]! + 0.587 * data[q + 1]! + 0.114 * data[q + 2]!;
      const l11 = 0.299 * data[q + 3]! + 0.587 * data[q + 4]! + 0.114 * data[q + 5]!;
      const top = l00 + (l10 - l00) * fx;
      const bottom = l01 + (l11 - l01) * fx;
      out[y * outWidth + x] = Math.round(top + (bottom - top) * fy);
    }
  }
  return { data: out, width: outWidth, height: outHeight };
}

/** Grey pixels, one byte each. */
export interface GreyImage {
  data: Uint8Array;
  width: number;
  height: number;
}

/** One piece of ink on the card: its box and pixel count. */
export interface Blob {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  area: number;
}

/** A line of the card: the big glyphs (the number) and the small writing beside them (the label). */
export interface CardLine {
  number: Blob;
  label: Blob | null;
  /** Which side of the number the label is on: printed Latin labels stand left, Arabic ones right. */
  labelSide: "left" | "right" | null;
  glyphs: number;
}

function percentile(hist: Uint32Array, total: number, q: number): number {
  let acc = 0;
  for (let v = 0; v < 256; v++) {
    acc += hist[v]!;
    if (acc >= total * q) return v;
  }
  return 255;
}

/**
 * Ink as 1, paper as 0: the threshold sits halfway between the paper (the card's median) and the ink (its
 * darkest percent), so printed labels count as ink and the pale ruled lines do not.
 */
export function inkMask(img: GreyImage): { mask: Uint8Array; threshold: number; contrast: number } {
  const hist = new Uint32Array(256);
  for (let i = 0; i < img.data.length; i++) hist[img.data[i]!]!++;
  const paper = percentile(hist, img.data.length, 0.5);
  const ink = percentile(hist, img.data.length, 0.01);
  const threshold = (paper + ink) / 2;
  const mask = new Uint8Array(img.data.length);
  for (let i = 0; i < img.data.length; i++) mask[i] = img.data[i]! < threshold ? 1 : 0;
  return { mask, threshold, contrast: paper - ink };
}

function inkBlobs(mask: Uint8Array, w: number, h: number): Blob[] {
  const { count, sizes, boxes } = components(mask, w, h);
  const out: Blob[] = [];
  for (let id = 1; id <= count; id++) {
    const b = { x0: boxes[id * 4]!, y0: boxes[id * 4 + 1]!, x1: boxes[id * 4 + 2]!, y1: boxes[id * 4 + 3]!, area: sizes[id]! };
    if (b.area < 6) continue;
    // Long marks along the crop's edge are the card's border or the scene beyond it; writing that runs to
    // the edge (a suffix squeezed against it) is kept.
    const edge = b.x0 === 0 || b.y0 === 0 || b.x1 === w - 1 || b.y1 === h - 1;
    if (edge && (b.x1 - b.x0 + 1 > w * 0.3 || b.y1 - b.y0 + 1 > h * 0.3 || (b.x1 - b.x0 + 1) * (b.y1 - b.y0 + 1) > b.area * 6)) continue;
    out.push(b);
  }
  return out;
}

function union(a: Blob, b: Blob): Blob {
  return { x0: Math.min(a.x0, b.x0), y0: Math.min(a.y0, b.y0), x1: Math.max(a.x1, b.x1), y1: Math.max(a.y1, b.y1), area: a.area + b.area };
}

function overlapY(a: Blob, b: Blob): number {
  return Math.max(0, Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0) + 1);
}

/**
 * Splits the card into lines of writing: glyphs at least half as tall as the tallest make the numbers, lines
 * are the glyphs whose heights overlap, and the smaller writing on the same line away from the number is its
 * label. Lines come top to bottom.
 */
export function cardLines(mask: Uint8Array, w: number, h: number): CardLine[] {
  const blobs = inkBlobs(mask, w, h);
  if (blobs.length === 0) return [];
  const heights = blobs.map((b) => b.y1 - b.y0 + 1).sort((a, b) => b - a);
  // The tallest few glyphs, not the single tallest: one glyph can merge with a stray mark.
  const tall = heights[Math.min(2, heights.length - 1)]!;
  const big = blobs.filter((b) => b.y1 - b.y0 + 1 >= tall * 0.5);
  const small = blobs.filter((b) => b.y1 - b.y0 + 1 < tall * 0.5);
  big.sort((a, b) => (a.y0 + a.y1) / 2 - (b.y0 + b.y1) / 2);
  const lines: { box: Blob; parts: Blob[] }[] = [];
  for (const b of big) {
    const line = lines.find((l) => overlapY(l.box, b) >= 0.5 * Math.min(l.box.y1 - l.box.y0 + 1, b.y1 - b.y0 + 1));
    if (line) {
      line.box = union(line.box, b);
      line.parts.push(b);
    } else lines.push({ box: b, parts: [b] });
  }
  const out: CardLine[] = [];
  for (const line of lines) {
    const lh = line.box.y1 - line.box.y0 + 1;
    let number = line.box;
    const beside: Blob[] = [];
    for (const s of small) {
      if (overlapY(s, line.box) < 0.5 * (s.y1 - s.y0 + 1)) {
        // Dots above or below the letters of the number (the dot of ب hangs under the line).
        const near = s.y0 > line.box.y1 ? s.y0 - line.box.y1 : line.box.y0 - s.y1;
        if (near <= lh * 0.45 && s.x0 >= line.box.x0 - lh * 0.2 && s.x1 <= line.box.x1 + lh * 0.2) number = union(number, s);
        continue;
      }
      // Marks within the number's span (a letter's dots, a short slash) belong to it; the rest is the label.
      const gap = s.x0 > line.box.x1 ? s.x0 - line.box.x1 : line.box.x0 > s.x1 ? line.box.x0 - s.x1 : 0;
      if (gap <= lh * 0.35) number = union(number, s);
      else beside.push(s);
    }
    // Beside the number, pieces close to one another make words (labels); a lone small piece standing a
    // character's width from the number is part of it (an Arabic-Indic zero is a dot).
    beside.sort((a, b) => a.x0 - b.x0);
    const words: Blob[][] = [];
    for (const s of beside) {
      const last = words[words.length - 1];
      const tail = last?.[last.length - 1];
      if (last && tail && s.x0 - tail.x1 <= lh * 0.3) last.push(s);
      else words.push([s]);
    }
    let label: Blob | null = null;
    for (const word of words) {
      const box = word.reduce(union);
      const gap = box.x0 > number.x1 ? box.x0 - number.x1 : number.x0 - box.x1;
      // A word close by is the number's suffix (the ب after 1234/); a label keeps its distance.
      const lone = word.length === 1 && box.x1 - box.x0 + 1 <= lh * 0.4 && box.y1 - box.y0 + 1 <= lh * 0.4;
      if (gap <= lh * 0.6 || (lone && gap <= lh)) {
        number = union(number, box);
      } else label = label ? union(label, box) : box;
    }
    const side = label ? (label.x1 < number.x0 ? "left" : label.x0 > number.x1 ? "right" : null) : null;
    out.push({ number, label, labelSide: side, glyphs: line.parts.length });
  }
  return out.sort((a, b) => a.number.y0 - b.number.y0);
}

/** One written character of a number, as the box of the ink that makes it. */
export interface Glyph extends Blob {
  parts: number;
}

/**
 * The characters of a number, left to right. A small piece above or below a character belongs to it (the
 * dot of ب); a piece in a column of its own is a character (the Arabic-Indic zero is a dot).
 */
export function glyphsOf(mask: Uint8Array, w: number, h: number, box: Blob): Glyph[] {
  const x0 = Math.max(0, box.x0 - 2);
  const y0 = Math.max(0, box.y0 - 2);
  const cw = Math.min(w - 1, box.x1 + 2) - x0 + 1;
  const ch = Math.min(h - 1, box.y1 + 2) - y0 + 1;
  const sub = new Uint8Array(cw * ch);
  for (let y = 0; y < ch; y++) for (let x = 0; x < cw; x++) sub[y * cw + x] = mask[(y + y0) * w + x + x0]!;
  const { count, sizes, boxes } = components(sub, cw, ch);
  const pieces: Glyph[] = [];
  for (let id = 1; id <= count; id++) {
    if (sizes[id]! < 6) continue;
    pieces.push({
      x0: boxes[id * 4]! + x0,
      y0: boxes[id * 4 + 1]! + y0,
      x1: boxes[id * 4 + 2]! + x0,
      y1: boxes[id * 4 + 3]! + y0,
      area: sizes[id]!,
      parts: 1,
    });
  }
  pieces.sort((a, b) => b.area - a.area);
  const merged: Glyph[] = [];
  for (const p of pieces) {
    const pw = p.x1 - p.x0 + 1;
    const mid = (p.y0 + p.y1) / 2;
    const host = merged.find((g) => {
      const ov = Math.min(g.x1, p.x1) - Math.max(g.x0, p.x0) + 1;
      return ov >= 0.5 * pw && p.area < g.area * 0.35 && (mid < g.y0 || mid > g.y1);
    });
    if (host) {
      Object.assign(host, union(host, p));
      host.parts++;
    } else merged.push({ ...p });
  }
  return merged.sort((a, b) => a.x0 - b.x0);
}

/** The height of an ordinary character among these: the second tallest, so one stray mark cannot set it. */
export function typicalHeight(gs: readonly Blob[]): number {
  const hs = gs.map((g) => g.y1 - g.y0 + 1).sort((a, b) => b - a);
  return hs[Math.min(1, hs.length - 1)]!;
}

/** Side of the square a glyph is scaled into before comparison. */
const GLYPH_GRID = 16;

/** A glyph reduced to what the classifier compares: its shape in a square, its proportions, its size. */
export interface GlyphShape {
  cells: Float32Array;
  /** log(width / height). */
  aspect: number;
  /** Height relative to the number's digits. */
  size: number;
}

/** The ink in a box, scaled (aspect kept, centred) into a GLYPH_GRID square by area coverage. */
export function glyphShape(mask: Uint8Array, w: number, box: Blob, digitHeight: number): GlyphShape {
  const bw = box.x1 - box.x0 + 1;
  const bh = box.y1 - box.y0 + 1;
  const side = Math.max(bw, bh);
  const k = GLYPH_GRID / side;
  const offX = (GLYPH_GRID - bw * k) / 2;
  const offY = (GLYPH_GRID - bh * k) / 2;
  const cells = new Float32Array(GLYPH_GRID * GLYPH_GRID);
  for (let y = 0; y < bh; y++) {
    for (let x = 0; x < bw; x++) {
      if (!mask[(y + box.y0) * w + x + box.x0]) continue;
      // Each source pixel spreads its area over the cells its scaled square covers.
      const fx0 = offX + x * k;
      const fy0 = offY + y * k;
      for (let cy = Math.floor(fy0); cy < Math.min(GLYPH_GRID, Math.ceil(fy0 + k)); cy++) {
        const oy = Math.min(cy + 1, fy0 + k) - Math.max(cy, fy0);
        if (oy <= 0) continue;
        for (let cx = Math.floor(fx0); cx < Math.min(GLYPH_GRID, Math.ceil(fx0 + k)); cx++) {
          const ox = Math.min(cx + 1, fx0 + k) - Math.max(cx, fx0);
          if (ox > 0) cells[cy * GLYPH_GRID + cx]! += ox * oy;
        }
      }
    }
  }
  return { cells, aspect: Math.log(bw / bh), size: bh / digitHeight };
}

function shapeDistance(a: GlyphShape, b: GlyphShape): number {
  let d = 0;
  for (let i = 0; i < a.cells.length; i++) {
    const e = a.cells[i]! - b.cells[i]!;
    d += e * e;
  }
  const da = a.aspect - b.aspect;
  const ds = Math.log(a.size / b.size);
  return d / a.cells.length + 0.25 * da * da + 0.5 * ds * ds;
}

interface Template {
  cls: string;
  script: "latin" | "arabic-indic" | "both";
  shape: GlyphShape;
}

const LATIN_DIGITS = "0123456789";
const ARABIC_INDIC_DIGITS = "٠١٢٣٤٥٦٧٨٩";
/** Fonts asked of fontconfig for reference glyphs; missing ones fall back to whatever it has. */
const LATIN_FONTS = ["DejaVu Sans", "Liberation Sans", "Noto Sans", "DejaVu Serif", "Liberation Serif", "Noto Serif"];
const ARABIC_FONTS = ["Noto Naskh Arabic", "Noto Sans Arabic", "Noto Kufi Arabic", "DejaVu Sans"];

export interface GlyphReading {
  cls: string;
  script: "latin" | "arabic-indic" | "both";
  distance: number;
  /** Distance to the best template of the other script (Infinity for "/"). */
  otherScript: number;
  /** Distance to the best template of another class of the same script. */
  runnerUp: number;
}

/**
 * Nearest-reference glyph classifier for digits (Latin and Arabic-Indic) and the slash. Tesseract's Arabic
 * model barely knows the Arabic-Indic digits (a known gap in its training data), so these are read by
 * comparison with references drawn from the installed fonts at start; Latin digits are read by Tesseract and
 * checked here.
 */
export class GlyphClassifier {
  private constructor(private readonly templates: Template[]) {}

  static async create(): Promise<GlyphClassifier> {
    const templates: Template[] = [];
    const cell = 110;
    const fontSize = 64;
    const sets: { chars: string; fonts: string[]; script: "latin" | "arabic-indic" }[] = [
      { chars: `${LATIN_DIGITS}/`, fonts: LATIN_FONTS, script: "latin" },
      { chars: ARABIC_INDIC_DIGITS, fonts: ARABIC_FONTS, script: "arabic-indic" },
    ];
    const variants: { weight: number; stroke: number; rot: number }[] = [];
    for (const weight of [400, 700]) for (const stroke of [0, 3]) for (const rot of [-4, 0, 4]) variants.push({ weight, stroke, rot });
    for (const set of sets) {
      const chars = [...set.chars];
      for (const font of set.fonts) {
        for (const v of variants) {
          const width = cell * chars.length;
          const texts = chars
            .map((c, i) => {
              const x = i * cell + cell / 2;
              const y = 80;
              const esc = c === "&" ? "&amp;" : c === "<" ? "&lt;" : c;
              return `<text x="${x}" y="${y}" transform="rotate(${v.rot} ${x} ${y - 20})" font-family="${font}" font-weight="${v.weight}" font-size="${fontSize}" text-anchor="middle" fill="#000" stroke="#000" stroke-width="${v.stroke}" stroke-linejoin="round">${esc}</text>`;
            })
            .join("");
          const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${cell}"><rect width="${width}" height="${cell}" fill="#fff"/>${texts}</svg>`;
          const { data, info } = await sharp(Buffer.from(svg)).greyscale().raw().toBuffer({ resolveWithObject: true });
          const mask = new Uint8Array(info.width * info.height);
          for (let i = 0; i < mask.length; i++) mask[i] = data[i]! < 128 ? 1 : 0;
          const boxes: (Blob | null)[] = chars.map((_, i) => inkBox(mask, info.width, i * cell + 2, 0, (i + 1) * cell - 3, info.height - 1));
          // Heights are measured against the set's tallest ordinary digit, as on a card.
          const digitHeight = Math.max(...boxes.map((b, i) => (b && chars[i] !== "/" && chars[i] !== "٠" ? b.y1 - b.y0 + 1 : 0)));
          boxes.forEach((b, i) => {
            if (!b) return;
            const c = chars[i]!;
            templates.push({ cls: c, script: c === "/" ? "both" : set.script, shape: glyphShape(mask, info.width, b, digitHeight) });
          });
        }
      }
    }
    return new GlyphClassifier(templates);
  }

  /** The nearest reference of each class: one pass over the references. */
  scores(shape: GlyphShape): GlyphScores {
    const best = new Map<string, { d: number; script: Template["script"] }>();
    for (const t of this.templates) {
      const d = shapeDistance(shape, t.shape);
      const cur = best.get(t.cls);
      if (!cur || d < cur.d) best.set(t.cls, { d, script: t.script });
    }
    return [...best.entries()].map(([cls, r]) => ({ cls, d: r.d, script: r.script })).sort((a, b) => a.d - b.d);
  }

  classify(shape: GlyphShape | GlyphScores): GlyphReading {
    const ranked = Array.isArray(shape) ? shape : this.scores(shape);
    const best = ranked[0]!;
    const sameScript = ranked.find((r) => r.cls !== best.cls && (r.script === best.script || r.script === "both" || best.script === "both"));
    const other = ranked.find((r) => r.script !== best.script && r.script !== "both");
    return {
      cls: best.cls,
      script: best.script,
      distance: best.d,
      runnerUp: sameScript ? sameScript.d : Infinity,
      otherScript: best.script === "both" || !other ? Infinity : other.d,
    };
  }

  /** The best reading of a glyph among one script's digits (and the slash). */
  classifyAs(shape: GlyphShape | GlyphScores, script: "latin" | "arabic-indic"): GlyphReading {
    const ranked = (Array.isArray(shape) ? shape : this.scores(shape)).filter((r) => r.script === script || r.script === "both");
    const best = ranked[0];
    return { cls: best?.cls ?? "?", script, distance: best?.d ?? Infinity, runnerUp: ranked[1]?.d ?? Infinity, otherScript: Infinity };
  }
}

/** Each class's nearest reference distance, nearest first. */
export type GlyphScores = { cls: string; d: number; script: "latin" | "arabic-indic" | "both" }[];

function inkBox(mask: Uint8Array, w: number, x0: number, y0: number, x1: number, y1: number): Blob | null {
  let bx0 = Infinity;
  let by0 = Infinity;
  let bx1 = -1;
  let by1 = -1;
  let area = 0;
  for (let y = y0; y <= y1; y++) {
    for (let x = x0; x <= x1; x++) {
      if (!mask[y * w + x]) continue;
      area++;
      if (x < bx0) bx0 = x;
      if (x > bx1) bx1 = x;
      if (y < by0) by0 = y;
      if (y > by1) by1 = y;
    }
  }
  return area === 0 ? null : { x0: bx0, y0: by0, x1: bx1, y1: by1, area };
}

// ---------------------------------------------------------------------------------------------------------
// The reader: decode, find the card, cut it out, read each line, parse.

/** Tesseract works best on text about this tall (pixels of a digit). */
const OCR_DIGIT_HEIGHT = 40;
/** The card is cut out at this width: about the resolution it is printed at in the photos. */
const CARD_OUT_WIDTH = 600;
/** Larger photos are reduced to this long side before anything else: the card stays far above OCR size. */
const MAX_WORK_SIDE = 2400;
/**
 * The gate between "ink on something bright" and "a card's numbers". A card's number is short; a card prints a
 * label beside its numbers (or writes the examiner's with a letter after a slash); and the reading as a whole is
 * reasonably sure. Without all three the photo yields no reading: a window, a tiled wall or a sheet of printed
 * words reads as strings of digits otherwise (measured by `npm run bench -- ocr`: false readings per 1,000
 * photos without a card).
 */
const MAX_NUMBER_DIGITS = 8;
const MIN_READING_CONFIDENCE = 0.5;

/** Below this difference between paper and ink (grey levels) there is no writing to read. */
const MIN_CONTRAST = 60;

const LATIN_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz.:";
const ARABIC_LETTERS = "ابتثجحخدذرزسشصضطظعغفقكلمنهويةىأإآءئؤ";

export interface CardReaderOptions {
  /** Folders holding eng.traineddata.gz and ara.traineddata.gz; default: the @tesseract.js-data packages. */
  langPath?: { eng: string; ara: string };
  /** Tesseract workers per language (each is a thread with its own copy of the model). Default 1. */
  workers?: number;
  /** Refuse images declaring more pixels than this (default 100 megapixels). */
  maxPixels?: number;
}

export interface CardReader {
  /** The numbers on the card in the photo; a photo without a card gives no numbers and confidence 0. */
  read(bytes: Buffer): Promise<CardNumbers>;
  close(): Promise<void>;
}

/** The language data shipped in npm packages next to this code: reading it needs no network. */
export function defaultLangPaths(): { eng: string; ara: string } {
  const require = createRequire(import.meta.url);
  const dir = (lang: string): string => join(dirname(require.resolve(`@tesseract.js-data/${lang}/package.json`)), "4.0.0_best_int");
  return { eng: dir("eng"), ara: dir("ara") };
}

interface OcrText {
  text: string;
  /** 0..1 */
  confidence: number;
}

/** One Tesseract worker and the parameters it holds; jobs run one after another so parameters never mix. */
class Lane {
  private tail: Promise<unknown> = Promise.resolve();
  private params = "";
  pending = 0;

  constructor(private readonly worker: Tesseract.Worker) {}

  run(image: Buffer, psm: string, whitelist: string): Promise<OcrText> {
    this.pending++;
    const job = this.tail.then(async () => {
      const key = `${psm}\u0000${whitelist}`;
      if (key !== this.params) {
        await this.worker.setParameters({
          tessedit_pageseg_mode: psm as Tesseract.PSM,
          tessedit_char_whitelist: whitelist,
          user_defined_dpi: "300",
        });
        this.params = key;
      }
      const { data } = await this.worker.recognize(image);
      return { text: data.text.trim(), confidence: Math.max(0, Math.min(1, data.confidence / 100)) };
    });
    this.tail = job.catch(() => undefined).finally(() => this.pending--);
    return job;
  }

  terminate(): Promise<unknown> {
    return this.worker.terminate();
  }
}

class Pool {
  constructor(private readonly lanes: Lane[]) {}
  run(image: Buffer, psm: string, whitelist: string): Promise<OcrText> {
    const lane = this.lanes.reduce((a, b) => (b.pending < a.pending ? b : a));
    return lane.run(image, psm, whitelist);
  }
  async terminate(): Promise<void> {
    await Promise.all(this.lanes.map((l) => l.terminate()));
  }
}

async function makePool(lang: "eng" | "ara", langPath: string, n: number): Promise<Pool> {
  if (!existsSync(join(langPath, `${lang}.traineddata.gz`))) {
    throw new Invalid(`The OCR language data ${lang}.traineddata.gz is not in ${langPath}; reinstall the @tesseract.js-data/${lang} package.`);
  }
  const lanes: Lane[] = [];
  for (let i = 0; i < n; i++) {
    // A local folder as langPath is read from disk; cacheMethod "none" keeps tesseract.js from writing a
    // copy into the working directory. Nothing is fetched.
    const worker = await Tesseract.createWorker(lang, Tesseract.OEM.LSTM_ONLY, {
      langPath,
      gzip: true,
      cacheMethod: "none",
      logger: () => undefined,
      errorHandler: () => undefined,
    });
    lanes.push(new Lane(worker));
  }
  return new Pool(lanes);
}

/** A box of the ink mask as a PNG for Tesseract: black on white, scaled to `scale`, with a white margin. */
async function inkPng(mask: Uint8Array, w: number, boxes: readonly Blob[], scale: number): Promise<Buffer> {
  let box = boxes[0]!;
  for (const b of boxes) box = union(box, b);
  const m = 4;
  const bw = box.x1 - box.x0 + 1 + 2 * m;
  const bh = box.y1 - box.y0 + 1 + 2 * m;
  const px = Buffer.alloc(bw * bh, 255);
  for (const b of boxes) {
    for (let y = b.y0; y <= b.y1; y++) {
      for (let x = b.x0; x <= b.x1; x++) if (mask[y * w + x]) px[(y - box.y0 + m) * bw + (x - box.x0 + m)] = 0;
    }
  }
  return sharp(px, { raw: { width: bw, height: bh, channels: 1 } })
    .resize({ width: Math.max(8, Math.round(bw * scale)), height: Math.max(8, Math.round(bh * scale)), kernel: "lanczos3" })
    .extend({ top: 12, bottom: 12, left: 16, right: 16, background: { r: 255, g: 255, b: 255 } })
    .png({ compressionLevel: 1 })
    .toBuffer();
}

/** A printed label as a PNG with its text `height` pixels tall, dots above and below the letters kept. */
function labelPng(mask: Uint8Array, w: number, b: Blob, height: number): Promise<Buffer> {
  const g = Math.round((b.y1 - b.y0 + 1) * 0.4);
  const h = Math.floor(mask.length / w);
  const grown = { ...b, y0: Math.max(0, b.y0 - g), y1: Math.min(h - 1, b.y1 + g), x0: Math.max(0, b.x0 - 2), x1: Math.min(w - 1, b.x1 + 2) };
  return inkPng(mask, w, [grown], height / (b.y1 - b.y0 + 1));
}

const NONE = (raw = ""): CardNumbers => ({ confidence: 0, raw, digits: "latin" });

function round4(x: number): number {
  return Math.round(x * 10_000) / 10_000;
}



function toIndic(latin: string): string {
  return latin.replace(/[0-9]/g, (d) => ARABIC_INDIC_DIGITS[Number(d)]!);
}

interface ScoredLine {
  glyphs: Glyph[];
  digitHeight: number;
  scores: GlyphScores[];
}

interface LineReading {
  number: string;
  confidence: number;
}

/**
 * Opens the OCR engine: Tesseract workers for English and Arabic (kept alive across photos) and the glyph
 * references. Close it when done: the workers are threads.
 */
export async function createCardReader(opts: CardReaderOptions = {}): Promise<CardReader> {
  const paths = opts.langPath ?? defaultLangPaths();
  const n = opts.workers ?? 1;
  if (!Number.isInteger(n) || n < 1 || n > 8) throw new Invalid("The number of OCR workers must be a whole number from 1 to 8.", "workers");
  const maxPixels = opts.maxPixels ?? 100_000_000;
  const [eng, ara, glyphs] = await Promise.all([makePool("eng", paths.eng, n), makePool("ara", paths.ara, n), GlyphClassifier.create()]);
  let closed = false;

  const readSuffix = async (mask: Uint8Array, w: number, parts: Glyph[], digitHeight: number): Promise<OcrText | null> => {
    if (parts.length === 0) return null;
    const png = await inkPng(mask, w, parts, OCR_DIGIT_HEIGHT / digitHeight);
    const r = await ara.run(png, parts.length === 1 ? "10" : "8", ARABIC_LETTERS + LATIN_DIGITS + ARABIC_INDIC_DIGITS);
    return r.text === "" ? null : { text: r.text.replace(/\s+/g, ""), confidence: r.confidence };
  };

  const readLine = async (mask: Uint8Array, w: number, line: ScoredLine, script: "latin" | "arabic-indic"): Promise<LineReading | null> => {
    const { glyphs: all, digitHeight, scores } = line;
    if (all.length === 0) return null;
    const best = (sc: GlyphScores): number => glyphs.classifyAs(sc, script).distance;
    const split: Glyph[] = [];
    const splitScores: GlyphScores[] = [];
    // Digits are taller than wide; a full-height piece wider than tall is two touching. It is cut where the
    // two halves look most like digits, and only if they look more like digits than the whole does.
    const splitTouching = (g: Glyph, sc: GlyphScores, depth: number): void => {
      const gw = g.x1 - g.x0 + 1;
      const gh = g.y1 - g.y0 + 1;
      if (depth < 3 && gh >= digitHeight * 0.7 && gw >= gh * 0.95 && gw >= 8) {
        let cut: { l: Glyph; r: Glyph; ls: GlyphScores; rs: GlyphScores; cost: number } | null = null;
        const step = Math.max(1, Math.round(gw / 24));
        for (let x = g.x0 + Math.floor(gw * 0.25); x <= g.x0 + Math.ceil(gw * 0.75); x += step) {
          const l = inkBox(mask, w, g.x0, g.y0, x - 1, g.y1);
          const r = inkBox(mask, w, x, g.y0, g.x1, g.y1);
          if (!l || !r) continue;
          const ls = glyphs.scores(glyphShape(mask, w, l, digitHeight));
          const rs = glyphs.scores(glyphShape(mask, w, r, digitHeight));
          const cost = Math.max(best(ls), best(rs));
          if (!cut || cost < cut.cost) cut = { l: { ...l, parts: 1 }, r: { ...r, parts: 1 }, ls, rs, cost };
        }
        if (cut && cut.cost < best(sc)) {
          splitTouching(cut.l, cut.ls, depth + 1);
          splitTouching(cut.r, cut.rs, depth + 1);
          return;
        }
      }
      split.push(g);
      splitScores.push(sc);
    };
    // The slash parts the number from its suffix: the suffix is at the end of reading (right in a Latin line,
    // left in an Arabic one), and at least two digits stand before the slash.
    let slash = -1;
    scores.forEach((sc, i) => {
      if (sc[0]?.cls !== "/") return;
      if (script === "latin" ? i >= 2 : all.length - 1 - i >= 2 && slash < 0) slash = i;
    });
    let digitPart = slash < 0 ? all : script === "latin" ? all.slice(0, slash) : all.slice(slash + 1);
    // A small mark at either end that fits no digit at all (a speck, a stray piece of the label) is not read.
    const junk = (g: Glyph): boolean => g.y1 - g.y0 + 1 < digitHeight * 0.7 && best(scores[all.indexOf(g)]!) > 0.4;
    while (digitPart.length > 1 && junk(digitPart[0]!)) digitPart = digitPart.slice(1);
    while (digitPart.length > 1 && junk(digitPart[digitPart.length - 1]!)) digitPart = digitPart.slice(0, -1);
    const suffixPart = slash < 0 ? [] : script === "latin" ? all.slice(slash + 1) : all.slice(0, slash);
    for (const g of digitPart) splitTouching(g, scores[all.indexOf(g)]!, 0);
    const byShape = splitScores.map((sc) => glyphs.classifyAs(sc, script));
    const shapeText = byShape.map((r) => (r.cls === "/" ? "" : r.cls)).join("");
    // How far each glyph's best reference is ahead of the next best: 1 = unmistakable, 0 = a toss-up.
    const margins = byShape.map((r) => (Number.isFinite(r.runnerUp) && r.runnerUp > 0 ? Math.max(0, 1 - r.distance / r.runnerUp) : 1));
    const shapeConfidence = margins.length ? Math.min(1, 0.55 + Math.min(...margins)) : 0;
    let digits: string;
    let confidence: number;
    if (script === "latin") {
      const png = await inkPng(mask, w, digitPart, OCR_DIGIT_HEIGHT / digitHeight);
      const t = await eng.run(png, "7", LATIN_DIGITS);
      const text = t.text.replace(/\s+/g, "");
      if (text === shapeText || text === "") {
        digits = text === "" ? shapeText : text;
        confidence = text === "" ? shapeConfidence * 0.8 : Math.max(t.confidence, shapeConfidence);
      } else if (text.length === split.length || shapeText.length !== split.length) {
        // Tesseract is the reader and the shapes vouch for it; when they differ, the surer of the two wins,
        // and the disagreement costs confidence either way.
        const shapesSurer = shapeText.length === text.length && shapeConfidence > t.confidence;
        digits = shapesSurer ? shapeText : text;
        confidence = Math.min(shapesSurer ? shapeConfidence : t.confidence, 0.7);
      } else {
        // Tesseract saw a different number of characters than there are pieces of ink: it doubled or
        // dropped one (2217 for 227). The shapes, one per piece, are the better reading here.
        digits = shapeText;
        confidence = Math.min(shapeConfidence, 0.7);
      }
    } else {
      digits = shapeText;
      confidence = shapeConfidence;
    }
    if (digits === "") return null;
    const suffix = await readSuffix(mask, w, suffixPart, digitHeight);
    // Tesseract is unsure of lone letters even when right; the suffix moves the line's confidence a little.
    if (suffix) confidence = Math.min(confidence, 0.7 + 0.3 * suffix.confidence);
    return { number: suffix ? `${digits}/${suffix.text}` : digits, confidence };
  };

  const readLabels = async (mask: Uint8Array, w: number, lines: CardLine[], script: "latin" | "arabic-indic"): Promise<(string | null)[]> => {
    const pool = script === "latin" ? eng : ara;
    const letters = script === "latin" ? LATIN_LETTERS : ARABIC_LETTERS;
    return Promise.all(
      lines.map(async (l) => {
        if (!l.label) return null;
        const png = await labelPng(mask, w, l.label, 56);
        const r = await pool.run(png, "7", letters);
        return r.text === "" ? null : r.text;
      }),
    );
  };

  const readCard = async (img: Rgb): Promise<CardNumbers> => {
    const quad = locateCard(img);
    if (!quad) return NONE();
    const card = rectify(img, quad, CARD_OUT_WIDTH);
    const { mask, contrast } = inkMask(card);
    if (contrast < MIN_CONTRAST) return NONE();
    const lines = cardLines(mask, card.width, card.height).filter((l) => l.number.y1 - l.number.y0 + 1 >= 12);
    if (lines.length === 0) return NONE();
    const scored: ScoredLine[] = lines.map((l) => {
      const gs = glyphsOf(mask, card.width, card.height, l.number);
      const dh = gs.length ? typicalHeight(gs) : 1;
      return { glyphs: gs, digitHeight: dh, scores: gs.map((g) => glyphs.scores(glyphShape(mask, card.width, g, dh))) };
    });
    // Which digits the card uses: the glyph references vote, the side the labels stand on breaks a tie.
    let vote = 0;
    scored.forEach((l, i) => {
      // Each glyph votes by how much better one script's digits fit it, capped so that a stray mark or the
      // suffix letter (which fits neither) cannot outvote the digits.
      for (const sc of l.scores) {
        const d = glyphs.classifyAs(sc, "arabic-indic").distance - glyphs.classifyAs(sc, "latin").distance;
        vote += Math.max(-0.05, Math.min(0.05, d));
      }
      if (lines[i]!.labelSide === "right") vote -= 0.02;
      if (lines[i]!.labelSide === "left") vote += 0.02;
    });
    const script = vote >= 0 ? "latin" : "arabic-indic";
    const [readings, labels] = await Promise.all([
      Promise.all(scored.map((l) => readLine(mask, card.width, l, script))),
      readLabels(mask, card.width, lines, script),
    ]);
    const text: string[] = [];
    const conf: number[] = [];
    const labelOf: (string | null)[] = [];
    // Every line read, kept as the reading's raw text even when the gate below turns the photo down.
    const seen: string[] = [];
    let labelled = false;
    let suffixed = false;
    readings.forEach((r, i) => {
      if (!r) return;
      const number = script === "arabic-indic" ? toIndic(r.number) : r.number;
      const read = labels[i] ?? null;
      seen.push(`${read ?? ""} ${number}`.trim());
      // A run of digits longer than any card number is a line of something else (print, a pattern).
      if (r.number.split("/")[0]!.length > MAX_NUMBER_DIGITS) return;
      const label = read !== null && roleOfLabel(read) ? read : null;
      labelled ||= label !== null;
      suffixed ||= r.number.includes("/");
      text.push(seen.at(-1)!);
      conf.push(r.confidence);
      labelOf.push(label);
    });
    const raw = text.join("\n");
    if (!labelled && !suffixed) return NONE(seen.join("\n"));
    const parsed = parseCardText(raw, conf);
    if (parsed.confidence < MIN_READING_CONFIDENCE) return NONE(seen.join("\n"));
    const found: CardEvidence["lines"] = [];
    for (const role of ["detainee", "branch", "examiner"] as const) {
      const v = parsed[role];
      if (!v) continue;
      // The line this number was read from: the one that, parsed alone, gives the same number.
      const k = text.findIndex((t) => {
        const one = parseCardText(t);
        return one.detainee === v || one.branch === v || one.examiner === v;
      });
      if (k >= 0) found.push({ role, label: labelOf[k] ?? null, confidence: Math.round(conf[k]! * 1000) / 1000 });
    }
    const region = {
      cx: round4(quad.cx / img.width),
      cy: round4(quad.cy / img.height),
      width: round4(quad.width / img.width),
      height: round4(quad.height / img.height),
      angle: Math.round(quad.angle * 10) / 10,
    };
    return { ...parsed, evidence: { region, cardScore: round4(quad.score), lines: found } };
  };

  return {
    async read(bytes: Buffer): Promise<CardNumbers> {
      if (closed) throw new Invalid("The card reader is closed; open a new one to read more photos.");
      let decoded: { data: Buffer; info: sharp.OutputInfo };
      try {
        decoded = await sharp(bytes, { limitInputPixels: maxPixels })
          .rotate()
          .resize({ width: MAX_WORK_SIDE, height: MAX_WORK_SIDE, fit: "inside", withoutEnlargement: true })
          .removeAlpha()
          .toColourspace("srgb")
          .raw()
          .toBuffer({ resolveWithObject: true });
      } catch (err) {
        throw new Invalid(`The photo cannot be decoded for reading its card (${err instanceof Error ? err.message : String(err)}).`);
      }
      const { data, info } = decoded;
      if (info.channels !== 3) throw new Invalid("The photo does not decode to colour or grey pixels.");
      return readCard({ data, width: info.width, height: info.height });
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      await Promise.all([eng.terminate(), ara.terminate()]);
    },
  };
}
