import { sql, type RawBuilder } from "kysely";
import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { searchTokens } from "../core/arabic.ts";
import { Invalid } from "../core/errors.ts";
import { cdb } from "./tables.ts";
import { Vocabularies } from "./vocabularies.ts";
import { visibleSensitivities } from "./bodies.ts";
import { normaliseNumber } from "./numbers.ts";
import { IDENTIFICATION_STATUSES, REVIEW_STATUSES, SEXES } from "./records.ts";

/**
 * Search over body records: full text (reference, numbers, names in Arabic and Latin script, notes, marks,
 * clothing, hospital, branch and finding labels, photo metadata) with Arabic normalisation, facets with counts,
 * and keyset paging. The query text goes through the same `searchTokens` as the stored text; SQLite matches
 * with FTS5, PostgreSQL with a tsvector and GIN index, over identical tokens, so both return the same bodies
 * in the same order with the same counts. Relevance ranking is deliberately not offered: BM25 and ts_rank
 * differ, and an archive's answer should not depend on its database.
 *
 * Query syntax: words are ANDed; a trailing `*` makes the last word a prefix ("محم*"). Facet filters: several
 * values of one facet are ORed, facets are ANDed; the value "unknown" selects records where the field is empty.
 * Each facet's counts apply every filter except its own (so the other choices of that facet stay visible).
 */
export const FACETS = ["branch", "hospital", "period", "finding", "review", "identification", "sex"] as const;
export type FacetName = (typeof FACETS)[number];

export const SORTS = ["ref", "-ref", "photo_date", "-photo_date", "updated", "-updated"] as const;
export type SortKey = (typeof SORTS)[number];

export interface SearchQuery {
  q?: string;
  branch?: string[];
  hospital?: string[];
  /** Months (YYYY-MM) or whole years (YYYY) of the photo date. */
  period?: string[];
  /** Finding codes; a parent code (burn) takes its children (burn_thermal …). */
  finding?: string[];
  review?: string[];
  identification?: string[];
  sex?: string[];
  sort?: SortKey;
  /** The `next` cursor of the previous page. */
  after?: string;
  limit?: number;
  /** Leave out the facet counts (a page turn needs only the items). */
  facets?: boolean;
}

export interface SearchHit {
  id: string;
  ref: string;
  externalRef: string | null;
  detaineeNo: string | null;
  branchNo: string | null;
  examinerNo: string | null;
  hospital: string | null;
  photoDate: string | null;
  deathDate: string | null;
  sex: string | null;
  ageMin: number | null;
  ageMax: number | null;
  nameAr: string | null;
  nameLat: string | null;
  identificationStatus: string;
  reviewStatus: string;
  photos: number;
  /** The first photo's SHA-256 (for a blurred thumbnail through the archive routes), or null. */
  coverPhoto: string | null;
}

export interface FacetBucket {
  /** null: the field is unknown on these records (filter with "unknown"). */
  value: string | null;
  count: number;
  labelAr?: string;
  labelEn?: string;
}

export interface SearchResult {
  total: number;
  items: SearchHit[];
  next: string | null;
  facets: Partial<Record<FacetName, FacetBucket[]>>;
  /** The tokens the query was reduced to (what was matched), for the user to see. */
  tokens: string[];
}

const MAX_LIMIT = 200;
const MAX_TOKENS = 16;
const MAX_VALUES = 50;
const UNKNOWN = "unknown";

type Cond = RawBuilder<unknown>;

interface SortSpec {
  key: RawBuilder<unknown> | null;
  desc: boolean;
}

function sortSpec(sort: SortKey, pg: boolean): SortSpec {
  // Keys are fixed-format ASCII; on PostgreSQL the "C" collation makes them compare byte for byte, as SQLite does.
  const c = (col: string, missing: string) => (pg ? sql`(coalesce(b.${sql.ref(col)}, ${sql.lit(missing)}) collate "C")` : sql`coalesce(b.${sql.ref(col)}, ${sql.lit(missing)})`);
  switch (sort) {
    case "ref":
      return { key: null, desc: false };
    case "-ref":
      return { key: null, desc: true };
    case "photo_date":
      return { key: c("photo_date", "~"), desc: false }; // unknown dates last
    case "-photo_date":
      return { key: c("photo_date", ""), desc: true }; // unknown dates last
    case "updated":
      return { key: c("updated_at", ""), desc: false };
    case "-updated":
      return { key: c("updated_at", ""), desc: true };
  }
}

