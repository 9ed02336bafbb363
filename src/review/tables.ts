import type { Kysely } from "kysely";
import type { Database } from "../db/schema.ts";
import type { Tx } from "../db/database.ts";

/**
 * The review module's tables (migration 0004-review), joined onto the shared schema with `rdb(tx)`. Only this
 * module reads them. JSON columns hold canonical JSON text; times are RFC 3339 strings.
 */
export interface ReviewSamplesTable {
  id: string; // smp_…
  seed: string;
  size: number; // bodies drawn
  population: number; // bodies the draw was made from
  population_sha256: string; // SHA-256 of the population's body ids, sorted, one per line: the frame drawn from
  double_share: string; // decimal text, e.g. "0.2"
  strata: string; // JSON array of { key, branch, period, population, allocated }
  drawn_by: string;
  drawn_at: string;
}

export interface ReviewItemsTable {
  id: string; // rvi_…
  sample_id: string;
  body_id: string;
  position: number;
  stratum: string;
  double_review: number; // 0 | 1
  status: string; // sampled | assigned | in_review | agreed | disputed | resolved | reviewed
  disagreement: string | null; // JSON: { codes: [...], causes: [...] } when the double reviews differ
  resolution: string | null; // JSON: { method, by, at, findings, causes, note, sha256 }
}

export interface ReviewAssignmentsTable {
  id: string; // rva_…
  item_id: string;
  slot: number; // 1, 2 (double review), 3 (the third reviewer of a disagreement)
  reviewer_id: string;
  assigned_by: string;
  assigned_at: string;
  submitted_at: string | null;
}

export interface ReviewsTable {
  id: string; // rev_…
  assignment_id: string;
  item_id: string;
  body_id: string;
  reviewer_id: string;
  version: number;
  supersedes: string | null;
  content: string; // the canonical JSON that was signed
  sha256: string; // SHA-256 of content
  submitted_at: string;
  event_seq: number;
}

export type ReviewTables = {
  review_samples: ReviewSamplesTable;
  review_items: ReviewItemsTable;
  review_assignments: ReviewAssignmentsTable;
  reviews: ReviewsTable;
};

export type ReviewDb = Kysely<Database & ReviewTables>;

export function rdb(tx: Tx): ReviewDb {
  return tx.withTables<ReviewTables>();
}
