/**
 * What the catalogue's routes answer (mirrors src/catalogue: bodies.ts, numbers.ts, proposals.ts, entities.ts,
 * links.ts, history.ts, vocabularies.ts). Kept by hand beside the server's views; the e2e test reads them.
 */
export type Sensitivity = "public" | "internal" | "restricted" | "confidential";
export const SENSITIVITIES: readonly Sensitivity[] = ["public", "internal", "restricted", "confidential"];
export type Sex = "male" | "female";
export const SEXES: readonly Sex[] = ["male", "female"];
export type IdentificationStatus = "unidentified" | "possible_match" | "identified";
export const IDENTIFICATION_STATUSES: readonly IdentificationStatus[] = ["unidentified", "possible_match", "identified"];
export type ReviewStatus = "unreviewed" | "sampled" | "in_review" | "reviewed" | "disputed";
export type EntityKind = "facility" | "unit" | "hospital" | "person";
export const ENTITY_KINDS: readonly EntityKind[] = ["facility", "unit", "hospital", "person"];
export type LinkConfidence = "confirmed" | "probable" | "possible";
export const LINK_CONFIDENCES: readonly LinkConfidence[] = ["confirmed", "probable", "possible"];
export type EvidenceKind = "photo" | "number" | "document" | "testimony" | "other";
export const EVIDENCE_KINDS: readonly EvidenceKind[] = ["photo", "number", "document", "testimony", "other"];
export type NumberRole = "detainee" | "branch" | "examiner";
export const NUMBER_ROLES: readonly NumberRole[] = ["detainee", "branch", "examiner"];
export type ProposalStatus = "proposed" | "accepted" | "split" | "merged" | "rejected";
export const PROPOSAL_STATUSES: readonly ProposalStatus[] = ["proposed", "accepted", "split", "merged", "rejected"];

export interface FuzzyDate {
  text: string;
  earliest: string;
  latest: string;
}

export interface Mark {
  type: string;
  region: string | null;
  description: string;
}

export interface BodyView {
  id: string;
  ref: string;
  refNo: number;
  externalRef: string | null;
  sourceId: string | null;
  detaineeNo: string | null;
  detaineeNoNorm: string | null;
  branchNo: string | null;
  branchNoNorm: string | null;
  examinerNo: string | null;
  examinerNoNorm: string | null;
  hospital: string | null;
  photoDate: string | null;
  photoMonth: string | null;
  deathDate: FuzzyDate | null;
  sex: Sex | null;
  ageMin: number | null;
  ageMax: number | null;
  marks: Mark[];
  clothing: string | null;
  injuries: string[];
  reviewFindings: string[];
  identificationStatus: IdentificationStatus;
  nameAr: string | null;
  nameLat: string | null;
  reviewStatus: ReviewStatus;
  notes: string | null;
  sensitivity: Sensitivity;
  mergedInto: string | null;
  version: number;
  createdAt: string;
  createdBy: string;
  updatedAt: string;
}

export interface BodyPhoto {
  sha256: string;
  role: string;
  position: number;
  captureTime: string | null;
  width: number | null;
  height: number | null;
}

export interface BodyNumber {
  id: string;
  bodyId: string;
  role: NumberRole;
  value: string;
  valueNorm: string;
  sourceSha256: string | null;
  method: "ocr" | "typed";
  confidence: number | null;
  origin: string | null;
  enteredBy: string;
  enteredAt: string;
  checkedBy: string | null;
  checkedAt: string | null;
  retired: { at: string; by: string; reason: string } | null;
}

/** A body identified as the person of a missing-person report (a family caseworker's confirmed decision). */
export interface IdentificationView {
  id: string;
  bodyId: string;
  bodyRef: string;
  reportId: string;
  reportRef: string;
  decisionId: string;
  since: string;
  by: string;
  endedAt: string | null;
  endedBy: string | null;
}

export interface BodyDetail extends BodyView {
  photos: BodyPhoto[];
  numbers: BodyNumber[];
  /** The standing identification first, then ended ones. */
  identifications: IdentificationView[];
}

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

export interface HistoryEntry {
  recordType: string;
  recordId: string;
  field: string;
  old: unknown;
  new: unknown;
  actor: string;
  at: string;
  eventSeq: number;
}

export interface Page<T, K> {
  items: T[];
  next: K | null;
}

export interface MergeResult {
  body: BodyDetail;
  conflicts: { field: string; kept: unknown; absorbed: unknown }[];
}

export interface ProposalView {
  id: string;
  sourceId: string;
  runId: string;
  position: number;
  photos: string[];
  roles: Record<string, string>;
  numbers: { role: NumberRole; value: string; valueNorm: string; confidence: number | null; photo: string }[];
  reasons: { code: string; text: string }[];
  score: number | null;
  status: ProposalStatus;
  parents: string[];
  bodyId: string | null;
  decidedBy: string | null;
  decidedAt: string | null;
  createdAt: string;
}

export interface EntityView {
  id: string;
  kind: EntityKind;
  number: string | null;
  numberNorm: string | null;
  nameAr: string | null;
  nameEn: string | null;
  title: string | null;
  governorate: string | null;
  parentId: string | null;
  commanderId: string | null;
  vocabularyCode: string | null;
  description: string | null;
  sensitivity: Sensitivity;
  version: number;
  createdAt: string;
  createdBy: string;
  updatedAt: string;
}

export interface EntitySummary {
  id: string;
  kind: EntityKind;
  number: string | null;
  nameAr: string | null;
  nameEn: string | null;
  title: string | null;
}

export interface EntityDetail extends EntityView {
  parents: EntitySummary[];
  commanders: EntitySummary[];
}

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

export interface Evidence {
  kind: EvidenceKind;
  ref: string;
  note?: string;
}

export interface LinkEnd {
  kind: "body" | "entity";
  id: string;
}

export interface LinkView {
  id: string;
  type: string;
  from: LinkEnd;
  to: LinkEnd;
  evidence: Evidence[];
  reasoning: string;
  confidence: LinkConfidence;
  version: number;
  createdAt: string;
  createdBy: string;
  retracted: { at: string; by: string; reason: string } | null;
}

export interface NewLink {
  type: string;
  from: LinkEnd;
  to: LinkEnd;
  evidence: Evidence[];
  reasoning: string;
  confidence?: LinkConfidence;
}

export interface Term {
  vocabulary: string;
  code: string;
  labelAr: string;
  labelEn: string;
  parent: string | null;
  extra: Record<string, unknown>;
  sort: number;
  retired: boolean;
}