interface Cursor {
  sort: SortKey;
  key: string | null;
  refNo: number;
}

function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify([c.sort, c.key, c.refNo]), "utf8").toString("base64url");
}

function decodeCursor(s: string, sort: SortKey): Cursor {
  try {
    const v = JSON.parse(Buffer.from(s, "base64url").toString("utf8")) as unknown;
    if (Array.isArray(v) && v.length === 3 && v[0] === sort && (v[1] === null || typeof v[1] === "string") && Number.isInteger(v[2])) {
      return { sort, key: v[1] as string | null, refNo: v[2] as number };
    }
  } catch {
    // fall through to the sentence below
  }
  throw new Invalid("This page cursor does not belong to this search (or to this sort order); start again from the first page.", "after");
}

function list(v: string[] | undefined, field: string): string[] {
  const out = [...new Set((v ?? []).map((x) => x.trim()).filter(Boolean))];
  if (out.length > MAX_VALUES) throw new Invalid(`At most ${MAX_VALUES} values of ${field} at once.`, field);
  return out;
}

/** The FTS5 MATCH string or the tsquery text for tokens; the last one a prefix when asked. */
function textQuery(tokens: string[], prefix: boolean, pg: boolean): string {
  return tokens
    .map((t, i) => {
      const last = prefix && i === tokens.length - 1;
      return pg ? `'${t}'${last ? ":*" : ""}` : `"${t}"${last ? "*" : ""}`;
    })
    .join(pg ? " & " : " ");
}

/** Whether a body carries a finding: a case-sensitive substring test over " a b c " (same answer on both). */
function hasFinding(code: string, pg: boolean): Cond {
  const needle = ` ${code} `;
  return pg ? sql`strpos(b.finding_codes, ${needle}) > 0` : sql`instr(b.finding_codes, ${needle}) > 0`;
}

interface Plan {
  base: Cond[];
  byFacet: Partial<Record<FacetName, Cond>>;
  tokens: string[];
}

function inOrUnknown(col: Cond, values: string[]): Cond {
  const known = values.filter((v) => v !== UNKNOWN);
  const parts: Cond[] = [];
  if (known.length) parts.push(sql`${col} in (${sql.join(known)})`);
  if (values.includes(UNKNOWN)) parts.push(sql`${col} is null`);
  return parts.length === 1 ? parts[0]! : sql`(${sql.join(parts, sql` or `)})`;
}

