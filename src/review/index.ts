/**
 * The forensic review module: reproducible stratified samples, assignment, structured signed findings with
 * regions, blind double review, disagreement resolution, agreement statistics. Other modules use only this.
 */
export { drawReviewSample, getSample, assignSample, type DrawSampleInput, type SampleView, type AssignInput, type AssignResult } from "./samples.ts";
export {
  submitReview,
  getReview,
  reviewsOfBody,
  myAssignments,
  listDisagreements,
  resolveDisagreement,
  compareReviews,
  agreedObservations,
  CONFIDENCES,
  CAUSE_INDICATORS,
  RESOLUTION_METHODS,
  REVIEW_FORMAT,
  type Confidence,
  type CauseIndicator,
  type Region,
  type Finding,
  type Cause,
  type SubmitReview,
  type ReviewContent,
  type ReviewView,
  type AssignmentView,
  type DisputeView,
  type Disagreement,
  type ReviewMark,
  type ResolveInput,
  type Resolution,
  type ResolutionMethod,
} from "./reviews.ts";
export { agreementStats, type AgreementStats, type CodeAgreement } from "./stats.ts";
export { cohensKappa, presenceKappa, type Kappa, type Presence } from "./kappa.ts";
export { drawSample, allocate, SeededStream, type Draw, type Stratum, type Member } from "./sampling.ts";
export { registerReviewBlinding } from "./reviews.ts";
