import { z } from "zod";

/**
 * The review module's contracts: zod schemas of what its use cases answer, the one source of the types the
 * server returns, the OpenAPI document describes and the web app imports (type-only). Route tables name them as
 * `response`, so a handler that answers otherwise does not compile, and test/http/responses.test.ts checks
 * what is served against them. Contracts may import other modules' contracts (and nothing else but zod).
 */

export const Stratum = z.object({ key: z.string(), branch: z.string().nullable(), period: z.string().nullable(), population: z.number(), allocated: z.number() });
export type Stratum = z.infer<typeof Stratum>;

export const SampleView = z.object({ id: z.string(), seed: z.string(), size: z.number(), population: z.number(), populationSha256: z.string(), doubleShare: z.number(), doubles: z.number(), strata: z.array(Stratum), drawnBy: z.string(), drawnAt: z.string() });
export type SampleView = z.infer<typeof SampleView>;

export const GetReviewSamplesByIdAnswer = SampleView.merge(z.object({ items: z.array(z.object({ id: z.string(), bodyId: z.string(), bodyRef: z.string(), stratum: z.string(), double: z.boolean(), status: z.string() })) }));
export type GetReviewSamplesByIdAnswer = z.infer<typeof GetReviewSamplesByIdAnswer>;

export const AssignResult = z.object({ sampleId: z.string(), assigned: z.number(), perReviewer: z.record(z.number()) });
export type AssignResult = z.infer<typeof AssignResult>;

export const AssignmentView = z.object({ id: z.string(), itemId: z.string(), sampleId: z.string(), bodyId: z.string(), slot: z.number(), double: z.boolean(), submittedAt: z.string().nullable(), itemStatus: z.string() });
export type AssignmentView = z.infer<typeof AssignmentView>;

export const GetReviewAssignmentsAnswer = z.array(AssignmentView);
export type GetReviewAssignmentsAnswer = z.infer<typeof GetReviewAssignmentsAnswer>;

export const Region = z.union([z.object({ photo: z.string(), shape: z.literal("rect"), x: z.number(), y: z.number(), w: z.number(), h: z.number() }), z.object({ photo: z.string(), shape: z.literal("polygon"), points: z.array(z.tuple([z.number(), z.number()])) })]);
export type Region = z.infer<typeof Region>;

export const Finding = z.object({ code: z.string(), confidence: z.enum(["probable", "possible", "certain"]), regions: z.array(Region).optional(), note: z.string().optional() });
export type Finding = z.infer<typeof Finding>;

export const Cause = z.object({ code: z.enum(["blunt_trauma", "asphyxia", "starvation", "untreated_injury_or_infection", "burns", "gunshot", "undetermined"]), confidence: z.enum(["probable", "possible", "certain"]) });
export type Cause = z.infer<typeof Cause>;

/** A distinguishing mark the reviewer saw: type (mark_type) and where (body_region, or null when not said), in their words. */
export const ReviewMark = z.object({ type: z.string(), region: z.string().nullable(), description: z.string() });
export type ReviewMark = z.infer<typeof ReviewMark>;

/** `marks` and `clothing`: what the reviewer saw on the body beyond the findings (absent in reviews that recorded none). */
export const ReviewContent = z.object({ v: z.literal("dalil.review/1"), review: z.string(), version: z.number(), supersedes: z.string().nullable(), correction: z.string().nullable(), afterUnblinding: z.literal(true).optional(), sample: z.string(), item: z.string(), assignment: z.string(), body: z.string(), bodyRef: z.string(), reviewer: z.string(), submittedAt: z.string(), findings: z.array(Finding), causes: z.array(Cause), marks: z.array(ReviewMark).optional(), clothing: z.string().optional(), notes: z.string().nullable() });
export type ReviewContent = z.infer<typeof ReviewContent>;

export const ReviewView = z.object({ id: z.string(), sha256: z.string(), eventSeq: z.number(), content: ReviewContent });
export type ReviewView = z.infer<typeof ReviewView>;

export const GetBodiesByIdReviewsAnswer = z.object({ reviews: z.array(ReviewView), hidden: z.number() });
export type GetBodiesByIdReviewsAnswer = z.infer<typeof GetBodiesByIdReviewsAnswer>;

export const Disagreement = z.object({ codes: z.array(z.string()), causes: z.array(z.string()) });
export type Disagreement = z.infer<typeof Disagreement>;

export const DisputeView = z.object({ itemId: z.string(), sampleId: z.string(), bodyId: z.string(), bodyRef: z.string(), disagreement: Disagreement, reviewers: z.array(z.string()) });
export type DisputeView = z.infer<typeof DisputeView>;

export const GetReviewDisagreementsAnswer = z.array(DisputeView);
export type GetReviewDisagreementsAnswer = z.infer<typeof GetReviewDisagreementsAnswer>;

export const Resolution = z.object({ v: z.literal("dalil.review-resolution/1"), item: z.string(), body: z.string(), method: z.enum(["third_reviewer", "consensus"]), by: z.string(), participants: z.array(z.string()), reviews: z.array(z.string()), at: z.string(), findings: z.array(z.string()), causes: z.array(z.string()), marks: z.array(ReviewMark).optional(), clothing: z.string().optional(), note: z.string() });
export type Resolution = z.infer<typeof Resolution>;

