/** The glyph classifier: each digit's shape compared with references drawn from fonts, Latin and Arabic-Indic. */
import sharp from "sharp";
import type { Blob } from "./lines.ts";

/** Side of the square a glyph is scaled into before comparison. */
export const GLYPH_GRID = 16;

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

export function shapeDistance(a: GlyphShape, b: GlyphShape): number {
  let d = 0;
  for (let i = 0; i < a.cells.length; i++) {
    const e = a.cells[i]! - b.cells[i]!;
    d += e * e;
  }
  const da = a.aspect - b.aspect;
  const ds = Math.log(a.size / b.size);
  return d / a.cells.length + 0.25 * da * da + 0.5 * ds * ds;
}

export interface Template {
  cls: string;
  script: "latin" | "arabic-indic" | "both";
  shape: GlyphShape;
}

export const LATIN_DIGITS = "0123456789";
export const ARABIC_INDIC_DIGITS = "٠١٢٣٤٥٦٧٨٩";
/** Fonts asked of fontconfig for reference glyphs; missing ones fall back to whatever it has. */
export const LATIN_FONTS = ["DejaVu Sans", "Liberation Sans", "Noto Sans", "DejaVu Serif", "Liberation Serif", "Noto Serif"];
export const ARABIC_FONTS = ["Noto Naskh Arabic", "Noto Sans Arabic", "Noto Kufi Arabic", "DejaVu Sans"];

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

export function inkBox(mask: Uint8Array, w: number, x0: number, y0: number, x1: number, y1: number): Blob | null {
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
