import {
  DEFAULT_POPULATION,
  DNA_MATCH_LLR,
  NAME_LLR,
  NAME_LLR_MAX,
  NUMBER_CLASH_LLR,
  ageRange,
  ageTerm,
  beforeArrest,
  branchLlr,
  dayOf,
  marksTerm,
  nameTerm,
  numberHitLlr,
  periodTerm,
  photoMid,
  popAgeDensity,
  popPhotoDensity,
  populationOf,
  sexAgreeLlr,
  type Population,
} from "./llr.ts";
import type { BodyFeatures, ReportFeatures } from "./scoring.ts";

/**
 * Ranking one report against many bodies fast, with the same numbers `scoreBody` gives: the bodies' features
 * are laid out once in typed arrays; the cheap terms are summed for every body in one loop; marks, numbers and
 * names touch only the bodies that share something with the report; and the costly name comparison is skipped
 * for a body whose best possible total (everything else plus the largest name ratio) cannot enter the top K.
 */

/** Below this many bodies the catalogue is too small to count shares from; a documented default stands in. */
export const MIN_POPULATION = 200;

export interface BodyIndex {
  bodies: readonly BodyFeatures[];
  pop: Population;
  sex: Int8Array;
  centre: Float64Array;
  half: Float64Array;
  photoYear: Float64Array;
  photoMid: Float64Array;
  photoLatest: Float64Array;
  /** log of how common the body's age centre and photo day are in the catalogue (the "someone else" side). */
  logPopAge: Float64Array;
  logPopPhoto: Float64Array;
  branch: Int32Array;
  branches: string[];
  byMarkType: Map<string, number[]>;
  byNumber: Map<string, number[]>;
  byNumberRole: Map<string, number[]>;
  named: number[];
  byNameKey: Map<string, number[]>;
  /** Each body's place by its id (a report's DNA results name bodies by id). */
  byId: Map<string, number>;
}

const push = (m: Map<string, number[]>, k: string, i: number): void => {
  const l = m.get(k);
  if (!l) m.set(k, [i]);
  else if (l[l.length - 1] !== i) l.push(i);
};

export function buildIndex(bodies: readonly BodyFeatures[], pop?: Population): BodyIndex {
  const n = bodies.length;
  const ix: BodyIndex = {
    bodies,
    pop: pop ?? (n >= MIN_POPULATION ? populationOf(bodies) : DEFAULT_POPULATION),
    sex: new Int8Array(n),
    centre: new Float64Array(n).fill(NaN),
    half: new Float64Array(n).fill(NaN),
    photoYear: new Float64Array(n).fill(NaN),
    photoMid: new Float64Array(n).fill(NaN),
    photoLatest: new Float64Array(n).fill(NaN),
    logPopAge: new Float64Array(n),
    logPopPhoto: new Float64Array(n),
    branch: new Int32Array(n).fill(-1),
    branches: [],
    byMarkType: new Map(),
    byNumber: new Map(),
    byNumberRole: new Map(),
    named: [],
    byNameKey: new Map(),
    byId: new Map(),
  };
  const branchIds = new Map<string, number>();
  bodies.forEach((b, i) => {
    ix.byId.set(b.id, i);
    ix.sex[i] = b.sex === "male" ? 1 : b.sex === "female" ? 2 : 0;
    const r = ageRange(b);
    if (r) {
      ix.centre[i] = r.centre;
      ix.half[i] = r.half;
      ix.logPopAge[i] = Math.log(popAgeDensity(ix.pop, r.centre));
    }
    if (b.photoEarliest) ix.photoYear[i] = (Number(b.photoEarliest.slice(0, 4)) + Number((b.photoLatest ?? b.photoEarliest).slice(0, 4))) / 2;
    ix.photoMid[i] = photoMid(b) ?? NaN;
    if (ix.photoMid[i] === ix.photoMid[i]) ix.logPopPhoto[i] = Math.log(popPhotoDensity(ix.pop, ix.photoMid[i]!));
    if (b.photoLatest) ix.photoLatest[i] = dayOf(b.photoLatest);
    if (b.branch) {
      let id = branchIds.get(b.branch);
      if (id === undefined) {
        id = ix.branches.length;
        branchIds.set(b.branch, id);
        ix.branches.push(b.branch);
      }
      ix.branch[i] = id;
    }
    for (const m of b.marks) push(ix.byMarkType, m.type, i);
    for (const x of b.numbers) {
      push(ix.byNumber, `${x.role}:${x.value}`, i);
      push(ix.byNumberRole, x.role, i);
    }
    if (b.name) {
      ix.named.push(i);
      for (const k of b.nameKeys ?? []) push(ix.byNameKey, k, i);
    }
  });
  return ix;
}

