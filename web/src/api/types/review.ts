/** What the review routes answer (mirrors src/review/*.ts; the e2e test exercises them through the screens). */
export const CONFIDENCES = ["possible", "probable", "certain"] as const;
export type Confidence = (typeof CONFIDENCES)[number];

/** The closed list of cause-of-death indicators (src/review/reviews.ts CAUSE_INDICATORS). */
export const CAUSE_INDICATORS = ["blunt_trauma", "asphyxia", "starvation", "untreated_injury_or_infection", "burns", "gunshot", "undetermined"] as const;
export type CauseIndicator = (typeof CAUSE_INDICATORS)[number];

export const RESOLUTION_METHODS = ["third_reviewer", "consensus"] as const;
export type ResolutionMethod = (typeof RESOLUTION_METHODS)[number];

/** A region on a photo in unit image coordinates: (0,0) top left, (1,1) bottom right. */
export type Region =
  | { photo: string; shape: "rect"; x: number; y: number; w: number; h: number }
  | { photo: string; shape: "polygon"; points: [number, number][] };

export interface Finding {
  code: string;
  confidence: Confidence;
  regions?: Region[];
  note?: string;
}

export interface Cause {
  code: CauseIndicator;
  confidence: Confidence;
}

export interface ReviewContent {
  v: string;
  review: string;
  version: number;
  supersedes: string | null;
  correction: string | null;
  sample: string;
  item: string;
  assignment: string;
  body: string;
  bodyRef: string;
  reviewer: string;
  submittedAt: string;
  findings: Finding[];
  causes: Cause[];
  notes: string | null;
}

export interface ReviewView {
  id: string;
  sha256: string;
  eventSeq: number;
  content: ReviewContent;
}

export interface SubmitReviewInput {
  findings: Finding[];
  causes?: Cause[];
  notes?: string;
  correction?: string;
}

export interface Assignment {
  id: string;
  itemId: string;
  sampleId: string;
  bodyId: string;
  slot: number;
  double: boolean;
  submittedAt: string | null;
  itemStatus: string;
}

export interface Stratum {
  key: string;
  branch: string | null;
  period: string | null;
  population: number;
  allocated: number;
}

export interface SampleView {
  id: string;
  seed: string;
  size: number;
  population: number;
  populationSha256: string;
  doubleShare: number;
  doubles: number;
  strata: Stratum[];
  drawnBy: string;
  drawnAt: string;
}

export interface SampleDetail extends SampleView {
  items: { id: string; bodyId: string; bodyRef: string; stratum: string; double: boolean; status: string }[];
}

export interface AssignResult {
  sampleId: string;
  assigned: number;
  perReviewer: Record<string, number>;
}

export interface Dispute {
  itemId: string;
  sampleId: string;
  bodyId: string;
  bodyRef: string;
  disagreement: { codes: string[]; causes: string[] };
  reviewers: string[];
}

export interface Resolution {
  item: string;
  body: string;
  method: ResolutionMethod;
  by: string;
  findings: string[];
  causes: string[];
  note: string;
  at: string;
}

export interface Presence {
  both: number;
  onlyA: number;
  onlyB: number;
  neither: number;
}

export interface Kappa {
  n: number;
  observed: number;
  expected: number;
  kappa: number | null;
}

export interface CodeAgreement extends Presence, Kappa {
  code: string;
  labelEn: string;
}

export interface AgreementStats {
  items: number;
  codes: CodeAgreement[];
  pooled: Kappa & Presence;
  meanKappa: number | null;
  overallMethod: "pooled";
  causes: Kappa & Presence;
  counts: { samples: number; sampled: number; reviewed: number; inReview: number; disputed: number; resolved: number };
}

/** A term of a controlled vocabulary (GET /api/vocabularies). */
export interface Term {
  vocabulary: string;
  code: string;
  labelAr: string;
  labelEn: string;
  parent: string | null;
  sort: number;
  retired: boolean;
}

/** The parts of GET /api/bodies/:id the review screens use. */
export interface BodyForReview {
  id: string;
  ref: string;
  branchNo: string | null;
  detaineeNo: string | null;
  photoDate: string | null;
  reviewStatus: string;
  photos: { sha256: string; role: string; position: number; captureTime: string | null; width: number | null; height: number | null }[];
}
