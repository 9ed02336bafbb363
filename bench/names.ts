/**
 * Name matching benchmark.
 *  1. Decisions on the labelled pairs of test/fixtures/name-pairs.json: precision and recall of "same" and of
 *     "different", per script pairing and for the held-out block, beside a baseline measured on the same pairs:
 *     Jaro-Winkler over the whole normalised name, with its threshold set after the fact for the best recall at
 *     precision ≥ 0.99 (the most a baseline can get).
 *  2. A sweep of the "same" thresholds, to show what the chosen ones trade.
 *  3. Speed and blocking on a synthetic population of 20,000 reports × 11,000 bodies: names analysed per
 *     second, candidate pairs after blocking on crossScriptKey skeletons, comparisons per second (cold and with
 *     the token caches warm), beside whole-name Jaro-Winkler's comparisons per second.
 * Run: npx tsx bench/names.ts
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { normaliseArabic } from "../src/core/arabic.ts";
import { GIVEN_NAMES } from "../src/names/name-data.ts";
import {
  NAME_THRESHOLDS,
  blockingKeys,
  jaroWinkler,
  nameScore,
  nameSimilarity,
  parseNameChain,
  prepareName,
  resetNameCaches,
  type NameDecision,
  type NameThresholds,
  type PreparedName,
} from "../src/names/names.ts";

type Side = string | { name: string; father?: string; mother?: string };
interface Pair {
  a: Side;
  b: Side;
  label: "same" | "different" | "ambiguous";
  kind: "ar-ar" | "lat-lat" | "ar-lat";
  why: string;
  heldOut?: boolean;
  fresh?: boolean;
}

const FIXTURE = fileURLToPath(new URL("../test/fixtures/name-pairs.json", import.meta.url));

export function loadPairs(): Pair[] {
  return (JSON.parse(readFileSync(FIXTURE, "utf8")) as { pairs: Pair[] }).pairs;
}

const prep = (x: Side): PreparedName => prepareName(typeof x === "string" ? parseNameChain(x) : parseNameChain(x.name, x));
const rawOf = (x: Side): string => (typeof x === "string" ? x : [x.name, x.father, x.mother].filter(Boolean).join(" "));

interface Tally {
  n: number;
  same: number;
  different: number;
  ambiguous: number;
  predSame: number;
  predSameRight: number;
  predDiff: number;
  predDiffRight: number;
  ambiguousUnsure: number;
  sameUnsure: number;
  diffUnsure: number;
}

function tally(pairs: Pair[], decisions: NameDecision[]): Tally {
  const t: Tally = { n: pairs.length, same: 0, different: 0, ambiguous: 0, predSame: 0, predSameRight: 0, predDiff: 0, predDiffRight: 0, ambiguousUnsure: 0, sameUnsure: 0, diffUnsure: 0 };
  pairs.forEach((p, i) => {
    const d = decisions[i] as NameDecision;
    t[p.label]++;
    if (p.label === "ambiguous") {
      if (d === "unsure") t.ambiguousUnsure++;
      return;
    }
    if (d === "same") {
      t.predSame++;
      if (p.label === "same") t.predSameRight++;
    }
    if (d === "different") {
      t.predDiff++;
      if (p.label === "different") t.predDiffRight++;
    }
    if (d === "unsure") {
      if (p.label === "same") t.sameUnsure++;
      else t.diffUnsure++;
    }
  });
  return t;
}

const ratio = (a: number, b: number): string => (b === 0 ? "  —  " : (a / b).toFixed(3));

function printTally(label: string, t: Tally): void {
  console.log(
    `  ${label.padEnd(22)} n=${String(t.n).padStart(3)}  same: P ${ratio(t.predSameRight, t.predSame)} R ${ratio(t.predSameRight, t.same)}` +
      `   different: P ${ratio(t.predDiffRight, t.predDiff)} R ${ratio(t.predDiffRight, t.different)}` +
      `   unsure: ${t.sameUnsure} same, ${t.diffUnsure} different, ambiguous→unsure ${t.ambiguousUnsure}/${t.ambiguous}`,
  );
}

function baselineScores(pairs: Pair[]): number[] {
  return pairs.map((p) => jaroWinkler(normaliseArabic(rawOf(p.a)), normaliseArabic(rawOf(p.b))));
}

/** The lowest threshold with precision ≥ 0.99 on "same" (searched on the pairs themselves: a best case). */
function bestBaselineThreshold(pairs: Pair[], scores: number[]): number {
  const labelled = pairs.map((p, i) => ({ p, s: scores[i] as number })).filter((x) => x.p.label !== "ambiguous");
  const cands = [...new Set(labelled.map((x) => x.s))].sort((a, b) => a - b);
  for (const t of cands) {
    const pred = labelled.filter((x) => x.s >= t);
    const right = pred.filter((x) => x.p.label === "same").length;
    if (pred.length > 0 && right / pred.length >= 0.99) return t;
  }
  return 1.01;
}

