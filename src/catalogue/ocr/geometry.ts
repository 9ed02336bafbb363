/** Finding the card in a photo (a bright, nearly colourless rectangle), and cutting it out level at a fixed size. */
import { Invalid } from "../../core/errors.ts";

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
export const WORK_LONG_SIDE = 400;
/** The card is at least this share of the photo, and at most this share. */
export const MIN_AREA_SHARE = 0.006;
export const MAX_AREA_SHARE = 0.6;
/** Paper is nearly colourless: channels differ by at most this much. */
export const MAX_CHROMA = 40;

export interface Grey {
  /** min(R,G,B) per pixel: paper stays bright, anything coloured or shaded drops. */
  lum: Uint8Array;
  ok: Uint8Array;
  width: number;
  height: number;
  factor: number;
}

/** Box-average reduction to about WORK_LONG_SIDE, keeping the darkest channel and whether the pixel is grey. */
export function reduce(img: Rgb): Grey {
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
export function components(mask: Uint8Array, w: number, h: number): { labels: Int32Array; count: number; sizes: Int32Array; boxes: Int32Array } {
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
export function filledPixels(labels: Int32Array, w: number, id: number, box: [number, number, number, number]): { xs: Int32Array; ys: Int32Array } {
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
export function minAreaRect(xs: Int32Array, ys: Int32Array): { cx: number; cy: number; a: number; b: number; angle: number } {
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