export const PostReviewItemsByIdResolveAnswer = z.object({ resolution: Resolution, sha256: z.string() });
export type PostReviewItemsByIdResolveAnswer = z.infer<typeof PostReviewItemsByIdResolveAnswer>;

export const CodeAgreement = z.object({ code: z.string(), labelEn: z.string(), both: z.number(), onlyA: z.number(), onlyB: z.number(), neither: z.number(), n: z.number(), observed: z.number(), expected: z.number(), kappa: z.number().nullable() });
export type CodeAgreement = z.infer<typeof CodeAgreement>;

export const Kappa = z.object({ n: z.number(), observed: z.number(), expected: z.number(), kappa: z.number().nullable() });
export type Kappa = z.infer<typeof Kappa>;

export const Presence = z.object({ both: z.number(), onlyA: z.number(), onlyB: z.number(), neither: z.number() });
export type Presence = z.infer<typeof Presence>;

export const AgreementStats = z.object({ items: z.number(), codes: z.array(CodeAgreement), pooled: Kappa.merge(Presence), meanKappa: z.number().nullable(), overallMethod: z.literal("pooled"), causes: Kappa.merge(Presence), counts: z.object({ samples: z.number(), sampled: z.number(), reviewed: z.number(), inReview: z.number(), disputed: z.number(), resolved: z.number() }) });
export type AgreementStats = z.infer<typeof AgreementStats>;


// ---- Inputs (decision 0021): what each use case takes, parsed by the use case itself (`parseInput`); the route
// table's bodies are these (without the fields the path gives), the CLI builds the same objects, and the web
// app's request types are z.input of them.

const Sha256 = z.string().regex(/^[0-9a-f]{64}$/, "must be a SHA-256 in lowercase hex");
const Unit = z.number().min(0).max(1);
const ConfidenceInput = z.enum(["possible", "probable", "certain"]);
const CauseIndicatorInput = z.enum(["blunt_trauma", "asphyxia", "starvation", "untreated_injury_or_infection", "burns", "gunshot", "undetermined"]);

const ReviewMarkInput = z.object({ type: z.string().min(1).max(40), region: z.string().max(40).nullable().optional(), description: z.string().max(500).optional() }).strict();

export const RegionInput = z.discriminatedUnion("shape", [
  z.object({ photo: Sha256, shape: z.literal("rect"), x: Unit, y: Unit, w: Unit, h: Unit }).strict(),
  z.object({ photo: Sha256, shape: z.literal("polygon"), points: z.array(z.tuple([Unit, Unit])).min(3).max(200) }).strict(),
]);

/** POST /api/review/assignments/:id/submit — `correction`: for a second or later version, why the earlier one was wrong. */
export const SubmitReviewInput = z
  .object({
    assignmentId: z.string().min(1).max(64),
    findings: z
      .array(z.object({ code: z.string().min(1).max(100), confidence: ConfidenceInput, regions: z.array(RegionInput).max(50).optional(), note: z.string().max(4000).optional() }).strict())
      .min(1)
      .max(100),
    causes: z.array(z.object({ code: CauseIndicatorInput, confidence: ConfidenceInput }).strict()).max(20).optional(),
    /** Distinguishing marks seen (type and region from the catalogue's vocabularies); written onto the body when the review settles. */
    marks: z.array(ReviewMarkInput).max(50).optional(),
    /** Clothing seen, in the reviewer's words; written onto the body when the review settles. */
    clothing: z.string().max(4000).optional(),
    notes: z.string().max(20000).optional(),
    correction: z.string().max(4000).optional(),
  })
  .strict();

/** `doubleShare`: the share of the sample two reviewers examine independently (blind), 0..1. */
export const DrawSampleInput = z.object({ size: z.number().int().min(1).max(1_000_000), seed: z.string().min(1).max(200), doubleShare: z.number({ invalid_type_error: "takes a number from 0 to 1 (e.g. 0.2)" }).min(0, "takes a number from 0 to 1 (e.g. 0.2)").max(1, "takes a number from 0 to 1 (e.g. 0.2)").optional() }).strict();

/** `sampleId` absent: the most recently drawn sample. `reviewers`: forensic reviewers' account ids or email addresses. */
export const AssignSampleInput = z.object({ sampleId: z.string().min(1).max(64).optional(), reviewers: z.array(z.string().min(1).max(320)).min(1).max(200) }).strict();

/**
 * `findings`: the finding codes that stand after resolution. `marks`, `clothing`: those that stand (absent: the
 * marks both reviews recorded, and the clothing both described).
 */
export const ResolveInput = z
  .object({ itemId: z.string().min(1).max(64), method: z.enum(["third_reviewer", "consensus"]), findings: z.array(z.string().min(1).max(100)).min(1).max(100), causes: z.array(CauseIndicatorInput).max(20).optional(), marks: z.array(ReviewMarkInput).max(50).optional(), clothing: z.string().max(4000).optional(), note: z.string().min(1).max(4000) })
  .strict();
