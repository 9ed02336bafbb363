import { CARD_HEIGHT, CARD_WIDTH } from "./paper-card.ts";
import type { Rng } from "./prng.ts";

/**
 * The abstract scene behind the card: a tiled floor, a steel table with a pale sheet on it, a few plain shapes,
 * flash fall-off, and sensor noise. Nothing in it resembles a person. The shapes are one SVG, rendered at half
 * size by librsvg on sharp's worker threads; one JavaScript pass then enlarges it, lays the card over it and
 * adds noise everywhere, so the JPEGs are as large and textured as a camera's.
 */
type Rgb = readonly [number, number, number];

interface Shape {
  kind: "disc" | "box";
  cx: number;
  cy: number;
  rx: number;
  ry: number;
  angle: number;
  color: Rgb;
}

/** What stays the same in every photo of one body: the room, the table, the sheet. */
export interface SceneStyle {
  wallA: Rgb;
  wallB: Rgb;
  gradAngle: number;
  tile: number;
  grout: Rgb;
  table: { cx: number; cy: number; hw: number; hh: number; angle: number; color: Rgb };
  sheet: { cx: number; cy: number; hw: number; hh: number; angle: number; color: Rgb; outline: string };
  folds: { angle: number; stops: number[]; period: number; crossAngle: number; crossPeriod: number };
  shapes: Shape[];
}

/** What changes from one photo to the next: where the camera points, how close, the light, the card. */
export interface ShotView {
  zoom: number;
  panX: number;
  panY: number;
  /** Degrees; the camera is never held perfectly level. */
  roll: number;
  exposure: number;
  vignette: number;
  /** Light falls off across the frame from this direction (degrees), by up to `lightFalloff`. */
  lightAngle: number;
  lightFalloff: number;
  noiseX: number;
  noiseY: number;
  noiseAmp: number;
}

/** Where the card lies in a photo: centre in pixels, angle in degrees, width in pixels. */
export interface CardPlacement {
  cx: number;
  cy: number;
  angle: number;
  width: number;
}

const WALLS: Rgb[] = [
  [152, 156, 150],
  [138, 142, 140],
  [160, 154, 142],
  [128, 134, 136],
  [146, 148, 138],
  [104, 108, 104],
  [178, 176, 168],
];
const TABLES: Rgb[] = [
  [112, 118, 124],
  [98, 104, 108],
  [126, 128, 126],
  [150, 152, 150],
  [72, 76, 80],
];
// Pale sheets, and the muted green, blue and grey of hospital drapes.
const SHEETS: Rgb[] = [
  [206, 210, 214],
  [196, 192, 182],
  [188, 198, 204],
  [210, 206, 196],
  [122, 142, 132],
  [112, 128, 146],
  [150, 150, 148],
];
const SHAPES: Rgb[] = [
  [104, 112, 120],
  [96, 104, 98],
  [132, 134, 130],
  [84, 90, 98],
];

/** Varies brightness freely but hue only slightly: independent channel jitter turns greys purple or green. */
function jitter(rng: Rng, c: Rgb, amount: number): Rgb {
  const k = rng.range(-amount, amount);
  const t = amount / 4;
  return [c[0] + k + rng.range(-t, t), c[1] + k + rng.range(-t, t), c[2] + k + rng.range(-t, t)];
}

function hex(c: Rgb, factor = 1): string {
  const h = (v: number): string =>
    Math.max(0, Math.min(255, Math.round(v * factor)))
      .toString(16)
      .padStart(2, "0");
  return `#${h(c[0])}${h(c[1])}${h(c[2])}`;
}

function f(n: number): string {
  return n.toFixed(4);
}

/** A closed outline around a rectangle whose edges wander a little, as cloth does. */
function wobblyOutline(rng: Rng, hw: number, hh: number): string {
  const pts: string[] = [];
  const per = 9;
  const corners: [number, number][] = [
    [-hw, -hh],
    [hw, -hh],
    [hw, hh],
    [-hw, hh],
  ];
  for (let e = 0; e < 4; e++) {
    const [x0, y0] = corners[e] as [number, number];
    const [x1, y1] = corners[(e + 1) % 4] as [number, number];
    for (let i = 0; i < per; i++) {
      const t = i / per;
      const w = i === 0 ? 0 : rng.range(-0.015, 0.015);
      const nx = y1 - y0 === 0 ? 0 : Math.sign(y1 - y0);
      const ny = x1 - x0 === 0 ? 0 : -Math.sign(x1 - x0);
      pts.push(`${f(x0 + (x1 - x0) * t + nx * w)} ${f(y0 + (y1 - y0) * t + ny * w)}`);
    }
  }
  return `M${pts.join("L")}Z`;
}