function plan(q: SearchQuery, vocab: Vocabularies, pg: boolean, sensitivities: string[]): Plan {
  const base: Cond[] = [sql`b.merged_into is null`, sql`b.sensitivity in (${sql.join(sensitivities)})`];
  const raw = (q.q ?? "").slice(0, 1000);
  const prefix = /\*\s*$/.test(raw);
  const tokens = searchTokens(raw.replace(/\*/g, " ")).slice(0, MAX_TOKENS);
  if (tokens.length) {
    if (prefix && tokens[tokens.length - 1]!.length < 2) throw new Invalid("A prefix search (word*) needs at least two letters or digits before the *.", "q");
    const text = textQuery(tokens, prefix, pg);
    base.push(
      pg
        ? sql`b.ref_no in (select s.ref_no from body_search s where s.search_vector @@ ${text}::tsquery)`
        : sql`b.ref_no in (select rowid from bodies_fts where bodies_fts match ${text})`,
    );
  }
  const byFacet: Partial<Record<FacetName, Cond>> = {};
  const branch = list(q.branch, "branch").map((v) => (v === UNKNOWN ? v : normaliseNumber(v)));
  if (branch.length) byFacet.branch = inOrUnknown(sql`b.branch_no_norm`, branch);
  const hospital = list(q.hospital, "hospital").map((v) => (v === UNKNOWN ? v : vocab.require("hospital", v, "hospital").code));
  if (hospital.length) byFacet.hospital = inOrUnknown(sql`b.hospital`, hospital);
  const period = list(q.period, "period");
  if (period.length) {
    const parts: Cond[] = [];
    const months = period.filter((p) => /^\d{4}-\d{2}$/.test(p));
    const years = period.filter((p) => /^\d{4}$/.test(p));
    const bad = period.find((p) => p !== UNKNOWN && !months.includes(p) && !years.includes(p));
    if (bad) throw new Invalid(`"${bad}" is not a period: write a month as YYYY-MM or a year as YYYY.`, "period");
    if (months.length) parts.push(sql`b.photo_month in (${sql.join(months)})`);
    for (const y of years) parts.push(sql`b.photo_month like ${`${y}-%`}`);
    if (period.includes(UNKNOWN)) parts.push(sql`b.photo_month is null`);
    byFacet.period = parts.length === 1 ? parts[0]! : sql`(${sql.join(parts, sql` or `)})`;
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
    const parts: Cond[] = [...codes].map((c) => hasFinding(c, pg));
    if (finding.includes(UNKNOWN)) parts.push(sql`b.finding_codes = ''`);
    byFacet.finding = parts.length === 1 ? parts[0]! : sql`(${sql.join(parts, sql` or `)})`;
  }
  const closed = (name: "review" | "identification" | "sex", values: readonly string[], col: string, what: string) => {
    const v = list(q[name], name);
    const bad = v.find((x) => x !== UNKNOWN && !values.includes(x));
    if (bad) throw new Invalid(`"${bad}" is not a ${what}; use one of ${values.join(", ")}.`, name);
    if (v.length) byFacet[name] = inOrUnknown(sql`b.${sql.ref(col)}`, v);
  };
  closed("review", REVIEW_STATUSES, "review_status", "review status");
  closed("identification", IDENTIFICATION_STATUSES, "identification_status", "identification status");
  closed("sex", SEXES, "sex", "sex");
  return { base, byFacet, tokens };
}

function whereOf(p: Plan, except?: FacetName): Cond {
  const conds = [...p.base, ...Object.entries(p.byFacet).filter(([k]) => k !== except).map(([, c]) => c as Cond)];
  return sql.join(conds, sql` and `);
}

const FACET_COLUMN: Record<FacetName, "branch_no_norm" | "hospital" | "photo_month" | "review_status" | "identification_status" | "sex" | "finding_codes"> = {
  branch: "branch_no_norm",
  hospital: "hospital",
  period: "photo_month",
  finding: "finding_codes",
  review: "review_status",
  identification: "identification_status",
  sex: "sex",
};

/** Unfiltered facets counted together: their value combinations stay few (tens), so one scan serves them all. */
const SHARED_SCANS: FacetName[][] = [["branch", "hospital"], ["review", "identification", "sex"], ["period"], ["finding"]];

function orderBuckets(b: FacetBucket[]): FacetBucket[] {
  return b.sort((x, y) => {
    if (x.count !== y.count) return y.count - x.count;
    if (x.value === null) return 1;
    if (y.value === null) return -1;
    return x.value < y.value ? -1 : x.value > y.value ? 1 : 0;
  });
}

