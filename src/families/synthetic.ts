import { parseFuzzyDate } from "../catalogue/index.ts";
import { blockingKeys, parseNameChain, prepareName } from "../names/index.ts";
import { parseBirthDate, type ReportInput } from "./reports.ts";
import { keysOf, type BodyFeatures, type DnaFinding, type ReportFeatures } from "./scoring.ts";
import { FIELD_RATES } from "./llr.ts";

/**
 * Synthetic families' reports against a synthetic catalogue, with the ground truth and the noise real reports
 * carry: spelling variants in both scripts, a wrong or missing branch, approximate dates, marks the family does
 * not know of, and people who are not in the catalogue at all. Every value is invented; nothing here is real.
 * The rates the scoring model also assumes (branch certainty and correctness, arrest dates off by weeks, marks
 * reported, misplaced or invented, the gap from arrest to photograph) are read from FIELD_RATES in llr.ts;
 * docs/families-matching.md lists them all.
 */

export interface SyntheticBody {
  key: string;
  sex: "male" | "female";
  ageMin: number;
  ageMax: number;
  photoDate: string;
  branch: string;
  detaineeNo: string;
  marks: { type: string; region: string | null; description: string }[];
  nameAr: string | null;
  nameLat: string | null;
  /** Detainee numbers from documents, besides the card's (bodiesWithEvidence). */
  documentNumbers?: string[];
}

export interface SyntheticReport {
  input: ReportInput & { ref: string };
  /** The body this report is about, or null when the person is not in the catalogue. */
  truth: string | null;
  /** The missing person ("P-…"): reports with the same key are duplicates, filed by different relatives. */
  person: string;
  /** For a duplicate: the ref of the first report about the same person. */
  duplicateOf?: string;
}

