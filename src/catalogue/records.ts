import { SENSITIVITIES, type Resource, type Sensitivity } from "../access/index.ts";
import { Invalid } from "../core/errors.ts";
import { say } from "../core/messages.ts";

/** Closed sets of the catalogue's records (workflow states, not vocabularies: code depends on them). */
export const SEXES = ["male", "female"] as const;
export type Sex = (typeof SEXES)[number];

export const IDENTIFICATION_STATUSES = ["unidentified", "possible_match", "identified"] as const;
export type IdentificationStatus = (typeof IDENTIFICATION_STATUSES)[number];

/** Set by the forensic review module (src/review) through updateBodyInTx; shown on the body and faceted. */
export const REVIEW_STATUSES = ["unreviewed", "sampled", "in_review", "reviewed", "disputed"] as const;
export type ReviewStatus = (typeof REVIEW_STATUSES)[number];

export const ENTITY_KINDS = ["facility", "unit", "hospital", "person"] as const;
export type EntityKind = (typeof ENTITY_KINDS)[number];

export const LINK_CONFIDENCES = ["confirmed", "probable", "possible"] as const;
export type LinkConfidence = (typeof LINK_CONFIDENCES)[number];

export const EVIDENCE_KINDS = ["photo", "number", "document", "testimony", "other"] as const;
export type EvidenceKind = (typeof EVIDENCE_KINDS)[number];

export function oneOf<T extends string>(values: readonly T[], v: string, field: string): T {
  if ((values as readonly string[]).includes(v)) return v as T;
  throw new Invalid(say("field.oneOf", { field, value: v.slice(0, 100), values: values.join(", ") }), field);
}

export function sensitivityOf(s: string): Sensitivity {
  return (SENSITIVITIES as readonly string[]).includes(s) ? (s as Sensitivity) : "confidential";
}

/** The policy resource for a record with a sensitivity column (unknown markings are treated as the highest). */
export function resourceOf(row: { sensitivity: string }): Resource {
  return { sensitivity: sensitivityOf(row.sensitivity) };
}
