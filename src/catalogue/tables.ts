import type { Kysely } from "kysely";
import type { Database } from "../db/schema.ts";
import type { Tx } from "../db/database.ts";

/**
 * The catalogue's tables (migration 0003-catalogue) as Kysely sees them, joined onto the shared schema with
 * `cdb(tx)`. Rows are mapped to the module's own types in bodies.ts, entities.ts and links.ts; nothing outside
 * this module reads these tables directly (other modules use the functions exported from index.ts).
 *
 * Conventions: ids are `newId(prefix)`; times are RFC 3339 strings; JSON columns hold canonical JSON text;
 * "as transcribed" values are kept exactly as a person or the OCR wrote them, beside a normalised form
 * (`*_norm`: Latin digits, Arabic letters folded) that is only used for matching and search.
 */
export interface BodiesTable {
  id: string; // bod_…
  ref: string; // "B-000123": the archive's human reference
  ref_no: number; // 123: order of creation, the search index's row id and the keyset of the default sort
  external_ref: string | null; // a partner's own reference (from a spreadsheet), unique when present
  source_id: string | null; // the source medium the photos came from
  detainee_no: string | null; // the body's current number per role, as transcribed (see body_numbers)
  detainee_no_norm: string | null;
  branch_no: string | null;
  branch_no_norm: string | null;
  examiner_no: string | null;
  examiner_no_norm: string | null;
  hospital: string | null; // code in the `hospital` vocabulary
  photo_date: string | null; // YYYY-MM-DD, YYYY-MM or YYYY
  photo_month: string | null; // YYYY-MM when the month is known: the period facet
  death_date: string | null; // as entered, normalised: YYYY[-MM[-DD]], a season "2012-spring", or "from/to"
  death_date_earliest: string | null; // YYYY-MM-DD
  death_date_latest: string | null; // YYYY-MM-DD
  sex: string | null; // male | female; null = unknown
  age_min: number | null;
  age_max: number | null;
  marks: string; // JSON array of { type, region, description }
  clothing: string | null;
  identification_status: string; // unidentified | possible_match | identified
  name_ar: string | null;
  name_lat: string | null;
  review_status: string; // unreviewed | sampled | in_review | reviewed | disputed
  notes: string | null;
  sensitivity: string; // public | internal | restricted | confidential
  merged_into: string | null; // set when this record was absorbed into another; such records leave search
  finding_codes: string; // " code code " of body_findings (all sources), sorted: what search filters and counts
  version: number;
  created_at: string;
  created_by: string;
  updated_at: string;
}

/** Per body, what search filters, counts and sorts by: a copy of bodies' columns kept by triggers. */
export interface BodyFacetsTable {
  ref_no: number;
  body_id: string;
  active: number; // 0 once merged into another body
  stamp: number; // the "facets" stamp of the row's last change

  sensitivity: string;
  branch_no_norm: string | null;
  hospital: string | null;
  photo_month: string | null;
  photo_date: string | null;
  review_status: string;
  identification_status: string;
  sex: string | null;
  finding_codes: string;
  updated_at: string;
}

/** One row per active body: its search document (searchTokens of everything searchable, space-separated). */
export interface BodySearchTable {
  ref_no: number;
  search_text: string;
}

export interface BodyFindingsTable {
  body_id: string;
  code: string; // code in the `finding` vocabulary
  source: string; // observed (catalogue) | review (set by the forensic review module)
  added_at: string;
  added_by: string;
}

export interface BodyPhotosTable {
  body_id: string;
  original_sha256: string;
  role: string; // card | face | full | detail | other
  position: number;
  added_at: string;
  added_by: string;
}

export interface BodyNumbersTable {
  id: string; // num_…
  seq: number; // entry order across the archive: the latest active number of a role is the body's current one
  body_id: string;
  role: string; // detainee | branch | examiner
  value: string; // as transcribed
  value_norm: string;
  source_sha256: string | null; // the photo it was read from, when there is one
  method: string; // ocr | typed
  confidence: number | null; // 0..1, OCR only
  origin: string | null; // proposal:gp_… | csv:imp_… | user
  entered_by: string;
  entered_at: string;
  checked_by: string | null; // a second person, never the one who entered it
  checked_at: string | null;
  retired_at: string | null; // superseded or withdrawn; never deleted
  retired_by: string | null;
  retired_reason: string | null;
}

export interface PhotoReadingsTable {
  id: string; // rdg_…
  original_sha256: string;
  source_id: string;
  job_id: string | null;
  reader: string; // engine and version
  role: string; // detainee | branch | examiner
  value: string;
  value_norm: string;
  confidence: number | null;
  read_at: string;
  evidence: string | null; // JSON CardEvidence: the card's region, its score, the line's label and OCR confidence
}

/** What a reader made of one photo (migration 0027): readings as JSON, [] where it found no card. */
export interface CardReadsTable {
  original_sha256: string;
  reader: string;
  readings: string;
  read_at: string;
}

