import { callJson, urlOf } from "../../api/client.ts";
import type {
  CandidateView,
  CaseView,
  ConsentTier,
  DecisionStatus,
  DecisionView,
  DisclosureView,
  DuplicateStatus,
  DuplicateView,
  FlagView,
  PortalMatch,
  PortalReport,
  PortalSummary,
  ReportImportReport,
  ReportInput,
  ReportView,
  RequestView,
  WithdrawalReason,
} from "../../api/types/families.ts";

/** The families area's calls, typed with the server's views (web/src/api/types/families.ts). */
const none = {} as never;

export const families = {
  reports: async (after?: string, limit = 50) => (await callJson("familyReports", none, { query: { after, limit } })) as ReportView[],
  createReport: async (input: ReportInput) => (await callJson("familyCreateReport", none, { body: input })) as ReportView,
  importCsv: async (csv: string, dryRun: boolean) => (await callJson("familyImportReports", none, { body: { csv, dryRun } })) as ReportImportReport,
  candidates: async (id: string, top = 10) => (await callJson("familyCandidates", { id }, { query: { top } })) as { report: string; candidates: CandidateView[] },
  caseOf: async (id: string) => (await callJson("familyCase", { id })) as CaseView,
  linkMember: async (id: string, userId: string, relationship?: string) =>
    (await callJson("familyLinkMember", { id }, { body: relationship ? { userId, relationship } : { userId } })) as { members: string[] },
  consent: async (id: string, tier: ConsentTier, given: boolean, note?: string) =>
    (await callJson("familyConsent", { id }, { body: note ? { tier, given, note } : { tier, given } })) as ReportView,
  decide: async (id: string, bodyId: string, status: DecisionStatus, reason: string) =>
    (await callJson("familyDecide", { id }, { body: { bodyId, status, reason } })) as DecisionView,
  disclose: async (id: string, input: { bodyId: string; stage: "text" | "blurred_face"; text: string; consentNote: string; reason: string }) =>
    (await callJson("familyDisclose", { id }, { body: input })) as DisclosureView,
  disclosureImageUrl: (id: string) => urlOf("familyDisclosureImage", { id }),
  facePreviewUrl: (id: string, bodyId: string) => `${urlOf("familyFacePreview", { id })}?bodyId=${encodeURIComponent(bodyId)}`,
  withdraw: async (id: string, reason: WithdrawalReason, note?: string) =>
    (await callJson("familyWithdrawDisclosure", { id }, { body: note ? { reason, note } : { reason } })) as DisclosureView[],
  approve: async (id: string, reason: string, text?: string) => (await callJson("familyApproveRequest", { id }, { body: text ? { reason, text } : { reason } })) as DisclosureView[],
  decline: async (id: string, reason: string) => (await callJson("familyDeclineRequest", { id }, { body: { reason } })) as RequestView,
  flags: async (all: boolean) => (await callJson("familyFlags", none, { query: { all: all ? "true" : undefined } })) as FlagView[],
  clearFlag: async (id: string, note: string) => (await callJson("familyClearFlag", { id }, { body: { note } })) as FlagView,
  duplicates: async (status: DuplicateStatus) => (await callJson("familyDuplicates", none, { query: { status } })) as DuplicateView[],
  scanDuplicates: async () => (await callJson("familyScanDuplicates", none)) as { proposed: number; proposals: DuplicateView[] },
  acceptDuplicate: async (id: string, survivor: string, reason?: string) =>
    (await callJson("familyAcceptDuplicate", { id }, { body: reason ? { survivor, reason } : { survivor } })) as { survivor: ReportView; merged: ReportView },
  rejectDuplicate: async (id: string, reason?: string) => (await callJson("familyRejectDuplicate", { id }, { body: reason ? { reason } : {} })) as DuplicateView,
};

export const portal = {
  reports: async () => (await callJson("portalReports", none)) as PortalSummary[],
  report: async (id: string) => (await callJson("portalReport", { id })) as PortalReport,
  consent: async (id: string, tier: ConsentTier, given: boolean) => (await callJson("portalConsent", { id }, { body: { tier, given } })) as PortalReport["report"],
  requestMore: async (id: string, matchId: string, unblurred: boolean, note?: string) =>
    (await callJson("portalRequest", { id }, { body: note ? { matchId, unblurred, note } : { matchId, unblurred } })) as PortalMatch["requests"][number],
  imageUrl: (id: string) => urlOf("portalImage", { id }),
};
