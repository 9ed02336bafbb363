import type { Tx } from "../db/database.ts";
import { cdb, type BodyFacetsTable } from "./tables.ts";

/**
 * What search counts and sorts by, held in memory per process: one compact column per facet over every body,
 * loaded from body_facets (which triggers keep in step with bodies). Each change to a body moves the "facets"
 * stamp and writes it on the body's row, in the writing transaction, whichever process wrote; a search reads
 * the stamp and, when it has moved, applies only the rows changed since. Facet counts and keyset pages are then
 * a pass over typed arrays, computed by the same code whatever the database, so both back-ends agree.
 *
 * Stamps are taken under the counter row's lock (PostgreSQL) or the single writer (SQLite), so they commit in
 * order: once a stamp is visible, every row change up to it is.
 */
export const SCALAR_FACETS = ["branch", "hospital", "period", "review", "identification", "sex"] as const;
export type ScalarFacet = (typeof SCALAR_FACETS)[number];

/** Distinct values of one column, each with a small integer id (its position). */
export class Dictionary {
  readonly values: (string | null)[] = [];
  private readonly ids = new Map<string | null, number>();

  id(v: string | null): number {
    let i = this.ids.get(v);
    if (i === undefined) {
      i = this.values.length;
      this.values.push(v);
      this.ids.set(v, i);
    }
    return i;
  }
}

export type OrderName = "ref" | "photo_date" | "updated";

type FacetRow = Pick<
  BodyFacetsTable,
  | "ref_no"
  | "active"
  | "stamp"
  | "sensitivity"
  | "branch_no_norm"
  | "hospital"
  | "photo_month"
  | "review_status"
  | "identification_status"
  | "sex"
  | "finding_codes"
  | "photo_date"
  | "updated_at"
>;

function grow(a: Int32Array, capacity: number): Int32Array<ArrayBuffer> {
  const b = new Int32Array(capacity);
  b.set(a.subarray(0, Math.min(a.length, capacity)));
  return b;
}

export class FacetIndex {
  /** Positions in use; a position is a body for the life of the index (a merged body's stays, inactive). */
  size = 0;
  stamp: number;
  refNo: Int32Array<ArrayBuffer> = new Int32Array(0);
  /** 1 for a body search may find, 0 once merged away. */
  active = new Uint8Array(0);
  sensitivity: Int32Array<ArrayBuffer> = new Int32Array(0);
  readonly sensitivities = new Dictionary();
  readonly columns: Record<ScalarFacet, { ids: Int32Array<ArrayBuffer>; dict: Dictionary }>;
  /** Finding ids per body (shared arrays: most bodies carry one of a few dozen combinations). */
  findings: Int32Array[] = [];
  readonly findingDict = new Dictionary();
  private readonly findingSets = new Map<string, Int32Array>();
  private photoDate: (string | null)[] = [];
  private updatedAt: string[] = [];
  private readonly positions = new Map<number, number>();
  private orders = new Map<string, { order: Int32Array; key: (pos: number) => string }>();

  constructor(stamp: number) {
    this.stamp = stamp;
    const col = () => ({ ids: new Int32Array(0), dict: new Dictionary() });
    this.columns = { branch: col(), hospital: col(), period: col(), review: col(), identification: col(), sex: col() };
  }

  private reserve(n: number): void {
    if (n <= this.refNo.length) return;
    const cap = Math.max(n, Math.ceil(this.refNo.length * 1.5), 1024);
    this.refNo = grow(this.refNo, cap);
    const act = new Uint8Array(cap);
    act.set(this.active);
    this.active = act;
    this.sensitivity = grow(this.sensitivity, cap);
    for (const f of SCALAR_FACETS) this.columns[f].ids = grow(this.columns[f].ids, cap);
  }

  /** Writes rows into the columns (new bodies appended, changed ones in place). */
  apply(rows: FacetRow[]): void {
    if (rows.length === 0) return;
    this.reserve(this.size + rows.length);
    for (const r of rows) {
      const ref = Number(r.ref_no);
      let i = this.positions.get(ref);
      if (i === undefined) {
        if (!r.active) continue;
        i = this.size++;
        this.positions.set(ref, i);
        this.refNo[i] = ref;
      }
      this.active[i] = r.active ? 1 : 0;
      this.sensitivity[i] = this.sensitivities.id(r.sensitivity);
      const c = this.columns;
      c.branch.ids[i] = c.branch.dict.id(r.branch_no_norm);
      c.hospital.ids[i] = c.hospital.dict.id(r.hospital);
      c.period.ids[i] = c.period.dict.id(r.photo_month);
      c.review.ids[i] = c.review.dict.id(r.review_status);
      c.identification.ids[i] = c.identification.dict.id(r.identification_status);
      c.sex.ids[i] = c.sex.dict.id(r.sex);
      let f = this.findingSets.get(r.finding_codes);
      if (!f) {
        f = Int32Array.from(r.finding_codes.split(" ").filter(Boolean), (code) => this.findingDict.id(code));
        this.findingSets.set(r.finding_codes, f);
      }
      this.findings[i] = f;
      this.photoDate[i] = r.photo_date;
      this.updatedAt[i] = r.updated_at;
      if (Number(r.stamp) > this.stamp) this.stamp = Number(r.stamp);
    }
    this.orders = new Map();
  }

