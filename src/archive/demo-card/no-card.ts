import sharp from "sharp";
import { Rng } from "./prng.ts";

/**
 * Photographs without a card, made here from a seed (never real photographs), to measure that the card reader
 * proposes numbers only where there is a card: a street scene, a face-like blob, sensor noise, a blank sheet of
 * paper on a table, a sheet of printed words without a number, a wall of white tiles. The same seed and index
 * give the same bytes.
 */
export const NO_CARD_KINDS = ["scene", "face", "noise", "blank-paper", "words", "tiles"] as const;
export type NoCardKind = (typeof NO_CARD_KINDS)[number];

const WORDS = ["the", "morning", "report", "water", "road", "north", "garden", "window", "light", "door", "table", "market", "river", "house", "street"];

function grey(rng: Rng, lo: number, hi: number): string {
  const v = Math.round(lo + rng.next() * (hi - lo));
  return `rgb(${v},${v},${v})`;
}

function colour(rng: Rng): string {
  return `rgb(${Math.round(rng.next() * 255)},${Math.round(rng.next() * 255)},${Math.round(rng.next() * 255)})`;
}

function svgOf(kind: NoCardKind, rng: Rng, w: number, h: number): string {
  const parts: string[] = [];
  const rect = (x: number, y: number, rw: number, rh: number, fill: string, extra = "") =>
    parts.push(`<rect x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${rw.toFixed(1)}" height="${rh.toFixed(1)}" fill="${fill}" ${extra}/>`);
  switch (kind) {
    case "scene": {
      parts.push(`<defs><linearGradient id="s" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="rgb(90,140,210)"/><stop offset="1" stop-color="rgb(200,220,240)"/></linearGradient></defs>`);
      rect(0, 0, w, h, "url(#s)");
      rect(0, h * 0.65, w, h * 0.35, `rgb(${90 + Math.round(rng.next() * 40)},${80 + Math.round(rng.next() * 30)},60)`);
      for (let i = 0; i < 6; i++) {
        const bw = w * (0.08 + rng.next() * 0.12);
        const bh = h * (0.2 + rng.next() * 0.4);
        const x = rng.next() * (w - bw);
        rect(x, h * 0.65 - bh, bw, bh, colour(rng));
        for (let k = 0; k < 6; k++) rect(x + bw * (0.1 + 0.2 * (k % 3) + 0.05), h * 0.65 - bh * (0.85 - 0.25 * Math.floor(k / 3)), bw * 0.12, bh * 0.1, grey(rng, 20, 60));
      }
      break;
    }
    case "face": {
      rect(0, 0, w, h, grey(rng, 40, 120));
      const cx = w * (0.4 + rng.next() * 0.2);
      const cy = h * (0.45 + rng.next() * 0.1);
      const rx = w * (0.14 + rng.next() * 0.06);
      const ry = rx * 1.3;
      parts.push(`<ellipse cx="${cx}" cy="${cy}" rx="${rx}" ry="${ry}" fill="rgb(${200 + Math.round(rng.next() * 30)},${160 + Math.round(rng.next() * 30)},${130 + Math.round(rng.next() * 20)})"/>`);
      for (const s of [-1, 1]) parts.push(`<ellipse cx="${cx + s * rx * 0.4}" cy="${cy - ry * 0.2}" rx="${rx * 0.14}" ry="${rx * 0.08}" fill="rgb(40,30,30)"/>`);
      parts.push(`<path d="M ${cx - rx * 0.35} ${cy + ry * 0.45} Q ${cx} ${cy + ry * 0.6} ${cx + rx * 0.35} ${cy + ry * 0.45}" stroke="rgb(120,50,50)" stroke-width="${rx * 0.06}" fill="none"/>`);
      break;
    }
    case "blank-paper":
    case "words": {
      rect(0, 0, w, h, `rgb(${60 + Math.round(rng.next() * 60)},${50 + Math.round(rng.next() * 40)},${40 + Math.round(rng.next() * 30)})`);
      const pw = w * (0.25 + rng.next() * 0.25);
      const ph = pw * (0.6 + rng.next() * 0.3);
      const x = w * 0.1 + rng.next() * (w * 0.8 - pw);
      const y = h * 0.1 + rng.next() * (h * 0.8 - ph);
      const angle = (rng.next() - 0.5) * 30;
      parts.push(`<g transform="rotate(${angle.toFixed(1)} ${x + pw / 2} ${y + ph / 2})">`);
      rect(x, y, pw, ph, grey(rng, 225, 250));
      if (kind === "words") {
        const size = ph / 9;
        for (let line = 0; line < 4; line++) {
          const text = Array.from({ length: 2 + Math.floor(rng.next() * 2) }, () => WORDS[Math.floor(rng.next() * WORDS.length)]).join(" ");
          parts.push(`<text x="${x + pw * 0.08}" y="${y + ph * (0.25 + line * 0.2)}" font-family="DejaVu Sans, sans-serif" font-size="${size.toFixed(1)}" fill="rgb(20,20,20)">${text}</text>`);
        }
      }
      parts.push(`</g>`);
      break;
    }
    case "tiles": {
      rect(0, 0, w, h, grey(rng, 90, 130));
      const t = w * (0.08 + rng.next() * 0.06);
      for (let y = t * 0.1; y < h; y += t * 1.08) for (let x = t * 0.1; x < w; x += t * 1.08) rect(x, y, t, t, grey(rng, 215, 245));
      break;
    }
    case "noise":
      break;
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}">${parts.join("")}</svg>`;
}

/** One photograph without a card, as a camera JPEG: `index` picks the kind in turn and seeds its drawing. */
export async function noCardPhoto(seed: string, index: number): Promise<{ kind: NoCardKind; jpeg: Buffer }> {
  const kind = NO_CARD_KINDS[index % NO_CARD_KINDS.length]!;
  const rng = Rng.fromSeed(`no-card/${seed}/${index}`);
  const w = 1200;
  const h = 900;
  if (kind === "noise") {
    const px = Buffer.alloc(w * h * 3);
    for (let i = 0; i < px.length; i += 4) px.writeUInt32LE(rng.u32(), i);
    return { kind, jpeg: await sharp(px, { raw: { width: w, height: h, channels: 3 } }).jpeg({ quality: 85 }).toBuffer() };
  }
  const jpeg = await sharp(Buffer.from(svgOf(kind, rng, w, h))).flatten({ background: "#808080" }).jpeg({ quality: 88 }).toBuffer();
  return { kind, jpeg };
}
