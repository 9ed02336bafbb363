import type { Tx } from "../db/database.ts";
import type { FamilyCandidatesTable, FamilyDisclosuresTable, FamilyReportsTable } from "./tables.ts";

/** The casework tables (migration 0007-families-casework) and the columns it adds to 0005's. */
export interface CaseReportsTable extends FamilyReportsTable {
  merged_into: string | null; // the report this one was merged into (status "merged")
  other_reporters: string; // JSON Reporter[] of the reports merged into this one
}

export interface ReportMembersTable {
  report_id: string;
  user_id: string; // a family_member account
  relationship: string | null;
  linked_by: string;
  linked_at: string;
  ended_by: string | null;
  ended_at: string | null;
}

export interface DuplicatesTable {
  id: string; // dup_…
  report_a: string; // the smaller id of the pair
  report_b: string;
  score: number;
  reasons: string; // JSON string[]: why the pair was proposed, in words (no names)
  status: string; // proposed | accepted | rejected
  survivor_id: string | null;
  decided_by: string | null;
  decided_at: string | null;
  reason: string | null;
  created_at: string;
}

export interface DecisionsTable {
  id: string; // dec_…
  report_id: string;
  body_id: string;
  status: string; // presumptive | probable | confirmed | excluded
  score: number | null; // the candidate's score when decided
  decided_by: string;
  reason: string;
  created_at: string;
}

export interface ViewRequestsTable {
  id: string; // vrq_…
  report_id: string;
  body_id: string;
  requested_by: string;
  unblurred: number; // 0 | 1: the family asked to see photos unblurred
  note: string;
  status: string; // requested | approved | declined
  decided_by: string | null;
  decided_at: string | null;
  reason: string | null;
  created_at: string;
}

export interface CaseDisclosuresTable extends FamilyDisclosuresTable {
  photo_sha256: string | null; // the original an image was made from
  image_sha256: string | null; // the bytes served to the family (a blob)
  blurred: number; // 0 | 1
  request_id: string | null;
  withdrawn_at: string | null;
  withdrawn_by: string | null; // migration 0014
  withdraw_reason: string | null; // a WITHDRAWAL_REASONS key, worded in the reader's language
  withdraw_note: string | null; // words to the family, as the caseworker wrote them
  preview_id: string | null; // migration 0015: the previewed crop stage 2 sent
}

/** A blurred face crop a caseworker made and looked at (migration 0015); only such a crop is sent at stage 2. */
export interface FacePreviewsTable {
  id: string; // fpv_…
  report_id: string;
  body_id: string;
  photo_sha256: string; // the original (a photo the body's record marks as showing the face)
  region: string; // JSON { x, y, w, h }: fractions of the photo's width and height, as drawn
  image_sha256: string; // the crop's bytes (a blob), exactly as shown to the caseworker
  previewed_by: string;
  previewed_at: string;
}

/** A family member's new report or change to their report, for a caseworker to accept or refuse (migration 0015). */
export interface ReportProposalsTable {
  id: string; // rpp_…
  report_id: string;
  kind: string; // new | change
  fields: string; // JSON: the proposed fields (ReportInput, only those given)
  proposed_by: string;
  created_at: string;
  status: string; // proposed | accepted | refused
  decided_by: string | null;
  decided_at: string | null;
  reason: string | null;
}

export interface FlagsTable {
  id: string; // flg_…
  report_id: string;
  body_id: string;
  caseworker_id: string | null;
  kind: string; // status-changed | outranked
  detail: string; // in English words, for the CLI and logs
  words: string | null; // FlagWords as JSON: a message key and params for the screen's language
  created_at: string;
  cleared_by: string | null;
  cleared_at: string | null;
  clear_note: string | null;
}

export type CaseworkTables = {
  family_reports: CaseReportsTable;
  family_candidates: FamilyCandidatesTable;
  family_disclosures: CaseDisclosuresTable;
  family_report_members: ReportMembersTable;
  family_duplicates: DuplicatesTable;
  family_decisions: DecisionsTable;
  family_view_requests: ViewRequestsTable;
  family_flags: FlagsTable;
  family_face_previews: FacePreviewsTable;
  family_report_proposals: ReportProposalsTable;
};

export function cwdb(tx: Tx) {
  return tx.withTables<CaseworkTables>();
}
