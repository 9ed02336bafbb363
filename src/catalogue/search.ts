import { createHash } from "node:crypto";
import { CompiledQuery, sql } from "kysely";
import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { searchTokens } from "../core/arabic.ts";
import { Invalid } from "../core/errors.ts";
import { cdb } from "./tables.ts";
import { facetIndex, SCALAR_FACETS, type FacetIndex, type OrderName } from "./facet-index.ts";
import { Vocabularies } from "./vocabularies.ts";
import { visibleSensitivities } from "./bodies.ts";
import { normaliseNumber } from "./numbers.ts";
import { IDENTIFICATION_STATUSES, REVIEW_STATUSES, SEXES } from "./records.ts";
import * as contracts from "./contracts.ts";
import { parseInput } from "../core/input.ts";
import type { z } from "zod";
import { NAME_KEY_PREFIX, nameParts, namePartsMatcher, nameSearchKeys } from "../names/index.ts";
import { say } from "../core/messages.ts";

/**
 * Search over body records: full text (reference, numbers, names in Arabic and Latin script, notes, marks,
 * clothing, hospital, branch and finding labels, photo metadata) with Arabic normalisation, facets with counts,
 * and keyset paging.
 *
 * The text goes through the same `searchTokens` as the stored documents; SQLite matches with FTS5, PostgreSQL
 * with a b-tree of (word, ref_no) (migration 0028), over identical tokens, so both find the same bodies.
 * Everything else (facet filters, counts, sort, pages) runs over the in-memory facet index (facet-index.ts) by
 * one piece of code, so both databases give the same order, totals and counts. Relevance ranking is deliberately
 * not offered: FTS5's BM25 and PostgreSQL's ranks differ, and an archive's answer should not depend on its
 * database.
 *
 * Query syntax: words are ANDed; a trailing `*` makes the last word a prefix ("محم*"). Facet filters: several
 * values of one facet are ORed, facets are ANDed; the value "unknown" selects records where the field is empty.
 * Each facet's counts apply every filter except its own (so the other choices of that facet stay visible).
 */
export const FACETS = ["branch", "hospital", "period", "finding", "review", "identification", "sex"] as const;
export type FacetName = (typeof FACETS)[number];

export const SORTS = contracts.SORTS;
export type SortKey = (typeof SORTS)[number];

/** What a caller sends (see contracts.SearchInput); `ParsedSearch` is what the search works with. */
export type SearchQuery = z.input<typeof contracts.SearchInput>;
type ParsedSearch = z.output<typeof contracts.SearchInput>;

export type SearchHit = contracts.SearchHit;

export type FacetBucket = contracts.FacetBucket;

export type SearchResult = contracts.SearchResult;

const MAX_LIMIT = 200;
const MAX_TOKENS = 16;
const MAX_VALUES = 50;
const UNKNOWN = "unknown";

interface Cursor {
  sort: SortKey;
  key: string;
  refNo: number;
}

function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify([c.sort, c.key, c.refNo]), "utf8").toString("base64url");
}

function decodeCursor(s: string, sort: SortKey): Cursor {
  try {
    const v = JSON.parse(Buffer.from(s, "base64url").toString("utf8")) as unknown;
    if (Array.isArray(v) && v.length === 3 && v[0] === sort && typeof v[1] === "string" && Number.isInteger(v[2])) {
      return { sort, key: v[1] as string, refNo: v[2] as number };
    }
  } catch {
    // fall through to the sentence below
  }
  throw new Invalid(say("search.cursor"), "after");
}

function list(v: string[] | undefined, field: string): string[] {
  const out = [...new Set((v ?? []).map((x) => x.trim()).filter(Boolean))];
  if (out.length > MAX_VALUES) throw new Invalid(say("search.tooManyValues", { max: MAX_VALUES, field }), field);
  return out;
}

/** The FTS5 MATCH string for tokens (SQLite); the last one a prefix when asked. */
function ftsQuery(tokens: string[], prefix: boolean): string {
  return tokens.map((t, i) => `"${t}"${prefix && i === tokens.length - 1 ? "*" : ""}`).join(" ");
}

/** A facet filter: which values pass (unknown = the field is empty). */
interface ValueFilter {
  accepts: (v: string) => boolean;
  unknown: boolean;
}