  /** Where a body (by ref_no) sits in the columns, if it was ever active here. */
  positionOf(refNo: number): number | undefined {
    return this.positions.get(refNo);
  }

  /**
   * Positions in sort order. Keys compare as strings by UTF-16 code unit (ASCII here: dates and times), ties by
   * ref_no; unknown photo dates come last in both directions. Page cursors carry (key, ref_no) in these terms.
   */
  order(name: OrderName, desc: boolean): { order: Int32Array; key: (pos: number) => string } {
    const k = `${desc ? "-" : ""}${name}`;
    let o = this.orders.get(k);
    if (!o) {
      const key = this.keyOf(name, desc);
      const refNo = this.refNo;
      const order = Int32Array.from({ length: this.size }, (_, i) => i);
      if (name === "ref") order.sort((a, b) => (desc ? refNo[b]! - refNo[a]! : refNo[a]! - refNo[b]!));
      else {
        const keys = Array.from({ length: this.size }, (_, i) => key(i));
        order.sort((a, b) => {
          const ka = keys[a]!;
          const kb = keys[b]!;
          const c = ka < kb ? -1 : ka > kb ? 1 : refNo[a]! - refNo[b]!;
          return desc ? -c : c;
        });
      }
      o = { order, key };
      this.orders.set(k, o);
    }
    return o;
  }

  private keyOf(name: OrderName, desc: boolean): (pos: number) => string {
    switch (name) {
      case "ref":
        return () => "";
      case "photo_date":
        // "~" sorts after every digit and "" before: unknown dates come last ascending and descending.
        return desc ? (i) => this.photoDate[i] ?? "" : (i) => this.photoDate[i] ?? "~";
      case "updated":
        return (i) => this.updatedAt[i]!;
    }
  }
}

const CACHE = new WeakMap<object, Promise<FacetIndex>>();

/**
 * The catalogue's "facets" stamp: it moves in the writing transaction of every change to a body (triggers on
 * bodies). Families' watcher compares it with the stamp it last re-ranked at.
 */
export async function bodiesStamp(db: Tx): Promise<number> {
  const r = await cdb(db).selectFrom("ref_counters").select("next").where("name", "=", "facets").executeTakeFirst();
  return Number(r?.next ?? 0);
}

const COLUMNS = [
  "ref_no",
  "active",
  "stamp",
  "sensitivity",
  "branch_no_norm",
  "hospital",
  "photo_month",
  "review_status",
  "identification_status",
  "sex",
  "finding_codes",
  "photo_date",
  "updated_at",
] as const;

async function build(db: Tx, stamp: number): Promise<FacetIndex> {
  const idx = new FacetIndex(stamp);
  idx.apply(await cdb(db).selectFrom("body_facets").select(COLUMNS).where("active", "=", 1).orderBy("ref_no").execute());
  idx.stamp = stamp;
  return idx;
}

async function catchUp(db: Tx, idx: FacetIndex, stamp: number): Promise<FacetIndex> {
  const rows = await cdb(db).selectFrom("body_facets").select(COLUMNS).where("stamp", ">", idx.stamp).orderBy("stamp").execute();
  idx.apply(rows);
  idx.stamp = Math.max(idx.stamp, stamp);
  return idx;
}

/** The current index for this database handle: one stamp read, and only the changed rows after a change. */
export async function facetIndex(db: Tx): Promise<FacetIndex> {
  const stamp = await bodiesStamp(db);
  const cached = CACHE.get(db);
  const idx = cached ? await cached.catch(() => null) : null;
  if (idx && idx.stamp >= stamp) return idx;
  // Concurrent searches after a change share one catch-up (or the first load).
  const p = idx ? catchUp(db, idx, stamp) : build(db, stamp);
  CACHE.set(db, p);
  return p;
}
