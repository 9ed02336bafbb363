import { nameScore, type PreparedName } from "../names/index.ts";
import type { BodyFeatures, ReportFeatures } from "./scoring.ts";
import type * as contracts from "./contracts.ts";

/**
 * The likelihoods behind the candidate score. Each feature's log likelihood ratio is
 *   log P(what the body shows | the body is the reported person) − log P(what the body shows | someone else),
 * natural logs. The first term comes from FIELD_RATES: how often families and the catalogue are wrong or vague,
 * written down once here and used by the synthetic generator too, so the model is calibrated on the noise the
 * test data carries and nothing else. The second term comes from the catalogue itself (`populationOf`): how
 * common a branch, a mark, an age or a photo date is among the bodies.
 */

export const FIELD_RATES = Object.freeze({
  /** The forensic age range: share of true ages within (half-width − 2) years of its centre, and within 2 years
   * either side of its edges; the rest falls off by half a year further out. Includes families' birth years
   * being a year or two off (30% of them). */
  ageCore: 0.92,
  ageShoulder: 0.07,
  ageTailDecay: 0.5,
  /** An approximate birth year ("~1980") widens the core by this many years. */
  approxBirthYears: 2,
  /** Days from arrest to the photograph: exponential with this mean (deaths in detention within months). */
  gapMeanDays: 150,
  /** Share of families' arrest dates that are off by up to `arrestOffDays` (either way). */
  arrestOffShare: 0.1,
  arrestOffDays: 30,
  /** Families who name a branch, how sure they say they are, and how often they are right. */
  branchGiven: 0.75,
  certaintyShare: { certain: 0.4, probable: 0.35, rumoured: 0.25 },
  branchRight: { certain: 0.9, probable: 0.8, rumoured: 0.6 },
  /** A mark the body has is reported by the family with this probability; its region with `markRegionKnown`;
   * the region given is a neighbouring or mirrored one with `markMisplaced`. */
  markReported: 0.6,
  markRegionKnown: 0.8,
  markMisplaced: 0.1,
  /** Share of a right person's reports that add a mark the body does not show. */
  markInvented: 0.1,
  /** Of marks a family reports about the right person, the share that are real marks of the body:
   * 0.45 real marks a report on average (55% of bodies with 1.35 marks, 60% reported) against 0.1 invented. */
  markReal: 0.8,
  /** A number copied from the family's documents matches the card's: copying and reading errors aside. */
  numberRight: 0.95,
  /** A body named in a document whose name shares no blocking key with the report's, for the right person. */
  nameKeyMiss: 0.01,
  /** Share of the reports that are about someone in the catalogue (the others died elsewhere or live). */
  present: 0.7,
});

/** What the catalogue looks like, for the "someone else" side of every ratio. */
export interface Population {
  n: number;
  sexShare: { male: number; female: number };
  branchShare: ReadonlyMap<string, number>;
  /** Share of bodies with at least one mark of a type, and of a type in a region ("scar@arm_left"). */
  markTypeShare: ReadonlyMap<string, number>;
  markShare: ReadonlyMap<string, number>;
  numberCount: ReadonlyMap<string, number>;
  /** Density per year of the centres of the bodies' age ranges, index = age in years. */
  ageDensity: Float64Array;
  /** Density per day of photo dates, in bins of `photoBin` days from `photoStart` (days since 1970). */
  photoStart: number;
  photoBin: number;
  photoDensity: Float64Array;
  /** Density used outside the bins. */
  photoFloor: number;
}

export const DAY = 86_400_000;
export const dayOf = (iso: string): number => Date.parse(`${iso.slice(0, 10)}T00:00:00Z`) / DAY;

type PopBody = Pick<BodyFeatures, "sex" | "ageMin" | "ageMax" | "photoEarliest" | "photoLatest" | "branch" | "marks" | "numbers">;

/** The centre and half-width of a body's age range (a missing side taken as 5 years from the other). */
export function ageRange(b: Pick<PopBody, "ageMin" | "ageMax">): { centre: number; half: number } | null {
  if (b.ageMin === null && b.ageMax === null) return null;
  const lo = b.ageMin ?? Math.max(0, (b.ageMax as number) - 10);
  const hi = b.ageMax ?? lo + 10;
  return { centre: (lo + hi) / 2, half: Math.max(1, (hi - lo) / 2) };
}

