import type { Rng } from "./prng.ts";
import type { DigitForm } from "./truth.ts";

/**
 * The paper card a photographer lays beside a body: a small printed form whose three lines carry the detainee,
 * branch and examiner numbers in marker. The numbers are drawn glyph by glyph with a little jitter in position,
 * angle and size so they read as handwriting, while staying large and dark enough for OCR.
 */

export interface CardNumbers {
  detaineeNo: string;
  branchNo: string;
  /** Latin digits, optionally followed by "/" and one Arabic letter (e.g. "1234/ب"). */
  examinerNo: string;
  digits: DigitForm;
}

/** How one body's card looks in every photo of that body (the same card is photographed each time). */
export interface CardStyle {
  inkFont: string;
  inkWeight: number;
  ink: string;
  paper: string;
  rule: string;
  /** Per-glyph jitter, fixed for the card: the same handwriting in every photo. */
  jitter: number[];
}

/** The card is drawn in these units; a photo scales and rotates it into place. */
export const CARD_WIDTH = 600;
export const CARD_HEIGHT = 400;

const ARABIC_INDIC = ["٠", "١", "٢", "٣", "٤", "٥", "٦", "٧", "٨", "٩"];

export function toArabicIndic(latin: string): string {
  return latin.replace(/[0-9]/g, (d) => ARABIC_INDIC[Number(d)] as string);
}

const LATIN_INK_FONTS = ["DejaVu Sans", "Liberation Sans", "Noto Sans"];
const ARABIC_INK_FONTS = ["Noto Naskh Arabic", "Noto Sans Arabic"];
const INKS = ["#14161c", "#1a2347", "#1d1d1d", "#202a52", "#101010"];
const PAPERS = ["#f3f1ea", "#eeeeea", "#f6f3e8", "#ecebe4"];

export function chooseCardStyle(rng: Rng, digits: DigitForm): CardStyle {
  const jitter: number[] = [];
  for (let i = 0; i < 96; i++) jitter.push(rng.next() * 2 - 1);
  return {
    inkFont: rng.pick(digits === "latin" ? LATIN_INK_FONTS : ARABIC_INK_FONTS),
    inkWeight: 700,
    ink: rng.pick(INKS),
    paper: rng.pick(PAPERS),
    rule: rng.chance(0.5) ? "#9fb3cf" : "#b9b9b9",
    jitter,
  };
}

function escapeXml(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/** The glyphs of a number in the order they appear on paper, left to right. */
function visualGlyphs(latin: string, digits: DigitForm): string[] {
  const m = /^([0-9]+)(?:\/(.+))?$/.exec(latin);
  if (!m) return [...(digits === "latin" ? latin : toArabicIndic(latin))];
  const num = [...(digits === "latin" ? (m[1] as string) : toArabicIndic(m[1] as string))];
  if (m[2] === undefined) return num;
  // In an Arabic line the number is written first, at the right, so the letter ends up on the left.
  return digits === "latin" ? [...num, "/", m[2]] : [m[2], "/", ...num];
}

/**
 * Cell widths (in em) for jittered glyphs: wide enough for the widest of the fonts used (DejaVu Sans Bold's
 * digits are 0.7 em) so that neighbouring digits never touch, which OCR would read as one shape.
 */
function advance(glyph: string, font: string): number {
  if (glyph === "/") return 0.56;
  if (/[0-9]/.test(glyph)) return 0.74;
  if (/[٠-٩]/.test(glyph)) return font === "Noto Sans Arabic" ? 0.72 : 0.62;
  return 0.62;
}

/** SVG elements drawing the card in card units (0..CARD_WIDTH × 0..CARD_HEIGHT), for a photo to place. */
export function cardFragment(numbers: CardNumbers, style: CardStyle): string {
  const CW = CARD_WIDTH;
  const CH = CARD_HEIGHT;
  const arabic = numbers.digits === "arabic-indic";
  const labels = arabic ? ["رقم", "فرع", "طبيب"] : ["No.", "Branch", "Exam"];
  const values = [numbers.detaineeNo, numbers.branchNo, numbers.examinerNo];
  const labelFont = arabic ? "Noto Naskh Arabic" : "DejaVu Sans";

  const parts: string[] = [];
  parts.push(`<rect x="0" y="0" width="${CW}" height="${CH}" rx="6" fill="${style.paper}"/>`);
  parts.push(
    `<rect x="10" y="10" width="${CW - 20}" height="${CH - 20}" fill="none" stroke="${style.rule}" stroke-width="2"/>`,
  );
  const rowTop = 22;
  const rowH = 122;
  let j = 0;
  const jit = (): number => style.jitter[j++ % style.jitter.length] as number;
  for (let row = 0; row < 3; row++) {
    const base = rowTop + rowH * (row + 1) - 26;
    parts.push(
      `<line x1="24" y1="${base + 10}" x2="${CW - 24}" y2="${base + 10}" stroke="${style.rule}" stroke-width="2"/>`,
    );
    const label = escapeXml(labels[row] as string);
    parts.push(
      arabic
        ? `<text x="${CW - 30}" y="${base - 4}" font-family="${labelFont}" font-size="34" fill="#4a5160" text-anchor="end">${label}</text>`
        : `<text x="30" y="${base - 4}" font-family="${labelFont}" font-size="30" fill="#4a5160">${label}</text>`,
    );
    const glyphs = visualGlyphs(values[row] as string, numbers.digits);
    const size = 92;
    const total = glyphs.reduce((s, g) => s + advance(g, style.inkFont) * size, 0);
    // The number sits in the free part of the line, beside its label.
    let x = arabic ? CW - 150 - total : 172;
    for (const g of glyphs) {
      // Each glyph is centred in its cell: fonts and scripts disagree about where a glyph "starts".
      const gx = (x + (advance(g, style.inkFont) * size) / 2 + jit() * 3).toFixed(1);
      const gy = (base + jit() * 6).toFixed(1);
      const rot = (jit() * 6 - 3).toFixed(2);
      const gs = (size * (1 + jit() * 0.07)).toFixed(1);
      // The slash comes from a Latin font whatever the card: in Naskh it is nearly upright and reads as "١".
      const font = /[0-9٠-٩]/.test(g) ? style.inkFont : g === "/" ? "DejaVu Sans" : "Noto Naskh Arabic";
      parts.push(
        `<text x="${gx}" y="${gy}" transform="rotate(${rot} ${gx} ${gy})" font-family="${font}" font-weight="${style.inkWeight}" font-size="${gs}" text-anchor="middle" fill="${style.ink}" stroke="${style.ink}" stroke-width="2.5" stroke-linejoin="round">${escapeXml(g)}</text>`,
      );
      x += advance(g, style.inkFont) * size;
    }
  }
  return parts.join("");
}
