import { z } from "zod";
import { Mark } from "../catalogue/contracts.ts";
import { ImportProblem } from "../core/contracts.ts";

/**
 * The families module's contracts: zod schemas of what its use cases answer, the one source of the types the
 * server returns, the OpenAPI document describes and the web app imports (type-only). Route tables name them as
 * `response`, so a handler that answers otherwise does not compile, and test/http/responses.test.ts checks
 * what is served against them. Contracts may import other modules' contracts (and nothing else but zod).
 */

export const NameScript = z.enum(["ar", "lat", "mixed", "none"]);
export type NameScript = z.infer<typeof NameScript>;

export const NameSlots = z.object({ raw: z.string(), script: NameScript, given: z.string().optional(), father: z.string().optional(), grandfather: z.string().optional(), family: z.string().optional(), mother: z.string().optional(), ancestors: z.array(z.string()), aliases: z.array(z.string()), titles: z.array(z.string()), notes: z.array(z.string()) });
export type NameSlots = z.infer<typeof NameSlots>;

export const Sighting = z.object({ place: z.string(), when: z.string().optional(), witness: z.string().optional() });
export type Sighting = z.infer<typeof Sighting>;

export const ReportView = z.object({ id: z.string(), ref: z.string(), nameAr: z.string().nullable(), nameLat: z.string().nullable(), slots: NameSlots, motherName: z.string().nullable(), aliases: z.array(z.string()), sex: z.enum(["male", "female"]).nullable(), birthDate: z.string().nullable(), birthPrecision: z.string().nullable(), birthPlace: z.string().nullable(), arrestDate: z.string().nullable(), arrestEarliest: z.string().nullable(), arrestLatest: z.string().nullable(), arrestPlace: z.string().nullable(), arrestGovernorate: z.string().nullable(), branch: z.string().nullable(), branchCertainty: z.enum(["probable", "certain", "rumoured"]).nullable(), seenInDetention: z.array(Sighting), marks: z.array(Mark), numbers: z.array(z.object({ role: z.string(), value: z.string() })), consent: z.object({ dataSharing: z.object({ given: z.boolean(), at: z.string(), by: z.string() }).optional(), recontact: z.object({ given: z.boolean(), at: z.string(), by: z.string() }).optional(), viewingPhotos: z.object({ given: z.boolean(), at: z.string(), by: z.string() }).optional(), dnaReferral: z.object({ given: z.boolean(), at: z.string(), by: z.string() }).optional(), publicDisplay: z.object({ given: z.boolean(), at: z.string(), by: z.string() }).optional() }), reporterName: z.string().nullable(), reporterRelationship: z.string().nullable(), reporterContact: z.string().nullable(), filedBy: z.string().nullable(), caseworkerId: z.string().nullable(), status: z.string(), version: z.number(), createdAt: z.string(), updatedAt: z.string() });
export type ReportView = z.infer<typeof ReportView>;

export const GetFamiliesReportsAnswer = z.array(ReportView);
export type GetFamiliesReportsAnswer = z.infer<typeof GetFamiliesReportsAnswer>;

export const ReportImportReport = z.object({ importId: z.string(), ok: z.boolean(), dryRun: z.boolean(), rows: z.number(), created: z.number(), rejected: z.array(ImportProblem), ignoredColumns: z.array(z.string()), sha256: z.string() });
export type ReportImportReport = z.infer<typeof ReportImportReport>;

export const Band = z.enum(["exclude", "unlikely", "review", "likely", "strong"]);
export type Band = z.infer<typeof Band>;

export const EvidenceKey = z.enum(["marks", "sexAgrees", "sexExcluded", "ageFits", "ageNear", "ageOff", "datesExcluded", "periodBefore", "periodWithin", "periodWithinFits", "periodDaysAfter", "periodDaysAfterFits", "periodOneMonthUsual", "periodOneMonthLong", "periodMonthsUsual", "periodMonthsLong", "branchAgrees", "branchDiffers", "numberHit", "numberClash", "nameNoKey", "nameSame", "nameSameNotEnough", "namePartly", "nameDifferent", "dnaMatch", "dnaExclusion", "dnaInconclusive", "dnaPending"]);
export type EvidenceKey = z.infer<typeof EvidenceKey>;

