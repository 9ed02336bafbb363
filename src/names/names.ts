/**
 * Arabic personal names: reading a name chain into slots, comparing two names slot by slot within and
 * across scripts, and saying in words why. A wrong "same" can send a family to the wrong body, so the
 * decision leans to "unsure" whenever the names alone cannot carry it; a caseworker decides.
 *
 * Comparison of one name (a token) with another, in order of trust:
 *   1. identical after normalisation (core/arabic: hamza, taa marbuta, alef maqsura, diacritics, tatweel…);
 *   2. the curated spelling table (name-data.ts): "Mohammad" and "محمد" are one name, "Mahmoud" is another;
 *   3. a weighted edit distance on the normalised forms (same script), where the edits spelling variants
 *      make (vowels, hamza seats, ث/ت, ظ/ض, doubled letters) are cheap and any other consonant change is
 *      dear; and across scripts the same on a consonant skeleton, checked against the vowels both write.
 * The skeleton maps Arabic letters and Latin letters/digraphs to shared consonant classes and drops vowels
 * (Arabic writes only long ones, Latin spellings disagree about all of them), ع and ء, the article ال/al-,
 * and a final h (ة/ه/ح are all written "h" or nothing): محمد, Mohammad, Muhammad, Mohamed → "mhmd". The
 * vowels are kept beside it, slot by slot, so that a long vowel or w/y one spelling writes and the other
 * contradicts separates names the skeleton merges (نايف "nf" is not Nawaf "nf").
 * Jaro-Winkler (exported, as the brief asked) is used only to find near spellings in the table: on whole
 * short names it rates Laith/Ghaith 0.82 and ليث/غيث 0.78, too close to real variants to decide on.
 *
 * Slots are scored as evidence (log-likelihood-like points: a match adds, a mismatch subtracts more, a
 * missing slot adds nothing), so the result can also feed the report↔body matcher as one feature.
 */
import { hasArabic, normaliseArabic } from "../core/arabic.ts";
import {
  ARTICLES_LAT,
  CONNECTORS_AR,
  CONNECTORS_LAT,
  GIVEN_NAMES,
  PREFIX_PARTICLES_AR,
  PREFIX_PARTICLES_LAT,
  SUFFIX_PARTICLES_AR,
  SUFFIX_PARTICLES_LAT,
  TITLES_AR,
  TITLES_LAT,
  type GivenName,
} from "./name-data.ts";

export type Slot = "given" | "father" | "grandfather" | "family" | "mother";
export type NameScript = "ar" | "lat" | "mixed" | "none";
export type NameDecision = "same" | "different" | "unsure";

/**
 * A name read into slots. Slot values keep the writer's spelling (titles removed, particles joined with a
 * space: "عبد الله", "Abd al-Rahman"); matching forms are derived from them, so this is what to store.
 */
export interface NameSlots {
  raw: string;
  script: NameScript;
  given?: string;
  father?: string;
  grandfather?: string;
  family?: string;
  mother?: string;
  /** Great-grandfather and further, nearest first. Kept, not compared. */
  ancestors: string[];
  /** Other names the person is known by (written in parentheses or quotes, or given separately). */
  aliases: string[];
  /** Titles that were removed from the front (الحاج, Dr …). */
  titles: string[];
  /** How the chain was read, in words, for anyone checking the parse. */
  notes: string[];
}

export interface ParseOptions {
  /** A father's name recorded in its own field (fills or overrides the father slot). */
  father?: string;
  /** A mother's name recorded in its own field. */
  mother?: string;
  /** A family name recorded in its own field (the whole chain is then given, father, grandfather…). */
  family?: string;
  aliases?: string[];
}

export interface SlotComparison {
  slot: string;
  a?: string;
  b?: string;
  /** 0..1 similarity of the two names in this slot (0 when not compared). */
  score: number;
  /** How the names were compared: identical, normalised, article, known, known-different, confusable, near-known, spelling, skeleton, initial, missing. */
  how: string;
  /** Evidence added (+) or removed (−) by this slot. */
  points: number;
  compared: boolean;
}

export interface NameSimilarity {
  /** 0..1 weighted similarity of the slots both names have (0 if none). */
  score: number;
  /** Sum of per-slot evidence; more positive = stronger agreement. Missing slots add nothing. */
  points: number;
  decision: NameDecision;
  slots: SlotComparison[];
  /** Sentences for a caseworker. */
  reasons: string[];
}

// ---------------------------------------------------------------------------------------------------------
// Jaro-Winkler

/** Jaro-Winkler similarity (prefix scale 0.1, prefix up to 4, boost only above 0.7 as Winkler defined it). */
export function jaroWinkler(a: string, b: string): number {
  if (a === b) return 1;
  const la = a.length;
  const lb = b.length;
  if (la === 0 || lb === 0) return 0;
  const range = Math.max(0, Math.floor(Math.max(la, lb) / 2) - 1);
  const ma = new Uint8Array(la);
  const mb = new Uint8Array(lb);
  let m = 0;
  for (let i = 0; i < la; i++) {
    const lo = Math.max(0, i - range);
    const hi = Math.min(lb - 1, i + range);
    const c = a.charCodeAt(i);
    for (let j = lo; j <= hi; j++) {
      if (mb[j] === 0 && b.charCodeAt(j) === c) {
        ma[i] = 1;
        mb[j] = 1;
        m++;
        break;
      }
    }
  }
  if (m === 0) return 0;
  let t = 0;
  let k = 0;
  for (let i = 0; i < la; i++) {
    if (ma[i] === 0) continue;
    while (mb[k] === 0) k++;
    if (a.charCodeAt(i) !== b.charCodeAt(k)) t++;
    k++;
  }
  const jaro = (m / la + m / lb + (m - t / 2) / m) / 3;
  if (jaro < 0.7) return jaro;
  let p = 0;
  while (p < 4 && p < la && p < lb && a.charCodeAt(p) === b.charCodeAt(p)) p++;
  return jaro + p * 0.1 * (1 - jaro);
}

// ---------------------------------------------------------------------------------------------------------
// Word classes for parsing

const norm = (s: string): string => normaliseArabic(s).replace(/\./g, "").trim();
const setOf = (xs: readonly string[]): Set<string> => new Set(xs.map(norm));
const TITLE = setOf([...TITLES_AR, ...TITLES_LAT]);
const PREFIX = setOf([...PREFIX_PARTICLES_AR, ...PREFIX_PARTICLES_LAT]);
const SUFFIX = setOf([...SUFFIX_PARTICLES_AR, ...SUFFIX_PARTICLES_LAT]);
const ARTICLE = setOf([...ARTICLES_LAT, "ال"]);
const CONNECTOR = setOf([...CONNECTORS_AR, ...CONNECTORS_LAT]);
const LATIN_ARTICLE_PART = new Set(ARTICLES_LAT);

type WordKind = "title" | "prefix" | "suffix" | "article" | "connector" | "word";
interface Word {
  text: string;
  kind: WordKind;
}

function wordKind(text: string): WordKind {
  const k = norm(text);
  if (TITLE.has(k)) return "title";
  if (CONNECTOR.has(k)) return "connector";
  if (PREFIX.has(k)) return "prefix";
  if (ARTICLE.has(k)) return "article";
  // "al-Din", "ed-Din", "el-Dine" are suffixes written with their article
  const unhyphen = k.replace(/^[a-z]{1,3}-/, "");
  if (SUFFIX.has(k) || (unhyphen !== k && SUFFIX.has(unhyphen))) return "suffix";
  return "word";
}