/** The middle day of a body's photo dates, in days since 1970. */
export function photoMid(b: Pick<PopBody, "photoEarliest" | "photoLatest">): number | null {
  if (!b.photoEarliest) return null;
  return (dayOf(b.photoEarliest) + dayOf(b.photoLatest ?? b.photoEarliest)) / 2;
}

const AGE_YEARS = 121;

/** Counts the catalogue: shares smoothed so that nothing seen once or never has a zero probability. */
export function populationOf(bodies: readonly PopBody[]): Population {
  const n = Math.max(1, bodies.length);
  let male = 0;
  let female = 0;
  const branch = new Map<string, number>();
  const mtype = new Map<string, number>();
  const mplace = new Map<string, number>();
  const numbers = new Map<string, number>();
  const ages = new Float64Array(AGE_YEARS);
  const days: number[] = [];
  const inc = (m: Map<string, number>, k: string): void => {
    m.set(k, (m.get(k) ?? 0) + 1);
  };
  for (const b of bodies) {
    if (b.sex === "male") male++;
    if (b.sex === "female") female++;
    if (b.branch) inc(branch, b.branch);
    for (const t of new Set(b.marks.map((m) => m.type))) inc(mtype, t);
    for (const k of new Set(b.marks.filter((m) => m.region).map((m) => `${m.type}@${m.region}`))) inc(mplace, k);
    for (const x of b.numbers) inc(numbers, `${x.role}:${x.value}`);
    const a = ageRange(b);
    if (a) ages[Math.min(AGE_YEARS - 1, Math.max(0, Math.round(a.centre)))]! += 1;
    const p = photoMid(b);
    if (p !== null) days.push(p);
  }
  const share = (m: Map<string, number>): Map<string, number> => new Map([...m].map(([k, v]) => [k, v / n]));
  // ages: counts spread over ±2 years, mixed with 2% spread evenly over 12–90 so that rare ages stay possible
  const ageDensity = new Float64Array(AGE_YEARS);
  const aged = ages.reduce((s, x) => s + x, 0);
  for (let a = 0; a < AGE_YEARS; a++) {
    let s = 0;
    for (let d = -2; d <= 2; d++) s += (ages[a + d] ?? 0) * (3 - Math.abs(d)) / 9;
    ageDensity[a] = (aged > 0 ? 0.98 * (s / aged) : 0) + (a >= 12 && a <= 90 ? (aged > 0 ? 0.02 : 1) / 79 : 1e-4);
  }
  const photoBin = 30;
  let photoStart = 0;
  let photoDensity = new Float64Array(0);
  let photoFloor = 1 / 3650;
  if (days.length > 0) {
    let lo = Infinity;
    let hi = -Infinity;
    for (const d of days) {
      if (d < lo) lo = d;
      if (d > hi) hi = d;
    }
    photoStart = lo - 365;
    const bins = Math.ceil((hi + 365 - photoStart) / photoBin) + 1;
    const counts = new Float64Array(bins);
    for (const d of days) counts[Math.floor((d - photoStart) / photoBin)]! += 1;
    photoDensity = new Float64Array(bins);
    const span = bins * photoBin;
    for (let i = 0; i < bins; i++) {
      const s = 0.25 * (counts[i - 1] ?? 0) + 0.5 * (counts[i] ?? 0) + 0.25 * (counts[i + 1] ?? 0);
      photoDensity[i] = 0.98 * (s / days.length / photoBin) + 0.02 / span;
    }
    photoFloor = 0.02 / span;
  }
  return {
    n,
    sexShare: { male: Math.max(male, 0.5) / Math.max(1, male + female), female: Math.max(female, 0.5) / Math.max(1, male + female) },
    branchShare: share(branch),
    markTypeShare: share(mtype),
    markShare: share(mplace),
    numberCount: numbers,
    ageDensity,
    photoStart,
    photoBin,
    photoDensity,
    photoFloor,
  };
}

/**
 * A population for scoring one body without its catalogue: bodies photographed evenly from March 2011 to
 * September 2013, aged 15–65, 95% men, eight branches, one mark type in ten, one mark place in 120.
 */
