import type { Kysely } from "kysely";
import type { Database } from "../db/schema.ts";
import type { Tx } from "../db/database.ts";

/** The dossiers module's tables (migration 0006-dossiers) as Kysely sees them, joined with `ddb(tx)`. */
export interface DossiersTable {
  id: string; // dos_…
  name: string;
  description: string | null;
  next_exhibit: number; // the next exhibit number to issue: numbers are never reused
  frozen_versions: number; // how many versions were frozen; the draft is version frozen_versions + 1
  changed_since_freeze: number; // 1 when the draft differs from the last frozen version
  created_by: string;
  created_at: string;
  updated_at: string;
}

export interface DossierExhibitsTable {
  id: string; // dex_…
  dossier_id: string;
  number: string; // E-0001
  kind: string; // body | photo | review | facility | unit | person
  ref: string; // the body or entity id, the photo's SHA-256, the review id
  reasoning: string;
  evidence: string; // JSON array of { kind, ref, note? }
  status: string; // active | withdrawn
  added_by: string;
  added_at: string;
  withdrawn_by: string | null;
  withdrawn_at: string | null;
  withdraw_reason: string | null;
  updated_at: string;
}

export interface DossierVersionsTable {
  dossier_id: string;
  version: number;
  snapshot: string; // canonical JSON of the version (see dossiers.ts Snapshot)
  sha256: string; // of snapshot, in the freeze event
  note: string | null;
  frozen_by: string;
  frozen_at: string;
  event_seq: number;
}

export interface RedactionRegionsTable {
  id: string; // rdr_…
  original_sha256: string;
  x: number; // pixels of the upright (EXIF-oriented) image
  y: number;
  w: number;
  h: number;
  label: string; // face | tattoo | document | text | other
  marked_by: string;
  marked_at: string;
  event_seq: number;
  withdrawn_by: string | null;
  withdrawn_at: string | null;
}

export type DossierTables = {
  dossiers: DossiersTable;
  dossier_exhibits: DossierExhibitsTable;
  dossier_versions: DossierVersionsTable;
  redaction_regions: RedactionRegionsTable;
};

export function ddb(tx: Tx): Kysely<Database & DossierTables> {
  return tx.withTables<DossierTables>();
}