interface Plan {
  tokens: string[];
  prefix: boolean;
  /** The query read as a name: each part's cross-script keys (null when it is not a name: digits, a prefix). */
  nameKeys: string[][] | null;
  filters: Partial<Record<FacetName, ValueFilter>>;
}

function valueFilter(values: string[], accepts?: (v: string) => boolean): ValueFilter {
  const set = new Set(values.filter((v) => v !== UNKNOWN));
  return { accepts: accepts ?? ((v) => set.has(v)), unknown: values.includes(UNKNOWN) };
}

function plan(q: ParsedSearch, vocab: Vocabularies): Plan {
  const raw = (q.q ?? "").slice(0, 1000);
  const prefix = /\*\s*$/.test(raw);
  const tokens = searchTokens(raw.replace(/\*/g, " ")).slice(0, MAX_TOKENS);
  if (prefix && tokens.length && tokens[tokens.length - 1]!.length < 2) {
    throw new Invalid(say("search.prefixShort"), "q");
  }
  // a name in one script finds it written in the other, through the names module's keys (both are indexed)
  const keys = !prefix && tokens.length > 0 && !/\p{N}/u.test(raw) ? nameSearchKeys(raw).slice(0, MAX_TOKENS) : [];
  const nameKeys = keys.length ? keys.map((part) => part.map((k) => NAME_KEY_PREFIX + k)) : null;
  const filters: Partial<Record<FacetName, ValueFilter>> = {};
  const branch = list(q.branch, "branch").map((v) => (v === UNKNOWN ? v : normaliseNumber(v)));
  if (branch.length) filters.branch = valueFilter(branch);
  const hospital = list(q.hospital, "hospital").map((v) => (v === UNKNOWN ? v : vocab.require("hospital", v, "hospital").code));
  if (hospital.length) filters.hospital = valueFilter(hospital);
  const period = list(q.period, "period");
  if (period.length) {
    const bad = period.find((x) => x !== UNKNOWN && !/^\d{4}(-\d{2})?$/.test(x));
    if (bad) throw new Invalid(say("search.period", { bad }), "period");
    const set = new Set(period);
    filters.period = valueFilter(period, (m) => set.has(m) || set.has(m.slice(0, 4)));
  }
  const finding = list(q.finding, "finding");
  if (finding.length) {
    const codes = new Set<string>();
    for (const f of finding) {
      if (f === UNKNOWN) continue;
      const t = vocab.require("finding", f, "finding");
      codes.add(t.code);
      for (const child of vocab.terms("finding", true)) if (child.parent === t.code) codes.add(child.code);
    }
    filters.finding = valueFilter(finding, (c) => codes.has(c));
  }
  const closed = (name: "review" | "identification" | "sex", values: readonly string[]) => {
    const v = list(q[name], name);
    const bad = v.find((x) => x !== UNKNOWN && !values.includes(x));
    if (bad) throw new Invalid(say("field.oneOf", { field: name, value: bad.slice(0, 100), values: values.join(", ") }), name);
    if (v.length) filters[name] = valueFilter(v);
  };
  closed("review", REVIEW_STATUSES);
  closed("identification", IDENTIFICATION_STATUSES);
  closed("sex", SEXES);
  return { tokens, prefix, nameKeys, filters };
}

/** A filter as a test on a position of the index: a lookup in a table of the column's value ids. */
function compile(index: FacetIndex, f: FacetName, filter: ValueFilter): (pos: number) => boolean {
  if (f === "finding") {
    const ok = Uint8Array.from(index.findingDict.values, (v) => (v !== null && filter.accepts(v) ? 1 : 0));
    const findings = index.findings;
    return (pos) => {
      const codes = findings[pos]!;
      if (codes.length === 0) return filter.unknown;
      for (let j = 0; j < codes.length; j++) if (ok[codes[j]!] === 1) return true;
      return false;
    };
  }
  const { ids, dict } = index.columns[f];
  const ok = Uint8Array.from(dict.values, (v) => ((v === null ? filter.unknown : filter.accepts(v)) ? 1 : 0));
  return (pos) => ok[ids[pos]!] === 1;
}