export function decisionsSection(pairs: Pair[]): void {
  const prepared = pairs.map((p) => [prep(p.a), prep(p.b)] as const);
  const decisions = prepared.map(([a, b]) => nameSimilarity(a, b).decision);
  console.log(`\nname decisions on ${pairs.length} labelled pairs (thresholds ${JSON.stringify(NAME_THRESHOLDS)})`);
  const subsets: [string, (p: Pair) => boolean][] = [
    ["all", () => true],
    ["Arabic–Arabic", (p) => p.kind === "ar-ar"],
    ["Latin–Latin", (p) => p.kind === "lat-lat"],
    ["Arabic–Latin", (p) => p.kind === "ar-lat"],
    ["names in the table", (p) => !p.heldOut && !p.fresh],
    ["held out (tuned on)", (p) => !!p.heldOut],
    ["fresh (never tuned)", (p) => !!p.fresh],
  ];
  for (const [label, f] of subsets) {
    const idx = pairs.map((p, i) => (f(p) ? i : -1)).filter((i) => i >= 0);
    if (idx.length === 0) continue;
    printTally(label, tally(idx.map((i) => pairs[i] as Pair), idx.map((i) => decisions[i] as NameDecision)));
  }

  const scores = baselineScores(pairs);
  const t = bestBaselineThreshold(pairs, scores);
  const base = scores.map((s): NameDecision => (s >= t ? "same" : s < 0.75 ? "different" : "unsure"));
  console.log(`  baseline: Jaro-Winkler over the whole normalised name, "same" at ≥ ${t.toFixed(3)} (best threshold for precision ≥ 0.99), "different" below 0.75`);
  for (const [label, f] of subsets.slice(0, 4)) {
    const idx = pairs.map((p, i) => (f(p) ? i : -1)).filter((i) => i >= 0);
    printTally(`  ${label}`, tally(idx.map((i) => pairs[i] as Pair), idx.map((i) => base[i] as NameDecision)));
  }

  console.log(`\n"same" threshold sweep (all labelled pairs): evidence points × slots that must agree`);
  for (const slots of [2, 3]) {
    const cells: string[] = [];
    for (const pts of [2, 3, 3.5, 4, 4.5, 5, 6]) {
      const th: Partial<NameThresholds> = { SAME_POINTS: pts, SAME_SLOTS: slots };
      const d = prepared.map(([a, b]) => nameSimilarity(a, b, th).decision);
      const tl = tally(pairs, d);
      cells.push(`${pts}: P ${ratio(tl.predSameRight, tl.predSame)} R ${ratio(tl.predSameRight, tl.same)}`);
    }
    console.log(`  ${slots} slots  ${cells.join("  ")}`);
  }

  const missed = pairs.filter((p, i) => p.label !== "ambiguous" && decisions[i] !== p.label && !(p.label === "same" && decisions[i] === "unsure"));
  for (const p of missed) console.log(`  WRONG: ${rawOf(p.a)} | ${rawOf(p.b)} — labelled ${p.label} (${p.why})`);
  const blockMiss = pairs.filter((p) => p.label === "same" && !blockingKeys(prep(p.a).slots).some((k) => blockingKeys(prep(p.b).slots).includes(k)));
  console.log(`  blocking keys shared by ${pairs.filter((p) => p.label === "same").length - blockMiss.length} of ${pairs.filter((p) => p.label === "same").length} "same" pairs`);
  for (const p of blockMiss) console.log(`    not blocked together: ${rawOf(p.a)} | ${rawOf(p.b)}`);
}

