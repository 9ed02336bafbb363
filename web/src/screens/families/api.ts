import { typedCall, urlOf } from "../../api/client.ts";
import type { ReferralInput } from "../../api/types/families.ts";
import type { ConsentTier, DecisionStatus, DiscloseInput, DuplicateStatus, FacePreviewInput, ProposalFields, ReportProposalView, ReportInput, WithdrawalReason } from "../../api/types/families.ts";

/** The families area's calls, typed with the server's views (web/src/api/types/families.ts). */
const none = {} as never;

export const families = {
  reports: async (after?: string, limit = 50) => await typedCall("familyReports", none, { query: { after, limit } }),
  createReport: async (input: ReportInput) => await typedCall("familyCreateReport", none, { body: input }),
  importCsv: async (csv: string, dryRun: boolean) => await typedCall("familyImportReports", none, { body: { csv, dryRun } }),
  candidates: async (id: string, top = 10) => await typedCall("familyCandidates", { id }, { query: { top } }),
  caseOf: async (id: string) => await typedCall("familyCase", { id }),
  linkMember: async (id: string, userId: string, relationship?: string) =>
    await typedCall("familyLinkMember", { id }, { body: relationship ? { userId, relationship } : { userId } }),
  consent: async (id: string, tier: ConsentTier, given: boolean, note?: string) =>
    await typedCall("familyConsent", { id }, { body: note ? { tier, given, note } : { tier, given } }),
  decide: async (id: string, bodyId: string, status: DecisionStatus, reason: string) =>
    await typedCall("familyDecide", { id }, { body: { bodyId, status, reason } }),
  disclose: async (id: string, input: DiscloseInput) =>
    await typedCall("familyDisclose", { id }, { body: input }),
  facePhotos: async (bodyId: string) => await typedCall("familyFacePhotos", { id: bodyId }),
  previewFace: async (id: string, input: FacePreviewInput) => await typedCall("familyFacePreview", { id }, { body: input }),
  facePreviewImageUrl: (id: string) => urlOf("familyFacePreviewImage", { id }),
  photoBlurredUrl: (sha256: string) => urlOf("rendition", { sha256, kind: "blurred" }),
  disclosureImageUrl: (id: string) => urlOf("familyDisclosureImage", { id }),
  withdraw: async (id: string, reason: WithdrawalReason, note?: string) =>
    await typedCall("familyWithdrawDisclosure", { id }, { body: note ? { reason, note } : { reason } }),
  approve: async (id: string, reason: string, text?: string) => await typedCall("familyApproveRequest", { id }, { body: text ? { reason, text } : { reason } }),
  decline: async (id: string, reason: string) => await typedCall("familyDeclineRequest", { id }, { body: { reason } }),
  flags: async (all: boolean) => await typedCall("familyFlags", none, { query: { all: all ? "true" : undefined } }),
  clearFlag: async (id: string, note: string) => await typedCall("familyClearFlag", { id }, { body: { note } }),
  duplicates: async (status: DuplicateStatus) => await typedCall("familyDuplicates", none, { query: { status } }),
  scanDuplicates: async () => await typedCall("familyScanDuplicates", none),
  acceptDuplicate: async (id: string, survivor: string, reason?: string) =>
    await typedCall("familyAcceptDuplicate", { id }, { body: reason ? { survivor, reason } : { survivor } }),
  proposals: async (status?: ReportProposalView["status"]) => await typedCall("familyProposals", none, { query: { status } }),
  acceptProposal: async (id: string, reason?: string) => await typedCall("familyAcceptProposal", { id }, { body: reason ? { reason } : {} }),
  refuseProposal: async (id: string, reason: string) => await typedCall("familyRefuseProposal", { id }, { body: { reason } }),
  rejectDuplicate: async (id: string, reason?: string) => await typedCall("familyRejectDuplicate", { id }, { body: reason ? { reason } : {} }),
  referrals: async (id: string) => await typedCall("familyReferrals", { id }),
  refer: async (id: string, input: ReferralInput) => await typedCall("familyCreateReferral", { id }, { body: input }),
  updateReferral: async (id: string, input: ReferralInput & { expectedVersion?: number }) => await typedCall("familyUpdateReferral", { id }, { body: input }),
};

export const portal = {
  reports: async () => await typedCall("portalReports", none),
  report: async (id: string) => await typedCall("portalReport", { id }),
  consent: async (id: string, tier: ConsentTier, given: boolean) => await typedCall("portalConsent", { id }, { body: { tier, given } }),
  requestMore: async (id: string, matchId: string, unblurred: boolean, note?: string) =>
    await typedCall("portalRequest", { id }, { body: note ? { matchId, unblurred, note } : { matchId, unblurred } }),
  imageUrl: (id: string) => urlOf("portalImage", { id }),
  vocabulary: async (vocabulary: string) => await typedCall("portalVocabulary", { vocabulary }),
  propose: async (id: string, fields: ProposalFields) => await typedCall("portalPropose", { id }, { body: { fields } }),
};