function orderBuckets(b: FacetBucket[]): FacetBucket[] {
  return b.sort((x, y) => {
    if (x.count !== y.count) return y.count - x.count;
    if (x.value === null) return 1;
    if (y.value === null) return -1;
    return x.value < y.value ? -1 : x.value > y.value ? 1 : 0;
  });
}

/** The ref_no of every active body the text matches (null: no text, every body). */
async function textMatches(ctx: Ctx, p: Plan, raw: string, stamp: number): Promise<number[] | null> {
  if (p.tokens.length === 0) return null;
  const { words, more } = ctx.db.dialect === "postgres" ? await pgMatches(ctx, p) : await sqliteMatches(ctx, p);
  if (!more.length) return words;
  // the bodies only the keys found, by the names module's comparison: keys are skeletons, and علاء and علي share one
  const found = namePartsMatcher(raw);
  const names = await namesOf(ctx, stamp, more);
  for (const n of more) if (names.get(n)!.some((parts) => found.parts(parts))) words.push(n);
  return words;
}

/** The first string after every string that starts with `prefix`, in code point (= UTF-8 byte) order; null if none. */
export function afterPrefix(prefix: string): string | null {
  const points = [...prefix];
  while (points.length) {
    let next = points.pop()!.codePointAt(0)! + 1;
    if (next >= 0xd800 && next <= 0xdfff) next = 0xe000;
    if (next <= 0x10ffff) return points.join("") + String.fromCodePoint(next);
  }
  return null;
}

/** One word of a query: a body matches when it holds any of `words`, or, for a prefix, a word that begins with it. */
interface WordGroup {
  words: string[];
  prefix: boolean;
}

/**
 * PostgreSQL: one fixed statement per shape of query over the (word, ref_no) b-tree of migration 0028, read
 * without visiting a table row. The bodies are driven by one exact word (a range of the index, each body in it
 * once) and the query's other words are semi-joins. The words' and the keys' bodies come back as two strings,
 * not as a row a body: thousands of rows cost node more than the search did (p95 31 against 15 ms for مح* at
 * ten times the card). Each shape is planned once per pooled connection (`prepared`): planning took about 2 ms
 * of a common name's search.
 */
function wordsStatement(words: WordGroup[], keys: WordGroup[] | null): { text: string; values: unknown[] } {
  const values: unknown[] = [];
  const param = (v: unknown) => `$${values.push(v)}`;
  const match = (g: WordGroup, column: string) => {
    if (g.prefix) {
      const end = afterPrefix(g.words[0]!);
      return `${column} >= ${param(g.words[0]!)}${end === null ? "" : ` and ${column} < ${param(end)}`}`;
    }
    return g.words.length === 1 ? `${column} = ${param(g.words[0]!)}` : `${column} = any(${param(g.words)}::text[])`;
  };
  const bodies = (groups: WordGroup[]) => {
    const at = Math.max(0, groups.findIndex((g) => !g.prefix && g.words.length === 1));
    const driver = groups[at]!;
    const once = !driver.prefix && driver.words.length === 1;
    const where = [match(driver, "d.word")];
    for (const [i, g] of groups.entries()) {
      if (i !== at) where.push(`exists (select 1 from body_words x where x.ref_no = d.ref_no and ${match(g, "x.word")})`);
    }
    return `select string_agg(ref_no::text, ',') from (select ${once ? "" : "distinct "}d.ref_no from body_words d where ${where.join(" and ")}) b`;
  };
  const text = `select (${bodies(words)}) as words, ${keys ? `(${bodies(keys)})` : "null"} as keys`;
  return { text, values };
}

async function pgMatches(ctx: Ctx, p: Plan): Promise<{ words: number[]; more: number[] }> {
  const { text, values } = wordsStatement(
    p.tokens.map((t, i) => ({ words: [t], prefix: p.prefix && i === p.tokens.length - 1 })),
    p.nameKeys?.map((part) => ({ words: part, prefix: false })) ?? null,
  );
  type Found = { words: string | null; keys: string | null };
  // A connection keeps each shape's plan: only short queries (up to four words and four parts of a name, a few
  // hundred shapes at most) are kept, so no run of odd queries can grow the server's memory without end.
  const rows = ctx.db.prepared && p.tokens.length <= 4 && (p.nameKeys?.length ?? 0) <= 4
    ? await ctx.db.prepared<Found>(`search_${createHash("sha256").update(text).digest("hex").slice(0, 20)}`, text, values)
    : (await ctx.db.db.executeQuery<Found>(CompiledQuery.raw(text, values))).rows;
  const list = (s: string | null | undefined) => (s ? s.split(",").map(Number) : []);
  const words = list(rows[0]?.words);
  const have = new Set(words);
  return { words, more: list(rows[0]?.keys).filter((n) => !have.has(n)) };
}

