import type { Tx } from "../db/database.ts";

/**
 * The families' tables (migration 0005-families). JSON columns hold canonical JSON text; dates are
 * YYYY[-MM[-DD]] as entered (normalised), with the earliest/latest day they can stand for beside them.
 */
export interface FamilyReportsTable {
  id: string; // rep_…
  ref: string; // the report's reference: from the import file, or "R-…" when entered here
  name_ar: string | null;
  name_lat: string | null;
  slots: string; // JSON NameSlots of the main name (Arabic if given, else Latin)
  mother_name: string | null;
  aliases: string; // JSON string[]
  sex: string | null; // male | female
  birth_date: string | null; // YYYY | YYYY-MM | YYYY-MM-DD
  birth_precision: string | null; // year | month | day | approximate
  birth_place: string | null; // civil-registry place
  arrest_date: string | null;
  arrest_earliest: string | null;
  arrest_latest: string | null;
  arrest_place: string | null;
  arrest_governorate: string | null; // governorate vocabulary code
  branch: string | null; // branch number, Latin digits
  branch_certainty: string | null; // certain | probable | rumoured
  seen_in_detention: string; // JSON [{ place, when, witness }]
  marks: string; // JSON Mark[]
  numbers: string; // JSON [{ role, value }] found in documents
  consent: string; // JSON Consent
  reporter_name: string | null;
  reporter_relationship: string | null;
  reporter_contact: string | null;
  filed_by: string | null; // the family member's account, when they filed it
  caseworker_id: string | null;
  status: string; // open | closed
  version: number;
  created_at: string;
  created_by: string;
  updated_at: string;
}

export interface FamilyCandidatesTable {
  report_id: string;
  body_id: string;
  rank: number;
  score: number;
  band: string; // exclude | unlikely | review | likely | strong
  evidence: string; // JSON Evidence[]
  ranked_at: string;
}

export interface FamilyDisclosuresTable {
  id: string; // dis_…
  report_id: string;
  body_id: string;
  recipient_id: string;
  stage: string; // text | blurred_face | more
  status: string; // presumptive | probable | confirmed | excluded
  text: string; // what the family is told
  consent_note: string; // how the family's consent was given
  decided_by: string;
  reason: string;
  created_at: string;
}

/** A version of a DNA / ante-mortem referral (migration 0025); a referral is its versions, the latest current. */
export interface DnaReferralsTable {
  id: string; // dnv_… (this version)
  referral: string; // dnr_… (the referral)
  version: number;
  report_id: string;
  body_id: string | null;
  status: string; // requested | sample_taken | sent | result
  sample_from: string | null; // the donor's relationship to the missing person
  sample_taken_on: string | null; // YYYY-MM-DD
  lab: string | null;
  lab_ref: string | null;
  result: string | null; // match | exclusion | inconclusive (with status result)
  result_on: string | null; // YYYY-MM-DD
  note: string;
  recorded_by: string;
  recorded_at: string;
}

export type FamilyTables = {
  family_reports: FamilyReportsTable;
  family_candidates: FamilyCandidatesTable;
  family_disclosures: FamilyDisclosuresTable;
  family_dna_referrals: DnaReferralsTable;
};

export function fdb(tx: Tx) {
  return tx.withTables<FamilyTables>();
}