export function chooseSceneStyle(rng: Rng): SceneStyle {
  const wall = rng.pick(WALLS);
  const tableAngle = rng.range(-12, 12);
  const shapes: Shape[] = [];
  // Plain objects around the table, never on it and never touching one another: trays and crates, and
  // sometimes a floor drain. Kept apart so no group of shapes can read as a figure.
  const n = rng.int(1, 2);
  const sides = rng.chance(0.5) ? [-1, 1] : [1, -1];
  for (let i = 0; i < n; i++) {
    const r = rng.range(0.08, 0.16);
    shapes.push({
      kind: "box",
      cx: rng.range(-0.9, 0.9),
      cy: (sides[i] as number) * rng.range(0.62, 0.85),
      rx: r,
      ry: r * rng.range(0.45, 0.8),
      angle: rng.range(-35, 35),
      color: jitter(rng, rng.pick(SHAPES), 8),
    });
  }
  if (rng.chance(0.5)) {
    const r = rng.range(0.035, 0.055);
    shapes.push({
      kind: "disc",
      cx: rng.chance(0.5) ? rng.range(-1.2, -1.0) : rng.range(1.0, 1.2),
      cy: rng.range(-0.3, 0.3),
      rx: r,
      ry: r,
      angle: 0,
      color: [72, 76, 80],
    });
  }
  const sheetHw = rng.range(0.55, 0.7);
  const sheetHh = rng.range(0.22, 0.3);
  const stops: number[] = [];
  for (let i = 0; i < 7; i++) stops.push(rng.range(0.86, 1.06));
  return {
    wallA: jitter(rng, wall, 8),
    wallB: jitter(rng, [wall[0] - 28, wall[1] - 26, wall[2] - 24], 8),
    gradAngle: rng.range(0, 360),
    tile: rng.range(0.22, 0.36),
    grout: jitter(rng, [wall[0] - 40, wall[1] - 40, wall[2] - 38], 6),
    table: {
      cx: rng.range(-0.08, 0.08),
      cy: rng.range(-0.05, 0.05),
      hw: rng.range(0.8, 0.95),
      hh: rng.range(0.38, 0.46),
      angle: tableAngle,
      color: jitter(rng, rng.pick(TABLES), 6),
    },
    sheet: {
      cx: rng.range(-0.1, 0.1),
      cy: rng.range(-0.04, 0.04),
      hw: sheetHw,
      hh: sheetHh,
      angle: tableAngle + rng.range(-5, 5),
      color: jitter(rng, rng.pick(SHEETS), 6),
      outline: wobblyOutline(rng, sheetHw, sheetHh),
    },
    folds: {
      angle: rng.range(-30, 30),
      stops,
      period: rng.range(0.12, 0.3),
      crossAngle: rng.range(60, 120),
      crossPeriod: rng.range(0.2, 0.5),
    },
    shapes,
  };
}

export function chooseShotView(rng: Rng, portrait: boolean, noiseTileSize: number): ShotView {
  return {
    zoom: rng.range(0.75, 1.7),
    panX: rng.range(-0.45, 0.45),
    panY: rng.range(-0.3, 0.3),
    // Portrait shots turn the camera a quarter; some shots are taken from the other side of the table.
    roll: (portrait ? 90 : 0) + rng.range(-6, 6) + (rng.chance(0.5) ? 0 : 180),
    exposure: rng.range(0.92, 1.08),
    vignette: rng.range(0.25, 0.5),
    lightAngle: rng.range(0, 360),
    lightFalloff: rng.range(0.15, 0.45),
    noiseX: rng.int(0, noiseTileSize - 1),
    noiseY: rng.int(0, noiseTileSize - 1),
    noiseAmp: rng.range(0.9, 1.25),
  };
}

