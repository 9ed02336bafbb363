import { sql } from "kysely";
import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import type { Tx } from "../db/database.ts";
import { Invalid } from "../core/errors.ts";
import { cdb } from "./tables.ts";
import { visibleSensitivities } from "./bodies.ts";
import { Vocabularies, type VocabularyName } from "./vocabularies.ts";
import { countPreserved } from "../archive/index.ts";
import type * as contracts from "./contracts.ts";
import { say } from "../core/messages.ts";

/**
 * The figures a report quotes: how many bodies, photographs and facilities the archive holds, and bodies by
 * security branch, hospital, month of the photograph, month of death and forensic finding (from reviews).
 *
 * Who sees them is the catalogue's readers (catalogue.read), counting only the bodies their clearance lets them
 * read, so a figure never reveals a record its reader could not open. The public and curators get nothing here:
 * the policy grants them no reading of body records, aggregated or not, with one exception (decision 0030):
 * `publishableBreakdown`, one breakdown of the bodies marked public with small cells withheld, which an
 * exhibition's reviewer freezes into a chart item.
 *
 * A figure meant for publication can be asked for with `minCount` (k): every cell counting fewer than k bodies
 * (but some) is withheld, and when a breakdown withholds exactly one cell the next smallest is withheld too, so
 * the hidden one cannot be recovered by subtracting the others from the published total.
 *
 * All counts are plain SQL aggregates over the same rows on SQLite and PostgreSQL.
 */
export type StatBucket = contracts.StatBucket;

export type Statistics = contracts.Statistics;

export const STATISTIC_BREAKDOWNS = ["byBranch", "byHospital", "byPhotoMonth", "byDeathMonth", "byFinding"] as const;
export type Breakdown = (typeof STATISTIC_BREAKDOWNS)[number];

export const MAX_MIN_COUNT = 100;
export const IMPRECISE = "imprecise";

type Counted = { value: string | null; count: number };

/** Month of a death whose earliest and latest possible days fall in one month; otherwise imprecise or unknown. */
function deathMonth(earliest: string | null, latest: string | null): string | null {
  if (!earliest || !latest) return null;
  return earliest.slice(0, 7) === latest.slice(0, 7) ? earliest.slice(0, 7) : IMPRECISE;
}

function byCount(a: Counted, b: Counted): number {
  if (a.count !== b.count) return b.count - a.count;
  if (a.value === null) return 1;
  if (b.value === null) return -1;
  return a.value < b.value ? -1 : a.value > b.value ? 1 : 0;
}

