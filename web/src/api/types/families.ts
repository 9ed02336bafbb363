/** The families area's views, as the server sends them (src/families/{reports,matching,disclosure,duplicates,portal}.ts). */
export const CONSENT_TIERS = ["dataSharing", "recontact", "viewingPhotos", "dnaReferral"] as const;
export type ConsentTier = (typeof CONSENT_TIERS)[number];
export type Consent = Partial<Record<ConsentTier, { given: boolean; at: string; by: string }>>;
export const BRANCH_CERTAINTIES = ["certain", "probable", "rumoured"] as const;
export type BranchCertainty = (typeof BRANCH_CERTAINTIES)[number];
export const DECISION_STATUSES = ["presumptive", "probable", "confirmed", "excluded"] as const;
export type DecisionStatus = (typeof DECISION_STATUSES)[number];
export type Stage = "text" | "blurred_face" | "more";
export type Band = "exclude" | "unlikely" | "review" | "likely" | "strong";

export interface Mark {
  type: string;
  region: string | null;
  description: string;
}

export interface NameSlots {
  raw: string;
  given?: string;
  father?: string;
  grandfather?: string;
  family?: string;
  mother?: string;
  aliases: string[];
}

export interface ReportInput {
  nameAr?: string | null;
  nameLat?: string | null;
  fatherName?: string | null;
  motherName?: string | null;
  aliases?: string[];
  sex?: "male" | "female" | null;
  birthDate?: string | null;
  birthPlace?: string | null;
  arrestDate?: string | null;
  arrestPlace?: string | null;
  arrestGovernorate?: string | null;
  branch?: string | null;
  branchCertainty?: BranchCertainty | null;
  marks?: Mark[];
  consent?: Partial<Record<ConsentTier, boolean>>;
  reporterName?: string | null;
  reporterRelationship?: string | null;
  reporterContact?: string | null;
}

export interface ReportView {
  id: string;
  ref: string;
  nameAr: string | null;
  nameLat: string | null;
  slots: NameSlots;
  motherName: string | null;
  aliases: string[];
  sex: "male" | "female" | null;
  birthDate: string | null;
  birthPrecision: string | null;
  birthPlace: string | null;
  arrestDate: string | null;
  arrestPlace: string | null;
  arrestGovernorate: string | null;
  branch: string | null;
  branchCertainty: BranchCertainty | null;
  marks: Mark[];
  consent: Consent;
  reporterName: string | null;
  reporterRelationship: string | null;
  reporterContact: string | null;
  filedBy?: string | null;
  caseworkerId?: string | null;
  status: string;
  version: number;
  createdAt: string;
  updatedAt: string;
}

export interface ReportImportReport {
  importId: string;
  ok: boolean;
  dryRun: boolean;
  rows: number;
  created: number;
  rejected: { row: number; column: string | null; message: string }[];
  ignoredColumns: string[];
}

export interface Evidence {
  feature: "sex" | "age" | "dates" | "period" | "branch" | "marks" | "numbers" | "name";
  points: number;
  /** The sentence in English; the only words of rows ranked before `key` existed. */
  text: string;
  /** `families.evidence.<key>`, filled with `params` (codes such as sex, certainty and number role are translated). */
  key?: string;
  params?: Record<string, string | number | boolean | null>;
  /** The marks one by one (`families.evidence.mark.<fit>`). */
  parts?: MarkPart[];
}

export interface MarkPart {
  fit: "place" | "type" | "elsewhere" | "none";
  type: string;
  region: string | null;
  bodyRegion: string | null;
}

export interface CandidateView {
  rank: number;
  bodyId: string;
  ref: string;
  score: number;
  band: Band;
  evidence: Evidence[];
}

export interface DecisionView {
  id: string;
  bodyId: string;
  status: DecisionStatus;
  score: number | null;
  decidedBy: string;
  reason: string;
  createdAt: string;
}

export interface DisclosureView {
  id: string;
  bodyId: string;
  recipientId: string;
  stage: Stage;
  status: DecisionStatus;
  text: string;
  consentNote: string;
  decidedBy: string;
  reason: string;
  photo: string | null;
  blurred: boolean;
  requestId: string | null;
  createdAt: string;
}

export interface RequestView {
  id: string;
  bodyId: string;
  requestedBy: string;
  unblurred: boolean;
  note: string;
  status: "requested" | "approved" | "declined";
  decidedBy: string | null;
  decidedAt: string | null;
  reason: string | null;
  createdAt: string;
}

export interface FlagView {
  id: string;
  reportId: string;
  reportRef: string;
  bodyId: string;
  caseworkerId: string | null;
  kind: "status-changed" | "outranked" | "view-request";
  detail: string;
  /** The detail as `families.flags.why.<key>` with params; null when only the English exists. */
  words?: { key: string; params: Record<string, string> } | null;
  createdAt: string;
  clearedBy: string | null;
  clearedAt: string | null;
  clearNote: string | null;
}

export interface CaseView {
  report: ReportView;
  members: string[];
  decisions: (DecisionView & { history: DecisionView[] })[];
  disclosures: DisclosureView[];
  requests: RequestView[];
  flags: FlagView[];
}

export type DuplicateStatus = "proposed" | "accepted" | "rejected" | "superseded";
export interface DuplicateSide {
  id: string;
  ref: string;
  nameAr: string | null;
  nameLat: string | null;
}
export interface DuplicateView {
  id: string;
  status: DuplicateStatus;
  score: number;
  reasons: string[];
  /** The reasons as `families.duplicates.why.<key>` with params (`points` signed); null for rows stored before keys. */
  words?: ({ key: string; params: Record<string, string | number> } | null)[];
  a: DuplicateSide;
  b: DuplicateSide;
  survivorId: string | null;
  decidedBy: string | null;
  decidedAt: string | null;
  reason: string | null;
  createdAt: string;
}

export interface PortalSummary {
  id: string;
  ref: string;
  nameAr: string | null;
  nameLat: string | null;
  status: string;
  mergedInto: string | null;
  matches: number;
}

export interface PortalMatch {
  matchId: string;
  status: DecisionStatus;
  stage: Stage;
  messages: { at: string; stage: Stage; text: string }[];
  images: { id: string; stage: Stage; blurred: boolean; at: string }[];
  requests: { id: string; unblurred: boolean; note: string; status: RequestView["status"]; createdAt: string }[];
  mayRequestMore: boolean;
}

export interface PortalReport {
  report: Omit<ReportView, "caseworkerId" | "filedBy">;
  mergedInto: string | null;
  matches: PortalMatch[];
}