type Name = { ar: string[]; lat: string[] };
const MALE: Name[] = [
  { ar: ["محمد"], lat: ["Mohammad", "Muhammad", "Mohamed", "Mohammed"] },
  { ar: ["أحمد", "احمد"], lat: ["Ahmad", "Ahmed"] },
  { ar: ["علي"], lat: ["Ali"] },
  { ar: ["حسن"], lat: ["Hasan", "Hassan"] },
  { ar: ["حسين"], lat: ["Hussein", "Husain", "Hussain"] },
  { ar: ["خالد"], lat: ["Khaled", "Khalid"] },
  { ar: ["عمر"], lat: ["Omar", "Umar"] },
  { ar: ["يوسف"], lat: ["Yousef", "Yusuf", "Youssef"] },
  { ar: ["إبراهيم", "ابراهيم"], lat: ["Ibrahim", "Ebrahim"] },
  { ar: ["عبد الله", "عبدالله"], lat: ["Abdullah", "Abdallah", "Abd Allah"] },
  { ar: ["عبد الرحمن", "عبدالرحمن"], lat: ["Abdulrahman", "Abd al-Rahman", "Abdelrahman"] },
  { ar: ["مصطفى", "مصطفي"], lat: ["Mustafa", "Moustafa", "Mostafa"] },
  { ar: ["محمود"], lat: ["Mahmoud", "Mahmud"] },
  { ar: ["سامر"], lat: ["Samer"] }, // not Samir: that is سمير, another name
  { ar: ["فادي"], lat: ["Fadi"] },
  { ar: ["ياسر"], lat: ["Yasser", "Yasir"] },
  { ar: ["رامي"], lat: ["Rami", "Ramy"] },
  { ar: ["بلال"], lat: ["Bilal", "Belal"] },
  { ar: ["زياد"], lat: ["Ziad", "Ziyad"] },
  { ar: ["طارق"], lat: ["Tareq", "Tariq", "Tarek"] },
  { ar: ["وائل"], lat: ["Wael", "Wa'il"] },
  { ar: ["ماهر"], lat: ["Maher"] },
  { ar: ["نزار"], lat: ["Nizar", "Nezar"] },
  { ar: ["غسان"], lat: ["Ghassan"] },
  { ar: ["هيثم"], lat: ["Haitham", "Haytham"] },
  { ar: ["سليمان"], lat: ["Suleiman", "Sulayman", "Sleiman"] },
  { ar: ["جمال"], lat: ["Jamal", "Gamal"] },
  { ar: ["كريم"], lat: ["Karim", "Kareem"] },
  { ar: ["عادل"], lat: ["Adel", "Adil"] },
  { ar: ["صالح"], lat: ["Saleh", "Salih"] },
  { ar: ["أنس", "انس"], lat: ["Anas"] },
  { ar: ["مازن"], lat: ["Mazen", "Mazin"] },
  { ar: ["باسل"], lat: ["Basel", "Basil"] },
  { ar: ["عماد"], lat: ["Imad", "Emad"] },
  { ar: ["نبيل"], lat: ["Nabil", "Nabeel"] },
];
const FEMALE: Name[] = [
  { ar: ["فاطمة", "فاطمه"], lat: ["Fatima", "Fatma"] },
  { ar: ["مريم"], lat: ["Maryam", "Mariam"] },
  { ar: ["زينب"], lat: ["Zainab", "Zeinab"] },
  { ar: ["نور"], lat: ["Nour", "Noor"] },
  { ar: ["رنا"], lat: ["Rana"] },
  { ar: ["هدى", "هدي"], lat: ["Huda", "Hoda"] },
  { ar: ["سارة", "ساره"], lat: ["Sara", "Sarah"] },
];
const FAMILY: Name[] = [
  { ar: ["الحلبي"], lat: ["al-Halabi", "Halabi", "Al Halabi"] },
  { ar: ["الخطيب"], lat: ["al-Khatib", "Khatib", "El Khatib"] },
  { ar: ["المصري"], lat: ["al-Masri", "Masri", "El-Masri"] },
  { ar: ["الشامي"], lat: ["al-Shami", "Shami"] },
  { ar: ["حداد"], lat: ["Haddad"] },
  { ar: ["النجار"], lat: ["al-Najjar", "Najjar"] },
  { ar: ["الحمصي"], lat: ["al-Homsi", "Homsi"] },
  { ar: ["الزعبي"], lat: ["al-Zoubi", "Zoubi", "Al-Zuabi"] },
  { ar: ["قاسم"], lat: ["Qasim", "Kassem", "Kassim"] },
  { ar: ["العبدالله", "العبد الله"], lat: ["al-Abdullah", "Abdallah"] },
  { ar: ["الأسعد", "الاسعد"], lat: ["al-Asaad", "Asad"] },
  { ar: ["درويش"], lat: ["Darwish", "Darweesh"] },
  { ar: ["الرفاعي"], lat: ["al-Rifai", "Rifai", "Al-Refaai"] },
  { ar: ["السيد"], lat: ["al-Sayed", "Sayed", "El Sayyed"] },
  { ar: ["عثمان"], lat: ["Othman", "Uthman", "Osman"] },
  { ar: ["الحسن"], lat: ["al-Hasan", "Hassan"] },
  { ar: ["الأحمد", "الاحمد"], lat: ["al-Ahmad", "Alahmad"] },
  { ar: ["المحمد"], lat: ["al-Mohammad", "Almohammad"] },
  { ar: ["شحادة", "شحاده"], lat: ["Shehadeh", "Shihada"] },
  { ar: ["ادلبي", "إدلبي"], lat: ["Idlibi", "Edlebi"] },
  { ar: ["الدروبي"], lat: ["al-Droubi", "Droubi"] },
  { ar: ["بكور"], lat: ["Bakkour", "Bakour"] },
  { ar: ["حمدان"], lat: ["Hamdan"] },
  { ar: ["خليل"], lat: ["Khalil", "Khaleel"] },
  { ar: ["سلامة", "سلامه"], lat: ["Salameh", "Salama"] },
  { ar: ["يونس"], lat: ["Younes", "Yunus"] },
  { ar: ["عيسى", "عيسي"], lat: ["Issa", "Eissa"] },
  { ar: ["الجاسم"], lat: ["al-Jasem", "Jassem"] },
  { ar: ["العمر"], lat: ["al-Omar", "Alomar"] },
  { ar: ["كيالي"], lat: ["Kayyali", "Kayali"] },
];
const BRANCHES = ["215", "227", "235", "248", "251", "216", "220", "291"];
const BRANCH_WEIGHTS = [0.3, 0.2, 0.15, 0.1, 0.08, 0.07, 0.05, 0.05];
const MARK_TYPES = ["scar", "tattoo", "mole", "birthmark", "missing_tooth", "dental_work", "old_fracture"];
const REGIONS = ["head", "face", "neck", "chest", "abdomen", "back", "arm_left", "arm_right", "hand_left", "hand_right", "leg_left", "leg_right", "foot_left", "foot_right"];
/** The region a family may give for a mark they remember in the wrong place: the other side, or the hand for the arm. */
function mirrored(region: string | null): string | null {
  if (!region) return null;
  if (region.endsWith("_left")) return region.replace("_left", "_right");
  if (region.endsWith("_right")) return region.replace("_right", "_left");
  return ({ head: "face", face: "head", neck: "chest", chest: "abdomen", abdomen: "chest", back: "neck" } as Record<string, string>)[region] ?? region;
}
const GOVERNORATES = ["SY-DI", "SY-RD", "SY-HL", "SY-HI", "SY-HM", "SY-DR", "SY-ID"];