export const EvidenceParam = z.union([z.boolean(), z.string(), z.number()]).nullable();
export type EvidenceParam = z.infer<typeof EvidenceParam>;

export const MarkFit = z.enum(["type", "none", "place", "elsewhere"]);
export type MarkFit = z.infer<typeof MarkFit>;

export const MarkPart = z.object({ fit: MarkFit, type: z.string(), region: z.string().nullable(), bodyRegion: z.string().nullable() });
export type MarkPart = z.infer<typeof MarkPart>;

export const FamiliesEvidence = z.object({ feature: z.enum(["name", "age", "branch", "period", "sex", "marks", "numbers", "dates", "dna"]), points: z.number(), text: z.string(), key: EvidenceKey, params: z.record(EvidenceParam), parts: z.array(MarkPart).optional() });
export type FamiliesEvidence = z.infer<typeof FamiliesEvidence>;

/** externalRef: the partner's own reference for the body (a spreadsheet's), when it has one. */
export const CandidateView = z.object({ rank: z.number(), bodyId: z.string(), ref: z.string(), externalRef: z.string().nullable(), score: z.number(), band: Band, evidence: z.array(FamiliesEvidence) });
export type CandidateView = z.infer<typeof CandidateView>;

export const GetFamiliesReportsByIdCandidatesAnswer = z.object({ report: z.string(), candidates: z.array(CandidateView) });
export type GetFamiliesReportsByIdCandidatesAnswer = z.infer<typeof GetFamiliesReportsByIdCandidatesAnswer>;

export const DecisionView = z.object({ id: z.string(), bodyId: z.string(), status: z.enum(["confirmed", "probable", "presumptive", "excluded"]), score: z.number().nullable(), decidedBy: z.string(), reason: z.string(), createdAt: z.string() });
export type DecisionView = z.infer<typeof DecisionView>;

export const DisclosureView = z.object({ id: z.string(), bodyId: z.string(), recipientId: z.string(), stage: z.enum(["text", "blurred_face", "more"]), status: z.enum(["confirmed", "probable", "presumptive", "excluded"]), text: z.string(), consentNote: z.string(), decidedBy: z.string(), reason: z.string(), photo: z.string().nullable(), blurred: z.boolean(), requestId: z.string().nullable(), createdAt: z.string(), withdrawn: z.object({ at: z.string(), by: z.string(), reason: z.string(), note: z.string().nullable() }).nullable() });
export type DisclosureView = z.infer<typeof DisclosureView>;

export const RequestView = z.object({ id: z.string(), bodyId: z.string(), requestedBy: z.string(), unblurred: z.boolean(), note: z.string(), status: z.enum(["requested", "approved", "declined"]), decidedBy: z.string().nullable(), decidedAt: z.string().nullable(), reason: z.string().nullable(), createdAt: z.string() });
export type RequestView = z.infer<typeof RequestView>;

export const FlagWords = z.object({ key: z.enum(["outranked", "statusChanged", "viewBlurred", "viewUnblurred"]), params: z.record(z.string()) });
export type FlagWords = z.infer<typeof FlagWords>;

export const FlagView = z.object({ id: z.string(), reportId: z.string(), reportRef: z.string(), bodyId: z.string(), caseworkerId: z.string().nullable(), kind: z.enum(["status-changed", "outranked", "view-request"]), detail: z.string(), words: FlagWords.nullable(), createdAt: z.string(), clearedBy: z.string().nullable(), clearedAt: z.string().nullable(), clearNote: z.string().nullable() });
export type FlagView = z.infer<typeof FlagView>;

export const CaseView = z.object({ report: ReportView, members: z.array(z.string()), decisions: z.array(DecisionView.merge(z.object({ history: z.array(DecisionView) }))), disclosures: z.array(DisclosureView), requests: z.array(RequestView), flags: z.array(FlagView) });
export type CaseView = z.infer<typeof CaseView>;

