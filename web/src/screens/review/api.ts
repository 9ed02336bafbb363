import { typedCall } from "../../api/client.ts";
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
  drawSample: (input: { size: number; seed: string; doubleShare: number }) => typedCall<SampleView>()("reviewDrawSample", none, { body: input }),
  sample: (id: string) => typedCall<SampleDetail>()("reviewSample", { id }),
  assign: (id: string, reviewers: string[]) => typedCall<AssignResult>()("reviewAssignSample", { id }, { body: { reviewers } }),
  myAssignments: (open: boolean) => typedCall<Assignment[]>()("reviewMyAssignments", none, { query: { open: String(open) } }),
  submit: (assignment: string, input: SubmitReviewInput) => typedCall<ReviewView>()("reviewSubmit", { id: assignment }, { body: input }),
  review: (id: string) => typedCall<ReviewView>()("reviewGet", { id }),
  ofBody: (bodyId: string) => typedCall<{ reviews: ReviewView[]; hidden: number }>()("reviewsOfBody", { id: bodyId }),
  disagreements: () => typedCall<Dispute[]>()("reviewDisagreements", none),
  resolve: (item: string, input: { method: ResolutionMethod; findings: string[]; causes: string[]; note: string }) =>
    typedCall<{ resolution: Resolution; sha256: string }>()("reviewResolve", { id: item }, { body: input }),
  stats: (sample?: string) => typedCall<AgreementStats>()("reviewStats", none, { query: { sample } }),
  body: (id: string) => typedCall<BodyForReview>()("reviewBody", { id }),
  findings: () => typedCall<Term[]>()("reviewVocabulary", none, { query: { vocabulary: "finding" } }),
};