// ---------------------------------------------------------------------------------------------------------
// Synthetic population

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Family names for the synthetic population only: Arabic spelling and a few Latin ones.
const FAMILIES: [string, string[]][] = (
  [
    "الخطيب|Khatib Al-Khatib Alkhatib El_Khatib", "الحموي|Hamwi Al-Hamwi Hamoui", "الحلبي|Halabi Al-Halabi", "المصري|Masri Al-Masri",
    "الشامي|Shami Chami Al-Shami", "الزعبي|Zoubi Al-Zoubi Al-Zu'bi", "الحسن|Hasan Al-Hassan", "العلي|Al-Ali Ali", "الأحمد|Al-Ahmad Ahmad",
    "المحمد|Al-Mohammad Mohammad", "العمر|Al-Omar Omar", "الجاسم|Jasem Al-Jassem", "القاسم|Kassem Al-Qasim", "الحسين|Al-Hussein Hussein",
    "الكردي|Kurdi Al-Kurdi", "الجندي|Jundi Al-Jundi", "الحداد|Haddad Al-Haddad", "النجار|Najjar Al-Najjar", "العطار|Attar Al-Attar",
    "الحلاق|Hallak Hallaq", "البيطار|Bitar Al-Bitar", "الخوري|Khoury Khouri", "درويش|Darwish Darwiche", "حمدان|Hamdan",
    "الشيخ|Sheikh Al-Sheikh", "السيد|Sayed Al-Sayed", "الرفاعي|Rifai Al-Rifai", "الأيوبي|Ayoubi Al-Ayoubi", "الأتاسي|Atassi Al-Atasi",
    "القدسي|Kudsi Qudsi", "السعدي|Saadi Al-Saadi", "الحمصي|Homsi Al-Homsi", "الإدلبي|Idlibi Al-Idlibi", "الحوراني|Hourani Horani",
    "الحريري|Hariri Al-Hariri", "الصالح|Saleh Al-Saleh", "الحمود|Hamoud Al-Hammoud", "الأسعد|Asaad Al-Asaad", "الخليل|Khalil Al-Khalil",
    "الموسى|Al-Moussa Mousa", "العيسى|Al-Issa Issa", "اليوسف|Al-Yousef Yousef", "النعسان|Naasan Al-Nasan", "السباعي|Sibai Sebaei",
    "الكيلاني|Kilani Kaylani", "الشهابي|Shehabi Shihabi", "البرازي|Barazi Al-Barazi", "العظمة|Azmeh Al-Azma", "القباني|Kabbani Qabbani",
    "الملا|Mulla Al-Molla", "الطحان|Tahhan Al-Tahan", "الصباغ|Sabbagh Al-Sabbagh", "الدباغ|Dabbagh Al-Dabbagh", "شحادة|Shehadeh Chehade",
    "نصر|Nasr", "ناصر|Nasser", "مخلوف|Makhlouf", "العباس|Abbas Al-Abbas", "الحكيم|Hakim Al-Hakim", "الطويل|Tawil Al-Taweel",
    "الأسود|Aswad Al-Aswad", "البني|Bunni Al-Bunni", "الفارس|Fares Al-Fares", "الحجي|Hajji Al-Hajji", "المعلم|Moallem Muallem",
    "الشعار|Shaar Al-Shaar", "الزين|Zein Al-Zein", "الدرة|Al-Durra Dorra", "الخضر|Khodr Al-Khidr",
  ] as const
).map((l) => {
  const [ar, lat] = l.split("|") as [string, string];
  return [ar, lat.split(" ").map((x) => x.replace(/_/g, " "))];
});

interface Person {
  sex: "m" | "f";
  given: number;
  father: number;
  grandfather: number;
  family: number;
}

const MALE = GIVEN_NAMES.map((g, i) => (g.sex !== "f" ? i : -1)).filter((i) => i >= 0);
const FEMALE = GIVEN_NAMES.map((g, i) => (g.sex !== "m" ? i : -1)).filter((i) => i >= 0);

function weightedPick(r: () => number, ids: number[]): number {
  // common names are several times as frequent, as they are in Syria
  const w = ids.map((i) => (GIVEN_NAMES[i]?.common ? 8 : 1));
  let x = r() * w.reduce((a, b) => a + b, 0);
  for (let k = 0; k < ids.length; k++) {
    x -= w[k] as number;
    if (x <= 0) return ids[k] as number;
  }
  return ids[ids.length - 1] as number;
}