export const DEFAULT_POPULATION: Population = (() => {
  const start = dayOf("2011-03-01");
  const end = dayOf("2013-09-01");
  const ageDensity = new Float64Array(AGE_YEARS).fill(1e-4);
  for (let a = 15; a <= 65; a++) ageDensity[a] = 1 / 51;
  return {
    n: 10_000,
    sexShare: { male: 0.95, female: 0.05 },
    branchShare: new Map(),
    markTypeShare: new Map(),
    markShare: new Map(),
    numberCount: new Map(),
    ageDensity,
    photoStart: start,
    photoBin: end - start,
    photoDensity: Float64Array.of(1 / (end - start)),
    photoFloor: 1e-5,
  };
})();

export const branchShare = (p: Population, b: string): number => p.branchShare.get(b) ?? (p.branchShare.size ? 0.5 / p.n : 1 / 8);
export const markTypeShare = (p: Population, t: string): number => Math.min(0.99, p.markTypeShare.get(t) ?? (p.markTypeShare.size ? 0.5 / p.n : 0.1));
export const markShare = (p: Population, t: string, r: string): number => Math.min(0.99, p.markShare.get(`${t}@${r}`) ?? (p.markShare.size ? 0.5 / p.n : 1 / 120));
export const numberShare = (p: Population, role: string, v: string): number => Math.max(1, p.numberCount.get(`${role}:${v}`) ?? 0) / p.n;

export function popAgeDensity(p: Population, centre: number): number {
  return p.ageDensity[Math.min(AGE_YEARS - 1, Math.max(0, Math.round(centre)))]!;
}

export function popPhotoDensity(p: Population, day: number): number {
  const i = Math.floor((day - p.photoStart) / p.photoBin);
  return i >= 0 && i < p.photoDensity.length ? p.photoDensity[i]! : p.photoFloor;
}

// ---------------------------------------------------------------------------------------------------------
// The match side of each ratio

/** Sex agreeing: the body's sex is as common as it is in the catalogue; a disagreement is an exclusion. */
export function sexAgreeLlr(p: Population, sex: "male" | "female"): number {
  return -Math.log(p.sexShare[sex]);
}

/**
 * Density (per year) of a body's age range centred `d` years from the reported age, for the right person, given
 * its half-width; the core is widened for an approximate birth year.
 */
export function ageMatchDensity(d: number, half: number, approx: boolean): number {
  return Math.exp(ageMatchLog(d, half, approx));
}

interface AgeShape {
  core: number;
  edge: number;
  logCore: number;
  logShoulder: number;
  logTail: number;
  logDecay: number;
}
const AGE_SHAPES = new Map<number, AgeShape>();

/** log of `ageMatchDensity`, from constants kept per range width (it is evaluated for every body). */
export function ageMatchLog(d: number, half: number, approx: boolean): number {
  const key = half * 2 + (approx ? 0.5 : 0);
  let s = AGE_SHAPES.get(key);
  if (!s) {
    const R = FIELD_RATES;
    const core = Math.max(1, half - 2) + (approx ? R.approxBirthYears : 0);
    const edge = Math.max(core + 1, half + 2);
    const tail = 1 - R.ageCore - R.ageShoulder;
    s = {
      core,
      edge,
      logCore: Math.log(R.ageCore / (2 * core + 1)),
      logShoulder: Math.log(R.ageShoulder / (2 * (edge - core))),
      logTail: Math.log((tail * (1 - R.ageTailDecay)) / 2),
      logDecay: Math.log(R.ageTailDecay),
    };
    AGE_SHAPES.set(key, s);
  }
  const x = Math.abs(d);
  if (x <= s.core) return s.logCore;
  if (x <= s.edge) return s.logShoulder;
  return s.logTail + (Math.ceil(x - s.edge) - 1) * s.logDecay;
}

/** The density in full, as documented; `ageMatchLog` is its logarithm. */
export function ageMatchDensityPlain(d: number, half: number, approx: boolean): number {
  const R = FIELD_RATES;
  const core = Math.max(1, half - 2) + (approx ? R.approxBirthYears : 0);
  const edge = Math.max(core + 1, half + 2);
  const x = Math.abs(d);
  if (x <= core) return R.ageCore / (2 * core + 1);
  if (x <= edge) return R.ageShoulder / (2 * (edge - core));
  const tail = 1 - R.ageCore - R.ageShoulder;
  return (tail * (1 - R.ageTailDecay) * Math.pow(R.ageTailDecay, Math.ceil(x - edge) - 1)) / 2;
}