async function sqliteMatches(ctx: Ctx, p: Plan): Promise<{ words: number[]; more: number[] }> {
  const run = async (text: string) => (await sql<{ n: number }>`select rowid as n from bodies_fts where bodies_fts match ${text}`.execute(ctx.db.db)).rows.map((r) => Number(r.n));
  const words = await run(ftsQuery(p.tokens, p.prefix));
  if (!p.nameKeys) return { words, more: [] };
  // every part of the name by one of its keys (FTS5 wants AND spelled out between groups)
  const keysQuery = p.nameKeys.map((part) => `(${part.map((k) => `"${k}"`).join(" OR ")})`).join(" AND ");
  const have = new Set(words);
  return { words, more: (await run(keysQuery)).filter((n) => !have.has(n)) };
}

/**
 * Each body's names (its own, and those documents give it, decision 0032) by ref_no, each already split into its
 * parts as a name search compares them, held per process while the catalogue's stamp stands still: every change
 * to a body or its documents moves it. A common name's keys find thousands of bodies whose names must be compared
 * (محمد's find every محمود); reading and splitting their names for every search cost more than the comparison.
 */
const NAMES = new WeakMap<object, { stamp: number; byRef: Map<number, string[][]> }>();

async function namesOf(ctx: Ctx, stamp: number, refNos: number[]): Promise<Map<number, string[][]>> {
  let cache = NAMES.get(ctx.db.db);
  if (!cache || cache.stamp !== stamp) NAMES.set(ctx.db.db, (cache = { stamp, byRef: new Map() }));
  const byRef = cache.byRef;
  const missing = refNos.filter((n) => !byRef.has(n));
  const db = cdb(ctx.db.db);
  for (let i = 0; i < missing.length; i += 500) {
    const batch = missing.slice(i, i + 500);
    const rows = await db.selectFrom("bodies").select(["id", "ref_no", "name_ar", "name_lat"]).where("ref_no", "in", batch).execute();
    const documented = new Map<string, string[]>();
    const ids = rows.map((r) => r.id);
    if (ids.length) {
      for (const d of await db.selectFrom("body_documents").select(["body_id", "value"]).where("body_id", "in", ids).where("kind", "=", "name").execute()) {
        documented.set(d.body_id, [...(documented.get(d.body_id) ?? []), d.value]);
      }
    }
    for (const n of batch) byRef.set(n, []);
    for (const r of rows) byRef.set(Number(r.ref_no), [r.name_ar, r.name_lat, ...(documented.get(r.id) ?? [])].filter((n): n is string => Boolean(n)).map(nameParts));
  }
  return byRef;
}

const SORT_ORDER: Record<SortKey, { name: OrderName; desc: boolean }> = {
  ref: { name: "ref", desc: false },
  "-ref": { name: "ref", desc: true },
  photo_date: { name: "photo_date", desc: false },
  "-photo_date": { name: "photo_date", desc: true },
  updated: { name: "updated", desc: false },
  "-updated": { name: "updated", desc: true },
};

