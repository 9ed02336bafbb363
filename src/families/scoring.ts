import { blockingKeys, prepareName, type PreparedName } from "../names/index.ts";
import {
  DEFAULT_POPULATION,
  FIELD_RATES,
  NAME_LLR,
  NUMBER_CLASH_LLR,
  ageRange,
  ageTerm,
  DNA_MATCH_LLR,
  beforeArrest,
  branchLlr,
  dayOf,
  marksTerm,
  nameTerm,
  numberHitLlr,
  periodTerm,
  photoMid,
  sexAgreeLlr,
  type MarkPart,
  type Population,
} from "./llr.ts";
import { buildIndex, rankIndexed, type BodyIndex } from "./ranking.ts";

/**
 * The candidate score: a sum of per-feature log likelihood ratios (natural logs, see llr.ts for where each
 * number comes from), each said in words so a caseworker sees why a body ranks where it does. Two things are
 * hard exclusions whatever else agrees: a body photographed before the arrest (more than a month before, since
 * families' dates can be off by weeks), and a body whose recorded sex is not the reported one.
 */

export type Band = "exclude" | "unlikely" | "review" | "likely" | "strong";

export interface ReportFeatures {
  sex: "male" | "female" | null;
  /** Birth year (the middle of the range when only approximate). */
  birthYear: number | null;
  /** The family gave the birth year as approximate ("~1980"). */
  birthApprox?: boolean;
  /** Earliest and latest day of the arrest, YYYY-MM-DD. */
  arrestEarliest: string | null;
  arrestLatest: string | null;
  branch: string | null;
  branchCertainty: "certain" | "probable" | "rumoured" | null;
  marks: { type: string; region: string | null }[];
  numbers: { role: string; value: string }[];
  /** The name as written in each script the family gave (Arabic first); the best agreement counts. */
  names: PreparedName[];
  /** `blockingKeys` of those names: a body's name sharing none is not worth the full comparison. */
  nameKeys?: ReadonlySet<string>;
  /** The DNA comparisons of the family's sample with bodies (the report's referrals): one per body, the latest. */
  dna?: readonly DnaFinding[];
}

/** Where a DNA comparison with a body stands: a result, or "pending" (requested, sample taken, sent). */
export type DnaOutcome = "match" | "exclusion" | "inconclusive" | "pending";
export interface DnaFinding {
  bodyId: string;
  outcome: DnaOutcome;
  /** The result's date (YYYY-MM-DD), or null. */
  on: string | null;
}

export interface BodyFeatures {
  id: string;
  ref: string;
  /** The partner's own reference (the spreadsheet's), shown beside the archive's. */
  externalRef?: string | null;
  sex: "male" | "female" | null;
  ageMin: number | null;
  ageMax: number | null;
  /** Earliest and latest day the photograph can have been taken, YYYY-MM-DD. */
  photoEarliest: string | null;
  photoLatest: string | null;
  branch: string | null;
  marks: { type: string; region: string | null }[];
  numbers: { role: string; value: string }[];
  name: PreparedName | null;
  nameKeys?: readonly string[];
}

/** A value that fills a message's placeholder; codes (sex, certainty, number role) are translated by the reader. */
export type EvidenceParam = string | number | boolean | null;

/**
 * One term of the score. `text` is the English sentence (the CLI, JSON consumers, rows stored before `key`);
 * `key` and `params` say the same for the web app to word in the reader's language (`families.evidence.<key>`),
 * and `parts` the marks one by one (`families.evidence.mark.<fit>`).
 */
export interface Evidence {
  feature: "sex" | "age" | "dates" | "period" | "branch" | "marks" | "numbers" | "name" | "dna";
  points: number;
  text: string;
  key: EvidenceKey;
  params: Readonly<Record<string, EvidenceParam>>;
  parts?: MarkPart[];
}

export type EvidenceKey =
  | "sexAgrees"
  | "sexExcluded"
  | "ageFits"
  | "ageNear"
  | "ageOff"
  | "datesExcluded"
  | "periodBefore"
  | "periodWithin"
  | "periodWithinFits"
  | "periodDaysAfter"
  | "periodDaysAfterFits"
  | "periodOneMonthUsual"
  | "periodOneMonthLong"
  | "periodMonthsUsual"
  | "periodMonthsLong"
  | "branchAgrees"
  | "branchDiffers"
  | "marks"
  | "numberHit"
  | "numberClash"
  | "nameNoKey"
  | "nameSame"
  | "nameSameNotEnough"
  | "namePartly"
  | "nameDifferent"
  | "dnaMatch"
  | "dnaExclusion"
  | "dnaInconclusive"
  | "dnaPending";

