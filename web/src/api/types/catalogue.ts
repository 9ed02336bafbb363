import type { z } from "zod";
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

/** The fields a person edits (PUT /api/bodies/:id: the use case's input without the id the path gives). */
export type BodyEdit = Omit<z.input<typeof server.EditBodyInput>, "id">;

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

/** An entity's fields as sent (POST /api/entities adds `kind`, PUT /api/entities/:id may add `version`). */
export type EntityFields = Omit<z.input<typeof server.UpdateEntityInput>, "id" | "version">;

export type Evidence = server.Evidence;

export type LinkEnd = NewLink["from"];

export type LinkView = server.LinkView;

export type NewLink = z.input<typeof server.NewLinkInput>;

export type Term = server.Term;
export type PhotoBodies = server.PhotoBodies;