export async function searchBodies(ctx: Ctx, actor: Actor, sent: SearchQuery): Promise<SearchResult> {
  ctx.policy.require(actor, "catalogue.read");
  const query = parseInput(contracts.SearchInput, sent);
  const db = cdb(ctx.db.db);
  const sort: SortKey = query.sort ?? "ref";
  const limit = Math.min(Math.max(Math.trunc(query.limit ?? 50), 1), MAX_LIMIT);
  const cursor = query.after ? decodeCursor(query.after, sort) : null;
  const [vocab, index] = await Promise.all([Vocabularies.cached(ctx.db.db), facetIndex(ctx.db.db)]);
  const p = plan(query, vocab);
  const matched = await textMatches(ctx, p, (query.q ?? "").slice(0, 1000), index.stamp);
  const visibleNames = new Set<string>(visibleSensitivities(ctx, actor));
  const visible = Uint8Array.from(index.sensitivities.values, (v) => (v !== null && visibleNames.has(v) ? 1 : 0));

  // One pass: a body fails some of the facet filters. Failing none, it is a result and counts in every facet;
  // failing exactly one, it counts in that facet only (the choices next to the one made).
  const active = FACETS.filter((f) => p.filters[f]);
  const tests = active.map((f) => compile(index, f, p.filters[f]!));
  const wantFacets = query.facets ?? true;
  const scalarCounts = SCALAR_FACETS.map((f) => new Int32Array(index.columns[f].dict.values.length));
  const findingCounts = new Int32Array(index.findingDict.values.length);
  // The pass below visits every body on a search without words (110,000 at ten times the card): the columns it
  // reads are taken out of the index once, and its loops are indexed, not iterated.
  const colIds = SCALAR_FACETS.map((f) => index.columns[f].ids);
  const nScalar = colIds.length;
  const findings = index.findings;
  const activeAt = index.active;
  const sensitivityAt = index.sensitivity;
  const nTests = tests.length;
  const countAll = (pos: number) => {
    for (let k = 0; k < nScalar; k++) scalarCounts[k]![colIds[k]![pos]!]!++;
    const fs = findings[pos]!;
    for (let j = 0; j < fs.length; j++) findingCounts[fs[j]!]!++;
  };
  const bump = (f: FacetName, pos: number) => {
    if (f === "finding") {
      const fs = findings[pos]!;
      for (let j = 0; j < fs.length; j++) findingCounts[fs[j]!]!++;
    } else {
      const k = SCALAR_FACETS.indexOf(f);
      scalarCounts[k]![colIds[k]![pos]!]!++;
    }
  };
  const hit = new Uint8Array(index.size);
  let total = 0;
  const consider = (pos: number) => {
    if (activeAt[pos] !== 1 || visible[sensitivityAt[pos]!] !== 1) return;
    let failed = -1;
    let failures = 0;
    for (let t = 0; t < nTests && failures < 2; t++) {
      if (!tests[t]!(pos)) {
        failures++;
        failed = t;
      }
    }
    if (failures === 0) {
      hit[pos] = 1;
      total++;
      if (wantFacets) countAll(pos);
    } else if (failures === 1 && wantFacets) {
      bump(active[failed]!, pos);
    }
  };
  if (matched) {
    // A body is in the text's matches once; one that left the index since (merged) has no position.
    for (const n of matched) {
      const pos = index.positionOf(n);
      if (pos !== undefined) consider(pos);
    }
  } else {
    for (let pos = 0; pos < index.size; pos++) consider(pos);
  }

  // The page: walk the sort order from the cursor, keep the hits.
  const { name, desc } = SORT_ORDER[sort];
  const { order, key } = index.order(name, desc);
  let start = 0;
  if (cursor) {
    // First position strictly after the cursor in this order (binary search on (key, ref_no)).
    let lo = 0;
    let hi = order.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const pos = order[mid]!;
      const k = key(pos);
      const c = k < cursor.key ? -1 : k > cursor.key ? 1 : index.refNo[pos]! - cursor.refNo;
      if ((desc ? -c : c) <= 0) lo = mid + 1;
      else hi = mid;
    }
    start = lo;
  }
  const page: number[] = [];
  let more = false;
  for (let i = start; i < order.length; i++) {
    const pos = order[i]!;
    if (hit[pos] !== 1) continue;
    if (page.length === limit) {
      more = true;
      break;
    }
    page.push(pos);
  }
  const last = page[page.length - 1];

  type Row = {
    id: string;
    ref: string;
    ref_no: number;
    external_ref: string | null;
    detainee_no: string | null;
    branch_no: string | null;
    examiner_no: string | null;
    hospital: string | null;
    photo_date: string | null;
    death_date: string | null;
    sex: string | null;
    age_min: number | null;
    age_max: number | null;
    name_ar: string | null;
    name_lat: string | null;
    identification_status: string;
    review_status: string;
  };
  const refNos = page.map((pos) => index.refNo[pos]!);
  const rows: Row[] = refNos.length
    ? await db
        .selectFrom("bodies")
        .select(["id", "ref", "ref_no", "external_ref", "detainee_no", "branch_no", "examiner_no", "hospital", "photo_date", "death_date", "sex", "age_min", "age_max", "name_ar", "name_lat", "identification_status", "review_status"])
        .where("ref_no", "in", refNos)
        .execute()
    : [];
  const byRef = new Map(rows.map((r) => [Number(r.ref_no), r]));
  const items = refNos.map((n) => byRef.get(n)).filter((r): r is Row => r !== undefined);
  const photos = items.length
    ? await db
        .selectFrom("body_photos")
        .select(["body_id", "original_sha256", "position"])
        .where("body_id", "in", items.map((r) => r.id))
        .orderBy("body_id")
        .orderBy("position")
        .execute()
    : [];
  // The numbers that matched the words asked for (any number on record not withdrawn, whatever its role):
  // the results say which card or body number a hit was found by, as transcribed.
  const wanted = p.tokens;
  const numbers = items.length && wanted.length
    ? await db
        .selectFrom("body_numbers")
        .select(["body_id", "role", "value", "checked_by", "seq"])
        .where("body_id", "in", items.map((r) => r.id))
        .where("retired_at", "is", null)
        .orderBy("seq")
        .execute()
    : [];
  const matchedBy = new Map<string, { role: string; value: string; checked: boolean }[]>();
  for (const n of numbers) {
    const words = searchTokens(n.value);
    const hit = wanted.some((w, i) => words.some((x) => x === w || (p.prefix && i === wanted.length - 1 && x.startsWith(w))));
    if (!hit) continue;
    let l = matchedBy.get(n.body_id);
    if (!l) matchedBy.set(n.body_id, (l = []));
    l.push({ role: n.role, value: n.value, checked: n.checked_by !== null });
  }
  const byBody = new Map<string, string[]>();
  for (const ph of photos) {
    let l = byBody.get(ph.body_id);
    if (!l) byBody.set(ph.body_id, (l = []));
    l.push(ph.original_sha256);
  }

  const facets: Partial<Record<FacetName, FacetBucket[]>> = {};
  if (wantFacets) {
    const bucket = (vocabName: "branch" | "hospital" | "finding" | null, value: string | null, n: number): FacetBucket => {
      const t = vocabName && value ? vocab.get(vocabName, value) : undefined;
      return { value, count: n, ...(t ? { labelAr: t.labelAr, labelEn: t.labelEn } : {}) };
    };
    for (const f of FACETS) {
      if (f === "finding") {
        facets.finding = orderBuckets(
          index.findingDict.values.flatMap((v, id) => (findingCounts[id]! > 0 ? [bucket("finding", v, findingCounts[id]!)] : [])),
        );
        continue;
      }
      const k = SCALAR_FACETS.indexOf(f);
      const vocabName = f === "branch" ? "branch" : f === "hospital" ? "hospital" : null;
      facets[f] = orderBuckets(
        index.columns[f].dict.values.flatMap((v, id) => (scalarCounts[k]![id]! > 0 ? [bucket(vocabName, v, scalarCounts[k]![id]!)] : [])),
      );
    }
  }

  return {
    total,
    items: items.map((r) => ({
      id: r.id,
      ref: r.ref,
      externalRef: r.external_ref,
      detaineeNo: r.detainee_no,
      branchNo: r.branch_no,
      examinerNo: r.examiner_no,
      hospital: r.hospital,
      photoDate: r.photo_date,
      deathDate: r.death_date,
      sex: r.sex,
      ageMin: r.age_min === null ? null : Number(r.age_min),
      ageMax: r.age_max === null ? null : Number(r.age_max),
      nameAr: r.name_ar,
      nameLat: r.name_lat,
      identificationStatus: r.identification_status,
      reviewStatus: r.review_status,
      photos: byBody.get(r.id)?.length ?? 0,
      coverPhoto: byBody.get(r.id)?.[0] ?? null,
      matchedNumbers: matchedBy.get(r.id) ?? [],
    })),
    next: more && last !== undefined ? encodeCursor({ sort, key: key(last), refNo: index.refNo[last]! }) : null,
    facets,
    tokens: p.tokens,
  };
}
