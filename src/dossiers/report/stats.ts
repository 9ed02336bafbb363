import type { Vocabularies } from "../../catalogue/index.ts";
import type { BodyView } from "../../catalogue/index.ts";

/**
 * Counts over the bodies of the report's exhibits (not the whole archive): a court reads "of these 500 exhibits,
 * 212 are from branch 215", and each count can be checked against the exhibit pages.
 */
export interface Bucket {
  key: string;
  label: string;
  count: number;
}

export interface ReportStats {
  branch: Bucket[];
  facility: Bucket[];
  period: Bucket[];
  finding: Bucket[];
}

/** What the accumulator keeps per exhibit: a few codes, so 500 exhibits cost nothing to hold. */
/** The branch is counted by its matching form (٢١٥ and 215 are one branch), as search matches numbers. */
export type StatRow = Pick<BodyView, "branchNoNorm" | "hospital" | "photoMonth" | "injuries" | "reviewFindings">;

export const UNKNOWN = "\u0000unknown";
/** Beyond this many months the period chart is drawn by year, so its columns stay legible. */
const MAX_MONTHS = 24;

export function statRow(b: BodyView): StatRow {
  return { branchNoNorm: b.branchNoNorm, hospital: b.hospital, photoMonth: b.photoMonth, injuries: [...b.injuries], reviewFindings: [...b.reviewFindings] };
}

function count(keys: Iterable<string>, into: Map<string, number>): void {
  for (const k of keys) into.set(k, (into.get(k) ?? 0) + 1);
}

export function computeStats(rows: StatRow[], vocab: Vocabularies, lang: "ar" | "en", unknown: string): ReportStats {
  const label = (v: "branch" | "hospital" | "finding", code: string): string => {
    if (code === UNKNOWN) return unknown;
    const t = vocab.get(v, code);
    return t ? (lang === "ar" ? t.labelAr : t.labelEn) : code;
  };
  const branch = new Map<string, number>();
  const facility = new Map<string, number>();
  const months = new Map<string, number>();
  const finding = new Map<string, number>();
  for (const r of rows) {
    count([r.branchNoNorm ?? UNKNOWN], branch);
    count([r.hospital ?? UNKNOWN], facility);
    count([r.photoMonth ?? UNKNOWN], months);
    // A body counts once per finding, whether catalogued, reviewed or both.
    count(new Set([...r.injuries, ...r.reviewFindings]), finding);
  }
  const byCount = (m: Map<string, number>, lab: (k: string) => string): Bucket[] =>
    [...m].map(([key, n]) => ({ key, label: lab(key), count: n })).sort((a, b) => b.count - a.count || (a.key < b.key ? -1 : 1));
  const known = [...months.keys()].filter((k) => k !== UNKNOWN);
  const period = new Map<string, number>();
  const bin = (k: string): string => (k === UNKNOWN || known.length <= MAX_MONTHS ? k : k.slice(0, 4));
  for (const [k, n] of months) period.set(bin(k), (period.get(bin(k)) ?? 0) + n);
  const periodBuckets = [...period]
    .map(([key, n]) => ({ key, label: key === UNKNOWN ? unknown : key, count: n }))
    .sort((a, b) => (a.key === UNKNOWN ? 1 : b.key === UNKNOWN ? -1 : a.key < b.key ? -1 : 1));
  return {
    branch: byCount(branch, (k) => label("branch", k)),
    facility: byCount(facility, (k) => label("hospital", k)),
    period: periodBuckets,
    finding: byCount(finding, (k) => label("finding", k)),
  };
}