/** mulberry32: small, fast, reproducible from a seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Person {
  sex: "male" | "female";
  given: Name;
  father: Name;
  grandfather: Name;
  family: Name;
  mother: Name;
  birthYear: number;
}

const iso = (d: Date): string => d.toISOString().slice(0, 10);

export interface SyntheticOptions {
  bodies: number;
  reports: number;
  /** Share of reports about people who are not in the catalogue. */
  absent?: number;
  /** Share of bodies named in a document. */
  named?: number;
  seed?: number;
  /**
   * Share of reports about whom another relative files a second report (and a fifth of those a third): another
   * spelling or script of the name, a birth year a year or two off, the arrest date as that relative remembers it.
   * Drawn from its own random stream after the others, so the reports without duplicates are unchanged.
   */
  duplicates?: number;
  /** Evidence beyond the base catalogue (`SyntheticEvidence`), for the benchmark's before and after. */
  evidence?: EvidenceOptions;
}

/**
 * The new kinds of evidence, drawn from their own random stream after the bodies and reports (so those are the
 * ones the same seed gives without them; the marks families report of the hidden ones are kept apart):
 * - hiddenMarks: the share of bodies with no recorded mark whose person had one or two marks the first reading of
 *   the photographs did not record (a family reports them as it reports any mark: FIELD_RATES.markReported);
 * - reviewMarks: the share of those bodies whose marks a forensic review records;
 * - documents: the share of bodies a register lists, with the detainee number and the name (in Arabic or Latin
 *   letters, spelled the register's way; `documentNoise` of them with a copying error);
 * - dna: the share of reports whose family gave a sample that was compared with one to three plausible wrong
 *   bodies (same sex, photographed within 300 days after the arrest): exclusions; and, for a report about someone
 *   in the catalogue, with the right body with `dnaTruth`: a match. `dnaInconclusive` of comparisons are
 *   inconclusive instead.
 */
export interface EvidenceOptions {
  hiddenMarks?: number;
  reviewMarks?: number;
  documents?: number;
  documentNoise?: number;
  dna?: number;
  dnaTruth?: number;
  dnaInconclusive?: number;
}