function randomPerson(r: () => number): Person {
  const sex = r() < 0.9 ? "m" : "f";
  return {
    sex,
    given: weightedPick(r, sex === "m" ? MALE : FEMALE),
    father: weightedPick(r, MALE),
    grandfather: weightedPick(r, MALE),
    family: Math.floor(r() * FAMILIES.length),
  };
}

function arabicVariant(r: () => number, s: string): string {
  let out = s;
  if (r() < 0.4) out = out.replace(/[أإآ]/g, "ا");
  if (r() < 0.3) out = out.replace(/ة$/, "ه");
  if (r() < 0.3) out = out.replace(/ى$/, "ي");
  if (r() < 0.3) out = out.replace(/^عبد(?=ال)/, "عبد ");
  return out;
}

function render(r: () => number, p: Person, parts: number, script: "ar" | "lat"): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
  const given = (i: number): string => {
    const g = GIVEN_NAMES[i];
    if (!g) return "";
    return script === "ar" ? arabicVariant(r, pick(g.ar)) : capital(pick(g.lat));
  };
  const fam = FAMILIES[p.family] as [string, string[]];
  const family = script === "ar" ? (r() < 0.2 ? fam[0].replace(/^ال/, "") : fam[0]) : pick(fam[1]);
  const chain = [given(p.given), given(p.father), given(p.grandfather)].slice(0, parts - 1);
  return [...chain, family].join(" ");
}

const capital = (s: string): string => s.replace(/(^|[\s-])(\p{L})/gu, (_m, a: string, b: string) => a + b.toUpperCase());