const round = (x: number): number => Math.round(x * 100) / 100;
// read once: the loop below calls these for every body, and a module transform may put a getter on each import
const age = ageTerm;
const period = periodTerm;
const isBefore = beforeArrest;

/** A fixed-size min-heap of the K best totals seen so far: its top is the bar a body must clear. */
class TopK {
  private readonly h: Float64Array;
  size = 0;
  constructor(readonly k: number) {
    this.h = new Float64Array(Math.max(1, k));
  }
  get full(): boolean {
    return this.size >= this.k;
  }
  get bar(): number {
    return this.full ? this.h[0]! : -Infinity;
  }
  add(x: number): void {
    const h = this.h;
    if (!this.full) {
      let i = this.size++;
      h[i] = x;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (h[p]! <= h[i]!) break;
        [h[p], h[i]] = [h[i]!, h[p]!];
        i = p;
      }
      return;
    }
    if (x <= h[0]!) return;
    h[0] = x;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < this.size && h[l]! < h[m]!) m = l;
      if (r < this.size && h[r]! < h[m]!) m = r;
      if (m === i) break;
      [h[m], h[i]] = [h[i]!, h[m]!];
      i = m;
    }
  }
}

export interface Ranked {
  /** Indices into the index's bodies, best first, excluded last. */
  order: number[];
  /** Name comparisons made, by body id, for the explanations to reuse. */
  names: Map<string, { points: number; score: number; decision: string }>;
  /** How many name comparisons were made and skipped by the bound. */
  compared: number;
  skipped: number;
}