export async function searchBodies(ctx: Ctx, actor: Actor, query: SearchQuery): Promise<SearchResult> {
  ctx.policy.require(actor, "catalogue.read");
  const db = cdb(ctx.db.db);
  const pg = ctx.db.dialect === "postgres";
  const sort: SortKey = query.sort ?? "ref";
  if (!(SORTS as readonly string[]).includes(sort)) throw new Invalid(`Sort by one of ${SORTS.join(", ")}.`, "sort");
  const limit = Math.min(Math.max(Math.trunc(query.limit ?? 50), 1), MAX_LIMIT);
  const vocab = await Vocabularies.cached(ctx.db.db);
  const p = plan(query, vocab, pg, visibleSensitivities(ctx, actor));
  const spec = sortSpec(sort, pg);
  const cursor = query.after ? decodeCursor(query.after, sort) : null;

  const all = whereOf(p);
  let page: Cond = all;
  if (cursor) {
    const cmp = spec.desc ? sql`<` : sql`>`;
    page = spec.key
      ? sql`${all} and (${spec.key}, b.ref_no) ${cmp} (${cursor.key ?? ""}, ${cursor.refNo})`
      : sql`${all} and b.ref_no ${cmp} ${cursor.refNo}`;
  }
  const dir = spec.desc ? sql`desc` : sql`asc`;
  const order = spec.key ? sql`${spec.key} ${dir}, b.ref_no ${dir}` : sql`b.ref_no ${dir}`;
  const keyCol = spec.key ?? sql`null`;

  // The page's keys come from the facet index alone; the rows are read for those keys only.
  const keysQuery = sql<{ ref_no: number; sort_key: string | null }>`select b.ref_no, ${keyCol} as sort_key from bodies b
    where ${page} order by ${order} limit ${limit + 1}`;
  const wantFacets = query.facets ?? true;
  // A facet with its own filter is counted under every other filter (its own scan); facets without one share
  // the full filter, and are counted in a few joint scans of their value combinations (few, so cheap).
  const scans: { facets: FacetName[]; where: Cond; shared: boolean }[] = [];
  if (wantFacets) {
    for (const f of FACETS) if (p.byFacet[f]) scans.push({ facets: [f], where: whereOf(p, f), shared: false });
    for (const group of SHARED_SCANS) {
      const members = group.filter((f) => !p.byFacet[f]);
      if (members.length) scans.push({ facets: members, where: all, shared: true });
    }
  }
  const scanQueries = scans.map((sc) => {
    const cols = sc.facets.map((f, i) => sql`b.${sql.ref(FACET_COLUMN[f])} as ${sql.ref(`f${i}`)}`);
    const group = sc.facets.map((f) => sql`b.${sql.ref(FACET_COLUMN[f])}`);
    return sql<Record<string, string | number | null>>`select ${sql.join(cols)}, count(*) as n from bodies b where ${sc.where} group by ${sql.join(group)}`.execute(db);
  });
  const countQuery = scans.some((sc) => sc.shared) ? null : sql<{ n: number }>`select count(*) as n from bodies b where ${all}`.execute(db);

  const [keys, scanRows, count] = await Promise.all([keysQuery.execute(db), Promise.all(scanQueries), countQuery]);
  const pageKeys = keys.rows.slice(0, limit);
  const more = keys.rows.length > limit;
  const last = pageKeys[pageKeys.length - 1];
  const refNos = pageKeys.map((k) => Number(k.ref_no));

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
  const byBody = new Map<string, string[]>();
  for (const ph of photos) {
    let l = byBody.get(ph.body_id);
    if (!l) byBody.set(ph.body_id, (l = []));
    l.push(ph.original_sha256);
  }

  const counts = new Map<FacetName, Map<string | null, number>>();
  let total = count ? Number(count.rows[0]?.n ?? 0) : -1;
  scans.forEach((sc, s) => {
    let sum = 0;
    for (const r of scanRows[s]!.rows) {
      const n = Number(r.n);
      sum += n;
      sc.facets.forEach((f, i) => {
        let m = counts.get(f);
        if (!m) counts.set(f, (m = new Map()));
        const v = r[`f${i}`] ?? null;
        // finding_codes holds " a b ": each code counts the body once; a body without findings adds nothing.
        const values = f === "finding" ? String(v ?? "").split(" ").filter(Boolean) : [v === null ? null : String(v)];
        for (const x of values) m.set(x, (m.get(x) ?? 0) + n);
      });
    }
    if (sc.shared) total = sum;
  });
  const facets: Partial<Record<FacetName, FacetBucket[]>> = {};
  if (wantFacets) {
    for (const f of FACETS) {
      const vocabName = f === "branch" ? "branch" : f === "hospital" ? "hospital" : f === "finding" ? "finding" : null;
      facets[f] = orderBuckets(
        [...(counts.get(f) ?? new Map<string | null, number>())].map(([value, n]) => {
          const t = vocabName && value ? vocab.get(vocabName, value) : undefined;
          return { value, count: n, ...(t ? { labelAr: t.labelAr, labelEn: t.labelEn } : {}) };
        }),
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
    })),
    next: more && last ? encodeCursor({ sort, key: last.sort_key === null ? null : String(last.sort_key), refNo: Number(last.ref_no) }) : null,
    facets,
    tokens: p.tokens,
  };
}