export const PostFamiliesReportsByIdMembersAnswer = z.object({ reportId: z.string(), userId: z.string(), members: z.array(z.string()) });
export type PostFamiliesReportsByIdMembersAnswer = z.infer<typeof PostFamiliesReportsByIdMembersAnswer>;

export const PostFamiliesReportsByIdMembersByUserIdEndAnswer = z.object({ reportId: z.string(), userId: z.string(), members: z.array(z.string()) });
export type PostFamiliesReportsByIdMembersByUserIdEndAnswer = z.infer<typeof PostFamiliesReportsByIdMembersByUserIdEndAnswer>;

export const PostFamiliesRequestsByIdApproveAnswer = z.array(DisclosureView);
export type PostFamiliesRequestsByIdApproveAnswer = z.infer<typeof PostFamiliesRequestsByIdApproveAnswer>;

export const GetFamiliesFlagsAnswer = z.array(FlagView);
export type GetFamiliesFlagsAnswer = z.infer<typeof GetFamiliesFlagsAnswer>;

export const ReasonKey = z.enum(["namesSame", "namesPossibly", "motherAgree", "motherDiffer", "sameSex", "birthWithin", "birthApart", "arrestOverlap", "arrestApart", "sameGovernorate", "otherGovernorates", "sameBranch", "sameNumber"]);
export type ReasonKey = z.infer<typeof ReasonKey>;

export const ReasonWords = z.object({ key: ReasonKey, params: z.record(z.union([z.string(), z.number()])) });
export type ReasonWords = z.infer<typeof ReasonWords>;

export const DuplicateView = z.object({ id: z.string(), status: z.enum(["proposed", "accepted", "rejected", "superseded"]), score: z.number(), reasons: z.array(z.string()), words: z.array(ReasonWords.nullable()), a: z.object({ id: z.string(), ref: z.string(), nameAr: z.string().nullable(), nameLat: z.string().nullable() }), b: z.object({ id: z.string(), ref: z.string(), nameAr: z.string().nullable(), nameLat: z.string().nullable() }), survivorId: z.string().nullable(), decidedBy: z.string().nullable(), decidedAt: z.string().nullable(), reason: z.string().nullable(), createdAt: z.string() });
export type DuplicateView = z.infer<typeof DuplicateView>;

export const GetFamiliesDuplicatesAnswer = z.array(DuplicateView);
export type GetFamiliesDuplicatesAnswer = z.infer<typeof GetFamiliesDuplicatesAnswer>;

export const PostFamiliesDuplicatesScanAnswer = z.object({ proposed: z.number(), proposals: z.array(DuplicateView) });
export type PostFamiliesDuplicatesScanAnswer = z.infer<typeof PostFamiliesDuplicatesScanAnswer>;

export const PostFamiliesDuplicatesByIdAcceptAnswer = z.object({ survivor: ReportView, merged: ReportView });
export type PostFamiliesDuplicatesByIdAcceptAnswer = z.infer<typeof PostFamiliesDuplicatesByIdAcceptAnswer>;

export const GetPortalReportsAnswer = z.array(z.object({ id: z.string(), ref: z.string(), nameAr: z.string().nullable(), nameLat: z.string().nullable(), status: z.string(), mergedInto: z.string().nullable(), matches: z.number() }));
export type GetPortalReportsAnswer = z.infer<typeof GetPortalReportsAnswer>;

export const PortalMatch = z.object({ matchId: z.string(), status: z.enum(["confirmed", "probable", "presumptive", "excluded"]), stage: z.enum(["text", "blurred_face", "more"]), messages: z.array(z.object({ at: z.string(), stage: z.enum(["text", "blurred_face", "more"]), text: z.string() })), images: z.array(z.object({ id: z.string(), stage: z.enum(["text", "blurred_face", "more"]), blurred: z.boolean(), at: z.string() })), requests: z.array(z.object({ status: z.enum(["requested", "approved", "declined"]), id: z.string(), createdAt: z.string(), note: z.string(), unblurred: z.boolean() })), mayRequestMore: z.boolean() });
export type PortalMatch = z.infer<typeof PortalMatch>;