function cleanWord(w: string): string {
  // Keep letters, marks and the joiners people put inside names (hyphen, apostrophe), and the Arabizi digits
  // that stand for letters at the start of a Latin word (3omar, 7asan); trim the rest.
  return w.replace(/^(?:[^\p{L}\p{M}2357]|[2357](?![\p{L}'’]))+/u, "").replace(/[^\p{L}\p{M}'’ʿʾ]+$/u, "");
}

function splitWords(text: string): string[] {
  return text
    .split(/[\s/\\|_,،؛;:+]+/u)
    .map(cleanWord)
    .filter((w) => /\p{L}/u.test(w));
}

interface Unit {
  parts: string[];
  viaConnector: boolean;
}

function joinParticles(words: Word[]): Unit[] {
  const units: Unit[] = [];
  let pending = false;
  for (let i = 0; i < words.length; ) {
    const w = words[i] as Word;
    const next = words[i + 1];
    const last = units[units.length - 1];
    if (w.kind === "connector" && last && next) {
      pending = true;
      i++;
      continue;
    }
    if (w.kind === "suffix" && last && !pending) {
      last.parts.push(w.text);
      i++;
      continue;
    }
    if (w.kind === "article" && next) {
      if (next.kind === "suffix" && last && !pending) last.parts.push(w.text, next.text);
      else units.push({ parts: [w.text, next.text], viaConnector: pending });
      pending = false;
      i += 2;
      continue;
    }
    if ((w.kind === "prefix" || w.kind === "connector") && next) {
      const parts = [w.text, next.text];
      i += 2;
      const after = words[i];
      if (next.kind === "article" && after) {
        parts.push(after.text);
        i++;
      }
      units.push({ parts, viaConnector: pending });
      pending = false;
      continue;
    }
    units.push({ parts: [w.text], viaConnector: pending });
    pending = false;
    i++;
  }
  return units;
}

const unitText = (u: Unit): string => u.parts.join(" ");

function scriptOf(s: string): NameScript {
  const ar = hasArabic(s);
  const lat = /[A-Za-z\u00c0-\u024f]/.test(s);
  return ar && lat ? "mixed" : ar ? "ar" : lat ? "lat" : "none";
}

/**
 * Read a name chain into slots.
 * - Text in parentheses, brackets or quotes is an alias: "محمد أحمد (أبو خالد)".
 * - One comma means "family, rest": "KHATIB, Mohammad Ahmad", "الخطيب، محمد أحمد".
 * - Titles at the front are dropped (الحاج, الشيخ, الدكتور, الشهيد, Dr, Hajj, Sheikh, ranks…); the same word
 *   later in the chain is a name ("Omar Al-Sheikh").
 * - عبد/أبو/أم/ذو (Abd/Abdul/Abu/Umm…) join the next word, الدين/الله (Din/Allah…) join the previous one, and a
 *   Latin article written apart joins the next ("Nour al Din", "Abd el Kader").
 * - بن/ابن/بنت (bin/ibn/bint) are dropped; the name after them is the previous one's father.
 * - Then by position: the first name is the given name; with two or more names the last is the family name,
 *   unless it came after بن/bin (then it is a father or grandfather); the names between are father,
 *   grandfather, then further ancestors. So "محمد أحمد" is given + family: the comparison also tries reading
 *   that second name as the father's, and Syrian double given names ("محمد سعيد") are read as given + father
 *   on both sides alike.
 */
export function parseNameChain(raw: string, opts: ParseOptions = {}): NameSlots {
  const notes: string[] = [];
  const aliases: string[] = [];
  let text = raw.replace(/[([«“"]([^)\]»”"]*)[)\]»”"]/gu, (_m, inner: string) => {
    if (/\p{L}/u.test(inner)) aliases.push(inner.trim());
    return " ";
  });
  let familyFirst: Unit | undefined;
  const commaParts = text.split(/[,،]/).filter((p) => /\p{L}/u.test(p));
  if (commaParts.length === 2) {
    const famWords = splitWords(commaParts[0] as string).map((w) => ({ text: w, kind: wordKind(w) }));
    const famUnits = joinParticles(famWords.filter((w) => w.kind !== "title"));
    if (famUnits.length > 0) {
      familyFirst = { parts: famUnits.flatMap((u) => u.parts), viaConnector: false };
      text = commaParts[1] as string;
      notes.push(`"${unitText(familyFirst)}" before the comma read as the family name.`);
    }
  }
  const words: Word[] = splitWords(text).map((w) => ({ text: w, kind: wordKind(w) }));
  const titles: string[] = [];
  while (words.length > 1 && words[0]?.kind === "title") titles.push((words.shift() as Word).text);
  if (titles.length) notes.push(`Title${titles.length > 1 ? "s" : ""} removed: ${titles.join(" ")}.`);
  const units = joinParticles(words);
  if (!familyFirst && units.length >= 2 && isFamilyFirst(units[0] as Unit)) {
    familyFirst = units.shift() as Unit;
    notes.push(`"${unitText(familyFirst)}" comes first and carries the article, so it was read as the family name (surname-first order).`);
  }

  const slots: NameSlots = { raw, script: scriptOf(raw), ancestors: [], aliases, titles, notes };
  let chain = units;
  if (familyFirst) {
    slots.family = unitText(familyFirst);
  } else if (units.length >= 2) {
    const last = units[units.length - 1] as Unit;
    if (!last.viaConnector) {
      slots.family = unitText(last);
      chain = units.slice(0, -1);
      if (units.length === 2) notes.push(`Two names: the second, "${slots.family}", read as the family name.`);
    } else {
      notes.push(`The last name follows بن/bin, so it is an ancestor, not a family name.`);
    }
  }
  const [given, father, grandfather, ...rest] = chain.map(unitText);
  if (given !== undefined) slots.given = given;
  if (father !== undefined) slots.father = father;
  if (grandfather !== undefined) slots.grandfather = grandfather;
  slots.ancestors = rest;

  if (opts.family?.trim()) slots.family = opts.family.trim();
  if (opts.father?.trim()) {
    const f = opts.father.trim();
    if (slots.father === undefined && slots.family !== undefined && !opts.family && chain.length === 1 && sameWritten(slots.family, f)) {
      // "محمد أحمد" with father "أحمد": the second name was the father's, and there is no family name.
      delete slots.family;
      notes.push(`The second name equals the recorded father's name, so it was read as the father's name.`);
    } else if (slots.father !== undefined && !sameWritten(slots.father, f)) {
      notes.push(`The father's name recorded separately ("${f}") replaces "${slots.father}" from the chain.`);
    }
    slots.father = f;
  }
  if (opts.mother?.trim()) slots.mother = opts.mother.trim();
  for (const a of opts.aliases ?? []) if (a.trim()) aliases.push(a.trim());
  return slots;
}

/** A first name written with the article (الخطيب, Al-Khatib) is a family name put first, unless it is a known given name (إلياس). */
function isFamilyFirst(u: Unit): boolean {
  const first = u.parts[0] ?? "";
  const light = first.replace(/[\u064b-\u065f\u0670\u0640]/g, "");
  const article = (light.startsWith("ال") && light.length >= 4) || /^(al|el)$/i.test(first) || /^(al|el)-/i.test(first);
  if (!article) return false;
  const t = tokenOf(unitText(u));
  return t.known.length === 0;
}

function sameWritten(a: string, b: string): boolean {
  return tokenOf(a).norm === tokenOf(b).norm;
}

// ---------------------------------------------------------------------------------------------------------
// Tokens: one name (possibly a compound such as عبد الرحمن) analysed once and interned.

/** How a name ends: a vowel class, "c" a consonant, "" cannot tell (Latin -ah/-eh/-e, Arabic ة). */
type Tail = "" | "a" | "i" | "u" | "c";

/**
 * A consonant skeleton and, before each consonant, the vowel letters written there (Arabic: the long vowels
 * ا و ي as a/u/i; Latin: the vowel letters and medial w/y). The skeleton finds candidates; the vowel slots
 * tell apart names it merges: نايف/Nayef and نواف/Nawaf are both "nf", but one has ي where the other has و.
 */
interface Skeleton {
  key: string;
  slots: string[];
}

/** One name of a chain (possibly a compound such as عبد الرحمن), analysed. Opaque to callers. */
export interface NameToken {
  id: number;
  text: string;
  script: "ar" | "lat";
  /** Arabic: normalised, spaces removed. Latin: folded spelling without articles. */
  norm: string;
  /** Arabic: norm without a leading ال. Latin: norm without a joined al-/el-. */
  bare: string;
  /** Arabic: bare with often-confused letters merged (ث→ت, ظ→ض, ذ→د, ط→ت). Latin: bare. */
  conf: string;
  sk: Skeleton;
  /** Latin only: the skeleton with dh/th/sh/kh/gh read as two letters (Adham = أدهم, Fathi = فتحي, Ishaq = إسحاق). */
  alt?: Skeleton;
  tail: Tail;
  /** Entries of the spelling table this token is, exactly. */
  known: number[];
  /** Entries it is close to (only when not exactly known). */
  near: number[];
  initial: boolean;
  common: boolean;
  /** Comparisons with other tokens, by their id. */
  cache: Map<number, TokSim>;
}

// Arabic letter → consonant class. ا و ي (after the first letter) are long vowels; ع and ء are dropped.
// ث ذ ظ get classes of their own (T D Z) because Latin writes them th/t/s, dh/th/z/d, z/dh/d: cheap to
// confuse with several others (see SK_SUB), and folded to t d z in the keys used for blocking.
const AR_CLASS: Record<string, string> = {
  ب: "b", پ: "b", ت: "t", ط: "t", ث: "T", ج: "j", ژ: "j", چ: "c", ح: "h", ه: "h", خ: "x", د: "d", ض: "d", ذ: "D",
  ر: "r", ز: "z", ظ: "Z", س: "s", ص: "s", ش: "c", غ: "g", ف: "f", ڤ: "f", ق: "k", ك: "k", گ: "k", ل: "l", م: "m",
  ن: "n",
};
const AR_LONG: Record<string, string> = { ا: "a", و: "u", ي: "i" };
// Latin digraphs (tried first) and letters → the same classes.
const LAT_DIGRAPH: Record<string, string> = {
  kh: "x", gh: "g", sh: "c", ch: "c", th: "T", dh: "D", dj: "j", zh: "j", ph: "f", ck: "k",
};
const SPLITTABLE = new Set(["kh", "gh", "sh", "th", "dh"]);
const LAT_CLASS: Record<string, string> = {
  b: "b", p: "b", t: "t", j: "j", h: "h", x: "x", d: "d", r: "r", z: "z", s: "s", f: "f", v: "f", q: "k", k: "k",
  g: "k", c: "k", l: "l", m: "m", n: "n",
};
const VOWELS = "aeiou";

class SkeletonBuilder {
  private key = "";
  private slots: string[] = [];
  private buf = "";
  private prev = "";
  constructor(private readonly collapse: boolean) {}
  vowel(v: string): void {
    this.buf += v;
    this.prev = "";
  }
  consonant(cls: string): void {
    if (this.collapse && cls === this.prev) return; // Latin doubled letters are one consonant
    this.slots.push(this.buf);
    this.key += cls;
    this.buf = "";
    this.prev = cls;
  }
  done(): Skeleton {
    // a final h is ة, ه or ح in Arabic and written or not in Latin: it says nothing
    if (this.key.length > 1 && this.key.endsWith("h")) {
      this.key = this.key.slice(0, -1);
      this.slots.pop();
    }
    return { key: this.key, slots: this.slots };
  }
}

function arabicSkeleton(parts: string[]): Skeleton {
  const b = new SkeletonBuilder(false);
  for (const part of parts) {
    for (let i = 0; i < part.length; i++) {
      const c = part[i] as string;
      if (i === 0 && (c === "و" || c === "ي")) b.consonant(c === "و" ? "w" : "y");
      else if (i === 0 && (c === "ا" || c === "ع" || c === "ء")) b.vowel("v"); // starts with a vowel sound: أحمد is not حمود
      else if (AR_CLASS[c]) b.consonant(AR_CLASS[c]);
      else if (i > 0 && AR_LONG[c]) b.vowel(AR_LONG[c]);
    }
  }
  return b.done();
}

function latinSkeleton(parts: string[], split: boolean): Skeleton {
  const b = new SkeletonBuilder(true);
  for (const part of parts) {
    let i = 0;
    if (/^ou[aeiy]/.test(part)) {
      b.consonant("w"); // French spelling of initial و: Ouael, Oualid
      i = 2;
    }
    while (i < part.length) {
      const two = part.slice(i, i + 2);
      const c = part[i] as string;
      const di = LAT_DIGRAPH[two];
      if (di && !(split && SPLITTABLE.has(two))) {
        b.consonant(di);
        i += 2;
        continue;
      }
      if (VOWELS.includes(c)) b.vowel(c);
      else if ((c === "w" || c === "y") && i > 0) b.vowel(c);
      else if (c === "w" || c === "y") b.consonant(c);
      else if (LAT_CLASS[c]) b.consonant(LAT_CLASS[c]);
      i++;
    }
  }
  return b.done();
}

const AR_PREFIX_RE = /^(عبد|ابو|ام|ذو)ال(..+)$/;
const AR_SUFFIX_RE = /^(..+?)ال(دين|له|هدي|حق|اسلام|عابدين)$/;

/** Arabic compound → parts with the article between them removed: عبدالرحمن → عبد + رحمن. */
function arabicKeyParts(word: string): string[] {
  let w = word;
  if (w.startsWith("ال") && w.length >= 4) w = w.slice(2);
  const p = AR_PREFIX_RE.exec(w);
  if (p) return [p[1] as string, ...arabicKeyParts(p[2] as string)];
  const s = AR_SUFFIX_RE.exec(w);
  if (s) return [s[1] as string, s[2] as string];
  return [w];
}

const LAT_ABD_RE = /^(abd|abed|abu|abou|abo|abi)(.*)$/;
const LAT_DIN_RE = /^(.{2,}?)(?:[aeiou]{1,2}(?:l|d(?=d)))?(d(?:i|ee|ea|ii|e)ne?)$/;

/** Latin compound → parts with a written article removed: abdulrahman → abd + rahman, nuraldin → nur + din. */
function latinKeyParts(part: string): string[] {
  let w = part;
  // a joined article on a family name: Alkhatib, Elkhoury (not Ali, Alaa, Alwan)
  const art = /^(?:al|el)([^aeiouwy].{3,})$/.exec(w);
  if (art) w = art[1] as string;
  const abd = LAT_ABD_RE.exec(w);
  if (abd && (abd[2] as string).length >= 2) {
    let rest = abd[2] as string;
    const viaL = /^[aeiou]{1,2}l/.exec(rest);
    const sun = /^[aeiou]{1,2}(th|dh|sh|[tdrzsn])(?=\1)/.exec(rest);
    if (viaL && rest.length - viaL[0].length >= 2) rest = rest.slice(viaL[0].length);
    else if (sun) rest = rest.slice(sun[0].length);
    return [abd[1] as string, rest];
  }
  const din = LAT_DIN_RE.exec(w);
  if (din && !/^(abd|abu)/.test(w)) return [din[1] as string, "din"];
  return [w];
}

function arabicTail(text: string): Tail {
  // from the writer's letters, before ى/ة are folded: هدى is Huda (a), هادي is Hadi (i)
  const letters = text.normalize("NFKD").replace(/[^\p{L}]/gu, "");
  const last = letters.slice(-1);
  const before = letters.slice(-2, -1);
  if (last === "ى" || last === "ا") return "a";
  if (last === "ة") return ""; // Latin writes it a, ah, eh, e or not at all
  if (last === "ء") return before === "ا" ? "a" : "";
  if (last === "ع") return ""; // Latin writes a final ayn a, aa, ' or nothing (الطباع, Tabbaa)
  if (last === "ي" || last === "ی") return "i";
  if (last === "و") return "u";
  return last ? "c" : "";
}

function latinTail(word: string): Tail {
  if (word === "") return "";
  if (/[aeiou]h$/.test(word)) return ""; // -ah/-eh/-ih: a final ح, ه or ة — cannot tell
  if (/(?:i|y|ee|ie|ai|ay|ei|ey)$/.test(word)) return "i";
  if (/e$/.test(word)) return ""; // ة (Fatme) or a French silent e (Darwiche, Nadine)
  if (/a$/.test(word)) return "a";
  if (/(?:o|u)$/.test(word)) return "u";
  return "c";
}

/** Factor for how two names end: a final vowel against a final consonant or another vowel is another name (Saadi/Asaad, Hadi/Huda). */
function tailFactor(a: Tail, b: Tail): number {
  if (!a || !b || a === b) return 1;
  return a === "c" || b === "c" ? 0.85 : 0.88;
}

/** Lowercase ASCII spelling with the usual transliteration noise removed. */
function latinFold(s: string): string {
  return s
    .replace(/[^a-z]/g, "")
    .replace(/ou/g, "u")
    .replace(/oo/g, "u")
    .replace(/ee/g, "i")
    .replace(/ph/g, "f")
    .replace(/ck/g, "k")
    .replace(/q/g, "k")
    .replace(/dj/g, "j")
    .replace(/ch/g, "sh")
    .replace(/(.)\1+/g, "$1")
    .replace(/([aeiou])h$/, "$1")
    .replace(/y$/, "i");
}

/** Letters only, doubled consonants as one; long-vowel spellings kept (Hameed is حميد, Hamid may be حامد). */
function lightFold(s: string): string {
  return s.replace(/[^a-z]/g, "").replace(/([^aeiou])\1+/g, "$1");
}

/** Latin text → lowercase letters, with Arabizi digits and Turkish/Kurdish letters spelled out. */
function latinLetters(text: string): string {
  const pre = text
    .replace(/3'/g, "gh")
    .replace(/7'/g, "kh")
    .replace(/[şŞ]/g, "sh")
    .replace(/[çÇ]/g, "ch")
    .replace(/5/g, "kh")
    .replace(/7/g, "h")
    .replace(/[0-9]/g, "");
  return normaliseArabic(pre).replace(/[^a-z\s-]/g, "");
}

const CONF: Record<string, string> = { ث: "ت", ط: "ت", ظ: "ض", ذ: "د" };
const confFold = (s: string): string => s.replace(/[ثطظذ]/g, (c) => CONF[c] ?? c);
const stripAl = (s: string): string => (s.startsWith("ال") && s.length >= 4 ? s.slice(2) : s);

// ----- weighted edit distance: cheap edits for the differences spelling variants actually show

/** Substitution and insertion/deletion costs over a 256-letter window of Unicode (ASCII, or the Arabic block). */
interface CostTable {
  base: number;
  sub: Float32Array;
  indel: Float32Array;
}

function costTable(
  base: number,
  groups: [string, number][],
  defaultSub: (x: string, y: string) => number,
  indel: (x: string) => number,
): CostTable {
  const sub = new Float32Array(256 * 256);
  const ind = new Float32Array(256);
  for (let i = 0; i < 256; i++) {
    const x = String.fromCharCode(base + i);
    ind[i] = indel(x);
    for (let j = 0; j < 256; j++) sub[i * 256 + j] = i === j ? 0 : defaultSub(x, String.fromCharCode(base + j));
  }
  for (const [letters, cost] of groups) {
    for (const x of letters) {
      for (const y of letters) {
        const k = (x.charCodeAt(0) - base) * 256 + (y.charCodeAt(0) - base);
        if (x !== y) sub[k] = Math.min(cost, sub[k] as number);
      }
    }
  }
  return { base, sub, indel: ind };
}

let rowA = new Float64Array(32);
let rowB = new Float64Array(32);

function editSimilarity(a: string, b: string, t: CostTable): number {
  if (a === b) return 1;
  const la = a.length;
  const lb = b.length;
  if (la === 0 || lb === 0) return 0;
  if (rowA.length <= lb) {
    rowA = new Float64Array(lb + 1);
    rowB = new Float64Array(lb + 1);
  }
  let prev = rowA;
  let cur = rowB;
  const idx = (s: string, i: number): number => (s.charCodeAt(i) - t.base) & 255;
  prev[0] = 0;
  for (let j = 1; j <= lb; j++) prev[j] = (prev[j - 1] as number) + (t.indel[idx(b, j - 1)] as number);
  for (let i = 1; i <= la; i++) {
    const ca = idx(a, i - 1);
    const dA = t.indel[ca] as number;
    cur[0] = (prev[0] as number) + dA;
    for (let j = 1; j <= lb; j++) {
      const cb = idx(b, j - 1);
      const viaSub = (prev[j - 1] as number) + (t.sub[ca * 256 + cb] as number);
      const viaDel = (prev[j] as number) + dA;
      const viaIns = (cur[j - 1] as number) + (t.indel[cb] as number);
      cur[j] = viaSub < viaDel ? (viaSub < viaIns ? viaSub : viaIns) : viaDel < viaIns ? viaDel : viaIns;
    }
    const tmp = prev;
    prev = cur;
    cur = tmp;
  }
  return Math.max(0, 1 - (prev[lb] as number) / Math.max(la, lb));
}

// Consonant classes that transliterations swap: ث as th/t/s (T), ذ as dh/th/z/d (D), ظ as z/dh/d (Z),
// ض as d/dh, ق as q/k/g, ش/س, ج as j/g …
const SK_COSTS = costTable(
  0,
  [
    ["Tt", 0.2], ["Ts", 0.3], ["TD", 0.15], ["Dd", 0.15], ["Dz", 0.25], ["DZ", 0.15], ["Zz", 0.1], ["Zd", 0.3], ["td", 0.5],
    ["sz", 0.5], ["sc", 0.5], ["kg", 0.5], ["kx", 0.5], ["hx", 0.6], ["jk", 0.5], ["jc", 0.5], ["bf", 0.6], ["fw", 0.6],
  ],
  () => 1,
  (x) => (x === "h" ? 0.5 : 1),
);
// Within one script a spelling variant changes a vowel, a hamza seat or one of the often-confused letters;
// any other consonant change makes another name, so it costs double (ليث/غيث, Laith/Ghaith, Dabbagh/Sabbagh).
const AR_COSTS = costTable(
  0x0600,
  [["تثط", 0.25], ["دذ", 0.25], ["ذز", 0.3], ["ظض", 0.25], ["ظز", 0.3], ["صس", 0.35], ["ثس", 0.4], ["قك", 0.5], ["او", 0.6], ["اي", 0.6], ["وي", 1.2], ["اء", 0.3]],
  () => 2,
  (x) => (x === "ء" ? 0.3 : "اوي".includes(x) ? 0.5 : 1.5),
);
const LAT_COSTS = costTable(
  0,
  [["aeiou", 0.25], ["yi", 0.1], ["wu", 0.3], ["sz", 1], ["td", 0.5], ["kg", 0.5], ["jg", 0.5]],
  (x, y) => (VOWELS.includes(x) !== VOWELS.includes(y) ? 1.5 : 2),
  (x) => (VOWELS.includes(x) ? 0.4 : "hwy".includes(x) ? 0.5 : 1.5),
);

const skeletonEdit = (a: string, b: string): number => editSimilarity(a, b, SK_COSTS);
const arabicEdit = (a: string, b: string): number => editSimilarity(a, b, AR_COSTS);
const latinEdit = (a: string, b: string): number => editSimilarity(a, b, LAT_COSTS);

// Which vowel letters can stand for a long vowel, and what a Latin vowel letter can be.
const PROVIDES: Record<string, RegExp> = { a: /[ae]/, i: /[iye]/, u: /[ouw]/, v: /[aeiou]/ };
const LAT_VOWEL_CLASSES: Record<string, string> = { a: "a", e: "ai", i: "i", y: "i", o: "u", u: "u", w: "u" };

/**
 * Vowels the two spellings disagree on, slot by slot: a long vowel written in Arabic that the Latin spelling
 * has no letter for (نايف against Nawaf), or a Latin w/y with no و/ي in the Arabic (Sayed against أسعد).
 */
function crossConflicts(ar: Skeleton, lat: Skeleton): number {
  let n = 0;
  for (let i = 0; i < ar.slots.length; i++) {
    const a = ar.slots[i] as string;
    const l = lat.slots[i] ?? "";
    const missing = [...a].some((v) => !(PROVIDES[v] as RegExp).test(l));
    const extra = (l.includes("w") && !a.includes("u")) || (l.includes("y") && !a.includes("i")) || (i === 0 && l !== "" && !a.includes("v"));
    if (missing || extra) n++;
  }
  return n;
}

/**
 * Semivowels of two Latin spellings that cannot be the same sound, slot by slot: a w or y in one with no
 * vowel of its kind in the other (Safwan/Sufyan, Nayef/Nawaf, Aswad/Asaad). Short vowels are not compared:
 * Latin spellings disagree about them all the time (Khodr/Khidr).
 */
function latinConflicts(x: Skeleton, y: Skeleton): number {
  let n = 0;
  const classes = (s: string): Set<string> => new Set([...s].flatMap((c) => [...(LAT_VOWEL_CLASSES[c] ?? "")]));
  const lacks = (s: string, other: Set<string>): boolean => (s.includes("w") && !other.has("u")) || (s.includes("y") && !other.has("i"));
  for (let i = 0; i < x.slots.length; i++) {
    const a = x.slots[i] as string;
    const b = y.slots[i] ?? "";
    // before the first consonant: a vowel on one side only (Ahmad/Hammoud)
    const lead = i === 0 && (a === "") !== (b === "");
    if (lead || lacks(a, classes(b)) || lacks(b, classes(a))) n++;
  }
  return n;
}

/** Long vowels of two Arabic spellings that differ beyond one leaving a letter out (نايف/نواف, صفوان/سفيان). */
function arabicConflicts(x: Skeleton, y: Skeleton): number {
  let n = 0;
  for (let i = 0; i < x.slots.length; i++) {
    const a = new Set((x.slots[i] ?? "").replace("v", ""));
    const b = new Set((y.slots[i] ?? "").replace("v", ""));
    const aInB = [...a].every((v) => b.has(v));
    const bInA = [...b].every((v) => a.has(v));
    if (!aInB && !bInA) n++;
  }
  return n;
}

function skeletonSimilarity(a: NameToken, b: NameToken): number {
  let best = 0;
  const as = a.alt ? [a.sk, a.alt] : [a.sk];
  const bs = b.alt ? [b.sk, b.alt] : [b.sk];
  for (const x of as) {
    for (const y of bs) {
      if (x.key === "" || y.key === "") {
        best = Math.max(best, x.key === y.key && (a.tail === b.tail || !a.tail || !b.tail) ? 0.8 : 0.3);
        continue;
      }
      let s = skeletonEdit(x.key, y.key);
      if (x.key.length === y.key.length) {
        const conflicts =
          a.script === "ar" && b.script === "lat" ? crossConflicts(x, y)
          : a.script === "lat" && b.script === "ar" ? crossConflicts(y, x)
          : a.script === "lat" ? latinConflicts(x, y)
          : arabicConflicts(x, y);
        s *= 0.75 ** conflicts;
      }
      best = Math.max(best, s);
    }
  }
  return best * tailFactor(a.tail, b.tail);
}

// ----- the spelling table, indexed

interface Entry {
  name: GivenName;
  key: string;
  /** Arabic spellings normalised without the article, Latin spellings folded: what unlisted spellings are compared with. */
  arForms: string[];
  latForms: string[];
}
const ENTRIES: Entry[] = [];
const AR_INDEX = new Map<string, number[]>();
const AR_CONF_INDEX = new Map<string, number[]>();
const LAT_INDEX = new Map<string, number[]>();
const LAT_LIGHT_INDEX = new Map<string, number[]>();
const LAT_BY_FIRST = new Map<string, { fold: string; entry: number }[]>();

function addTo(map: Map<string, number[]>, k: string, v: number): void {
  const list = map.get(k);
  if (!list) map.set(k, [v]);
  else if (!list.includes(v)) list.push(v);
}

function arabicNorm(text: string): string {
  return normaliseArabic(text).replace(/[^\p{L}]/gu, "");
}

for (const name of GIVEN_NAMES) {
  const idx = ENTRIES.length;
  ENTRIES.push({
    name,
    key: arabicSkeleton(arabicKeyParts(arabicNorm(name.ar[0] as string))).key,
    arForms: [...new Set(name.ar.map((f) => stripAl(arabicNorm(f))))],
    latForms: [...new Set(name.lat.map(latinFold))],
  });
  for (const ar of name.ar) {
    const a = arabicNorm(ar);
    addTo(AR_INDEX, a, idx);
    addTo(AR_CONF_INDEX, confFold(a), idx);
  }
  for (const l of name.lat) {
    const f = latinFold(l);
    addTo(LAT_INDEX, f, idx);
    addTo(LAT_LIGHT_INDEX, lightFold(l), idx);
    const bucket = f.slice(0, 1);
    const list = LAT_BY_FIRST.get(bucket) ?? [];
    if (!list.some((x) => x.fold === f && x.entry === idx)) list.push({ fold: f, entry: idx });
    LAT_BY_FIRST.set(bucket, list);
  }
}

/**
 * Table entries an unlisted Latin spelling is very close to: Jaro-Winkler ≥ 0.94 with one of their spellings,
 * and the same consonants give or take one cheap change (Mohamet is محمد; Shami is not سامي, Hallaq not هالة).
 * At most two.
 */
function nearLatin(fold: string, key: string): number[] {
  if (fold.length < 4) return [];
  const first = fold.slice(0, 1);
  const buckets = VOWELS.includes(first) ? [...VOWELS] : [first];
  const best = new Map<number, number>();
  for (const b of buckets) {
    for (const { fold: f, entry } of LAT_BY_FIRST.get(b) ?? []) {
      if (Math.abs(f.length - fold.length) > 2) continue;
      const s = jaroWinkler(fold, f);
      if (s > (best.get(entry) ?? 0)) best.set(entry, s);
    }
  }
  let top = 0;
  for (const s of best.values()) top = Math.max(top, s);
  if (top < 0.94) return [];
  const near = [...best]
    .filter(([e, s]) => s >= top - 0.015 && skeletonEdit(coarse(key), coarse((ENTRIES[e] as Entry).key)) >= 0.85)
    .map(([e]) => e);
  return near.length <= 2 ? near : [];
}

let nextTokId = 1;
const TOKENS = new Map<string, NameToken>();

function tokenOf(text: string): NameToken {
  const hit = TOKENS.get(text);
  if (hit) return hit;
  if (TOKENS.size > 200_000) TOKENS.clear(); // names repeat; this bound only guards against abuse
  const tok = hasArabic(text) ? arabicToken(text) : latinToken(text);
  TOKENS.set(text, tok);
  return tok;
}

function arabicToken(text: string): NameToken {
  const n = arabicNorm(text);
  const bare = stripAl(n);
  const known = [...(AR_INDEX.get(n) ?? AR_INDEX.get(bare) ?? [])];
  const near = known.length === 0 ? [...(AR_CONF_INDEX.get(confFold(n)) ?? AR_CONF_INDEX.get(confFold(bare)) ?? [])] : [];
  return {
    id: nextTokId++,
    text,
    script: "ar",
    norm: n,
    bare,
    conf: confFold(bare),
    sk: arabicSkeleton(arabicKeyParts(n)),
    tail: arabicTail(text),
    known,
    near,
    initial: n.length === 1,
    common: known.some((e) => ENTRIES[e]?.name.common === true),
    cache: new Map(),
  };
}

function latinToken(text: string): NameToken {
  const letters = latinLetters(text);
  let parts = letters.split(/[\s-]+/).filter(Boolean);
  const named = parts.filter((p) => !LATIN_ARTICLE_PART.has(p));
  if (named.length > 0) parts = named;
  const joined = parts.join("");
  const fold = latinFold(joined);
  // a joined article ("Alkhatib") is not part of the name
  const art = /^(?:al|el)([^aeiouwy].{3,})$/.exec(fold);
  let bare = art ? (art[1] as string) : fold;
  const light = lightFold(joined);
  const lightBare = /^(?:al|el)[^aeiouwy].{3,}$/.test(light) ? light.slice(2) : light;
  let known = [...(LAT_LIGHT_INDEX.get(light) ?? LAT_LIGHT_INDEX.get(lightBare) ?? LAT_INDEX.get(fold) ?? LAT_INDEX.get(bare) ?? [])];
  // a joined article before a vowel ("Alomar", "Alahmad") is taken off only when a known name remains, so that
  // Alaa or Alia stay whole
  const vowelArt = known.length === 0 ? /^(?:al|el)([aeiou].{3,})$/.exec(light) : null;
  const rest = vowelArt ? (LAT_LIGHT_INDEX.get(vowelArt[1] as string) ?? LAT_INDEX.get(latinFold(vowelArt[1] as string))) : undefined;
  if (vowelArt && rest) {
    known = [...rest];
    bare = latinFold(vowelArt[1] as string);
  }
  const keyParts = parts.flatMap(latinKeyParts);
  const sk = latinSkeleton(keyParts, false);
  const near = known.length === 0 ? nearLatin(bare, sk.key) : [];
  const alt = latinSkeleton(keyParts, true);
  const tok: NameToken = {
    id: nextTokId++,
    text,
    script: "lat",
    norm: bare,
    bare,
    conf: bare,
    sk,
    tail: latinTail(parts[parts.length - 1] ?? ""),
    known,
    near,
    initial: joined.length === 1,
    common: known.some((e) => ENTRIES[e]?.name.common === true),
    cache: new Map(),
  };
  if (alt.key !== sk.key) tok.alt = alt;
  return tok;
}

const coarse = (key: string): string => key.replace(/T/g, "t").replace(/D/g, "d").replace(/Z/g, "z");

/** The skeleton to block and meet on: for a name in the spelling table, the table's own (Mhd → mhmd). */
function canonicalKeys(t: NameToken): string[] {
  const ids = t.known.length ? t.known : t.near;
  if (ids.length === 0) return [coarse(t.sk.key)];
  return [...new Set(ids.map((e) => coarse((ENTRIES[e] as Entry).key)))];
}

/**
 * Skeletons a token can be found under: the coarse key, and for names outside the table also the reading with
 * ث/ذ/ظ (th, dh) as one class (حذيفة = Huthaifa) and, in Latin, with dh/th/sh/kh/gh as two letters (Adham = أدهم).
 */
function blockKeys(t: NameToken): string[] {
  if (t.known.length || t.near.length) return canonicalKeys(t);
  const merged = (k: string): string => k.replace(/[TDZ]/g, "D");
  const keys = [coarse(t.sk.key), merged(t.sk.key)];
  if (t.alt) keys.push(coarse(t.alt.key), merged(t.alt.key));
  return [...new Set(keys)];
}

/**
 * A phonetic skeleton of a name so that spellings of it in either script meet: محمد, Mohammad, Muhammad,
 * Mohamed, Mohammed, Mhd → "mhmd"; عبدالرحمن, Abd al-Rahman, Abdulrahman, Abdelrahman, Abdurrahman →
 * "bdrhmn". One skeleton per name in the chain, in slot order (given, father, grandfather, …, family),
 * separated by spaces. Different names may share a skeleton (محمود is also "mhmd"): use it to find
 * candidates, then compare them with `nameSimilarity`.
 */
export function crossScriptKey(name: string): string {
  const s = parseNameChain(name);
  return slotTexts(s)
    .map((t) => canonicalKeys(tokenOf(t))[0] ?? "")
    .filter(Boolean)
    .join(" ");
}

function slotTexts(s: NameSlots): string[] {
  const out: string[] = [];
  for (const t of [s.given, s.father, s.grandfather, ...s.ancestors, s.family]) if (t) out.push(t);
  return out;
}

/**
 * Blocking keys for bulk matching: given-name skeleton combined with each of father, grandfather and family
 * skeletons ("mhmd|hmd", "mhmd|xtb"). Two names worth comparing share at least one key unless their given
 * names differ in skeleton or their slots are in a different order.
 */
export function blockingKeys(name: string | NameSlots): string[] {
  const s = typeof name === "string" ? parseNameChain(name) : name;
  if (!s.given) return [];
  const given = blockKeys(tokenOf(s.given));
  const others = [s.father, s.grandfather, s.family].filter((x): x is string => !!x).flatMap((t) => blockKeys(tokenOf(t)));
  const keys = new Set<string>();
  for (const g of given) {
    if (others.length === 0) keys.add(g);
    for (const o of others) keys.add(`${g}|${o}`);
  }
  return [...keys];
}

/**
 * Search keys of a name, part by part (given, father, grandfather, …, family; titles and particles dropped): each
 * part's skeletons as `blockingKeys` finds them, lower-cased, so a search in one script meets the name written
 * in the other (محمد الخطيب and Mohammad al-Khatib are [["mhmd"], ["xtb", "khtb"]] and [["mhmd"], ["xtb"]]).
 * Keys only find candidates: names that are not one (محمود is also "mhmd") share them too.
 */
export function nameSearchKeys(name: string): string[][] {
  return slotTexts(parseNameChain(name))
    .map((t) => [...new Set(blockKeys(tokenOf(t)).map((k) => k.toLowerCase()).filter((k) => /^[a-z]+$/.test(k)))])
    .filter((keys) => keys.length > 0);
}

/**
 * Whether every part of `query` is some part of `name`, in either script and any order, by the same token
 * comparison the matcher uses (score at least `min`): what a search checks of a body its keys found, so that
 * علاء does not find علي though both skeletons are "l".
 */
export function namePartsFound(query: string, name: string, min = 0.85): boolean {
  return namePartsMatcher(query, min)(name);
}

/**
 * namePartsFound for one query against many names (a search checking every body its keys found): the query is
 * read once, and each name, and each part of a name, is compared once however often it recurs, as common names
 * and name parts do.
 */
export type NamePartsMatcher = ((name: string) => boolean) & {
  /** The same answer for a name already split by `nameParts` (a search holds its bodies' names so). */
  parts(parts: readonly string[]): boolean;
};

/** A name's parts as namePartsMatcher compares them: split once, compared by many searches. */
export function nameParts(name: string): string[] {
  return slotTexts(parseNameChain(name));
}

export function namePartsMatcher(query: string, min = 0.85): NamePartsMatcher {
  const q = slotTexts(parseNameChain(query)).map(tokenOf);
  if (q.length === 0) return Object.assign(() => false, { parts: () => false });
  // For each part of a name: which of the query's parts it is (one flag per query part).
  const partFits = new Map<string, boolean[]>();
  const byName = new Map<string, boolean>();
  const fits = (part: string): boolean[] => {
    let f = partFits.get(part);
    if (!f) {
      const b = tokenOf(part);
      f = q.map((a) => compareTokens(a, b).score >= min);
      partFits.set(part, f);
    }
    return f;
  };
  const ofParts = (parts: readonly string[]): boolean => {
    const f = parts.map(fits);
    return q.every((_, i) => f.some((x) => x[i]));
  };
  const byText = (name: string): boolean => {
    let found = byName.get(name);
    if (found === undefined) {
      found = ofParts(nameParts(name));
      byName.set(name, found);
    }
    return found;
  };
  return Object.assign(byText, { parts: ofParts });
}

/** The prefix of a name key in a search index: no word of a language starts "nk" and is followed by a skeleton only. */
export const NAME_KEY_PREFIX = "nk";

/**
 * A name's cross-script keys as search-index tokens: محمد الخطيب and Mohammad al-Khatib both give nkmhmd and
 * nkxtb (the catalogue's search indexes them beside the words).
 */
export function nameKeyTokens(name: string | null | undefined): string[] {
  if (!name) return [];
  return [...new Set(nameSearchKeys(name).flat().map((k) => NAME_KEY_PREFIX + k))];
}

// ---------------------------------------------------------------------------------------------------------
// Comparing two tokens

interface TokSim {
  score: number;
  how: string;
}

function initialFits(init: NameToken, other: NameToken): boolean {
  const letter = init.norm.slice(0, 1);
  if (other.script === init.script) return other.norm.startsWith(letter);
  // an initial in one script against a full name in the other: compare through the skeletons
  if (VOWELS.includes(letter) || letter === "ا") return /^[اعءأإآ]/.test(other.norm) || VOWELS.includes(other.norm[0] ?? "");
  return init.sk.key !== "" && canonicalKeys(other).some((k) => k.startsWith(init.sk.key));
}

function bestAgainstEntries(t: NameToken, entries: number[]): number {
  let best = 0;
  for (const e of entries) {
    const entry = ENTRIES[e] as Entry;
    // only spellings that begin the same way: Hammoud is not a spelling of Ahmad
    const start = (f: string): string => (VOWELS.includes(f[0] ?? "") || "اعء".includes(f[0] ?? "") ? "v" : (f[0] ?? ""));
    const forms = t.script === "ar" ? entry.arForms : entry.latForms;
    for (const f of forms) {
      if (start(f) !== start(t.bare)) continue;
      best = Math.max(best, t.script === "ar" ? arabicEdit(t.bare, f) : latinEdit(t.bare, f));
    }
  }
  return best;
}

function compareTokens(a: NameToken, b: NameToken): TokSim {
  if (a.initial || b.initial) {
    const [i, o] = a.initial ? [a, b] : [b, a];
    return initialFits(i, o) ? { score: 0.88, how: "initial" } : { score: 0.2, how: "initial" };
  }
  const same = a.script === b.script;
  if (same && a.text === b.text) return { score: 1, how: "identical" };
  if (same && a.norm === b.norm) return { score: 1, how: "normalised" };
  if (same && a.bare === b.bare) return { score: 0.98, how: "article" };

  const ka = a.known.length ? a.known : a.near;
  const kb = b.known.length ? b.known : b.near;
  const exact = a.known.length > 0 && b.known.length > 0;
  const spelling = (): number => (a.script === "ar" ? arabicEdit(a.bare, b.bare) : latinEdit(a.bare, b.bare));
  if (ka.length && kb.length) {
    if (ka.some((e) => kb.includes(e))) return { score: exact ? 1 : 0.96, how: "known" };
    const s = same ? spelling() : skeletonSimilarity(a, b);
    return { score: Math.min(s, exact ? 0.5 : 0.72), how: "known-different" };
  }
  if (same && a.script === "ar" && a.conf === b.conf) return { score: 0.95, how: "confusable" };
  const k = 0.97 * skeletonSimilarity(a, b);
  let score = 0;
  let how = "spelling";
  if (same) {
    // Within a script the letters decide; the skeleton can only lower the score, when the long vowels or
    // w/y it keeps show two different names behind a small edit (Safwan/Sufyan, نايف/نواف).
    score = spelling();
    if (a.sk.key.length === b.sk.key.length && a.sk.key.length > 0 && k < score && k < 0.97 * skeletonEdit(a.sk.key, b.sk.key)) {
      score = k;
      how = "vowels";
    } else if (a.script === "lat" && k > score) {
      score = k;
      how = "skeleton";
    }
  } else {
    score = k;
    how = "skeleton";
  }
  // one side is a known name and the other is close to one of its spellings in the other script
  if (!same && (ka.length || kb.length)) {
    const [unknown, entries] = ka.length ? [b, ka] : [a, kb];
    const s = 0.97 * bestAgainstEntries(unknown, entries);
    if (s > score) {
      score = s;
      how = "near-known";
    }
  }
  return { score, how };
}

/** Forget every analysed name and cached comparison (for benchmarks that measure cold work). */
export function resetNameCaches(): void {
  TOKENS.clear();
}

function compareCached(a: NameToken, b: NameToken): TokSim {
  const hit = a.cache.get(b.id);
  if (hit) return hit;
  if (a.cache.size > 20_000) a.cache.clear(); // bounded: a token meets a few thousand others in practice
  const r = compareTokens(a, b);
  a.cache.set(b.id, r);
  return r;
}

// ---------------------------------------------------------------------------------------------------------
// Comparing two names

interface Weights {
  match: number;
  mismatch: number;
  share: number;
}
const WEIGHTS: Record<Slot, Weights> = {
  given: { match: 2.0, mismatch: 3.0, share: 1 },
  father: { match: 2.0, mismatch: 3.0, share: 1 },
  grandfather: { match: 1.2, mismatch: 2.0, share: 0.6 },
  family: { match: 2.0, mismatch: 2.5, share: 1 },
  mother: { match: 1.6, mismatch: 2.5, share: 0.8 },
};
const ORDER_FREE: Weights = { match: 1.6, mismatch: 2.0, share: 1 };

/**
 * Decision thresholds, chosen on test/fixtures/name-pairs.json with bench/names.ts (see docs/arabic-names.md):
 * "same" needs SAME_POINTS of evidence from at least SAME_SLOTS agreeing slots and no slot below MISMATCH;
 * any slot below MISMATCH, or evidence at or below DIFFERENT_POINTS, is "different"; the rest is "unsure".
 */
export const NAME_THRESHOLDS: Readonly<NameThresholds> = Object.freeze({
  SAME_POINTS: 4.0,
  SAME_SLOTS: 3,
  AGREE: 0.9,
  MISMATCH: 0.75,
  DIFFERENT_POINTS: 0,
});

export interface NameThresholds {
  SAME_POINTS: number;
  SAME_SLOTS: number;
  AGREE: number;
  MISMATCH: number;
  DIFFERENT_POINTS: number;
}

/** Evidence from one slot's similarity: + up to `match` when alike, − up to `mismatch` when clearly not. */
function pointsFor(score: number, w: Weights, common: boolean): number {
  const m = w.match * (common ? 0.6 : 1);
  const d = w.mismatch;
  const anchors: [number, number][] = [
    [0.7, -d],
    [0.8, -0.4 * d],
    [0.86, 0],
    [0.92, 0.5 * m],
    [0.97, m],
  ];
  if (score <= 0.7) return -d;
  if (score >= 0.97) return m;
  for (let i = 1; i < anchors.length; i++) {
    const [x1, y1] = anchors[i] as [number, number];
    const [x0, y0] = anchors[i - 1] as [number, number];
    if (score <= x1) return y0 + ((score - x0) / (x1 - x0)) * (y1 - y0);
  }
  return m;
}

/** A name with its tokens analysed, for comparing one name against many. */
export interface PreparedName {
  slots: NameSlots;
  /** given, father, grandfather (in those positions, undefined where unknown), up to the last one known. */
  chain: (NameToken | undefined)[];
  family?: NameToken;
  mother?: NameToken;
  aliases: NameToken[];
}

/** Parse (if needed) and analyse a name once; pass the result to `nameSimilarity` in loops. */
export function prepareName(x: string | NameSlots | PreparedName): PreparedName {
  if (typeof x !== "string" && "chain" in x) return x;
  const slots = typeof x === "string" ? parseNameChain(x) : x;
  const chain = [slots.given, slots.father, slots.grandfather].map((t) => (t ? tokenOf(t) : undefined));
  while (chain.length > 0 && chain[chain.length - 1] === undefined) chain.pop();
  const p: PreparedName = { slots, chain, aliases: slots.aliases.map(tokenOf) };
  if (slots.family) p.family = tokenOf(slots.family);
  if (slots.mother) p.mother = tokenOf(slots.mother);
  return p;
}

const CHAIN_SLOTS: Slot[] = ["given", "father", "grandfather"];

interface Pairing {
  slot: string;
  weights: Weights;
  a?: NameToken;
  b?: NameToken;
}

interface Alignment {
  label: "positional" | "a-family-as-chain" | "b-family-as-chain" | "order-free";
  pairs: Pairing[];
  penalty: number;
}

function positional(aChain: (NameToken | undefined)[], aFam: NameToken | undefined, bChain: (NameToken | undefined)[], bFam: NameToken | undefined, a: PreparedName, b: PreparedName): Pairing[] {
  const pairs: Pairing[] = [];
  for (let i = 0; i < 3; i++) {
    const slot = CHAIN_SLOTS[i] as Slot;
    const ta = aChain[i];
    const tb = bChain[i];
    if (ta || tb) pairs.push({ slot, weights: WEIGHTS[slot], a: ta, b: tb });
  }
  if (aFam || bFam) pairs.push({ slot: "family", weights: WEIGHTS.family, a: aFam, b: bFam });
  if (a.mother || b.mother) pairs.push({ slot: "mother", weights: WEIGHTS.mother, a: a.mother, b: b.mother });
  return pairs;
}

function alignments(a: PreparedName, b: PreparedName): Alignment[] {
  const out: Alignment[] = [{ label: "positional", pairs: positional(a.chain, a.family, b.chain, b.family, a, b), penalty: 0 }];
  if (a.family && a.chain.length < 3 && b.chain.length > a.chain.length) {
    out.push({ label: "a-family-as-chain", pairs: positional([...a.chain, a.family], undefined, b.chain, b.family, a, b), penalty: 0.3 });
  }
  if (b.family && b.chain.length < 3 && a.chain.length > b.chain.length) {
    out.push({ label: "b-family-as-chain", pairs: positional(a.chain, a.family, [...b.chain, b.family], undefined, a, b), penalty: 0.3 });
  }
  return out;
}

interface Scored {
  alignment: Alignment;
  comps: SlotComparison[];
  points: number;
  score: number;
}

function scoreAlignment(al: Alignment, a: PreparedName, b: PreparedName): Scored {
  const comps: SlotComparison[] = [];
  let points = -al.penalty;
  let num = 0;
  let den = 0;
  for (const p of al.pairs) {
    if (!p.a || !p.b) {
      comps.push({ slot: p.slot, a: p.a?.text, b: p.b?.text, score: 0, how: "missing", points: 0, compared: false } as SlotComparison);
      continue;
    }
    let sim = compareCached(p.a, p.b);
    let how = sim.how;
    if (p.slot === "given" && sim.score < 0.97) {
      // a name the person is also known by may be what the other record used
      for (const [x, y] of [
        ...a.aliases.map((t) => [t, p.b] as const),
        ...b.aliases.map((t) => [p.a, t] as const),
      ]) {
        const s = compareCached(x as NameToken, y as NameToken);
        if (s.score * 0.95 > sim.score) {
          sim = { score: s.score * 0.95, how: s.how };
          how = `alias/${s.how}`;
        }
      }
    }
    const common = (p.slot === "given" || p.slot === "father") && p.a.common && p.b.common;
    const pts = pointsFor(sim.score, p.weights, common);
    points += pts;
    num += sim.score * p.weights.share;
    den += p.weights.share;
    comps.push({ slot: p.slot, a: p.a.text, b: p.b.text, score: round(sim.score), how, points: round(pts), compared: true });
  }
  return { alignment: al, comps, points, score: den > 0 ? num / den : 0 };
}

function orderFree(a: PreparedName, b: PreparedName): Scored | undefined {
  const present = (p: PreparedName): NameToken[] => [...p.chain, p.family].filter((t): t is NameToken => t !== undefined);
  const ta = present(a);
  const tb = present(b);
  if (ta.length < 2 || tb.length < 2) return undefined;
  const cand: { i: number; j: number; s: TokSim }[] = [];
  for (let i = 0; i < ta.length; i++) for (let j = 0; j < tb.length; j++) cand.push({ i, j, s: compareCached(ta[i] as NameToken, tb[j] as NameToken) });
  cand.sort((x, y) => y.s.score - x.s.score);
  const usedA = new Set<number>();
  const usedB = new Set<number>();
  const comps: SlotComparison[] = [];
  let points = -1.5;
  let num = 0;
  for (const c of cand) {
    if (usedA.has(c.i) || usedB.has(c.j)) continue;
    usedA.add(c.i);
    usedB.add(c.j);
    const pts = pointsFor(c.s.score, ORDER_FREE, false);
    points += pts;
    num += c.s.score;
    comps.push({ slot: "any order", a: (ta[c.i] as NameToken).text, b: (tb[c.j] as NameToken).text, score: round(c.s.score), how: c.s.how, points: round(pts), compared: true });
  }
  if (a.mother && b.mother) {
    // the mother's name is recorded on its own, so it is compared as such whatever the chain's order
    const s = compareCached(a.mother, b.mother);
    const pts = pointsFor(s.score, WEIGHTS.mother, false);
    points += pts;
    comps.push({ slot: "mother", a: a.mother.text, b: b.mother.text, score: round(s.score), how: s.how, points: round(pts), compared: true });
  }
  const n = comps.filter((c) => c.slot === "any order").length;
  return { alignment: { label: "order-free", pairs: [], penalty: 1.5 }, comps, points, score: n ? (num / n) * 0.9 : 0 };
}

const round = (x: number): number => Math.round(x * 1000) / 1000;

/**
 * Compare two names slot by slot. Strings are parsed with `parseNameChain`. Within one script the
 * normalised forms are compared; across scripts the spelling table and the consonant skeletons. When the
 * slots do not line up (a missing grandfather, a second name that was the father's rather than a family
 * name), the reading that explains the names best is used and said; names that only agree in another order
 * are at best "unsure".
 */
export function nameSimilarity(
  x: string | NameSlots | PreparedName,
  y: string | NameSlots | PreparedName,
  thresholds: Partial<NameThresholds> = {},
): NameSimilarity {
  const T = { ...NAME_THRESHOLDS, ...thresholds };
  const a = prepareName(x);
  const b = prepareName(y);
  const chosen = bestReading(a, b);
  const decision = decide(chosen, T);
  return {
    score: round(chosen.score),
    points: round(chosen.points),
    decision,
    slots: chosen.comps,
    reasons: explain(chosen, decision, a, b, T),
  };
}

/** The reading of the two chains that the evidence favours most. */
function bestReading(a: PreparedName, b: PreparedName): Scored {
  let best: Scored | undefined;
  for (const al of alignments(a, b)) {
    const s = scoreAlignment(al, a, b);
    if (!best || s.points > best.points + 1e-9) best = s;
  }
  const chosen = best as Scored;
  // the order-free reading can only win if its best case beats what the slots already give
  const count = (p: PreparedName): number => p.chain.filter(Boolean).length + (p.family ? 1 : 0);
  const n = Math.min(count(a), count(b));
  const ceiling = n * ORDER_FREE.match - 1.5 + (a.mother && b.mother ? WEIGHTS.mother.match : 0);
  if (ceiling > chosen.points) {
    const free = orderFree(a, b);
    if (free && free.points > chosen.points + 1e-9) return free;
  }
  return chosen;
}

/**
 * The score and decision alone, without the slot-by-slot account or sentences: for ranking many pairs.
 * Same numbers and decision as `nameSimilarity`.
 */
export function nameScore(
  x: string | NameSlots | PreparedName,
  y: string | NameSlots | PreparedName,
  thresholds: Partial<NameThresholds> = {},
): { score: number; points: number; decision: NameDecision } {
  const s = bestReading(prepareName(x), prepareName(y));
  return { score: round(s.score), points: round(s.points), decision: decide(s, { ...NAME_THRESHOLDS, ...thresholds }) };
}

function decide(s: Scored, T: NameThresholds): NameDecision {
  const compared = s.comps.filter((c) => c.compared);
  if (compared.some((c) => c.score < T.MISMATCH)) return "different";
  if (s.points <= T.DIFFERENT_POINTS && compared.length > 0) return "different";
  const agree = compared.filter((c) => c.score >= T.AGREE).length;
  // a reading that moves names between slots can support "unsure", never "same" on its own
  if (s.alignment.label === "positional" && s.points >= T.SAME_POINTS && agree >= T.SAME_SLOTS) return "same";
  return "unsure";
}

// ---------------------------------------------------------------------------------------------------------
// Words for a caseworker

const SLOT_LABEL: Record<string, string> = {
  given: "Given names",
  father: "Father's names",
  grandfather: "Grandfather's names",
  family: "Family names",
  mother: "Mother's names",
  "any order": "Names (in a different order)",
};

const HOW: Record<string, string> = {
  identical: "identical",
  normalised: "the same once spelling variants such as أ/ا, ة/ه, ى/ي, vowel marks or letter case are set aside",
  article: "the same apart from the article ال / al-",
  known: "known spellings of the same name",
  "known-different": "different names",
  confusable: "differ only in letters often confused in writing (ث/ت, ظ/ض, ذ/د, ط/ت)",
  "near-known": "a close spelling of a known name",
  spelling: "similar spellings",
  vowels: "similar letters, but the long vowels or w/y differ",
  skeleton: "the same consonants",
  initial: "an initial that fits the name",
};

function howText(how: string): string {
  if (how.startsWith("alias/")) return `through an alias: ${HOW[how.slice(6)] ?? how.slice(6)}`;
  return HOW[how] ?? how;
}

function explain(s: Scored, decision: NameDecision, a: PreparedName, b: PreparedName, T: NameThresholds): string[] {
  const out: string[] = [];
  for (const n of a.slots.notes) out.push(`First name: ${n}`);
  for (const n of b.slots.notes) out.push(`Second name: ${n}`);
  if (s.alignment.label === "a-family-as-chain" && a.family) {
    out.push(`Read "${a.family.text}" in the first name as the ${CHAIN_SLOTS[a.chain.length] ?? "ancestor"}'s name rather than a family name: the names line up better that way.`);
  }
  if (s.alignment.label === "b-family-as-chain" && b.family) {
    out.push(`Read "${b.family.text}" in the second name as the ${CHAIN_SLOTS[b.chain.length] ?? "ancestor"}'s name rather than a family name: the names line up better that way.`);
  }
  const common: string[] = [];
  if (s.alignment.label === "order-free") out.push("The names only line up in a different order, so which name is the father's or the family's cannot be trusted.");
  for (const c of s.comps) {
    const label = SLOT_LABEL[c.slot] ?? c.slot;
    if (!c.compared) {
      const have = c.a ?? c.b;
      out.push(`${label.replace(/s$/, "")}: only the ${c.a ? "first" : "second"} record has one ("${have}"); not counted.`);
      continue;
    }
    const tokA = tokenOf(c.a as string);
    const tokB = tokenOf(c.b as string);
    const across = tokA.script !== tokB.script ? " across scripts" : "";
    if (c.score >= T.AGREE) out.push(`${label} match${across}: ${c.a} ~ ${c.b} (${howText(c.how)}).`);
    else if (c.score >= T.MISMATCH) out.push(`${label} are close but not clearly the same${across}: ${c.a} ~ ${c.b} (${c.score.toFixed(2)}, ${howText(c.how)}).`);
    else out.push(`${label} differ: ${c.a} vs ${c.b}${c.how === "known-different" ? " are different names" : ""}.`);
    if (c.score >= T.AGREE && (c.slot === "given" || c.slot === "father") && tokA.common && tokB.common) common.push(c.a as string);
  }
  if (common.length === 1) out.push(`${common[0]} is among the most common names, so agreeing on it counts for little.`);
  if (common.length > 1) out.push(`${common.join(" and ")} are among the most common names, so agreeing on them counts for little.`);
  const compared = s.comps.filter((c) => c.compared);
  const agree = compared.filter((c) => c.score >= T.AGREE).length;
  if (decision === "same") out.push(`Decision: same person — ${agree} names agree and none contradicts.`);
  else if (decision === "different") {
    const bad = compared.filter((c) => c.score < T.MISMATCH).map((c) => (SLOT_LABEL[c.slot] ?? c.slot).toLowerCase());
    out.push(bad.length ? `Decision: different people — the ${bad.join(" and the ")} contradict.` : "Decision: different people — too little of the names agrees.");
  } else if (s.alignment.label === "order-free") out.push("Decision: unsure — check which name is which with the family.");
  else if (s.alignment.label !== "positional" && agree >= T.SAME_SLOTS && s.points >= T.SAME_POINTS) {
    out.push("Decision: unsure — the names agree only when one of them is read differently; ask the family for the full chain.");
  }
  else if (agree < T.SAME_SLOTS) {
    out.push(`Decision: unsure — only ${agree} name${agree === 1 ? "" : "s"} could be matched; a father's, grandfather's or mother's name would decide.`);
  } else out.push("Decision: unsure — the names are close, but not close enough to say they are one person.");
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// For the CLI and API

export interface NameComparison {
  a: NameSlots;
  b: NameSlots;
  similarity: number;
  points: number;
  decision: NameDecision;
  /** "same person", "different people", "unsure". */
  verdict: string;
  slots: SlotComparison[];
  reasons: string[];
  keys: { a: string; b: string };
}

const VERDICT: Record<NameDecision, string> = { same: "same person", different: "different people", unsure: "unsure" };

/** Everything `dalil names compare A B` shows: both parses, the slot comparisons, the decision and why. */
export function compareNames(a: string | NameSlots, b: string | NameSlots): NameComparison {
  const pa = prepareName(a);
  const pb = prepareName(b);
  const r = nameSimilarity(pa, pb);
  const key = (s: NameSlots): string => slotTexts(s).map((t) => canonicalKeys(tokenOf(t))[0] ?? "").join(" ");
  return {
    a: pa.slots,
    b: pb.slots,
    similarity: r.score,
    points: r.points,
    decision: r.decision,
    verdict: VERDICT[r.decision],
    slots: r.slots,
    reasons: r.reasons,
    keys: { a: key(pa.slots), b: key(pb.slots) },
  };
}

/** Plain-text rendering of `compareNames` for a terminal. */
export function formatComparison(c: NameComparison): string {
  const slotLine = (s: NameSlots): string =>
    (["given", "father", "grandfather", "family", "mother"] as const)
      .filter((k) => s[k])
      .map((k) => `${k}: ${s[k]}`)
      .concat(s.aliases.length ? [`also known as: ${s.aliases.join(", ")}`] : [])
      .join(" · ");
  return [
    `A: ${c.a.raw}`,
    `   ${slotLine(c.a)}`,
    `B: ${c.b.raw}`,
    `   ${slotLine(c.b)}`,
    `similarity ${c.similarity.toFixed(2)} · evidence ${c.points >= 0 ? "+" : ""}${c.points.toFixed(1)} · ${c.verdict}`,
    ...c.reasons.map((r) => `- ${r}`),
  ].join("\n");
}