export interface SyntheticEvidence {
  /** By body key: the marks a review records (bodies that had none recorded). */
  reviewMarks: Map<string, SyntheticBody["marks"]>;
  /** By body key: what a register says of the body. */
  documents: Map<string, { detaineeNo: string; name: string; script: "ar" | "lat" }>;
  /** By report ref: the DNA comparisons of the family's sample with bodies. */
  dna: Map<string, DnaFinding[]>;
  /** By body key: the marks the person had that the base catalogue does not record (what a review could find). */
  hiddenMarks: Map<string, SyntheticBody["marks"]>;
  /** By report ref: those marks as the family reports them, besides the report's own (`reportWithEvidence`). */
  reportedMarks: Map<string, NonNullable<ReportInput["marks"]>>;
}

/** A report's input with the hidden marks its family reports: the reports the evidence runs rank. */
export function reportWithEvidence(input: SyntheticReport["input"], ev: SyntheticEvidence): SyntheticReport["input"] {
  const more = ev.reportedMarks.get(input.ref);
  return more ? { ...input, marks: [...(input.marks ?? []), ...more] } : input;
}

export function generateSynthetic(opts: SyntheticOptions): { bodies: SyntheticBody[]; reports: SyntheticReport[]; evidence?: SyntheticEvidence } {
  const rnd = prng(opts.seed ?? 1);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const weighted = <T>(xs: readonly T[], w: readonly number[]): T => {
    let x = rnd();
    for (let i = 0; i < xs.length; i++) {
      x -= w[i]!;
      if (x <= 0) return xs[i]!;
    }
    return xs[xs.length - 1]!;
  };
  const person = (): Person => {
    const sex = rnd() < 0.96 ? "male" : "female";
    return { sex, given: pick(sex === "male" ? MALE : FEMALE), father: pick(MALE), grandfather: pick(MALE), family: pick(FAMILY), mother: pick(FEMALE), birthYear: 1950 + Math.floor(rnd() * 45) };
  };
  const start = Date.UTC(2011, 4, 1);
  const span = Date.UTC(2013, 7, 31) - start;
  const people: Person[] = [];
  const arrests: Date[] = [];
  const bodies: SyntheticBody[] = [];
  for (let i = 0; i < opts.bodies; i++) {
    const p = person();
    const photo = new Date(start + rnd() * span);
    const gapDays = Math.min(900, Math.floor(-Math.log(1 - rnd()) * FIELD_RATES.gapMeanDays));
    const arrest = new Date(photo.getTime() - gapDays * 86_400_000);
    const age = photo.getUTCFullYear() - p.birthYear;
    const centre = age + Math.round((rnd() - 0.5) * 6);
    const marks: SyntheticBody["marks"] = [];
    const nMarks = rnd() < 0.55 ? 1 + (rnd() < 0.35 ? 1 : 0) : 0;
    for (let k = 0; k < nMarks; k++) marks.push({ type: pick(MARK_TYPES), region: pick(REGIONS), description: "synthetic" });
    const named = rnd() < (opts.named ?? 0.2);
    const script = rnd() < 0.7 ? "ar" : "lat";
    bodies.push({
      key: `SB-${String(i + 1).padStart(6, "0")}`,
      sex: p.sex,
      ageMin: Math.max(12, centre - 5),
      ageMax: centre + 5,
      photoDate: iso(photo),
      branch: weighted(BRANCHES, BRANCH_WEIGHTS),
      detaineeNo: String(1 + Math.floor(rnd() * 9999)),
      marks,
      nameAr: named && script === "ar" ? `${pick(p.given.ar)} ${pick(p.father.ar)} ${pick(p.family.ar)}` : null,
      nameLat: named && script === "lat" ? `${pick(p.given.lat)} ${pick(p.father.lat)} ${pick(p.family.lat)}` : null,
    });
    people.push(p);
    arrests.push(arrest);
  }
  const arVariant = (s: string): string => {
    let t = s;
    if (rnd() < 0.2) t = t.replace(/ة/g, "ه");
    if (rnd() < 0.2) t = t.replace(/[أإ]/g, "ا");
    if (rnd() < 0.1) t = t.replace(/ى/g, "ي");
    if (rnd() < 0.05) t = t.replace(/(.)$/, "ـ$1");
    return t;
  };
  const reports: SyntheticReport[] = [];
  const order = Array.from({ length: opts.bodies }, (_, i) => i);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  let next = 0;
  const persons: Person[] = [];
  const arrestOf: Date[] = [];
  for (let r = 0; r < opts.reports; r++) {
    const absent = rnd() < (opts.absent ?? 0.3) || next >= order.length;
    const idx = absent ? -1 : order[next++]!;
    const p = absent ? person() : people[idx]!;
    const body = absent ? null : bodies[idx]!;
    const arrest = absent ? new Date(start + rnd() * span - rnd() * 150 * 86_400_000) : arrests[idx]!;
    const hasAr = rnd() < 0.85;
    const hasLat = !hasAr || rnd() < 0.5;
    const chain = (pickName: (n: Name) => string) =>
      [pickName(p.given), pickName(p.father), rnd() < 0.4 ? pickName(p.grandfather) : null, pickName(p.family)].filter(Boolean).join(" ");
    const input: SyntheticReport["input"] = { ref: `FR-${String(r + 1).padStart(6, "0")}`, sex: p.sex };
    if (hasAr) input.nameAr = arVariant(chain((n) => pick(n.ar)));
    if (hasLat) input.nameLat = chain((n) => pick(n.lat));
    if (rnd() < 0.5) input.motherName = hasAr ? pick(p.mother.ar) : pick(p.mother.lat);
    const by = p.birthYear + (rnd() < 0.7 ? 0 : Math.round((rnd() - 0.5) * 4));
    input.birthDate = rnd() < 0.15 ? `~${by}` : String(by);
    const prec = rnd();
    const off = Math.round(FIELD_RATES.arrestOffDays * (0.3 + 0.7 * rnd()));
    const shifted = rnd() < FIELD_RATES.arrestOffShare ? new Date(arrest.getTime() + (rnd() < 0.5 ? -1 : 1) * off * 86_400_000) : arrest;
    input.arrestDate = prec < 0.4 ? iso(shifted) : prec < 0.85 ? iso(shifted).slice(0, 7) : iso(shifted).slice(0, 4);
    input.arrestGovernorate = pick(GOVERNORATES);
    // how sure a family says it is and how often it is right, as FIELD_RATES says (a fifth of named branches wrong)
    const trueBranch = body?.branch ?? weighted(BRANCHES, BRANCH_WEIGHTS);
    if (rnd() < FIELD_RATES.branchGiven) {
      const sure = FIELD_RATES.certaintyShare;
      const certainty = weighted(["certain", "probable", "rumoured"] as const, [sure.certain, sure.probable, sure.rumoured]);
      input.branchCertainty = certainty;
      input.branch = rnd() < FIELD_RATES.branchRight[certainty] ? trueBranch : pick(BRANCHES.filter((x) => x !== trueBranch));
    } else input.branch = null;
    const marks: NonNullable<ReportInput["marks"]> = [];
    for (const m of body?.marks ?? []) {
      if (rnd() >= FIELD_RATES.markReported) continue;
      const region = rnd() < FIELD_RATES.markRegionKnown ? (rnd() < FIELD_RATES.markMisplaced ? mirrored(m.region) : m.region) : null;
      marks.push({ type: m.type, region, description: "reported by the family" });
    }
    if (rnd() < (body ? FIELD_RATES.markInvented : 0.4)) marks.push({ type: pick(MARK_TYPES), region: pick(REGIONS), description: "reported by the family" });
    input.marks = marks;
    if (body && rnd() < 0.05) input.numbers = [{ role: "detainee", value: body.detaineeNo }];
    input.reporterRelationship = pick(["mother", "father", "wife", "brother", "sister", "son", "daughter"]);
    reports.push({ input, truth: body?.key ?? null, person: `P-${String(r + 1).padStart(6, "0")}` });
    persons.push(p);
    arrestOf.push(arrest);
  }
  const evidence = opts.evidence ? newEvidence(bodies, people, reports, arrestOf, opts.evidence, opts.seed ?? 1) : undefined;
  if (opts.duplicates) reports.push(...duplicateReports(reports, persons, arrestOf, opts.duplicates, opts.seed ?? 1));
  return { bodies, reports, ...(evidence ? { evidence } : {}) };
}

