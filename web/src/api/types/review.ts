import type { z } from "zod";
import type * as server from "../../../../src/review/contracts.ts";
/** What the review routes answer (mirrors src/review/*.ts; the e2e test exercises them through the screens). */
export const CONFIDENCES = ["possible", "probable", "certain"] as const;
export type Confidence = (typeof CONFIDENCES)[number];

/** The closed list of cause-of-death indicators (src/review/reviews.ts CAUSE_INDICATORS). */
export const CAUSE_INDICATORS = ["blunt_trauma", "asphyxia", "starvation", "untreated_injury_or_infection", "burns", "gunshot", "undetermined"] as const;
export type CauseIndicator = (typeof CAUSE_INDICATORS)[number];

export const RESOLUTION_METHODS = ["third_reviewer", "consensus"] as const;
export type ResolutionMethod = (typeof RESOLUTION_METHODS)[number];

/** A region on a photo in unit image coordinates: (0,0) top left, (1,1) bottom right. */
export type Region = server.Region;

export type Finding = server.Finding;

export type Cause = server.Cause;

export type ReviewContent = server.ReviewContent;

export type ReviewView = server.ReviewView;

/** POST /api/review/assignments/:id/submit: the use case's input without the assignment the path gives. */
export type SubmitReviewInput = Omit<z.input<typeof server.SubmitReviewInput>, "assignmentId">;

/** POST /api/review/items/:id/resolve: the use case's input without the item the path gives. */
export type ResolveInput = Omit<z.input<typeof server.ResolveInput>, "itemId">;

export type Assignment = server.AssignmentView;

export type Stratum = server.Stratum;

export type SampleView = server.SampleView;

export type SampleDetail = server.GetReviewSamplesByIdAnswer;

export type AssignResult = server.AssignResult;

export type Dispute = server.DisputeView;

export type Resolution = server.Resolution;

export type Presence = server.Presence;

export type Kappa = server.Kappa;

export type CodeAgreement = server.CodeAgreement;

export type AgreementStats = server.AgreementStats;

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