type Params = Record<string, EvidenceParam>;
const NO_PARAMS: Readonly<Params> = Object.freeze({});

export interface Scored {
  bodyId: string;
  ref: string;
  score: number;
  band: Band;
  excluded: boolean;
  evidence: Evidence[];
}

/**
 * "strong": the posterior odds that the body is the person reach 99:1 for a catalogue of 11,000 bodies and 70%
 * of reports about someone in it (prior odds 0.7 / 11,000): log 99 + log(11,000 / 0.7) = 14.3. "likely": the
 * posterior odds reach even (1:1), log(11,000 / 0.7) = 9.7. "unlikely": the evidence is 9:1 against (−2.2).
 * "exclude": the evidence is 99:1 against, or a hard exclusion. "review": between, where most of a long list
 * falls; the bands above and below it are what a caseworker triages first and last.
 */
export function strongThreshold(bodies: number): number {
  return Math.round((Math.log(99) + Math.log(bodies / FIELD_RATES.present)) * 10) / 10;
}
export function likelyThreshold(bodies: number): number {
  return Math.round(Math.log(bodies / FIELD_RATES.present) * 10) / 10;
}
export const BANDS = Object.freeze({
  strong: strongThreshold(11_000),
  likely: likelyThreshold(11_000),
  unlikely: -Math.round(Math.log(9) * 10) / 10,
  exclude: -Math.round(Math.log(99) * 10) / 10,
});

export function bandOf(score: number, excluded: boolean): Band {
  if (excluded || score <= BANDS.exclude) return "exclude";
  if (score >= BANDS.strong) return "strong";
  if (score >= BANDS.likely) return "likely";
  if (score <= BANDS.unlikely) return "unlikely";
  return "review";
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}

const yearOf = (iso: string): number => Number(iso.slice(0, 4));

export function sharesNameKey(r: ReportFeatures, b: BodyFeatures): boolean {
  if (!r.nameKeys || !b.nameKeys) return true;
  return b.nameKeys.some((k) => r.nameKeys!.has(k));
}

const CERTAINTY_WORDS = { certain: "sure", probable: "fairly sure", rumoured: "repeating what they heard" } as const;