export interface GroupingProposalsTable {
  id: string; // gp_…
  source_id: string;
  run_id: string; // one proposing run (its job id, or a run id when run in-process)
  position: number; // order within the run (capture order)
  photos: string; // JSON array of original SHA-256, in order
  roles: string; // JSON object sha256 → photo role
  numbers: string; // JSON array of { role, value, valueNorm, confidence, photo }
  reasons: string; // JSON array of { code, text }
  score: number | null; // 0..1, the grouper's confidence
  status: string; // proposed | accepted | split | merged | rejected
  parents: string; // JSON array of proposal ids this one was split or merged from
  body_id: string | null;
  decided_by: string | null;
  decided_at: string | null;
  created_at: string;
  created_by: string;
}

export interface VocabulariesTable {
  vocabulary: string; // branch | hospital | governorate | finding | mark_type | body_region | link_type | photo_role
  code: string;
  label_ar: string;
  label_en: string;
  parent: string | null; // a code of the same vocabulary
  extra: string; // JSON object: aliases, ISO codes, level …
  sort: number;
  retired_at: string | null;
  created_at: string;
  created_by: string;
}

export interface EntitiesTable {
  id: string; // ent_…
  kind: string; // facility | unit | hospital | person
  number: string | null; // e.g. a branch number, as written
  number_norm: string | null;
  name_ar: string | null;
  name_en: string | null;
  title: string | null; // a person's rank or position
  governorate: string | null; // ISO 3166-2 code (governorate vocabulary)
  parent_id: string | null; // the unit or facility above this one
  commander_id: string | null; // the person in command of this unit, or above this person
  vocabulary_code: string | null; // the branch or hospital code this entity stands for
  description: string | null;
  sensitivity: string;
  search_text: string;
  version: number;
  created_at: string;
  created_by: string;
  updated_at: string;
}

export interface LinksTable {
  id: string; // lnk_…
  type: string; // code in the `link_type` vocabulary
  from_kind: string; // body | entity
  from_id: string;
  to_kind: string;
  to_id: string;
  evidence: string; // JSON array of { kind: photo|number|document|testimony|other, ref, note }
  reasoning: string;
  confidence: string; // confirmed | probable | possible
  version: number;
  created_at: string;
  created_by: string;
  retracted_at: string | null;
  retracted_by: string | null;
  retraction_reason: string | null;
}

export interface FieldHistoryTable {
  id: string; // fh_…
  record_type: string; // body | entity | link | vocabulary | body_number
  record_id: string;
  field: string;
  old_value: string; // canonical JSON (null → "null")
  new_value: string;
  actor: string;
  at: string;
  event_seq: number; // the custody event that recorded this change
  salt: string; // hex; with the changes, hashed into the event's detail.history (see history.ts)
}

/** A body identified as the person of a missing-person report (migration 0014); ended, never deleted. */
export interface BodyIdentificationsTable {
  id: string; // bid_…
  body_id: string;
  report_id: string; // the families module's report, by id and reference only
  report_ref: string;
  decision_id: string; // the confirmed decision that made it
  previous_status: string; // the body's identification status before, restored when it ends
  names_filled: number; // 0 | 1: the body's empty names were filled from the report
  created_by: string;
  created_at: string;
  ended_by: string | null;
  ended_at: string | null;
  end_decision_id: string | null;
}

/** A number or name a document gives for a body, with its source (migration 0024); never changed or deleted. */
export interface BodyDocumentsTable {
  id: string; // bdoc_…
  body_id: string;
  import_id: string; // imp_…: the file it came in
  source: string; // the document or register, as the importer named it ("Register 601")
  source_row: number; // the CSV row (the header is row 1)
  kind: string; // detainee | branch | examiner | hospital | name
  value: string; // as written
  value_norm: string; // numbers: normaliseNumber; names: crossScriptKey
  imported_by: string;
  imported_at: string;
}

export interface RefCountersTable {
  name: string;
  next: number;
}

export type CatalogueTables = {
  bodies: BodiesTable;
  body_search: BodySearchTable;
  body_facets: BodyFacetsTable;
  body_findings: BodyFindingsTable;
  body_photos: BodyPhotosTable;
  body_numbers: BodyNumbersTable;
  photo_readings: PhotoReadingsTable;
  card_reads: CardReadsTable;
  grouping_proposals: GroupingProposalsTable;
  vocabularies: VocabulariesTable;
  entities: EntitiesTable;
  links: LinksTable;
  field_history: FieldHistoryTable;
  ref_counters: RefCountersTable;
  body_identifications: BodyIdentificationsTable;
  body_documents: BodyDocumentsTable;
};

export type CatalogueDb = Kysely<Database & CatalogueTables>;

/** The shared schema plus this module's tables, on a connection or inside a transaction. */
export function cdb(tx: Tx): CatalogueDb {
  return tx.withTables<CatalogueTables>();
}