/** Something shown to this family member and taken back: its stage, when shared and withdrawn, why; never the words or image. */
export const PortalWithdrawal = z.object({ stage: z.enum(["text", "blurred_face", "more"]), sharedAt: z.string(), withdrawnAt: z.string(), reason: z.string(), note: z.string().nullable() });
export type PortalWithdrawal = z.infer<typeof PortalWithdrawal>;
/** A family's new report or change to it, for a caseworker to accept or refuse (families/proposals.ts). */
export const ReportProposalView = z.object({
  id: z.string(), reportId: z.string(), reportRef: z.string(), kind: z.enum(["new", "change"]), fields: z.record(z.unknown()),
  /** The same fields on the report now (what accepting would change). */
  current: z.record(z.unknown()), proposedBy: z.string(), createdAt: z.string(),
  status: z.enum(["proposed", "accepted", "refused"]), decidedBy: z.string().nullable(), decidedAt: z.string().nullable(), reason: z.string().nullable(),
});
export type ReportProposalView = z.infer<typeof ReportProposalView>;
/** What a family sees of its own proposals: what they changed (field names), and what a caseworker did with it. */
export const PortalProposal = z.object({ id: z.string(), kind: z.enum(["new", "change"]), fields: z.array(z.string()), status: z.enum(["proposed", "accepted", "refused"]), createdAt: z.string(), decidedAt: z.string().nullable(), reason: z.string().nullable() });
export type PortalProposal = z.infer<typeof PortalProposal>;
export const PortalReport = z.object({ report: z.object({ status: z.string(), id: z.string(), createdAt: z.string(), updatedAt: z.string(), version: z.number(), branch: z.string().nullable(), sex: z.enum(["male", "female"]).nullable(), ref: z.string(), marks: z.array(Mark), nameAr: z.string().nullable(), nameLat: z.string().nullable(), motherName: z.string().nullable(), aliases: z.array(z.string()), birthDate: z.string().nullable(), birthPlace: z.string().nullable(), arrestDate: z.string().nullable(), arrestPlace: z.string().nullable(), arrestGovernorate: z.string().nullable(), branchCertainty: z.enum(["probable", "certain", "rumoured"]).nullable(), seenInDetention: z.array(Sighting), numbers: z.array(z.object({ role: z.string(), value: z.string() })), consent: z.object({ dataSharing: z.object({ given: z.boolean(), at: z.string(), by: z.string() }).optional(), recontact: z.object({ given: z.boolean(), at: z.string(), by: z.string() }).optional(), viewingPhotos: z.object({ given: z.boolean(), at: z.string(), by: z.string() }).optional(), dnaReferral: z.object({ given: z.boolean(), at: z.string(), by: z.string() }).optional(), publicDisplay: z.object({ given: z.boolean(), at: z.string(), by: z.string() }).optional() }), reporterName: z.string().nullable(), reporterRelationship: z.string().nullable(), reporterContact: z.string().nullable(), slots: NameSlots, birthPrecision: z.string().nullable(), arrestEarliest: z.string().nullable(), arrestLatest: z.string().nullable() }), mergedInto: z.string().nullable(), matches: z.array(PortalMatch), withdrawn: z.array(PortalWithdrawal), proposals: z.array(PortalProposal) });
export type PortalReport = z.infer<typeof PortalReport>;

