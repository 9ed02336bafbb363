import { normaliseArabic, searchTokens } from "../core/arabic.ts";
import { Invalid } from "../core/errors.ts";
import type { Vocabularies } from "./vocabularies.ts";
import type * as contracts from "./contracts.ts";
import { say } from "../core/messages.ts";

/**
 * Distinguishing marks: what kind (mark_type vocabulary), where on the body (body_region vocabulary, may be
 * unknown) and a description in the words of whoever saw it. Marks are what a family recognises ("a scar on
 * his left forearm"), so the description is kept verbatim; type and region make them comparable.
 */
export type Mark = contracts.Mark;

const MAX_DESCRIPTION = 500;
const LEFT = new Set(["left", "يسار", "يسري", "ايسر", "اليسري", "اليسار", "الايسر"]);
const RIGHT = new Set(["right", "يمين", "يمني", "ايمن", "اليمني", "اليمين", "الايمن"]);

function words(extra: Record<string, unknown>): string[] {
  const w = extra.words;
  return Array.isArray(w) ? w.filter((x): x is string => typeof x === "string").map((x) => normaliseArabic(x)) : [];
}

/** Guesses type and region from free text ("tattoo right upper arm (anchor)"); unknown type → "other". */
export function inferMark(description: string, vocab: Vocabularies): Mark {
  const toks = new Set(normaliseArabic(description).split(/[^\p{L}\p{N}]+/u).filter(Boolean));
  const stripped = new Set(searchTokens(description));
  const has = (w: string) => toks.has(w) || stripped.has(w);
  let type = "other";
  for (const t of vocab.terms("mark_type")) {
    if (words(t.extra).some(has) || has(normaliseArabic(t.labelEn))) {
      type = t.code;
      break;
    }
  }
  const side = [...toks].some((t) => LEFT.has(t)) ? "left" : [...toks].some((t) => RIGHT.has(t)) ? "right" : null;
  let region: string | null = null;
  for (const r of vocab.terms("body_region")) {
    if (!words(r.extra).some(has)) continue;
    const rs = r.extra.side;
    if (typeof rs === "string" && rs !== side) continue;
    region = r.code;
    break;
  }
  return { type, region, description: description.trim() };
}

/**
 * One mark from a cell: `type:region:description` when type is a mark_type code and region a body_region code
 * (or empty); anything else is a free description whose type and region are inferred.
 */
export function parseMark(text: string, vocab: Vocabularies): Mark {
  const s = text.trim();
  // "tattoo:elbow:…" is the structured form with a region this archive does not know: refused, not guessed at.
  const m = /^([A-Za-z_]+):([A-Za-z_]*):(.*)$/s.exec(s);
  if (m && vocab.get("mark_type", m[1])) {
    return checkMark({ type: m[1]!, region: m[2] || null, description: m[3]!.trim() }, vocab);
  }
  return checkMark(inferMark(s, vocab), vocab);
}

/** Several marks in one cell, separated by ";" (or the Arabic semicolon). */
export function parseMarks(cell: string, vocab: Vocabularies): Mark[] {
  return cell
    .split(/[;؛]/)
    .map((x) => x.trim())
    .filter(Boolean)
    .map((x) => parseMark(x, vocab));
}

export function formatMarks(marks: Mark[]): string {
  return marks.map((m) => `${m.type}:${m.region ?? ""}:${m.description}`).join("; ");
}

/** Validates a mark against the vocabularies; throws Invalid with a sentence. */
export function checkMark(m: Mark, vocab: Vocabularies): Mark {
  if (!vocab.get("mark_type", m.type)) {
    throw new Invalid(say("mark.type", { type: m.type, codes: vocab.terms("mark_type").map((t) => t.code).join(", ") }), "marks");
  }
  if (m.region !== null && !vocab.get("body_region", m.region)) {
    throw new Invalid(say("mark.region", { region: m.region, codes: vocab.terms("body_region").map((t) => t.code).join(", ") }), "marks");
  }
  const description = m.description.trim();
  if (description.length > MAX_DESCRIPTION) throw new Invalid(say("mark.descriptionTooLong", { max: MAX_DESCRIPTION }), "marks");
  if (/[;؛]/.test(description)) throw new Invalid(say("mark.semicolon"), "marks");
  return { type: m.type, region: m.region, description, ...(m.source === "review" ? { source: m.source } : {}) };
}

/** Type and region: two marks with the same are the same mark for the ranking, whatever their words. */
export function markKey(m: Pick<Mark, "type" | "region">): string {
  return `${m.type}|${m.region ?? ""}`;
}

/**
 * The body's marks with those a settled review recorded added (marked as coming from review), leaving out any
 * the body already has (same type and region) or that repeat one another.
 */
export function withReviewMarks(current: Mark[], review: Mark[], vocab: Vocabularies): Mark[] {
  const seen = new Set(current.map(markKey));
  const out = [...current];
  for (const m of review) {
    const checked = checkMark({ type: m.type, region: m.region ?? null, description: m.description ?? "" }, vocab);
    if (seen.has(markKey(checked))) continue;
    seen.add(markKey(checked));
    out.push({ ...checked, source: "review" });
  }
  return out;
}

/** The body's clothing with what a settled review recorded: set when empty, added after "; " when not already said. */
export function withReviewClothing(current: string | null, review: string): string | null {
  const r = review.trim();
  if (!r) return current;
  if (!current) return r;
  return normaliseArabic(current).toLowerCase().includes(normaliseArabic(r).toLowerCase()) ? current : `${current}; ${r}`;
}
