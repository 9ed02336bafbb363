import type { ColumnType, Generated } from "kysely";

/**
 * The database as Kysely sees it. Tables are named after the records; each domain module owns its tables and
 * maps rows to its own types in one place. Timestamps are RFC 3339 strings on both back-ends so that the bytes
 * written into custody events and the bytes in rows agree exactly.
 */
export interface SourcesTable {
  id: string;
  label: string;
  kind: string; // folder | zip | fat-image
  intake_path: string;
  medium_sha256: string | null;
  medium_size: number | null;
  volume_label: string | null;
  volume_serial: string | null;
  fs_type: string | null;
  status: string; // running | complete
  started_at: string;
  finished_at: string | null;
  actor: string;
  files: number;
  ingested: number;
  duplicates: number;
  quarantined: number;
  bytes: number;
}

export interface OriginalsTable {
  sha256: string;
  size: number;
  format: string;
  mime: string;
  media_kind: string; // image | raw | video | document | ...
  status: string; // preserved | quarantined
  quarantine_reason: string | null;
  /** The reason as a message key with its parameters (JSON), worded in the reader's language; null: the text only. */
  quarantine_key: string | null;
  quarantine_params: string | null;
  first_seen_at: string;
  first_source_id: string;
  width: number | null;
  height: number | null;
  phash: string | null;
  capture_time: string | null;
  camera_make: string | null;
  camera_model: string | null;
  camera_serial: string | null;
  metadata_json: string | null;
  exif_raw: Buffer | null;
  xmp_raw: string | null;
}

export interface SightingsTable {
  source_id: string;
  entry_no: number;
  path: string;
  size: number;
  modified: string | null;
  original_sha256: string | null;
  outcome: string; // ingested | duplicate | quarantined
  reason: string | null;
  reason_key: string | null;
  reason_params: string | null;
  seen_at: string;
}

export interface RenditionsTable {
  original_sha256: string;
  kind: string; // thumbnail | preview | blurred
  sha256: string;
  size: number;
  width: number;
  height: number;
  created_at: string;
}

export interface CustodyEventsTable {
  seq: number; // index of the leaf in the Merkle log, 0-based, gapless
  id: string;
  type: string;
  at: string;
  actor: string;
  outcome: string;
  leaf: Buffer; // the canonical bytes that are the Merkle leaf
}

/** The value behind a salted commitment in a leaf (src/ledger/openings.ts): readable only through the policy. */
export interface LogOpeningsTable {
  seq: number;
  event_id: string;
  field: string; // the committed field's path in the event: "detail.reason", "actor.id"
  salt: string; // 32 random bytes, hex
  value: string; // the value, canonical JSON
}

export interface EventObjectsTable {
  seq: number;
  sha256: string;
  role: string;
}

export interface LogStateTable {
  id: number;
  size: number;
}

export interface LogHashesTable {
  idx: number;
  hash: Buffer;
}

export interface CheckpointsTable {
  size: number;
  root: Buffer;
  note: string;
  key_name: string;
  created_at: string;
  timestamp_token: Buffer | null;
  timestamp_authority: string | null;
}

export interface CheckpointCosignaturesTable {
  size: number;
  witness_vkey: string;
  witness_name: string;
  line: string;
  time: number;
  received_at: string;
}

export interface WitnessAlarmsTable {
  id: string;
  witness_vkey: string;
  witness_name: string;
  size: number;
  kind: string; // refused | unreachable | invalid-answer
  status: number | null;
  detail: string;
  at: string;
}

export interface JobsTable {
  id: string;
  kind: string;
  payload: string;
  status: string; // queued | running | done | failed
  attempts: number;
  max_attempts: number;
  run_after: string;
  locked_by: string | null;
  locked_until: string | null;
  progress_done: number;
  progress_total: number;
  progress_note: string | null;
  result: string | null;
  error: string | null;
  error_key: string | null;
  error_params: string | null;
  created_at: string;
  updated_at: string;
  dedupe_key: string | null;
  payload_mac: string | null; // HMAC-SHA-256 (hex) of id, kind and payload under the job key (0009)
}

export interface SettingsTable {
  key: string;
  value: string;
}

export interface MigrationRow {
  name: string;
  timestamp: ColumnType<string, string, never>;
}

export interface Database {
  sources: SourcesTable;
  originals: OriginalsTable;
  sightings: SightingsTable;
  renditions: RenditionsTable;
  custody_events: CustodyEventsTable;
  event_objects: EventObjectsTable;
  log_openings: LogOpeningsTable;
  log_state: LogStateTable;
  log_hashes: LogHashesTable;
  checkpoints: CheckpointsTable;
  checkpoint_cosignatures: CheckpointCosignaturesTable;
  witness_alarms: WitnessAlarmsTable;
  jobs: JobsTable;
  settings: SettingsTable;
}

export type { Generated };