const DAY_MS = 86_400_000;

/** See EvidenceOptions. The reports are left as they are: the marks their families report of the hidden ones are apart. */
function newEvidence(bodies: readonly SyntheticBody[], people: readonly Person[], reports: readonly SyntheticReport[], arrests: readonly Date[], o: EvidenceOptions, seed: number): SyntheticEvidence {
  const rnd = prng(seed * 104_729 + 7);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const ev: SyntheticEvidence = { reviewMarks: new Map(), documents: new Map(), dna: new Map(), hiddenMarks: new Map(), reportedMarks: new Map() };
  const index = new Map(bodies.map((b, i) => [b.key, i]));

  bodies.forEach((b) => {
    if (b.marks.length > 0 || rnd() >= (o.hiddenMarks ?? 0)) return;
    const n = 1 + (rnd() < 0.35 ? 1 : 0);
    const marks = Array.from({ length: n }, () => ({ type: pick(MARK_TYPES), region: pick(REGIONS) as string | null, description: "synthetic" }));
    ev.hiddenMarks.set(b.key, marks);
    if (rnd() < (o.reviewMarks ?? 0)) ev.reviewMarks.set(b.key, marks.map((m) => ({ ...m, description: "recorded in review" })));
  });
  for (const r of reports) {
    const hidden = r.truth ? ev.hiddenMarks.get(r.truth) : undefined;
    for (const m of hidden ?? []) {
      if (rnd() >= FIELD_RATES.markReported) continue;
      const region = rnd() < FIELD_RATES.markRegionKnown ? (rnd() < FIELD_RATES.markMisplaced ? mirrored(m.region) : m.region) : null;
      ev.reportedMarks.set(r.input.ref, [...(ev.reportedMarks.get(r.input.ref) ?? []), { type: m.type, region, description: "reported by the family" }]);
    }
  }

  const misspelt = (s: string): string => {
    // a copying error: a letter dropped from the longest word
    const words = s.split(" ");
    const k = words.reduce((best, w, i) => (w.length > words[best]!.length ? i : best), 0);
    const w = words[k]!;
    const at = 1 + Math.floor(rnd() * Math.max(1, w.length - 2));
    words[k] = w.slice(0, at) + w.slice(at + 1);
    return words.join(" ");
  };
  bodies.forEach((b, i) => {
    if (rnd() >= (o.documents ?? 0)) return;
    const p = people[i]!;
    const script = rnd() < 0.7 ? "ar" : "lat";
    const name = script === "ar" ? `${pick(p.given.ar)} ${pick(p.father.ar)} ${pick(p.family.ar)}` : `${pick(p.given.lat)} ${pick(p.father.lat)} ${pick(p.family.lat)}`;
    ev.documents.set(b.key, { detaineeNo: b.detaineeNo, name: rnd() < (o.documentNoise ?? 0) ? misspelt(name) : name, script });
  });

  if (o.dna) {
    // bodies by sex, by the day they were photographed: the plausible ones for an arrest are a window of these
    const bySex = new Map<string, { day: number; key: string }[]>();
    for (const b of bodies) {
      const l = bySex.get(b.sex) ?? [];
      l.push({ day: Date.parse(b.photoDate) / DAY_MS, key: b.key });
      bySex.set(b.sex, l);
    }
    for (const l of bySex.values()) l.sort((a, b) => a.day - b.day);
    const firstAfter = (l: readonly { day: number }[], day: number): number => {
      let lo = 0;
      let hi = l.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (l[mid]!.day < day) lo = mid + 1;
        else hi = mid;
      }
      return lo;
    };
    const outcome = (o2: "match" | "exclusion"): DnaFinding["outcome"] => (rnd() < (o.dnaInconclusive ?? 0) ? "inconclusive" : o2);
    const on = (): string => iso(new Date(Date.UTC(2025, 0, 1) + Math.floor(rnd() * 365) * DAY_MS));
    reports.forEach((r, k) => {
      if (rnd() >= o.dna!) return;
      const findings: DnaFinding[] = [];
      const sex = r.input.sex ?? "male";
      const l = bySex.get(sex) ?? [];
      const day = arrests[k]!.getTime() / DAY_MS;
      const from = firstAfter(l, day);
      const to = firstAfter(l, day + 300);
      const wrong = 1 + Math.floor(rnd() * 3);
      for (let w = 0; w < wrong && to > from; w++) {
        const key = l[from + Math.floor(rnd() * (to - from))]!.key;
        if (key === r.truth || findings.some((f) => f.bodyId === key)) continue;
        findings.push({ bodyId: key, outcome: outcome("exclusion"), on: on() });
      }
      if (r.truth && index.has(r.truth) && rnd() < (o.dnaTruth ?? 0.5)) findings.push({ bodyId: r.truth, outcome: outcome("match"), on: on() });
      if (findings.length) ev.dna.set(r.input.ref, findings);
    });
  }
  return ev;
}

