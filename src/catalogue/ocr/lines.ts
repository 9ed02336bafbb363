/** Ink on the cut-out card: the black-on-white mask, its blobs, the lines of writing and the glyphs of a number. */
import { components } from "./geometry.ts";

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

export function percentile(hist: Uint32Array, total: number, q: number): number {
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

export function inkBlobs(mask: Uint8Array, w: number, h: number): Blob[] {
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

export function union(a: Blob, b: Blob): Blob {
  return { x0: Math.min(a.x0, b.x0), y0: Math.min(a.y0, b.y0), x1: Math.max(a.x1, b.x1), y1: Math.max(a.y1, b.y1), area: a.area + b.area };
}

export function overlapY(a: Blob, b: Blob): number {
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
