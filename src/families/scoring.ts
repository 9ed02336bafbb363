import { blockingKeys, nameScore, prepareName, type PreparedName } from "./names.ts";

/**
 * The candidate score: a sum of per-feature log likelihood ratios (natural logs), each the log of how much more
 * likely the observation is if the body is the reported person than if it is someone else. Every term is said
 * in words, so a caseworker sees why a body ranks where it does. A body photographed before the arrest cannot
 * be the person: that is a hard exclusion, whatever the other features say.
 *
 * The ratios are set from what the data can bear, not fitted: families misremember branches, approximate
 * dates, and do not know every mark, so a disagreement costs less than an agreement earns, except where the
 * disagreement is physical (sex, a mark type in a place the family is sure of).
 */

export type Band = "exclude" | "review" | "strong";

export interface ReportFeatures {
  sex: "male" | "female" | null;
  /** Birth year (the middle of the range when only approximate). */
  birthYear: number | null;
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
}

export interface BodyFeatures {
  id: string;
  ref: string;
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

export interface Evidence {
  feature: "sex" | "age" | "dates" | "period" | "branch" | "marks" | "numbers" | "name";
  points: number;
  text: string;
}

export interface Scored {
  bodyId: string;
  ref: string;
  score: number;
  band: Band;
  excluded: boolean;
  evidence: Evidence[];
}

export const BANDS = Object.freeze({ strong: 9, exclude: -2 });

const DAY = 86_400_000;

function days(iso: string): number {
  return Date.parse(`${iso}T00:00:00Z`) / DAY;
}

function yearOf(iso: string): number {
  return Number(iso.slice(0, 4));
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}

/** The features of every term, in the order they are shown. */
export function scoreBody(r: ReportFeatures, b: BodyFeatures, explain = true): Scored {
  // the words are built only for the candidates that are kept: ranking thousands of bodies needs the numbers alone
  const say = explain ? (f: () => string): string => f() : (): string => "";
  const ev: Evidence[] = [];
  let excluded = false;

  if (r.sex && b.sex) {
    if (r.sex === b.sex) ev.push({ feature: "sex", points: 0.69, text: say(() => `Sex agrees (${r.sex}).`) });
    else ev.push({ feature: "sex", points: -8, text: say(() => `Sex differs: the report says ${r.sex}, the body was recorded as ${b.sex}.`) });
  }

  if (r.birthYear !== null && b.photoEarliest && (b.ageMin !== null || b.ageMax !== null)) {
    const age = (yearOf(b.photoEarliest) + yearOf(b.photoLatest ?? b.photoEarliest)) / 2 - r.birthYear;
    const lo = b.ageMin ?? 0;
    const hi = b.ageMax ?? 120;
    const off = age < lo ? lo - age : age > hi ? age - hi : 0;
    const span = `${Math.round(age)} at the time of the photograph; the body was estimated ${lo}–${hi}`;
    if (off <= 1) ev.push({ feature: "age", points: 1.1, text: say(() => `Age fits: born ${r.birthYear}, about ${span}.`) });
    else if (off <= 5) ev.push({ feature: "age", points: -0.3 * (off - 1), text: say(() => `Age is a little outside: born ${r.birthYear}, about ${span}.`) });
    else ev.push({ feature: "age", points: Math.max(-6, -1.2 - 0.5 * (off - 5)), text: say(() => `Age does not fit: born ${r.birthYear}, about ${span}.`) });
  }

  if (r.arrestEarliest && b.photoLatest) {
    if (b.photoLatest < r.arrestEarliest) {
      excluded = true;
      ev.push({ feature: "dates", points: 0, text: say(() => `Excluded: the body was photographed by ${b.photoLatest}, before the arrest (not before ${r.arrestEarliest}).`) });
    } else if (b.photoEarliest) {
      const gap = Math.max(0, days(b.photoEarliest) - days(r.arrestLatest ?? r.arrestEarliest)) / 30.44;
      let p: number;
      if (gap <= 6) p = 1.2;
      else if (gap <= 18) p = 0.6;
      else if (gap <= 36) p = -0.2;
      else p = -1;
      ev.push({ feature: "period", points: p, text: say(() => `Photographed about ${Math.round(gap)} months after the arrest${p > 0 ? ", a usual interval for deaths in detention" : p < 0 ? ", a long interval" : ""}.`) });
    }
  }

  if (r.branch && b.branch) {
    const weight = r.branchCertainty === "certain" ? 1 : r.branchCertainty === "rumoured" ? 0.4 : 0.7;
    if (r.branch === b.branch) ev.push({ feature: "branch", points: round(1.8 * weight), text: say(() => `Branch agrees: ${b.branch}${r.branchCertainty ? ` (the family is ${r.branchCertainty === "certain" ? "sure" : r.branchCertainty === "probable" ? "fairly sure" : "repeating what they heard"})` : ""}.`) });
    else ev.push({ feature: "branch", points: round(-0.6 * weight), text: say(() => `Branch differs: the family named ${r.branch}, the body's card says ${b.branch}; families are often told the wrong branch.`) });
  }

  if (r.marks.length > 0 && b.marks.length > 0) {
    let p = 0;
    const words: string[] = [];
    const used = new Set<number>();
    for (const m of r.marks) {
      let best = -1;
      let bestPts = -0.4;
      let how = "";
      b.marks.forEach((bm, i) => {
        if (used.has(i) || bm.type !== m.type) return;
        const pts = m.region && bm.region ? (m.region === bm.region ? 2.6 : -0.2) : 1;
        if (pts > bestPts) {
          bestPts = pts;
          best = i;
          how = m.region && bm.region ? (m.region === bm.region ? `${m.type} on the ${m.region} on both` : `${m.type}, but on the ${m.region} in the report and the ${bm.region} on the body`) : `${m.type} on both (place not recorded on one side)`;
        }
      });
      if (best >= 0) used.add(best);
      p += bestPts;
      words.push(best >= 0 ? how : `the reported ${m.type}${m.region ? ` on the ${m.region}` : ""} was not recorded on the body`);
    }
    ev.push({ feature: "marks", points: round(p), text: say(() => `Marks: ${words.join("; ")}.`) });
  } else if (r.marks.length > 0) {
    ev.push({ feature: "marks", points: -0.2, text: say(() => "The family reported marks; none were recorded on the body (they may not be visible in the photographs).") });
  }

  if (r.numbers.length > 0 && b.numbers.length > 0) {
    for (const n of r.numbers) {
      const hit = b.numbers.find((x) => x.role === n.role && x.value === n.value);
      const clash = b.numbers.find((x) => x.role === n.role && x.value !== n.value);
      if (hit) ev.push({ feature: "numbers", points: 7, text: say(() => `The ${n.role} number ${n.value} in the family's documents is on the body's card.`) });
      else if (clash) ev.push({ feature: "numbers", points: -2, text: say(() => `The ${n.role} number ${n.value} in the family's documents differs from the body's (${clash.value}).`) });
    }
  }

  if (r.names.length > 0 && b.name && r.nameKeys && b.nameKeys && !b.nameKeys.some((k) => r.nameKeys!.has(k))) {
    ev.push({ feature: "name", points: -3, text: say(() => "A document names the body; the given name and the other names do not agree with the report's.") });
  } else if (r.names.length > 0 && b.name) {
    let s = nameScore(r.names[0]!, b.name);
    for (const n of r.names.slice(1)) {
      const t = nameScore(n, b.name);
      if (t.points > s.points) s = t;
    }
    const p = Math.max(-6, Math.min(10, s.points));
    const d = s.decision === "same" ? "the same person" : s.decision === "different" ? "different people" : "possibly the same person";
    ev.push({ feature: "name", points: round(p), text: say(() => `A document names the body; the names read as ${d} (similarity ${s.score.toFixed(2)}).`) });
  }

  const score = round(ev.reduce((a, e) => a + e.points, 0));
  const band: Band = excluded || score <= BANDS.exclude ? "exclude" : score >= BANDS.strong ? "strong" : "review";
  return { bodyId: b.id, ref: b.ref, score, band, excluded, evidence: ev };
}

/** Ranks bodies for one report: best first, excluded last, ties broken by the body's ref. */
export function rankBodies(r: ReportFeatures, bodies: readonly BodyFeatures[], top = bodies.length): Scored[] {
  const all = bodies.map((b, i) => ({ s: scoreBody(r, b, false), i }));
  all.sort((a, b) => (a.s.excluded !== b.s.excluded ? (a.s.excluded ? 1 : -1) : b.s.score === a.s.score ? (a.s.ref < b.s.ref ? -1 : 1) : b.s.score - a.s.score));
  return all.slice(0, top).map((x) => scoreBody(r, bodies[x.i]!, true));
}

export { prepareName };

/** The blocking keys of a set of names (for `nameKeys`). */
export function keysOf(names: readonly PreparedName[]): Set<string> {
  return new Set(names.flatMap((n) => blockingKeys(n.slots)));
}