/**
 * The bodies as the catalogue holds them once the chosen evidence is added: the marks a review recorded, and
 * what registers say (a name for a body that had none; the number when the card's differs), as `bodyFeatures`
 * would read them from a stored body.
 */
export function bodiesWithEvidence(bodies: readonly SyntheticBody[], ev: SyntheticEvidence, kinds: { review?: boolean; documents?: boolean }): SyntheticBody[] {
  return bodies.map((b) => {
    const marks = kinds.review ? ev.reviewMarks.get(b.key) : undefined;
    const doc = kinds.documents ? ev.documents.get(b.key) : undefined;
    if (!marks && !doc) return b;
    const out: SyntheticBody = { ...b, ...(marks ? { marks: [...b.marks, ...marks] } : {}) };
    if (doc && !b.nameAr && !b.nameLat) {
      if (doc.script === "ar") out.nameAr = doc.name;
      else out.nameLat = doc.name;
    }
    if (doc && doc.detaineeNo !== b.detaineeNo) out.documentNumbers = [doc.detaineeNo];
    return out;
  });
}

const RELATIONSHIPS = ["mother", "father", "wife", "brother", "sister", "son", "daughter", "cousin", "uncle"];

/** Second (and third) reports about the same people, by other relatives; see SyntheticOptions.duplicates. */
function duplicateReports(firsts: readonly SyntheticReport[], persons: readonly Person[], arrests: readonly Date[], share: number, seed: number): SyntheticReport[] {
  const rnd = prng(seed * 7919 + 101);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const out: SyntheticReport[] = [];
  const n = firsts.length;
  firsts.forEach((first, k) => {
    if (rnd() >= share) return;
    const copies = rnd() < 0.2 ? 2 : 1;
    for (let c = 0; c < copies; c++) {
      const p = persons[k]!;
      // a relative abroad often writes the name in Latin letters only; one at home in Arabic, spelled their way
      const hasAr = rnd() < 0.6;
      const hasLat = !hasAr || rnd() < 0.4;
      const chain = (pickName: (n: Name) => string) =>
        [pickName(p.given), pickName(p.father), rnd() < 0.4 ? pickName(p.grandfather) : null, pickName(p.family)].filter(Boolean).join(" ");
      const input: SyntheticReport["input"] = { ref: `FR-${String(n + out.length + 1).padStart(6, "0")}`, sex: p.sex };
      if (hasAr) input.nameAr = chain((x) => pick(x.ar));
      if (hasLat) input.nameLat = chain((x) => pick(x.lat));
      if (rnd() < 0.5) input.motherName = hasAr ? pick(p.mother.ar) : pick(p.mother.lat);
      const by = p.birthYear + (rnd() < 0.6 ? 0 : rnd() < 0.5 ? -1 : 1) * (rnd() < 0.7 ? 1 : 2);
      if (rnd() < 0.9) input.birthDate = rnd() < 0.25 ? `~${by}` : String(by);
      const arrest = new Date(arrests[k]!.getTime() + Math.round((rnd() - 0.5) * 40) * 86_400_000);
      const prec = rnd();
      if (rnd() < 0.9) input.arrestDate = prec < 0.3 ? iso(arrest) : prec < 0.8 ? iso(arrest).slice(0, 7) : iso(arrest).slice(0, 4);
      input.arrestGovernorate = rnd() < 0.7 ? (first.input.arrestGovernorate ?? null) : pick(GOVERNORATES);
      input.branch = rnd() < 0.5 ? (first.input.branch ?? null) : null;
      if (input.branch) input.branchCertainty = first.input.branchCertainty ?? "probable";
      input.marks = rnd() < 0.5 ? (first.input.marks ?? []) : [];
      input.reporterRelationship = pick(RELATIONSHIPS.filter((x) => x !== first.input.reporterRelationship));
      out.push({ input, truth: first.truth, person: first.person, duplicateOf: first.input.ref });
    }
  });
  return out;
}

