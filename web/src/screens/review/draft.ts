import { CAUSE_INDICATORS, type Cause, type CauseIndicator, type Confidence, type Finding, type Region, type ReviewContent, type SubmitReviewInput, type Term } from "../../api/types/review.ts";

/** The review being written, before it is signed: what the form holds and how it becomes the request. */
export interface FindingDraft {
  key: number;
  code: string;
  confidence: Confidence;
  regions: Region[];
  note: string;
}

/** A distinguishing mark seen: type (mark_type), where (body_region, "" when not said), in the reviewer's words. */
export interface MarkDraft {
  key: number;
  type: string;
  region: string;
  description: string;
}

export interface ReviewDraft {
  findings: FindingDraft[];
  causes: Partial<Record<CauseIndicator, Confidence>>;
  marks: MarkDraft[];
  clothing: string;
  notes: string;
  correction: string;
}

let nextKey = 1;
export function newFinding(code = ""): FindingDraft {
  return { key: nextKey++, code, confidence: "probable", regions: [], note: "" };
}

export function newMark(): MarkDraft {
  return { key: nextKey++, type: "", region: "", description: "" };
}

export function emptyDraft(): ReviewDraft {
  return { findings: [newFinding()], causes: {}, marks: [], clothing: "", notes: "", correction: "" };
}

/** A correction starts from what was signed. */
export function draftFrom(c: ReviewContent): ReviewDraft {
  return {
    findings: c.findings.map((f) => ({ key: nextKey++, code: f.code, confidence: f.confidence, regions: f.regions ?? [], note: f.note ?? "" })),
    causes: Object.fromEntries(c.causes.map((x) => [x.code, x.confidence])),
    marks: (c.marks ?? []).map((m) => ({ key: nextKey++, type: m.type, region: m.region ?? "", description: m.description })),
    clothing: c.clothing ?? "",
    notes: c.notes ?? "",
    correction: "",
  };
}

export function toRequest(d: ReviewDraft, isCorrection: boolean): SubmitReviewInput {
  const findings: Finding[] = d.findings
    .filter((f) => f.code)
    .map((f) => ({ code: f.code, confidence: f.confidence, regions: f.regions, ...(f.note.trim() ? { note: f.note.trim() } : {}) }));
  const causes: Cause[] = CAUSE_INDICATORS.filter((c) => d.causes[c]).map((c) => ({ code: c, confidence: d.causes[c]! }));
  const marks = d.marks.filter((m) => m.type).map((m) => ({ type: m.type, region: m.region || null, ...(m.description.trim() ? { description: m.description.trim() } : {}) }));
  return {
    findings,
    causes,
    ...(marks.length ? { marks } : {}),
    ...(d.clothing.trim() ? { clothing: d.clothing.trim() } : {}),
    ...(d.notes.trim() ? { notes: d.notes.trim() } : {}),
    ...(isCorrection ? { correction: d.correction.trim() } : {}),
  };
}

/** Why the draft cannot be submitted yet (an i18n key), or null. */
export function draftProblem(d: ReviewDraft, isCorrection: boolean): string | null {
  const codes = d.findings.map((f) => f.code).filter(Boolean);
  if (codes.length === 0) return "review.problems.noFinding";
  if (d.findings.some((f) => !f.code)) return "review.problems.emptyFinding";
  if (new Set(codes).size !== codes.length) return "review.problems.twice";
  if (d.marks.some((m) => !m.type)) return "review.problems.markType";
  const marks = d.marks.map((m) => `${m.type}|${m.region}`);
  if (new Set(marks).size !== marks.length) return "review.problems.markTwice";
  if (isCorrection && d.correction.trim().length === 0) return "review.problems.correctionReason";
  return null;
}

export function termLabel(terms: readonly Term[] | null, code: string, lang: string): string {
  const t = terms?.find((x) => x.code === code);
  if (!t) return code;
  return lang === "ar" ? t.labelAr : t.labelEn;
}

/** A region's coordinates as a person reads them: per cent of the image's width and height. */
export function describeRegion(r: Region, pct: (v: number) => string): string {
  if (r.shape === "rect") return `${pct(r.x)}, ${pct(r.y)} → ${pct(r.x + r.w)}, ${pct(r.y + r.h)}`;
  return r.points.map((p) => `${pct(p[0])}, ${pct(p[1])}`).join("; ");
}
