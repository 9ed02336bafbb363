import { z } from "zod";
import { route, usecase, withPath, type RouteSpec } from "../http/route-spec.ts";
import { assignSample, drawReviewSample, getSample } from "./samples.ts";
import { getReview, listDisagreements, myAssignments, resolveDisagreement, reviewsOfBody, submitReview } from "./reviews.ts";
import { agreementStats } from "./stats.ts";
import * as contracts from "./contracts.ts";

/** Forensic review over HTTP: thin shells over the use cases, which ask the policy (and the blind rule) themselves. */
const Id = z.object({ id: z.string().min(1).max(64) });
export const REVIEW_ROUTES: readonly RouteSpec[] = [
  route({
    method: "POST",
    url: "/api/review/samples",
    action: "review.sample",
    summary: "draw a reproducible sample of unreviewed bodies, stratified by branch and month (seed, size, double-review share)",
    body: usecase(contracts.DrawSampleInput),
    response: contracts.SampleView,
    handler: (req, ctx, actor, { body }) => drawReviewSample(ctx, actor, body),
  }),
  route({
    method: "GET",
    url: "/api/review/samples/:id",
    action: "review.read",
    summary: "a sample: seed, strata with their allocation, the bodies drawn and their review status",
    params: Id,
    response: contracts.GetReviewSamplesByIdAnswer,
    handler: (req, ctx, actor, { params }) => getSample(ctx, actor, params.id),
  }),
  route({
    method: "POST",
    url: "/api/review/samples/:id/assign",
    action: "review.assign",
    summary: "deal a sample's unassigned bodies to forensic reviewers (two for each blind double review)",
    params: Id,
    body: usecase(contracts.AssignSampleInput, "sampleId"),
    response: contracts.AssignResult,
    handler: (req, ctx, actor, { params, body }) => assignSample(ctx, actor, withPath(body, { sampleId: params.id })),
  }),
  route({
    method: "GET",
    url: "/api/review/assignments",
    action: "review.submit",
    query: z.object({ open: z.enum(["true", "false"]).optional() }).strict(),
    summary: "the signed-in reviewer's own assignments",
    response: contracts.GetReviewAssignmentsAnswer,
    handler: (_req, ctx, actor, { query: q }) => myAssignments(ctx, actor, { open: q.open === "true" }),
  }),
  route({
    method: "POST",
    url: "/api/review/assignments/:id/submit",
    action: "review.submit",
    summary: "submit (sign) a review: findings with confidence and regions, cause-of-death indicators, notes; a later one is a correction",
    params: Id,
    body: usecase(contracts.SubmitReviewInput, "assignmentId"),
    response: contracts.ReviewView,
    handler: (req, ctx, actor, { params, body }) => submitReview(ctx, actor, withPath(body, { assignmentId: params.id })),
  }),
  route({
    method: "GET",
    url: "/api/review/reviews/:id",
    action: "review.read",
    summary: "one submitted review as signed (another reviewer's blind review stays closed until both are in)",
    params: Id,
    response: contracts.ReviewView,
    handler: (req, ctx, actor, { params }) => getReview(ctx, actor, params.id),
  }),
  route({
    method: "GET",
    url: "/api/bodies/:id/reviews",
    action: "review.read",
    summary: "the reviews of a body that the caller may see now, every version",
    params: Id,
    response: contracts.GetBodiesByIdReviewsAnswer,
    handler: (req, ctx, actor, { params }) => reviewsOfBody(ctx, actor, params.id),
  }),
  route({
    method: "GET",
    url: "/api/review/disagreements",
    action: "review.resolve",
    summary: "double reviews that disagree, with the finding codes they differ on",
    response: contracts.GetReviewDisagreementsAnswer,
    handler: (_req, ctx, actor) => listDisagreements(ctx, actor),
  }),
  route({
    method: "POST",
    url: "/api/review/items/:id/resolve",
    action: "review.resolve",
    summary: "settle a disagreement (third reviewer or consensus); signed and logged",
    params: Id,
    body: usecase(contracts.ResolveInput, "itemId"),
    response: contracts.PostReviewItemsByIdResolveAnswer,
    handler: (req, ctx, actor, { params, body }) => resolveDisagreement(ctx, actor, withPath(body, { itemId: params.id })),
  }),
  route({
    method: "GET",
    url: "/api/review/stats",
    action: "review.stats",
    query: z.object({ sample: z.string().max(64).optional() }).strict(),
    summary: "agreement statistics: Cohen's kappa per finding and pooled, with observed and expected agreement",
    response: contracts.AgreementStats,
    handler: (_req, ctx, actor, { query: q }) => agreementStats(ctx, actor, q.sample ? { sampleId: q.sample } : {}),
  }),
];
