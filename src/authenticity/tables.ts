import type { Tx } from "../db/database.ts";

/** The authenticity module's tables (migration 0013-authenticity). JSON columns hold canonical JSON text. */
export interface AuthenticityRunsTable {
  id: string; // aut_…
  source_id: string;
  software_version: string;
  parameters: string; // JSON AnalysisParameters
  input_sha256: string; // SHA-256 over the sorted photo SHA-256s, one per line
  report_sha256: string; // SHA-256 of the report's canonical JSON
  report: string; // JSON CardReport
  photos: number;
  flagged: number;
  run_by: string;
  run_at: string;
  event_seq: number;
}

export interface AuthenticityFindingsTable {
  run_id: string;
  n: number;
  original_sha256: string | null;
  check_name: string;
  severity: string; // information | look | strong
  message_key: string;
  params: string; // JSON
}

export type AuthenticityTables = {
  authenticity_runs: AuthenticityRunsTable;
  authenticity_findings: AuthenticityFindingsTable;
};

export function adb(tx: Tx) {
  return tx.withTables<AuthenticityTables>();
}
