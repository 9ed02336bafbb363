/**
 * The numbers on a body's paper card, from text: what OCR read off the card, or what a person typed from it.
 * A card carries three numbers, each beside a printed label: the detainee's number (No. / رقم), the
 * security branch's number (Branch / فرع) and the forensic examiner's number (Exam / طبيب), the last
 * sometimes with a letter after a slash (1234/ب). Numbers are returned in Latin digits, as transcribed;
 * `digits` records how the card wrote them.
 */
import { normaliseArabic, toLatinDigits } from "../core/arabic.ts";

export type NumberRole = "detainee" | "branch" | "examiner";
export type DigitScript = "latin" | "arabic-indic" | "mixed";

export const NUMBER_ROLES: readonly NumberRole[] = ["detainee", "branch", "examiner"];

export interface CardNumbers {
  detainee?: string;
  branch?: string;
  examiner?: string;
  /** 0..1: how sure the reading is as a whole (the least sure of the numbers found; 0 when none). */
  confidence: number;
  /** The text the numbers were parsed from, one card line per text line. */
  raw: string;
  digits: DigitScript;
  /** 0..1 per number found. */
  confidences?: Partial<Record<NumberRole, number>>;
  /** What a reading from a photo rests on (absent for typed text): where the card is, and what was read there. */
  evidence?: CardEvidence;
}

/**
 * The evidence of a card reading: the region of the photo taken for the card (fractions of the photo's width
 * and height as displayed, its centre and size, and the card's tilt in degrees), how card-like that region is
 * (0..1), and for each number the label read beside it (null when none was recognised) and the OCR's
 * confidence in that line.
 */
export interface CardEvidence {
  region: { cx: number; cy: number; width: number; height: number; angle: number };
  cardScore: number;
  lines: { role: NumberRole; label: string | null; confidence: number }[];
}

/** Labels as printed on the cards and as people write them, in matching form (see normaliseArabic). */
const LABELS: Record<NumberRole, string[]> = {
  detainee: ["no", "no.", "nr", "num", "number", "detainee", "prisoner", "رقم", "الرقم", "رقم المعتقل", "معتقل", "رقم الموقوف"],
  branch: ["branch", "br", "br.", "unit", "فرع", "الفرع", "فرع رقم"],
  examiner: ["exam", "examiner", "doctor", "dr", "dr.", "physician", "طبيب", "الطبيب", "طبيب شرعي", "الطبيب الشرعي", "فاحص"],
};

// Bidi controls that OCR and copy-paste put around numbers in right-to-left text.
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
// Slash look-alikes: fraction slash, division slash, full-width solidus, big solidus.
const SLASHES = /[\u2044\u2215\uff0f\u29f8]/g;
const DIGIT = "[0-9\u0660-\u0669\u06f0-\u06f9]";
/** A number with an optional suffix after a slash, or a suffix before it (right-to-left reading order). */
const NUMBER_TOKEN = new RegExp(
  `(?:(\\p{L}{1,3})\\s*/\\s*)?(${DIGIT}+(?:[ \\u00a0]${DIGIT}+)*)(?:\\s*/\\s*([\\p{L}${DIGIT.slice(1, -1)}]{1,3}))?`,
  "u",
);