/** The features of every term, in the order they are shown. */
export function scoreBody(
  r: ReportFeatures,
  b: BodyFeatures,
  explain = true,
  pop: Population = DEFAULT_POPULATION,
  names?: Map<string, { points: number; score: number; decision: string }>,
): Scored {
  // the words are built only for the candidates that are kept: ranking thousands of bodies needs the numbers alone
  const ev: Evidence[] = [];
  const add = (feature: Evidence["feature"], points: number, key: EvidenceKey, words: () => [string, Params]): void => {
    if (!explain) {
      ev.push({ feature, points, text: "", key, params: NO_PARAMS });
      return;
    }
    const [text, params] = words();
    ev.push({ feature, points, text, key, params });
  };
  let excluded = false;

  if (r.sex && b.sex) {
    if (r.sex === b.sex) {
      const p = sexAgreeLlr(pop, r.sex);
      add("sex", round(p), "sexAgrees", () => {
        const share = Math.round(Math.exp(-p) * 100);
        return [`Sex agrees (${r.sex}); ${share}% of the bodies are ${r.sex}.`, { sex: r.sex, share }];
      });
    } else {
      excluded = true;
      add("sex", 0, "sexExcluded", () => [`Excluded: the report says ${r.sex}, the body was recorded as ${b.sex}.`, { reported: r.sex, recorded: b.sex }]);
    }
  }

  const range = ageRange(b);
  if (r.birthYear !== null && b.photoEarliest && range) {
    const photoYear = (yearOf(b.photoEarliest) + yearOf(b.photoLatest ?? b.photoEarliest)) / 2;
    const p = ageTerm(pop, r.birthYear, r.birthApprox ?? false, photoYear, range.centre, range.half);
    const age = Math.round(photoYear - r.birthYear);
    const [min, max] = [range.centre - range.half, range.centre + range.half];
    const [how, key] = p > 0 ? ["Age fits", "ageFits"] as const : p > -2 ? ["Age is a little outside", "ageNear"] as const : ["Age does not fit", "ageOff"] as const;
    add("age", round(p), key, () => [
      `${how}: born ${r.birthApprox ? "about " : ""}${r.birthYear}, about ${age} at the time of the photograph; the body was estimated ${min}–${max}.`,
      { born: r.birthYear, approx: r.birthApprox ?? false, age, min, max },
    ]);
  }

  const mid = photoMid(b);
  if (r.arrestEarliest && b.photoLatest && mid !== null) {
    const e = dayOf(r.arrestEarliest);
    const l = dayOf(r.arrestLatest ?? r.arrestEarliest);
    if (beforeArrest(dayOf(b.photoLatest), e)) {
      excluded = true;
      add("dates", 0, "datesExcluded", () => [
        `Excluded: the body was photographed by ${b.photoLatest}, more than a month before the arrest (not before ${r.arrestEarliest}).`,
        { photoLatest: b.photoLatest, arrestEarliest: r.arrestEarliest },
      ]);
    } else {
      const p = periodTerm(pop, mid, e, l);
      const months = Math.round((mid - l) / 30.44);
      const daysBefore = Math.round(e - mid);
      const fits = p > 0;
      const from = r.arrestEarliest;
      const to = r.arrestLatest ?? r.arrestEarliest;
      const days = Math.round(mid - l);
      if (mid < e) {
        add("period", round(p), "periodBefore", () => [
          `Photographed about ${daysBefore} days before the reported arrest: possible only if the family's date is a little off.`,
          { days: daysBefore },
        ]);
      } else if (mid <= l + 1) {
        add("period", round(p), fits ? "periodWithinFits" : "periodWithin", () => [
          `Photographed within the time the arrest is reported in (${from} to ${to})${fits ? ", which fits" : ""}.`,
          { from, to },
        ]);
      } else if (mid - l < 45) {
        add("period", round(p), fits ? "periodDaysAfterFits" : "periodDaysAfter", () => [`Photographed about ${days} days after the arrest${fits ? ", which fits" : ""}.`, { days }]);
      } else {
        const key = months === 1 ? (fits ? "periodOneMonthUsual" : "periodOneMonthLong") : fits ? "periodMonthsUsual" : "periodMonthsLong";
        add("period", round(p), key, () => [
          `Photographed about ${months} month${months === 1 ? "" : "s"} after the arrest${fits ? ", a usual interval for deaths in detention" : ", a long interval"}.`,
          { months },
        ]);
      }
    }
  }

  if (r.branch && b.branch) {
    const p = branchLlr(pop, r.branch, r.branchCertainty, b.branch);
    const sure = r.branchCertainty ? ` (the family is ${CERTAINTY_WORDS[r.branchCertainty]})` : "";
    const params = (): Params => ({ reported: r.branch, recorded: b.branch, certainty: r.branchCertainty });
    if (r.branch === b.branch) add("branch", round(p), "branchAgrees", () => [`Branch agrees: ${b.branch}${sure}.`, params()]);
    else {
      add("branch", round(p), "branchDiffers", () => [
        `Branch differs: the family named ${r.branch}${sure}, the body's card says ${b.branch}; families are often told the wrong branch.`,
        params(),
      ]);
    }
  }

  if (r.marks.length > 0) {
    const m = marksTerm(pop, r.marks, b.marks, explain);
    const bare = b.marks.length === 0;
    const none = bare ? " (none recorded on the body; they may not be visible in the photographs)" : "";
    add("marks", round(m.points), "marks", () => [`Marks: ${m.words.join("; ")}${none}.`, { bare }]);
    if (explain) ev[ev.length - 1]!.parts = m.parts;
  }

  for (const n of r.numbers) {
    const hit = b.numbers.find((x) => x.role === n.role && x.value === n.value);
    const clash = b.numbers.find((x) => x.role === n.role && x.value !== n.value);
    if (hit) {
      add("numbers", round(numberHitLlr(pop, n.role, n.value)), "numberHit", () => [
        `The ${n.role} number ${n.value} in the family's documents is on the body's card.`,
        { role: n.role, value: n.value },
      ]);
    } else if (clash) {
      add("numbers", round(NUMBER_CLASH_LLR), "numberClash", () => [
        `The ${n.role} number ${n.value} in the family's documents differs from the body's (${clash.value}).`,
        { role: n.role, value: n.value, recorded: clash.value },
      ]);
    }
  }

  if (r.names.length > 0 && b.name) {
    if (!sharesNameKey(r, b)) {
      add("name", round(NAME_LLR.noKey), "nameNoKey", () => ["A document names the body; its given name and the other names do not agree with the report's.", {}]);
    } else {
      const s = names?.get(b.id) ?? nameTerm(r, b.name);
      const similarity = s.score.toFixed(2);
      // Names that agree in every part both give are the same names, even when too few parts, common names or a
      // reordering keep the decision from "same person": they are never "partly the same".
      const [d, key] =
        s.decision === "same"
          ? ["read as the same person", "nameSame"] as const
          : similarity === "1.00"
            ? ["are the same, but that alone is not enough to say one person", "nameSameNotEnough"] as const
            : s.points > 0
              ? ["read as partly the same (not enough to say one person)", "namePartly"] as const
              : ["read as different people", "nameDifferent"] as const;
      add("name", round(s.points), key, () => [`A document names the body; the names ${d} (similarity ${similarity}).`, { similarity }]);
    }
  }

  // a DNA result speaks last and over everything: an exclusion excludes, a match comes first and strong
  const dna = dnaFor(r, b.id);
  let matched = false;
  if (dna) {
    const on = dna.on;
    const when = on ? ` (result of ${on})` : "";
    if (dna.outcome === "exclusion") {
      excluded = true;
      add("dna", 0, "dnaExclusion", () => [`Excluded: a DNA comparison with the family's sample excludes this body${when}.`, { on }]);
    } else if (dna.outcome === "match") {
      matched = true;
      excluded = false;
      add("dna", round(DNA_MATCH_LLR), "dnaMatch", () => [`A DNA comparison with the family's sample matches this body${when}: it comes first, whatever else says.`, { on }]);
    } else if (dna.outcome === "inconclusive") {
      add("dna", 0, "dnaInconclusive", () => [`A DNA comparison with this body was inconclusive${when}; the ranking is unchanged.`, { on }]);
    } else {
      add("dna", 0, "dnaPending", () => ["A DNA comparison with this body is under way; the ranking is unchanged until its result.", {}]);
    }
  }

  const score = round(ev.reduce((a, e) => a + e.points, 0));
  const band = matched ? "strong" : bandOf(score, excluded);
  return { bodyId: b.id, ref: b.ref, score, band, excluded, evidence: ev };
}

