import { typedCall } from "../../api/client.ts";
import type { ResolveInput, SubmitReviewInput } from "../../api/types/review.ts";

/** The review area's typed calls (the routes are in web/src/api/endpoints/review.ts). */
const none = {} as never;

export const reviewApi = {
  drawSample: (input: { size: number; seed: string; doubleShare: number }) => typedCall("reviewDrawSample", none, { body: input }),
  sample: (id: string) => typedCall("reviewSample", { id }),
  assign: (id: string, reviewers: string[]) => typedCall("reviewAssignSample", { id }, { body: { reviewers } }),
  myAssignments: (open: boolean) => typedCall("reviewMyAssignments", none, { query: { open: String(open) } }),
  submit: (assignment: string, input: SubmitReviewInput) => typedCall("reviewSubmit", { id: assignment }, { body: input }),
  review: (id: string) => typedCall("reviewGet", { id }),
  ofBody: (bodyId: string) => typedCall("reviewsOfBody", { id: bodyId }),
  disagreements: () => typedCall("reviewDisagreements", none),
  resolve: (item: string, input: ResolveInput) => typedCall("reviewResolve", { id: item }, { body: input }),
  stats: (sample?: string) => typedCall("reviewStats", none, { query: { sample } }),
  body: (id: string) => typedCall("reviewBody", { id }),
  findings: () => typedCall("reviewVocabulary", none, { query: { vocabulary: "finding" } }),
  /** mark_type and body_region, for the marks a reviewer records. */
  vocabulary: (vocabulary: string) => typedCall("reviewVocabulary", none, { query: { vocabulary } }),
};