const expCdf = (x: number, mean: number): number => (x <= 0 ? 0 : 1 - Math.exp(-x / mean));

/** Density (per day) of a photograph `p` days for the right person arrested evenly between days `a` and `b`. */
function afterArrest(p: number, a: number, b: number): number {
  const m = FIELD_RATES.gapMeanDays;
  return (expCdf(p - a, m) - expCdf(p - b, m)) / (b - a);
}

/**
 * Density (per day) of the photograph on day `p` given the arrest between days `e` and `l` (inclusive), with the
 * share of families whose date is off by up to a month.
 */
export function periodMatchDensity(p: number, e: number, l: number): number {
  const R = FIELD_RATES;
  return (1 - R.arrestOffShare) * afterArrest(p, e, l + 1) + R.arrestOffShare * afterArrest(p, e - R.arrestOffDays, l + 1 + R.arrestOffDays);
}

export type Certainty = "certain" | "probable" | "rumoured";

export function branchLlr(p: Population, reported: string, certainty: Certainty | null, body: string): number {
  const right = FIELD_RATES.branchRight[certainty ?? "probable"];
  const s = Math.min(0.99, branchShare(p, reported));
  return reported === body ? Math.log(right / s) : Math.log((1 - right) / (1 - s));
}

/** One reported mark against the body's best counterpart. */
export type MarkFit = "place" | "type" | "elsewhere" | "none";

export function markLlr(p: Population, fit: MarkFit, type: string, region: string | null): number {
  const R = FIELD_RATES;
  const st = markTypeShare(p, type);
  switch (fit) {
    case "place":
      return Math.log((R.markReal * (1 - R.markMisplaced)) / markShare(p, type, region as string));
    case "type":
      return Math.log(R.markReal / st);
    case "elsewhere":
      // a misplaced real mark, or an invented one that happens to share the type
      return Math.log((R.markReal * R.markMisplaced + (1 - R.markReal) * st) / st);
    case "none":
      return Math.log(1 - R.markReal);
  }
}

export function numberHitLlr(p: Population, role: string, value: string): number {
  return Math.log(FIELD_RATES.numberRight / numberShare(p, role, value));
}

export const NUMBER_CLASH_LLR = Math.log(1 - FIELD_RATES.numberRight);

/**
 * A laboratory's DNA match of a relative's sample to a body: kinship likelihood ratios that laboratories report
 * as a match are of the order of a million and more (a posterior of 99.95% against a prior of one in thousands);
 * the log of a million is taken, and a match also puts the body first and in the "strong" band whatever else
 * says (decision 0033). An exclusion is a hard exclusion, like a sex that differs.
 */
export const DNA_MATCH_LLR = Math.log(1_000_000);

/**
 * Names, calibrated on synthetic reports (seed 99, 6,000 reports × 11,000 bodies, 836 right pairs with a named
 * body, 13.1 million wrong ones): `nameScore`'s decision and points → the log ratio of their frequencies.
 * "same": 817 of 836 right pairs, 386 wrong ones (namesakes) → +10. Below "same", by points.
 */
export const NAME_LLR = Object.freeze({
  noKey: Math.log(FIELD_RATES.nameKeyMiss),
  same: 10,
  /** [points at least, LLR], highest first; anything below the last is `contradicts`. */
  steps: [
    [3, 5],
    [2, 4],
    [1, 2.8],
    [0, 2],
  ] as const,
  contradicts: Math.log(FIELD_RATES.nameKeyMiss),
});

export function nameLlr(s: { points: number; decision: string }): number {
  if (s.decision === "same") return NAME_LLR.same;
  for (const [at, llr] of NAME_LLR.steps) if (s.points >= at) return llr;
  return NAME_LLR.contradicts;
}

export const NAME_LLR_MAX = NAME_LLR.same;

// ---------------------------------------------------------------------------------------------------------
// Terms from features, shared by the explained score and the fast ranking so that both give the same numbers