export const PostPortalReportsByIdConsentAnswer = z.object({ status: z.string(), id: z.string(), createdAt: z.string(), updatedAt: z.string(), version: z.number(), branch: z.string().nullable(), sex: z.enum(["male", "female"]).nullable(), ref: z.string(), marks: z.array(Mark), nameAr: z.string().nullable(), nameLat: z.string().nullable(), motherName: z.string().nullable(), aliases: z.array(z.string()), birthDate: z.string().nullable(), birthPlace: z.string().nullable(), arrestDate: z.string().nullable(), arrestPlace: z.string().nullable(), arrestGovernorate: z.string().nullable(), branchCertainty: z.enum(["probable", "certain", "rumoured"]).nullable(), seenInDetention: z.array(Sighting), numbers: z.array(z.object({ role: z.string(), value: z.string() })), consent: z.object({ dataSharing: z.object({ given: z.boolean(), at: z.string(), by: z.string() }).optional(), recontact: z.object({ given: z.boolean(), at: z.string(), by: z.string() }).optional(), viewingPhotos: z.object({ given: z.boolean(), at: z.string(), by: z.string() }).optional(), dnaReferral: z.object({ given: z.boolean(), at: z.string(), by: z.string() }).optional(), publicDisplay: z.object({ given: z.boolean(), at: z.string(), by: z.string() }).optional() }), reporterName: z.string().nullable(), reporterRelationship: z.string().nullable(), reporterContact: z.string().nullable(), slots: NameSlots, birthPrecision: z.string().nullable(), arrestEarliest: z.string().nullable(), arrestLatest: z.string().nullable() });
export type PostPortalReportsByIdConsentAnswer = z.infer<typeof PostPortalReportsByIdConsentAnswer>;

export const PostPortalReportsByIdRequestsAnswer = z.object({ status: z.enum(["requested", "approved", "declined"]), id: z.string(), createdAt: z.string(), note: z.string(), unblurred: z.boolean() });
export type PostPortalReportsByIdRequestsAnswer = z.infer<typeof PostPortalReportsByIdRequestsAnswer>;


/** A body's photo marked as showing the face, which a caseworker may crop for stage 2. */
export const FacePhoto = z.object({ sha256: z.string(), position: z.number() });
export type FacePhoto = z.infer<typeof FacePhoto>;
/** The square around the face: centre as fractions of width and height, side as a fraction of the shorter edge. */
export const FaceRegion = z.object({ cx: z.number().min(0).max(1), cy: z.number().min(0).max(1), size: z.number().min(0.05).max(1) }).strict();
/** A blurred face crop a caseworker made and looked at; stage 2 sends it by its id. */
export const FacePreviewView = z.object({ id: z.string(), bodyId: z.string(), photo: z.string(), region: FaceRegion, sha256: z.string(), previewedBy: z.string(), previewedAt: z.string() });
export type FacePreviewView = z.infer<typeof FacePreviewView>;


/** One version of a DNA / ante-mortem referral (families/referrals.ts): the body by its reference, never its id alone. */
export const ReferralVersion = z.object({
  version: z.number(), status: z.enum(["requested", "sample_taken", "sent", "result"]), bodyId: z.string().nullable(), bodyRef: z.string().nullable(),
  sampleFrom: z.string().nullable(), sampleTakenOn: z.string().nullable(), lab: z.string().nullable(), labRef: z.string().nullable(),
  result: z.enum(["match", "exclusion", "inconclusive"]).nullable(), resultOn: z.string().nullable(), note: z.string(), recordedBy: z.string(), recordedAt: z.string(),
});
export type ReferralVersion = z.infer<typeof ReferralVersion>;
/** A referral as it stands, with its earlier versions (newest first) as its history. */
export const ReferralView = ReferralVersion.extend({ id: z.string(), reportRef: z.string(), history: z.array(ReferralVersion) });
export type ReferralView = z.infer<typeof ReferralView>;
export const GetFamiliesReportsByIdReferralsAnswer = z.array(ReferralView);
export type GetFamiliesReportsByIdReferralsAnswer = z.infer<typeof GetFamiliesReportsByIdReferralsAnswer>;

// ---- Inputs (decision 0021): what each use case takes, parsed by the use case itself (`parseInput`). A route
// whose body or query is one of these names it with `usecase(...)` (without the fields its path gives); the
// CLI builds the same object. The web app's request types are z.input of these.