/** Months in time order; imprecise, then unknown, last. */
function byMonth(a: Counted, b: Counted): number {
  const key = (v: string | null) => (v === null ? "~~" : v === IMPRECISE ? "~" : v);
  const ka = key(a.value);
  const kb = key(b.value);
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

/** Withholds small cells (and one more when a single withheld cell could be worked out from the total). */
export function suppress(cells: Counted[], k: number): (number | null)[] {
  const out: (number | null)[] = cells.map((c) => (k > 0 && c.count > 0 && c.count < k ? null : c.count));
  const hidden = out.filter((v) => v === null).length;
  if (hidden === 1) {
    let smallest = -1;
    out.forEach((v, i) => {
      if (v !== null && v > 0 && (smallest < 0 || v < (out[smallest] as number))) smallest = i;
    });
    if (smallest >= 0) out[smallest] = null;
  }
  return out;
}

function buckets(rows: Counted[], k: number, order: (a: Counted, b: Counted) => number, vocab: Vocabularies, name: VocabularyName | null): StatBucket[] {
  const sorted = [...rows].sort(order);
  const counts = suppress(sorted, k);
  return sorted.map((r, i) => {
    const t = name && r.value ? vocab.get(name, r.value) : undefined;
    return { value: r.value, count: counts[i]!, ...(t ? { labelAr: t.labelAr, labelEn: t.labelEn } : {}) };
  });
}

function merge(rows: { value: string | null; n: number | string | bigint }[]): Counted[] {
  const m = new Map<string | null, number>();
  for (const r of rows) m.set(r.value, (m.get(r.value) ?? 0) + Number(r.n));
  return [...m].map(([value, count]) => ({ value, count }));
}

async function gather(db: Tx, visible: string[]) {
  const c = cdb(db);
  const bodies = () => c.selectFrom("bodies").where("merged_into", "is", null).where("sensitivity", "in", visible);
  const count = sql<number>`count(*)`.as("n");
  const [total, reviewed, identified, photos, branch, hospital, photo, death, finding, facilities, originals] = await Promise.all([
    bodies().select(count).executeTakeFirstOrThrow(),
    bodies().where("review_status", "=", "reviewed").select(count).executeTakeFirstOrThrow(),
    bodies().where("identification_status", "=", "identified").select(count).executeTakeFirstOrThrow(),
    c
      .selectFrom("body_photos")
      .innerJoin("bodies", "bodies.id", "body_photos.body_id")
      .where("bodies.merged_into", "is", null)
      .where("bodies.sensitivity", "in", visible)
      .select(count)
      .executeTakeFirstOrThrow(),
    bodies().select(["branch_no_norm as value", count]).groupBy("branch_no_norm").execute(),
    bodies().select(["hospital as value", count]).groupBy("hospital").execute(),
    bodies().select(["photo_month as value", count]).groupBy("photo_month").execute(),
    bodies().select(["death_date_earliest as earliest", "death_date_latest as latest", count]).groupBy(["death_date_earliest", "death_date_latest"]).execute(),
    c
      .selectFrom("body_findings")
      .innerJoin("bodies", "bodies.id", "body_findings.body_id")
      .where("bodies.merged_into", "is", null)
      .where("bodies.sensitivity", "in", visible)
      .where("body_findings.source", "=", "review")
      .select(["body_findings.code as value", sql<number>`count(distinct body_findings.body_id)`.as("n")])
      .groupBy("body_findings.code")
      .execute(),
    c.selectFrom("entities").where("kind", "=", "facility").where("sensitivity", "in", visible).select(count).executeTakeFirstOrThrow(),
    countPreserved(db),
  ]);
  return {
    bodies: Number(total.n),
    reviewed: Number(reviewed.n),
    identified: Number(identified.n),
    photos: Number(photos.n),
    facilities: Number(facilities.n),
    originals,
    branch: merge(branch),
    hospital: merge(hospital),
    photo: merge(photo),
    death: merge(death.map((r) => ({ value: deathMonth(r.earliest, r.latest), n: r.n }))),
    finding: merge(finding),
  };
}

export async function readStatistics(ctx: Ctx, actor: Actor, opts: { minCount?: number } = {}): Promise<Statistics> {
  ctx.policy.require(actor, "catalogue.read");
  const k = Math.trunc(opts.minCount ?? 0);
  if (!(k >= 0 && k <= MAX_MIN_COUNT)) throw new Invalid(say("statistics.minCount", { max: MAX_MIN_COUNT }), "minCount");
  const visible: string[] = visibleSensitivities(ctx, actor);
  // One snapshot: the totals and every breakdown count the same rows.
  const { g, vocab } = await ctx.db.transaction(async (tx) => ({ g: await gather(tx, visible), vocab: await Vocabularies.load(tx) }));
  const small = (n: number) => (k > 0 && n > 0 && n < k ? null : n);
  return {
    generatedAt: ctx.clock.now().toISOString(),
    minCount: k,
    totals: { bodies: small(g.bodies), photos: small(g.photos), originals: g.originals, facilities: small(g.facilities), reviewed: small(g.reviewed), identified: small(g.identified) },
    byBranch: buckets(g.branch, k, byCount, vocab, "branch"),
    byHospital: buckets(g.hospital, k, byCount, vocab, "hospital"),
    byPhotoMonth: buckets(g.photo, k, byMonth, vocab, null),
    byDeathMonth: buckets(g.death, k, byMonth, vocab, null),
    byFinding: buckets(g.finding, k, byCount, vocab, "finding"),
  };
}

/** The fewest bodies a published cell may count (decision 0030): smaller cells are withheld as above. */
export const PUBLIC_MIN_COUNT = 5;

const BREAKDOWN_SOURCES: Record<Breakdown, { field: "branch" | "hospital" | "photo" | "death" | "finding"; order: (a: Counted, b: Counted) => number; vocab: VocabularyName | null }> = {
  byBranch: { field: "branch", order: byCount, vocab: "branch" },
  byHospital: { field: "hospital", order: byCount, vocab: "hospital" },
  byPhotoMonth: { field: "photo", order: byMonth, vocab: null },
  byDeathMonth: { field: "death", order: byMonth, vocab: null },
  byFinding: { field: "finding", order: byCount, vocab: "finding" },
};

/**
 * One breakdown for publication (an exhibition's chart, decision 0030): counts of the bodies marked public only,
 * every cell under PUBLIC_MIN_COUNT withheld, labels from the vocabularies and nothing else (no names, no
 * references). Asked by the second person who reviews an exhibition's chart item (exhibition.review): the
 * exhibition freezes the answer into the item, and its pages show only that.
 */
export async function publishableBreakdown(ctx: Ctx, actor: Actor, breakdown: Breakdown): Promise<StatBucket[]> {
  ctx.policy.require(actor, "exhibition.review");
  const source = BREAKDOWN_SOURCES[breakdown];
  const { g, vocab } = await ctx.db.transaction(async (tx) => ({ g: await gather(tx, ["public"]), vocab: await Vocabularies.load(tx) }));
  return buckets(g[source.field], PUBLIC_MIN_COUNT, source.order, vocab, source.vocab);
}
