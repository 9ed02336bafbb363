/**
 * Reading the paper card in a photo: find the card (a bright, nearly colourless rectangle), turn it level,
 * cut it out at a fixed size, make it black on white, and let Tesseract read it with a character set made for
 * numbers. Everything runs offline: the language data comes from the npm packages next to this code.
 */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import sharp from "sharp";
import { Invalid } from "../core/errors.ts";
import { parseCardText, roleOfLabel, type CardEvidence, type CardNumbers } from "./card-numbers.ts";
import { locateCard, rectify, type Rgb } from "./ocr/geometry.ts";
import { ARABIC_INDIC_DIGITS, GlyphClassifier, LATIN_DIGITS, glyphShape, inkBox, type GlyphScores } from "./ocr/glyphs.ts";
import { cardLines, glyphsOf, inkMask, typicalHeight, type CardLine, type Glyph } from "./ocr/lines.ts";
import { inkPng, labelPng, makePool, type OcrText } from "./ocr/tesseract.ts";
import { say } from "../core/messages.ts";

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
  if (!Number.isInteger(n) || n < 1 || n > 8) throw new Invalid(say("ocr.workers"), "workers");
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
      if (closed) throw new Invalid(say("ocr.closed"));
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
        throw new Invalid(say("ocr.cannotDecode", { problem: err instanceof Error ? err.message : String(err) }));
      }
      const { data, info } = decoded;
      if (info.channels !== 3) throw new Invalid(say("ocr.notPixels"));
      return readCard({ data, width: info.width, height: info.height });
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      await Promise.all([eng.terminate(), ara.terminate()]);
    },
  };
}
