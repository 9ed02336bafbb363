import type { Kysely } from "kysely";
import type { Database } from "../db/schema.ts";
import type { Tx } from "../db/database.ts";

/** The exhibitions module's tables (migration 0017-exhibitions) as Kysely sees them, joined with `xdb(tx)`. */
export interface ExhibitionsTable {
  id: string; // exh_…
  ref: string; // X-0001: how people and screens name it
  title_ar: string | null;
  title_en: string | null;
  statement_ar: string | null;
  statement_en: string | null;
  languages: string; // JSON array of "ar" | "en"
  status: string; // draft | review | approved | published | withdrawn
  created_by: string;
  created_at: string;
  updated_at: string;
  submitted_by: string | null;
  submitted_at: string | null;
  approved_by: string | null;
  approved_at: string | null;
  published_by: string | null;
  published_at: string | null;
  withdrawn_by: string | null;
  withdrawn_at: string | null;
}

export interface ExhibitionItemsTable {
  id: string; // exi_…
  exhibition_id: string;
  position: number;
  kind: string; // photo | body | text | chart
  sha256: string | null; // the original shown (photo and body items)
  body_id: string | null;
  chart: string | null; // chart items: the breakdown shown (migration 0022)
  chart_data: string | null; // chart items: canonical JSON of ChartData, frozen at the review
  caption_ar: string | null;
  caption_en: string | null;
  graphic: number; // 1: a content warning before it
  layers: string; // canonical JSON of Layers
  status: string; // active | removed
  reviewed_by: string | null;
  reviewed_at: string | null;
  reviewed_record: string | null; // SHA-256 of the redaction record the reviewer confirmed
  review_seq: number | null;
  withheld_at: string | null; // taken down (consent to public display missing or withdrawn), logged once
  added_by: string;
  added_at: string;
  updated_by: string;
  updated_at: string;
  removed_by: string | null;
  removed_at: string | null;
}

export interface ExhibitionRegionsTable {
  id: string; // exr_…
  item_id: string;
  layer: string; // faces | numbers | marks | background | everything
  x: number; // pixels of the upright (EXIF-oriented) image
  y: number;
  w: number;
  h: number;
  origin: string; // drawn | suggested
  marked_by: string;
  marked_at: string;
  removed_by: string | null;
  removed_at: string | null;
}

export interface ExhibitionSuggestionsTable {
  id: string; // exs_…
  item_id: string;
  layer: string; // faces
  x: number; // pixels of the upright image
  y: number;
  w: number;
  h: number;
  score: number; // the detector's, 0–1
  angle: number; // 0 | 90 | 180 | 270: the turn of the image at which the best box was found
  angles: string; // JSON array: every angle at which a merged box was found
  detector: string;
  status: string; // pending | accepted | discarded
  found_at: string;
  decided_by: string | null;
  decided_at: string | null;
  region_id: string | null; // the region an accepted suggestion became
}

export type ExhibitionTables = {
  exhibitions: ExhibitionsTable;
  exhibition_items: ExhibitionItemsTable;
  exhibition_regions: ExhibitionRegionsTable;
  exhibition_suggestions: ExhibitionSuggestionsTable;
};

export function xdb(tx: Tx): Kysely<Database & ExhibitionTables> {
  return tx.withTables<ExhibitionTables>();
}