export const ConsentTierName = z.enum(["dataSharing", "recontact", "viewingPhotos", "dnaReferral", "publicDisplay"]);
export const BranchCertaintyName = z.enum(["certain", "probable", "rumoured"]);
export const DecisionStatusName = z.enum(["presumptive", "probable", "confirmed", "excluded"]);
export const WithdrawalReasonName = z.enum(["sentInError", "wrongRecipient", "decisionChanged", "familyAsked", "other"], {
  errorMap: () => ({ message: "A withdrawal's reason is one of sentInError, wrongRecipient, decisionChanged, familyAsked, other" }),
});
export const FormVocabularyName = z.enum(["mark_type", "body_region", "governorate"]);

/** A report or other record by its id or its reference (R-000001, B-000004). */
const RecordRef = z.string().min(1).max(80);
const Sha256 = z.string().regex(/^[0-9a-f]{64}$/, "must be a SHA-256 in lowercase hex");
const Text = (max = 300) => z.string().max(max).nullable().optional();
const Reason = z.string().min(1).max(4000);

/** The fields of a missing-person report a person enters (all optional; a name in Arabic or Latin letters is needed). */
export const ReportFieldsInput = z
  .object({
    nameAr: Text(),
    nameLat: Text(),
    fatherName: Text(),
    motherName: Text(),
    aliases: z.array(z.string().max(300)).max(50).optional(),
    sex: z.enum(["male", "female"]).nullable().optional(),
    /** YYYY, YYYY-MM or YYYY-MM-DD; "~1985" or "c. 1985" for an approximate year. */
    birthDate: Text(40),
    birthPlace: Text(),
    /** Partial dates allowed: 2012, 2012-05, 2012-05-14, a season. */
    arrestDate: Text(40),
    arrestPlace: Text(),
    /** A governorate code, Arabic or English name. */
    arrestGovernorate: Text(100),
    branch: Text(40),
    branchCertainty: BranchCertaintyName.nullable().optional(),
    seenInDetention: z.array(z.object({ place: z.string().max(300), when: z.string().max(40).optional(), witness: z.string().max(300).optional() }).strict()).max(50).optional(),
    marks: z.array(z.object({ type: z.string().max(100), region: z.string().max(100).nullable(), description: z.string().max(500) }).strict()).max(50).optional(),
    numbers: z.array(z.object({ role: z.enum(["detainee", "branch", "examiner"]), value: z.string().max(40) }).strict()).max(20).optional(),
    consent: z.record(ConsentTierName, z.boolean()).optional(),
    reporterName: Text(),
    reporterRelationship: Text(80),
    reporterContact: Text(),
  })
  .strict();

/** POST /api/families/reports — a new report; a caseworker may give its reference, a family member may not. */
export const NewReportInput = ReportFieldsInput.extend({ ref: z.string().max(60).optional() }).strict();
/** PUT /api/families/reports/:id — the fields given replace the stored ones; expectedVersion guards against a concurrent edit. */
export const EditReportInput = ReportFieldsInput.extend({ id: RecordRef, expectedVersion: z.number().int().min(1).optional() }).strict();
export const ImportReportsInput = z.object({ csv: z.string().min(1).max(20_000_000), dryRun: z.boolean().optional() }).strict();

export const LinkMemberInput = z.object({ report: RecordRef, userId: z.string().min(1).max(320), relationship: z.string().max(80).optional() }).strict();
export const EndMemberInput = z.object({ report: RecordRef, userId: z.string().min(1).max(80) }).strict();
export const RecordConsentInput = z.object({ report: RecordRef, tier: ConsentTierName, given: z.boolean(), note: z.string().max(500).optional() }).strict();
export const DecideInput = z.object({ report: RecordRef, bodyId: RecordRef, status: DecisionStatusName, reason: Reason }).strict();
export const DiscloseInput = z
  .object({
    report: RecordRef,
    bodyId: RecordRef,
    stage: z.enum(["text", "blurred_face"], { errorMap: () => ({ message: "A caseworker discloses stage text or blurred_face; further photos follow a family's request (approve it)" }) }),
    /** What the family is told, in words (stage 1), or with the image (stage 2). */
    text: z.string().min(1).max(4000),
    /** How the family agreed to this step (in person, by phone, in the portal …). */
    consentNote: z.string().min(1).max(500),
    reason: Reason,
    recipientId: RecordRef.optional(),
    /** Stage 2: the face preview this caseworker made and looked at (previewFace); its crop is what is sent. */
    preview: RecordRef.optional(),
  })
  .strict();