/** Below this, a single feature's ratio says "a gross error in the data" rather than "someone else". */
const FLOOR = -6;

/** Age at the photograph from the birth year against the body's range. */
export function ageTerm(pop: Population, birthYear: number, approx: boolean, photoYear: number, centre: number, half: number, logPop = Math.log(popAgeDensity(pop, centre))): number {
  const d = photoYear - birthYear - centre;
  return Math.max(FLOOR, ageMatchLog(d, half, approx) - logPop);
}

/** Hard exclusion: the latest day of the photograph is more than the tolerance before the arrest's earliest. */
export function beforeArrest(photoLatestDay: number, arrestEarliestDay: number): boolean {
  return photoLatestDay < arrestEarliestDay - FIELD_RATES.arrestOffDays;
}

/** The interval arrest → photograph against how photo dates spread in the catalogue. */
export function periodTerm(pop: Population, photoDay: number, arrestE: number, arrestL: number, logPop = Math.log(popPhotoDensity(pop, photoDay))): number {
  return Math.max(FLOOR, Math.log(periodMatchDensity(photoDay, arrestE, arrestL)) - logPop);
}

const ADJACENT: Record<string, string[]> = {
  head: ["face", "neck"], face: ["head", "neck"], neck: ["head", "face", "chest", "back"], chest: ["neck", "abdomen"],
  abdomen: ["chest", "back"], back: ["neck", "abdomen"],
};
/** Regions a family can plausibly confuse: left for right, a hand for its arm, a foot for its leg. */
function nearRegion(a: string, b: string): boolean {
  const side = (r: string): string => r.replace(/_(left|right)$/, "");
  const limb = (r: string): string => side(r).replace("hand", "arm").replace("foot", "leg");
  return limb(a) === limb(b) || (ADJACENT[a]?.includes(b) ?? false);
}

/** One reported mark's comparison, for the words in another language (the web app's). */
export type MarkPart = contracts.MarkPart;

/** Each reported mark against the body's best unused counterpart: the points and the words. */
export function marksTerm(pop: Population, report: readonly { type: string; region: string | null }[], body: readonly { type: string; region: string | null }[], explain = true): { points: number; words: string[]; parts: MarkPart[] } {
  let points = 0;
  const words: string[] = [];
  const parts: MarkPart[] = [];
  const used = new Set<number>();
  for (const m of report) {
    let fit = "none" as MarkFit;
    let best = -1;
    let bestLlr = markLlr(pop, "none", m.type, m.region);
    for (let i = 0; i < body.length; i++) {
      const bm = body[i]!;
      if (used.has(i) || bm.type !== m.type) continue;
      // a mark in a far region is not the same mark: it is left for another reported one
      if (m.region && bm.region && m.region !== bm.region && !nearRegion(m.region, bm.region)) continue;
      const f: MarkFit = !m.region || !bm.region ? "type" : m.region === bm.region ? "place" : "elsewhere";
      const llr = markLlr(pop, f, m.type, m.region);
      if (llr > bestLlr) {
        bestLlr = llr;
        best = i;
        fit = f;
      }
    }
    if (best >= 0) used.add(best);
    points += Math.max(FLOOR, bestLlr);
    if (!explain) continue;
    const bm = best >= 0 ? body[best]! : null;
    parts.push({ fit, type: m.type, region: m.region, bodyRegion: bm?.region ?? null });
    words.push(
      fit === "place"
        ? `${m.type} on the ${m.region} on both`
        : fit === "type"
          ? `${m.type} on both (place not recorded on one side)`
          : fit === "elsewhere"
            ? `${m.type}, but on the ${m.region} in the report and the ${bm?.region} on the body`
            : `the reported ${m.type}${m.region ? ` on the ${m.region}` : ""} was not recorded on the body`,
    );
  }
  return { points, words, parts };
}

/** The best agreement of the report's names with the body's (the caller already knows a key is shared). */
export function nameTerm(r: ReportFeatures, name: PreparedName): { points: number; score: number; decision: string } {
  let s = nameScore(r.names[0]!, name);
  for (const n of r.names.slice(1)) {
    const t = nameScore(n, name);
    if (t.points > s.points) s = t;
  }
  return { points: nameLlr(s), score: s.score, decision: s.decision };
}