/** A card placement that keeps the whole card (rotated) inside the frame with a margin. */
export function chooseCardPlacement(rng: Rng, width: number, height: number): CardPlacement {
  const cardWidth = Math.round(Math.min(width, height) * rng.range(0.34, 0.5));
  const angle = rng.range(-7, 7);
  const rad = (Math.abs(angle) * Math.PI) / 180;
  const cardHeight = (cardWidth * CARD_HEIGHT) / CARD_WIDTH;
  const bw = cardWidth * Math.cos(rad) + cardHeight * Math.sin(rad);
  const bh = cardWidth * Math.sin(rad) + cardHeight * Math.cos(rad);
  const margin = 30;
  return {
    cx: rng.range(margin + bw / 2, width - margin - bw / 2),
    cy: rng.range(margin + bh / 2, height - margin - bh / 2),
    angle,
    width: cardWidth,
  };
}

function rotatedGradient(id: string, angleDeg: number, period: number, stops: string): string {
  // A gradient along a direction in world units, repeated by reflection: the folds of a sheet.
  const a = (angleDeg * Math.PI) / 180;
  const x2 = Math.cos(a) * period;
  const y2 = Math.sin(a) * period;
  return `<linearGradient id="${id}" gradientUnits="userSpaceOnUse" x1="0" y1="0" x2="${f(x2)}" y2="${f(y2)}" spreadMethod="reflect">${stops}</linearGradient>`;
}

/**
 * The scene as SVG for a photo of `width` × `height`, declared at `renderScale` of that size: the scene is
 * soft (out of focus behind the card) and drawing it at half size and enlarging costs a quarter as much.
 */
export function sceneSvg(style: SceneStyle, view: ShotView, width: number, height: number, renderScale = 1): string {
  const s = style;
  const scale = (Math.max(width, height) * view.zoom) / 2;
  const g = (s.gradAngle * Math.PI) / 180;
  const gx = Math.cos(g) / 2;
  const gy = Math.sin(g) / 2;
  const la = (view.lightAngle * Math.PI) / 180;
  const lx = Math.cos(la) / 2;
  const ly = Math.sin(la) / 2;
  const sheetColor = s.sheet.color;
  const foldStops = s.folds.stops
    .map((k, i) => `<stop offset="${f(i / (s.folds.stops.length - 1))}" stop-color="${hex(sheetColor, k)}"/>`)
    .join("");
  const crossStops = `<stop offset="0" stop-color="#000" stop-opacity="0.08"/><stop offset="0.5" stop-color="#fff" stop-opacity="0.06"/><stop offset="1" stop-color="#000" stop-opacity="0.1"/>`;
  const defs =
    `<defs>` +
    `<linearGradient id="wall" x1="${f(0.5 - gx)}" y1="${f(0.5 - gy)}" x2="${f(0.5 + gx)}" y2="${f(0.5 + gy)}">` +
    `<stop offset="0" stop-color="${hex(s.wallA)}"/><stop offset="1" stop-color="${hex(s.wallB)}"/></linearGradient>` +
    `<linearGradient id="steel" x1="0" y1="0" x2="1" y2="0.2">` +
    `<stop offset="0" stop-color="${hex(s.table.color, 0.9)}"/><stop offset="0.45" stop-color="${hex(s.table.color, 1.12)}"/>` +
    `<stop offset="1" stop-color="${hex(s.table.color, 0.94)}"/></linearGradient>` +
    rotatedGradient("folds", s.folds.angle, s.folds.period, foldStops) +
    rotatedGradient("cross", s.folds.crossAngle, s.folds.crossPeriod, crossStops) +
    `<linearGradient id="light" x1="${f(0.5 - lx)}" y1="${f(0.5 - ly)}" x2="${f(0.5 + lx)}" y2="${f(0.5 + ly)}">` +
    `<stop offset="0" stop-color="#000" stop-opacity="0"/>` +
    `<stop offset="1" stop-color="#000" stop-opacity="${f(view.lightFalloff)}"/></linearGradient>` +
    `<radialGradient id="vig" cx="0.5" cy="0.5" r="0.75">` +
    `<stop offset="0.35" stop-color="#000" stop-opacity="0"/>` +
    `<stop offset="1" stop-color="#000" stop-opacity="${f(view.vignette)}"/></radialGradient>` +
    `</defs>`;

  const parts: string[] = [defs, `<rect width="${width}" height="${height}" fill="url(#wall)"/>`];
  parts.push(
    `<g transform="translate(${f(width / 2)} ${f(height / 2)}) scale(${f(scale)}) rotate(${f(-view.roll)}) translate(${f(-view.panX)} ${f(-view.panY)})">`,
  );
  let grout = "";
  const extent = 3;
  for (let k = Math.floor(-extent / s.tile); k * s.tile <= extent; k++) {
    const p = f(k * s.tile);
    grout += `M${p} ${-extent}V${extent}M${-extent} ${p}H${extent}`;
  }
  parts.push(`<path d="${grout}" stroke="${hex(s.grout)}" stroke-width="0.006" fill="none"/>`);

  for (const sh of s.shapes) {
    const geo =
      sh.kind === "disc"
        ? (grow: number): string => `<ellipse cx="0" cy="0" rx="${f(sh.rx + grow)}" ry="${f(sh.ry + grow)}"`
        : (grow: number): string =>
            `<rect x="${f(-sh.rx - grow)}" y="${f(-sh.ry - grow)}" width="${f(2 * (sh.rx + grow))}" height="${f(2 * (sh.ry + grow))}" rx="0.01"`;
    parts.push(
      `<g transform="translate(${f(sh.cx)} ${f(sh.cy)}) rotate(${f(sh.angle)})">` +
        `${geo(0.03)} fill="#000" fill-opacity="0.08"/>${geo(0.015)} fill="#000" fill-opacity="0.1"/>` +
        `${geo(0)} fill="${hex(sh.color)}"/></g>`,
    );
  }

  const t = s.table;
  const trect = (grow: number): string =>
    `<rect x="${f(-t.hw - grow)}" y="${f(-t.hh - grow)}" width="${f(2 * (t.hw + grow))}" height="${f(2 * (t.hh + grow))}" rx="0.02"`;
  parts.push(
    `<g transform="translate(${f(t.cx)} ${f(t.cy)}) rotate(${f(t.angle)})">` +
      `${trect(0.06)} fill="#000" fill-opacity="0.07"/>${trect(0.03)} fill="#000" fill-opacity="0.1"/>` +
      `${trect(0)} fill="url(#steel)" stroke="${hex(t.color, 0.7)}" stroke-width="0.008"/></g>`,
  );

  const sh = s.sheet;
  parts.push(
    `<g transform="translate(${f(sh.cx)} ${f(sh.cy)}) rotate(${f(sh.angle)})">` +
      `<path d="${sh.outline}" fill="#000" fill-opacity="0.14" transform="translate(0.012 0.016) scale(1.02)"/>` +
      `<path d="${sh.outline}" fill="url(#folds)"/>` +
      `<path d="${sh.outline}" fill="url(#cross)"/></g>`,
  );
  parts.push(`</g>`);

  parts.push(`<rect width="${width}" height="${height}" fill="url(#light)"/>`);
  parts.push(`<rect width="${width}" height="${height}" fill="url(#vig)"/>`);
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${Math.round(width * renderScale)}" height="${Math.round(height * renderScale)}" viewBox="0 0 ${width} ${height}">` +
    parts.join("") +
    `</svg>`
  );
}

