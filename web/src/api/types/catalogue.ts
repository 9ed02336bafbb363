import type * as server from "../../../../src/catalogue/contracts.ts";
/**
 * What the catalogue's routes answer (mirrors src/catalogue: bodies.ts, numbers.ts, proposals.ts, entities.ts,
 * links.ts, history.ts, vocabularies.ts). Kept by hand beside the server's views; the e2e test reads them.
 */
export type Sensitivity = server.BodyView["sensitivity"];
export const SENSITIVITIES: readonly Sensitivity[] = ["public", "internal", "restricted", "confidential"];
export type Sex = NonNullable<server.BodyView["sex"]>;
export const SEXES: readonly Sex[] = ["male", "female"];
export type IdentificationStatus = server.BodyView["identificationStatus"];
export const IDENTIFICATION_STATUSES: readonly IdentificationStatus[] = ["unidentified", "possible_match", "identified"];
export type ReviewStatus = server.BodyView["reviewStatus"];
export type EntityKind = server.EntityView["kind"];
export const ENTITY_KINDS: readonly EntityKind[] = ["facility", "unit", "hospital", "person"];
export type LinkConfidence = server.LinkView["confidence"];
export const LINK_CONFIDENCES: readonly LinkConfidence[] = ["confirmed", "probable", "possible"];
export type EvidenceKind = server.Evidence["kind"];
export const EVIDENCE_KINDS: readonly EvidenceKind[] = ["photo", "number", "document", "testimony", "other"];
export type NumberRole = server.BodyNumber["role"];
export const NUMBER_ROLES: readonly NumberRole[] = ["detainee", "branch", "examiner"];
export type ProposalStatus = server.ProposalStatus;
export const PROPOSAL_STATUSES: readonly ProposalStatus[] = ["proposed", "accepted", "split", "merged", "rejected"];

export type FuzzyDate = server.FuzzyDate;

export type Mark = server.Mark;

export type BodyView = server.BodyView;

export type BodyPhoto = server.BodyPhoto;

export type BodyNumber = server.BodyNumber;

export type BodyDetail = server.BodyDetail;

export type IdentificationView = server.IdentificationView;

/** The fields a person edits (PUT /api/bodies/:id); numbers change through their own routes. */
export interface BodyEdit {
  version?: number;
  externalRef?: string | null;
  hospital?: string | null;
  photoDate?: string | null;
  deathDate?: string | null;
  sex?: Sex | null;
  ageMin?: number | null;
  ageMax?: number | null;
  clothing?: string | null;
  identificationStatus?: IdentificationStatus;
  nameAr?: string | null;
  nameLat?: string | null;
  notes?: string | null;
  sensitivity?: Sensitivity;
}

export type HistoryEntry = server.HistoryEntry;

export interface Page<T, K> {
  items: T[];
  next: K | null;
}

export type MergeResult = server.MergeResult;

export type ProposalView = server.ProposalView;

export type EntityView = server.EntityView;

export type EntitySummary = server.EntitySummary;

export type EntityDetail = server.EntityDetail;

export interface EntityFields {
  number?: string | null;
  nameAr?: string | null;
  nameEn?: string | null;
  title?: string | null;
  governorate?: string | null;
  parentId?: string | null;
  commanderId?: string | null;
  description?: string | null;
  sensitivity?: Sensitivity;
}

export type Evidence = server.Evidence;

export interface LinkEnd {
  kind: "body" | "entity";
  id: string;
}

export type LinkView = server.LinkView;

export interface NewLink {
  type: string;
  from: LinkEnd;
  to: LinkEnd;
  evidence: Evidence[];
  reasoning: string;
  confidence?: LinkConfidence;
}

export type Term = server.Term;
export type PhotoBodies = server.PhotoBodies;