export function rankIndexed(ix: BodyIndex, r: ReportFeatures, top: number): Ranked {
  const { bodies, pop } = ix;
  const n = bodies.length;
  const k = Math.max(0, Math.min(top, n));
  const tot = new Float64Array(n);
  const excl = new Uint8Array(n);
  const rs = r.sex === "male" ? 1 : r.sex === "female" ? 2 : 0;
  const sexPts = r.sex ? round(sexAgreeLlr(pop, r.sex)) : 0;
  const by = r.birthYear;
  const approx = r.birthApprox ?? false;
  const e = r.arrestEarliest ? dayOf(r.arrestEarliest) : NaN;
  const l = r.arrestEarliest ? dayOf(r.arrestLatest ?? r.arrestEarliest) : NaN;
  const branchPts = r.branch ? ix.branches.map((b) => round(branchLlr(pop, r.branch!, r.branchCertainty, b))) : [];
  const { sex, centre, half, photoYear, photoMid: mid, photoLatest, branch, logPopAge, logPopPhoto } = ix;

  for (let i = 0; i < n; i++) {
    let s = 0;
    if (rs && sex[i]) {
      if (rs === sex[i]) s += sexPts;
      else excl[i] = 1;
    }
    if (by !== null && photoYear[i] === photoYear[i] && centre[i] === centre[i]) s += round(age(pop, by, approx, photoYear[i]!, centre[i]!, half[i]!, logPopAge[i]!));
    if (e === e && photoLatest[i] === photoLatest[i] && mid[i] === mid[i]) {
      if (isBefore(photoLatest[i]!, e)) excl[i] = 1;
      else s += round(period(pop, mid[i]!, e, l, logPopPhoto[i]!));
    }
    if (branchPts.length && branch[i]! >= 0) s += branchPts[branch[i]!]!;
    tot[i] = s;
  }

  if (r.marks.length > 0) {
    const base = round(marksTerm(pop, r.marks, []).points);
    const own = new Float64Array(n).fill(base);
    for (const t of new Set(r.marks.map((m) => m.type))) {
      for (const i of ix.byMarkType.get(t) ?? []) own[i] = round(marksTerm(pop, r.marks, bodies[i]!.marks, false).points);
    }
    for (let i = 0; i < n; i++) tot[i] = tot[i]! + own[i]!;
  }

  for (const x of r.numbers) {
    const hits = new Set(ix.byNumber.get(`${x.role}:${x.value}`) ?? []);
    const hit = round(numberHitLlr(pop, x.role, x.value));
    const clash = round(NUMBER_CLASH_LLR);
    for (const i of ix.byNumberRole.get(x.role) ?? []) tot[i] = tot[i]! + (hits.has(i) ? hit : clash);
  }

  const pending: number[] = [];
  const isPending = new Uint8Array(n);
  if (r.names.length > 0 && ix.named.length > 0) {
    const keyed = new Uint8Array(n);
    for (const key of r.nameKeys ?? []) for (const i of ix.byNameKey.get(key) ?? []) keyed[i] = 1;
    const noKey = round(NAME_LLR.noKey);
    for (const i of ix.named) {
      if (keyed[i] || !r.nameKeys || !bodies[i]!.nameKeys) {
        pending.push(i);
        isPending[i] = 1;
      } else tot[i] = tot[i]! + noKey;
    }
  }

  const names: Ranked["names"] = new Map();
  const compare = (i: number): void => {
    const s = nameTerm(r, bodies[i]!.name!);
    names.set(bodies[i]!.id, s);
    tot[i] = tot[i]! + round(s.points);
    isPending[i] = 0;
  };

  // DNA results (a report has few): an exclusion excludes; a match is put first whatever else says. A matched
  // body is marked 2 in `excl`, so that the loops below pass it by like an excluded one; it joins at the end.
  const pinned: number[] = [];
  for (const d of r.dna ?? []) {
    const i = ix.byId.get(d.bodyId);
    if (i === undefined) continue;
    if (d.outcome === "exclusion") excl[i] = 1;
    else if (d.outcome === "match") {
      if (isPending[i]) compare(i);
      tot[i] = tot[i]! + round(DNA_MATCH_LLR);
      excl[i] = 2;
      pinned.push(i);
    }
  }

  const best = new TopK(k);
  for (let i = 0; i < n; i++) if (!excl[i] && !isPending[i]) best.add(round(tot[i]!));
  pending.sort((a, b) => tot[b]! - tot[a]!);
  let skipped = 0;
  for (const i of pending) {
    if (excl[i]) continue;
    if (best.full && tot[i]! + NAME_LLR_MAX < best.bar) {
      skipped++;
      continue;
    }
    compare(i);
    best.add(round(tot[i]!));
  }

  const bar = best.bar;
  const keep: number[] = [];
  for (let i = 0; i < n; i++) if (!excl[i] && !isPending[i] && round(tot[i]!) >= bar) keep.push(i);
  const byScore = (a: number, b: number): number => {
    const d = round(tot[b]!) - round(tot[a]!);
    return d !== 0 ? d : bodies[a]!.ref < bodies[b]!.ref ? -1 : 1;
  };
  keep.sort(byScore);
  const order = [...pinned.sort(byScore), ...keep].slice(0, k);
  if (order.length < k) {
    // fewer bodies than asked for are not excluded: the excluded follow, best first
    const out: number[] = [];
    for (let i = 0; i < n; i++) {
      if (excl[i] !== 1) continue;
      if (isPending[i]) compare(i);
      out.push(i);
    }
    out.sort(byScore);
    order.push(...out.slice(0, k - order.length));
  }
  return { order, names, compared: names.size, skipped };
}