/**
 * A card raster ready for resampling: colour premultiplied by alpha, as floats, with a one-pixel transparent
 * border so a bilinear sample never needs a bounds check.
 */
export interface CardTexture {
  /** r·a, g·a, b·a, a per texel, (width + 2) × (height + 2). */
  data: Float32Array;
  width: number;
  height: number;
}

export function cardTexture(card: RasterRgba): CardTexture {
  const tw = card.width + 2;
  const data = new Float32Array(tw * (card.height + 2) * 4);
  for (let y = 0; y < card.height; y++) {
    for (let x = 0; x < card.width; x++) {
      const i = (y * card.width + x) * 4;
      const o = ((y + 1) * tw + x + 1) * 4;
      const a = (card.data[i + 3] as number) / 255;
      data[o] = (card.data[i] as number) * a;
      data[o + 1] = (card.data[i + 1] as number) * a;
      data[o + 2] = (card.data[i + 2] as number) * a;
      data[o + 3] = a;
    }
  }
  return { data, width: card.width, height: card.height };
}

/**
 * The body's card turned and scaled into place, with a soft shadow, as an RGBA layer for `composePhoto`.
 * Resampled from a texture drawn once per body: laying out the card's glyphs costs more than this.
 */
export function placeCard(card: CardTexture, place: CardPlacement): RasterRgba & { left: number; top: number } {
  const k = place.width / card.width;
  const rad = (place.angle * Math.PI) / 180;
  const cos = Math.cos(rad);
  const sin = Math.sin(rad);
  const w = place.width;
  const h = card.height * k;
  const pad = 24;
  const bw = Math.ceil(w * Math.abs(cos) + h * Math.abs(sin)) + 2 * pad;
  const bh = Math.ceil(w * Math.abs(sin) + h * Math.abs(cos)) + 2 * pad;
  const left = Math.round(place.cx - bw / 2);
  const top = Math.round(place.cy - bh / 2);
  const ox = place.cx - left;
  const oy = place.cy - top;
  const hw = w / 2;
  const hh = h / 2;
  const sw = card.width;
  const sh = card.height;
  const tw4 = (sw + 2) * 4;
  const tex = card.data;
  const out = Buffer.alloc(bw * bh * 4);
  let o = 0;
  for (let y = 0; y < bh; y++) {
    for (let x = 0; x < bw; x++, o += 4) {
      const dx = x + 0.5 - ox;
      const dy = y + 0.5 - oy;
      // Shadow: the card's rectangle, offset down and right, with a soft edge.
      const sx = dx - 6;
      const sy = dy - 8;
      const sd = Math.max(Math.abs(sx * cos + sy * sin) - hw, Math.abs(-sx * sin + sy * cos) - hh);
      const shadow = sd > 10 ? 0 : 0.32 * Math.min(1, (10 - sd) / 14);
      // Where this pixel falls on the card, in texture coordinates (border included).
      const u = (dx * cos + dy * sin) / k + sw / 2 + 0.5;
      const v = (-dx * sin + dy * cos) / k + sh / 2 + 0.5;
      let ca = 0;
      let cr = 0;
      let cg = 0;
      let cb = 0;
      if (u >= 0 && v >= 0 && u < sw + 1 && v < sh + 1) {
        const x0 = Math.floor(u);
        const y0 = Math.floor(v);
        const fx = u - x0;
        const fy = v - y0;
        const w00 = (1 - fx) * (1 - fy);
        const w10 = fx * (1 - fy);
        const w01 = (1 - fx) * fy;
        const w11 = fx * fy;
        const p = y0 * tw4 + x0 * 4;
        const q = p + tw4;
        ca = (tex[p + 3] as number) * w00 + (tex[p + 7] as number) * w10 + (tex[q + 3] as number) * w01 + (tex[q + 7] as number) * w11;
        if (ca > 0) {
          cr = ((tex[p] as number) * w00 + (tex[p + 4] as number) * w10 + (tex[q] as number) * w01 + (tex[q + 4] as number) * w11) / ca;
          cg = ((tex[p + 1] as number) * w00 + (tex[p + 5] as number) * w10 + (tex[q + 1] as number) * w01 + (tex[q + 5] as number) * w11) / ca;
          cb = ((tex[p + 2] as number) * w00 + (tex[p + 6] as number) * w10 + (tex[q + 2] as number) * w01 + (tex[q + 6] as number) * w11) / ca;
        }
      }
      // Card over its shadow (black).
      const a = ca + shadow * (1 - ca);
      if (a <= 0) continue;
      out[o] = Math.round((cr * ca) / a);
      out[o + 1] = Math.round((cg * ca) / a);
      out[o + 2] = Math.round((cb * ca) / a);
      out[o + 3] = Math.round(a * 255);
    }
  }
  return { data: out, width: bw, height: bh, left, top };
}