function editDistance(a: string, b: string): number {
  const m = a.length;
  const n = b.length;
  let prev = Array.from({ length: n + 1 }, (_, j) => j);
  for (let i = 1; i <= m; i++) {
    const cur = [i];
    for (let j = 1; j <= n; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[n]!;
}

/**
 * Which number a label announces, allowing one misread letter in labels of three letters or more
 * ("Brnch", "Exarn", "قرع"); null when the text is not a known label or is as near to two roles.
 */
export function roleOfLabel(label: string): NumberRole | null {
  const t = normaliseArabic(label.replace(BIDI, ""))
    .replace(/[:.\-_=#]+$/u, "")
    .replace(/^[:.\-_=#]+/u, "")
    .trim();
  // OCR's commonest Latin confusion is "rn" for "m" (Exarn): compare both spellings.
  const forms = t.includes("rn") ? [t, t.replace(/rn/g, "m")] : [t];
  if (t === "") return null;
  const best = new Map<NumberRole, number>();
  for (const role of NUMBER_ROLES) {
    for (const l of LABELS[role]) {
      const ln = normaliseArabic(l).replace(/\.$/u, "");
      const d = Math.min(...forms.map((f) => editDistance(f, ln)));
      if (d <= (ln.length >= 3 ? 1 : 0) && d < (best.get(role) ?? Infinity)) best.set(role, d);
    }
  }
  // A misread label must still be closer to one role's labels than to any other's.
  const ranked = [...best.entries()].sort((a, b) => a[1] - b[1]);
  if (ranked.length === 0 || (ranked.length > 1 && ranked[1]![1] === ranked[0]![1])) return null;
  return ranked[0]![0];
}

/** How a string writes its digits; null when it has none. */
export function digitScriptOf(s: string): DigitScript | null {
  const latin = /[0-9]/.test(s);
  const indic = /[\u0660-\u0669\u06f0-\u06f9]/.test(s);
  if (latin && indic) return "mixed";
  if (latin) return "latin";
  if (indic) return "arabic-indic";
  return null;
}

/**
 * A number as stored: Latin digits, no spaces, an optional suffix after "/" (e.g. "1234/ب"). Accepts
 * Arabic-Indic and Persian digits, gaps inside the digits, slash look-alikes, bidi marks, and the suffix
 * written first as right-to-left text puts it ("ب/1234"). Null when the text is not such a number.
 */
export function normaliseCardNumber(s: string): string | null {
  const t = s.replace(BIDI, "").replace(SLASHES, "/").trim();
  const m = new RegExp(`^${NUMBER_TOKEN.source}$`, "u").exec(t);
  if (!m) return null;
  const before = m[1];
  const digits = toLatinDigits((m[2] ?? "").replace(/[ \u00a0]/g, ""));
  const after = m[3];
  if (before && after) return null;
  const suffix = before ?? after;
  return suffix ? `${digits}/${toLatinDigits(suffix)}` : digits;
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

interface Line {
  text: string;
  number: string | null;
  role: NumberRole | null;
  script: DigitScript | null;
  confidence: number;
}

function parseLine(text: string, confidence: number): Line {
  const t = text.replace(BIDI, "").replace(SLASHES, "/");
  const m = NUMBER_TOKEN.exec(t);
  if (!m) return { text, number: null, role: roleOfLabel(t), script: null, confidence };
  const number = normaliseCardNumber(m[0]);
  const label = (t.slice(0, m.index) + " " + t.slice(m.index + m[0].length)).trim();
  return { text, number, role: roleOfLabel(label), script: digitScriptOf(m[0]), confidence };
}

/**
 * Parses a card's text, one card line per text line, into numbers by role. A line's label decides its role;
 * lines without a recognisable label take the roles left over in the card's order (detainee, branch,
 * examiner), except that a number with a slash suffix is the examiner's. `lineConfidence[i]` (0..1) is how
 * sure the reader was of line i; typed text is sure (1).
 */
export function parseCardText(raw: string, lineConfidence: readonly number[] = []): CardNumbers {
  const lines = raw
    .split(/\r?\n/)
    .map((text, i) => parseLine(text, lineConfidence[i] ?? 1))
    .filter((l) => l.number !== null);
  const taken = new Map<NumberRole, Line>();
  let labelConflicts = 0;
  for (const l of lines) {
    if (!l.role) continue;
    if (taken.has(l.role)) {
      labelConflicts++;
      l.role = null;
    } else taken.set(l.role, l);
  }
  for (const l of lines) {
    if (l.role || !l.number?.includes("/") || taken.has("examiner")) continue;
    l.role = "examiner";
    taken.set("examiner", l);
  }
  // Unlabelled lines fill the free roles in card order, keeping their own order.
  const free = NUMBER_ROLES.filter((r) => !taken.has(r));
  const unlabelled = lines.filter((l) => !l.role);
  let unsure = 0;
  for (const l of unlabelled) {
    const role = free.shift();
    if (!role) break;
    l.role = role;
    taken.set(role, l);
    unsure++;
  }
  const out: CardNumbers = { confidence: 0, raw, digits: "latin" };
  const confidences: Partial<Record<NumberRole, number>> = {};
  const scripts = new Set<DigitScript>();
  for (const [role, l] of taken) {
    out[role] = l.number!;
    // A role taken from position rather than a label is a guess about the card's layout.
    confidences[role] = round3(l.confidence * (unlabelled.includes(l) ? 0.9 : 1));
    if (l.script) scripts.add(l.script);
  }
  const found = Object.values(confidences);
  out.confidence = found.length === 0 ? 0 : round3(Math.min(...found) * (labelConflicts > 0 ? 0.7 : 1) * (unsure > 1 ? 0.95 : 1));
  out.digits = scripts.has("mixed") || scripts.size > 1 ? "mixed" : scripts.has("arabic-indic") ? "arabic-indic" : "latin";
  if (found.length > 0) out.confidences = confidences;
  return out;
}