/** The report's DNA finding on one body, if any (a report has few: a linear look is enough). */
export function dnaFor(r: ReportFeatures, bodyId: string): DnaFinding | undefined {
  if (!r.dna || r.dna.length === 0) return undefined;
  return r.dna.find((d) => d.bodyId === bodyId);
}

/** A body a DNA result matched: it comes before every other. */
const dnaMatched = (s: Scored): boolean => s.band === "strong" && s.evidence.some((e) => e.key === "dnaMatch");

const INDEXES = new WeakMap<readonly BodyFeatures[], BodyIndex>();

/** The typed-array index of a list of bodies, built once per list (the list must not change afterwards). */
export function indexOf(bodies: readonly BodyFeatures[]): BodyIndex {
  let ix = INDEXES.get(bodies);
  if (!ix) INDEXES.set(bodies, (ix = buildIndex(bodies)));
  return ix;
}

/**
 * Ranks bodies for one report: best first, excluded last, ties broken by the body's ref; the top are scored
 * again with their words against the same population.
 */
export function rankBodies(r: ReportFeatures, bodies: readonly BodyFeatures[] | BodyIndex, top = "length" in bodies ? bodies.length : bodies.bodies.length): Scored[] {
  const ix = "length" in bodies ? indexOf(bodies) : bodies;
  const ranked = rankIndexed(ix, r, top);
  return ranked.order.map((i) => scoreBody(r, ix.bodies[i]!, true, ix.pop, ranked.names));
}

/** The reference ranking: every body scored in full, then sorted. Slow; for tests and the benchmark's baseline. */
export function rankBodiesNaive(r: ReportFeatures, bodies: readonly BodyFeatures[], top = bodies.length, pop: Population = indexOf(bodies).pop): Scored[] {
  const all = bodies.map((b, i) => ({ s: scoreBody(r, b, false, pop), i }));
  all.sort((a, b) =>
    dnaMatched(a.s) !== dnaMatched(b.s)
      ? dnaMatched(a.s) ? -1 : 1
      : a.s.excluded !== b.s.excluded
        ? a.s.excluded ? 1 : -1
        : b.s.score === a.s.score ? (a.s.ref < b.s.ref ? -1 : 1) : b.s.score - a.s.score,
  );
  return all.slice(0, top).map((x) => scoreBody(r, bodies[x.i]!, true, pop));
}

export { prepareName };

/** The blocking keys of a set of names (for `nameKeys`). */
export function keysOf(names: readonly PreparedName[]): Set<string> {
  return new Set(names.flatMap((n) => blockingKeys(n.slots)));
}
