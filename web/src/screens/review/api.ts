import { callJson } from "../../api/client.ts";
import type {
  AgreementStats,
  AssignResult,
  Assignment,
  BodyForReview,
  Dispute,
  Resolution,
  ResolutionMethod,
  ReviewView,
  SampleDetail,
  SampleView,
  SubmitReviewInput,
  Term,
} from "../../api/types/review.ts";

/** The review area's typed calls (the routes are in web/src/api/endpoints/review.ts). */
const none = {} as never;

export const reviewApi = {
  drawSample: (input: { size: number; seed: string; doubleShare: number }) => callJson("reviewDrawSample", none, { body: input }) as Promise<SampleView>,
  sample: (id: string) => callJson("reviewSample", { id }) as Promise<SampleDetail>,
  assign: (id: string, reviewers: string[]) => callJson("reviewAssignSample", { id }, { body: { reviewers } }) as Promise<AssignResult>,
  myAssignments: (open: boolean) => callJson("reviewMyAssignments", none, { query: { open: String(open) } }) as Promise<Assignment[]>,
  submit: (assignment: string, input: SubmitReviewInput) => callJson("reviewSubmit", { id: assignment }, { body: input }) as Promise<ReviewView>,
  review: (id: string) => callJson("reviewGet", { id }) as Promise<ReviewView>,
  ofBody: (bodyId: string) => callJson("reviewsOfBody", { id: bodyId }) as Promise<{ reviews: ReviewView[]; hidden: number }>,
  disagreements: () => callJson("reviewDisagreements", none) as Promise<Dispute[]>,
  resolve: (item: string, input: { method: ResolutionMethod; findings: string[]; causes: string[]; note: string }) =>
    callJson("reviewResolve", { id: item }, { body: input }) as Promise<{ resolution: Resolution; sha256: string }>,
  stats: (sample?: string) => callJson("reviewStats", none, { query: { sample } }) as Promise<AgreementStats>,
  body: (id: string) => callJson("reviewBody", { id }) as Promise<BodyForReview>,
  findings: () => callJson("reviewVocabulary", none, { query: { vocabulary: "finding" } }) as Promise<Term[]>,
};