export const FacePhotosInput = z.object({ bodyId: RecordRef }).strict();
export const PreviewFaceInput = z
  .object({ report: RecordRef, bodyId: RecordRef, photo: Sha256, region: z.object(FaceRegion.shape, { required_error: "Draw the square around the face on the photo first" }).strict() })
  .strict();
export const WithdrawDisclosureInput = z.object({ id: RecordRef, reason: WithdrawalReasonName, note: z.string().max(2000).optional() }).strict();
export const ApproveRequestInput = z.object({ id: RecordRef, reason: Reason, photos: z.array(Sha256).max(100).optional(), text: z.string().max(4000).optional() }).strict();
export const DeclineRequestInput = z.object({ id: RecordRef, reason: Reason }).strict();
export const ReferralStatusName = z.enum(["requested", "sample_taken", "sent", "result"]);
export const ReferralResultName = z.enum(["match", "exclusion", "inconclusive"]);
const Day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "must be a date as YYYY-MM-DD");
/** What a referral records; a result (match, exclusion, inconclusive) only with status result. */
const ReferralFields = {
  /** The body the referral concerns, by id or reference (B-000004); none for a sample taken to compare later. */
  bodyId: RecordRef.nullable().optional(),
  /** Who gave the sample: their relationship to the missing person (mother, brother …). */
  sampleFrom: z.string().max(80).nullable().optional(),
  sampleTakenOn: Day.nullable().optional(),
  lab: z.string().max(200).nullable().optional(),
  labRef: z.string().max(120).nullable().optional(),
  result: ReferralResultName.nullable().optional(),
  resultOn: Day.nullable().optional(),
  note: z.string().max(2000).optional(),
};
/** POST /api/families/reports/:id/referrals — only with the family's dnaReferral consent. */
export const NewReferralInput = z.object({ report: RecordRef, status: ReferralStatusName.optional(), ...ReferralFields }).strict();
/** PUT /api/families/referrals/:id — the fields given replace the current ones (a new version; the old one stays). */
export const UpdateReferralInput = z.object({ id: RecordRef, expectedVersion: z.number().int().min(1).optional(), status: ReferralStatusName.optional(), ...ReferralFields }).strict();
export const ClearFlagInput = z.object({ id: RecordRef, note: z.string().min(1).max(2000) }).strict();
/** A scan for duplicate reports (the route's and the CLI's); full: weigh every pair again, not only new or changed reports. */
export const ScanDuplicatesInput = z.object({ full: z.boolean().optional() }).strict();
export const AcceptDuplicateInput = z.object({ id: RecordRef, survivor: RecordRef.optional(), reason: z.string().max(2000).optional() }).strict();
export const RejectDuplicateInput = z.object({ id: RecordRef, reason: z.string().max(2000).optional() }).strict();
export const AcceptProposalInput = z.object({ id: RecordRef, reason: z.string().max(2000).optional() }).strict();
export const RefuseProposalInput = z.object({ id: RecordRef, reason: z.string().min(1).max(2000) }).strict();

// the family members' portal
export const PortalConsentInput = z.object({ report: RecordRef, tier: ConsentTierName, given: z.boolean() }).strict();
export const RequestMoreInput = z.object({ report: RecordRef, matchId: RecordRef, unblurred: z.boolean(), note: z.string().max(2000).optional() }).strict();
/** What a family adds or corrects: the report's fields but its reference and consent (consent has its own route). */
export const ProposeChangeInput = z.object({ report: RecordRef, fields: ReportFieldsInput.omit({ consent: true }) }).strict();
export const PortalVocabularyInput = z.object({ vocabulary: FormVocabularyName }).strict();