function populationSection(reports: number, bodies: number): void {
  const r = rng(20140120);
  const bodyPeople: Person[] = [];
  const bodyNames: string[] = [];
  for (let i = 0; i < bodies; i++) {
    const p = randomPerson(r);
    bodyPeople.push(p);
    const parts = r() < 0.25 ? 2 : r() < 0.8 ? 3 : 4;
    bodyNames.push(render(r, p, parts, r() < 0.7 ? "ar" : "lat"));
  }
  // 8,000 reports describe a body's person, the rest people who are not among the bodies
  const truth = new Map<number, number>();
  const reportPeople: Person[] = [];
  const reportNames: string[] = [];
  for (let i = 0; i < reports; i++) {
    let p: Person;
    if (i < 8000 && i < bodies) {
      p = bodyPeople[i] as Person;
      truth.set(i, i);
    } else p = randomPerson(r);
    reportPeople.push(p);
    reportNames.push(render(r, p, r() < 0.5 ? 4 : 3, r() < 0.6 ? "ar" : "lat"));
  }

  console.log(`\nsynthetic population: ${reports.toLocaleString("en")} reports × ${bodies.toLocaleString("en")} bodies (${FAMILIES.length} family names, ${GIVEN_NAMES.length} given names)`);
  resetNameCaches();
  let t0 = performance.now();
  const pb = bodyNames.map((n) => prepareName(n));
  const pr = reportNames.map((n) => prepareName(n));
  const prepMs = performance.now() - t0;
  console.log(`  parse + analyse ${(bodies + reports).toLocaleString("en")} names: ${prepMs.toFixed(0)} ms (${Math.round(((bodies + reports) / prepMs) * 1000).toLocaleString("en")} names/s)`);

  t0 = performance.now();
  const index = new Map<string, number[]>();
  pb.forEach((p, i) => {
    for (const k of blockingKeys(p.slots)) {
      const l = index.get(k);
      if (l) l.push(i);
      else index.set(k, [i]);
    }
  });
  const candidates: [number, number][] = [];
  pr.forEach((p, i) => {
    const seen = new Set<number>();
    for (const k of blockingKeys(p.slots)) for (const b of index.get(k) ?? []) seen.add(b);
    for (const b of seen) candidates.push([i, b]);
  });
  const blockMs = performance.now() - t0;
  const full = reports * bodies;
  console.log(`  blocking: ${candidates.length.toLocaleString("en")} candidate pairs of ${full.toLocaleString("en")} (${((candidates.length / full) * 100).toFixed(2)}%), ${blockMs.toFixed(0)} ms`);
  const candidateSet = new Set(candidates.map(([a, b]) => a * bodies + b));
  const trueIn = [...truth].filter(([rep, body]) => candidateSet.has(rep * bodies + body)).length;
  if (process.env.BENCH_VERBOSE) {
    for (const [rep, body] of truth) if (!candidateSet.has(rep * bodies + body)) console.log(`    not blocked together: ${reportNames[rep]} | ${bodyNames[body]}`);
  }
  console.log(`  blocking recall on the ${truth.size.toLocaleString("en")} true report↔body pairs: ${(trueIn / truth.size).toFixed(4)}`);

  t0 = performance.now();
  const counts = { same: 0, different: 0, unsure: 0 };
  const onTruth = { same: 0, different: 0, unsure: 0 };
  let falseSame = 0;
  let namesakes = 0;
  for (const [i, b] of candidates) {
    const d = nameScore(pr[i] as PreparedName, pb[b] as PreparedName).decision;
    counts[d]++;
    if (truth.get(i) === b) {
      onTruth[d]++;
      if (d === "different" && process.env.BENCH_VERBOSE) console.log(`    true pair called different: ${reportNames[i]} | ${bodyNames[b]}`);
    } else if (d === "same") {
      const x = reportPeople[i] as Person;
      const y = bodyPeople[b] as Person;
      if (x.given === y.given && x.father === y.father && x.family === y.family) namesakes++;
      else {
        falseSame++;
        if (process.env.BENCH_VERBOSE) console.log(`    wrong pair called same: ${reportNames[i]} | ${bodyNames[b]}`);
      }
    }
  }
  const cmpMs = performance.now() - t0;
  const rate = (candidates.length / cmpMs) * 1000;
  console.log(`  compare all candidates: ${cmpMs.toFixed(0)} ms, ${Math.round(rate).toLocaleString("en")} pairs/s (cold caches: every token pair compared once)`);
  t0 = performance.now();
  for (const [i, b] of candidates) nameScore(pr[i] as PreparedName, pb[b] as PreparedName);
  const warmMs = performance.now() - t0;
  const warm = (candidates.length / warmMs) * 1000;
  console.log(`  again, caches warm:     ${warmMs.toFixed(0)} ms, ${Math.round(warm).toLocaleString("en")} pairs/s`);
  t0 = performance.now();
  const sample = candidates.slice(0, 20_000);
  for (const [i, b] of sample) nameSimilarity(pr[i] as PreparedName, pb[b] as PreparedName);
  const fullMs = performance.now() - t0;
  console.log(`  with slot accounts and sentences (nameSimilarity), warm: ${Math.round((sample.length / fullMs) * 1000).toLocaleString("en")} pairs/s`);
  t0 = performance.now();
  const nb = bodyNames.map((n) => normaliseArabic(n));
  const nr = reportNames.map((n) => normaliseArabic(n));
  let sink = 0;
  for (const [i, b] of candidates) sink += jaroWinkler(nr[i] as string, nb[b] as string);
  const jwMs = performance.now() - t0;
  const jwRate = (candidates.length / jwMs) * 1000;
  if (Number.isNaN(sink)) console.log("  (unreachable: keeps the baseline loop from being optimised away)");
  console.log(`  baseline whole-name Jaro-Winkler on the same pairs: ${Math.round(jwRate).toLocaleString("en")} pairs/s   ratio ${(rate / jwRate).toFixed(2)}× (cold), ${(warm / jwRate).toFixed(2)}× (warm)`);
  console.log(`  decisions on candidates: ${JSON.stringify(counts)}; on true pairs: ${JSON.stringify(onTruth)}`);
  console.log(`  "same" on a wrong pair: ${falseSame} with different names, ${namesakes} namesakes (same given, father and family: names cannot tell them apart)`);
  console.log(`  without blocking, all ${full.toLocaleString("en")} pairs at the cold rate would take ${(full / rate / 60).toFixed(1)} min; with blocking ${(candidates.length / rate).toFixed(1)} s`);
}

export function runNamesBench(): void {
  if (!process.env.BENCH_SKIP_PAIRS) decisionsSection(loadPairs());
  if (!process.env.BENCH_SKIP_POPULATION) populationSection(20_000, 11_000);
}

if (import.meta.url === `file://${process.argv[1]}`) runNamesBench();