/** Pairs of refs ("a|b", a < b) that are the same person: what a duplicate scan should propose. */
export function duplicatePairs(reports: readonly SyntheticReport[]): Set<string> {
  const byPerson = new Map<string, string[]>();
  for (const r of reports) byPerson.set(r.person, [...(byPerson.get(r.person) ?? []), r.input.ref]);
  const out = new Set<string>();
  for (const refs of byPerson.values()) {
    for (let i = 0; i < refs.length; i++) for (let j = i + 1; j < refs.length; j++) out.add([refs[i]!, refs[j]!].sort().join("|"));
  }
  return out;
}

/** What matching sees of a synthetic body (the same features `bodyFeatures` reads from a stored one). */
export function syntheticBodyFeatures(b: SyntheticBody): BodyFeatures {
  const d = parseFuzzyDate(b.photoDate);
  const name = b.nameAr ?? b.nameLat;
  return {
    id: b.key,
    ref: b.key,
    sex: b.sex,
    ageMin: b.ageMin,
    ageMax: b.ageMax,
    photoEarliest: d?.earliest ?? null,
    photoLatest: d?.latest ?? null,
    branch: b.branch,
    marks: b.marks.map((m) => ({ type: m.type, region: m.region })),
    numbers: [{ role: "detainee", value: b.detaineeNo }, ...(b.documentNumbers ?? []).map((value) => ({ role: "detainee", value }))],
    name: name ? prepareName(name) : null,
    nameKeys: name ? blockingKeys(name) : [],
  };
}

/** What matching sees of a report input, without a database (the same parsing `reportColumns` does). */
export function syntheticReportFeatures(input: ReportInput): ReportFeatures {
  const birth = parseBirthDate(input.birthDate);
  const arrest = parseFuzzyDate(input.arrestDate);
  const father = input.fatherName ?? undefined;
  const mother = input.motherName ?? undefined;
  const opt = { ...(father ? { father } : {}), ...(mother ? { mother } : {}) };
  const names = [input.nameAr, input.nameLat].filter((n): n is string => !!n).map((n) => prepareName(parseNameChain(n, opt)));
  return {
    sex: input.sex ?? null,
    birthYear: birth ? Number(birth.date.slice(0, 4)) : null,
    birthApprox: birth?.precision === "approximate",
    arrestEarliest: arrest?.earliest ?? null,
    arrestLatest: arrest?.latest ?? null,
    branch: input.branch ?? null,
    branchCertainty: input.branch ? (input.branchCertainty ?? "probable") : null,
    marks: (input.marks ?? []).map((m) => ({ type: m.type, region: m.region })),
    numbers: input.numbers ?? [],
    names,
    nameKeys: keysOf(names),
  };
}