/** Sensor noise shared by every photo of a card, read at a different offset in each. Gaussian-like, σ ≈ 5.5. */
export class NoiseTile {
  static readonly SIZE = 1024;
  readonly data: Int8Array;

  constructor(rng: Rng) {
    const n = NoiseTile.SIZE * NoiseTile.SIZE;
    this.data = new Int8Array(n);
    for (let i = 0; i < n; i++) {
      const v = rng.u32();
      // Sum of the four bytes of one draw: approximately normal, and one draw per value.
      const s = (v & 255) + ((v >>> 8) & 255) + ((v >>> 16) & 255) + (v >>> 24) - 510;
      this.data[i] = Math.max(-127, Math.min(127, Math.round(s / 27)));
    }
  }
}

export interface RasterRgba {
  data: Buffer;
  width: number;
  height: number;
}

/**
 * The photo's pixels: the scene raster enlarged (bilinear) to the photo's size, the card laid over it, then
 * exposure and sensor noise (luma plus a little chroma) on everything, as a camera would add it. One pass in
 * JavaScript: doing the enlargement and the overlay in libvips costs more than the whole of this loop.
 */
export function composePhoto(
  scene: RasterRgba,
  width: number,
  height: number,
  card: (RasterRgba & { left: number; top: number }) | null,
  view: ShotView,
  noise: NoiseTile,
): Buffer {
  const out = Buffer.allocUnsafe(width * height * 3);
  // Writing through a clamped view rounds and clamps to 0..255 without a branch per channel.
  const px = new Uint8ClampedArray(out.buffer, out.byteOffset, out.length);
  const sw = scene.width;
  const shh = scene.height;
  const src = scene.data;
  const kx = sw / width;
  const ky = shh / height;
  const x0s = new Int32Array(width);
  const x1s = new Int32Array(width);
  const fxs = new Float32Array(width);
  for (let x = 0; x < width; x++) {
    const sx = Math.min(Math.max((x + 0.5) * kx - 0.5, 0), sw - 1);
    const x0 = Math.floor(sx);
    x0s[x] = x0 * 4;
    x1s[x] = Math.min(x0 + 1, sw - 1) * 4;
    fxs[x] = sx - x0;
  }
  // Each source row is widened once and kept while the output rows between it and the next one need it.
  let upper = new Float32Array(width * 3);
  let lower = new Float32Array(width * 3);
  let upperRow = -1;
  let lowerRow = -1;
  const widen = (dst: Float32Array, sy: number): void => {
    const base = sy * sw * 4;
    for (let x = 0, i = 0; x < width; x++, i += 3) {
      const p = base + (x0s[x] as number);
      const q = base + (x1s[x] as number);
      const fx = fxs[x] as number;
      const a0 = src[p] as number;
      const a1 = src[p + 1] as number;
      const a2 = src[p + 2] as number;
      dst[i] = a0 + ((src[q] as number) - a0) * fx;
      dst[i + 1] = a1 + ((src[q + 1] as number) - a1) * fx;
      dst[i + 2] = a2 + ((src[q + 2] as number) - a2) * fx;
    }
  };
  const N = NoiseTile.SIZE;
  const mask = N - 1;
  const nd = noise.data;
  const amp = view.noiseAmp;
  const exp = view.exposure;
  const cData = card?.data;
  const cl = card?.left ?? 0;
  const ct = card?.top ?? 0;
  const cw = card?.width ?? 0;
  const ch = card?.height ?? 0;
  let o = 0;
  for (let y = 0; y < height; y++) {
    const sy = Math.min(Math.max((y + 0.5) * ky - 0.5, 0), shh - 1);
    const y0 = Math.floor(sy);
    const y1 = Math.min(y0 + 1, shh - 1);
    const fy = sy - y0;
    if (upperRow !== y0) {
      if (lowerRow === y0) {
        const t = upper;
        upper = lower;
        lower = t;
        upperRow = y0;
        lowerRow = -1;
      } else {
        widen(upper, y0);
        upperRow = y0;
      }
    }
    if (lowerRow !== y1) {
      widen(lower, y1);
      lowerRow = y1;
    }
    const row = ((y + view.noiseY) & mask) * N;
    const row2 = ((y + view.noiseY + 331) & mask) * N;
    const cy = y - ct;
    const inCardRow = cData !== undefined && cy >= 0 && cy < ch;
    for (let x = 0, i = 0; x < width; x++, i += 3) {
      const u0 = upper[i] as number;
      const u1 = upper[i + 1] as number;
      const u2 = upper[i + 2] as number;
      let r = u0 + ((lower[i] as number) - u0) * fy;
      let g = u1 + ((lower[i + 1] as number) - u1) * fy;
      let bl = u2 + ((lower[i + 2] as number) - u2) * fy;
      if (inCardRow) {
        const cx = x - cl;
        if (cx >= 0 && cx < cw) {
          const ci = (cy * cw + cx) * 4;
          const al = (cData[ci + 3] as number) / 255;
          if (al > 0) {
            r += ((cData[ci] as number) - r) * al;
            g += ((cData[ci + 1] as number) - g) * al;
            bl += ((cData[ci + 2] as number) - bl) * al;
          }
        }
      }
      const nx = (x + view.noiseX) & mask;
      const n1 = (nd[row + nx] as number) * amp;
      const n2 = (nd[row2 + nx] as number) * 0.4 * amp;
      r = r * exp + n1 + n2;
      g = g * exp + n1;
      bl = bl * exp + n1 - n2;
      px[o] = r;
      px[o + 1] = g;
      px[o + 2] = bl;
      o += 3;
    }
  }
  return out;
}
