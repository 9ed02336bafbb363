/**
 * The families module: missing-person reports, candidates ranked by a transparent score, disclosures. Other
 * modules and the shells use only what is exported here.
 */
export {
  createReport,
  getReport,
  listReports,
  updateReport,
  setConsent,
  importReportsCsv,
  parseBirthDate,
  CONSENT_TIERS,
  BRANCH_CERTAINTIES,
  REPORT_CSV_COLUMNS,
  type ReportInput,
  type ReportView,
  type Consent,
  type ConsentTier,
  type BranchCertainty,
  type ReportImportReport,
} from "./reports.ts";
export { rerank, matchAll, listCandidates, bodyFeatures, reportFeatures, type CandidateView, type MatchLine, type RerankResult } from "./matching.ts";
export { scoreBody, rankBodies, BANDS, bandOf, type Band, type Evidence, type Scored, type BodyFeatures, type ReportFeatures, type DnaFinding } from "./scoring.ts";
export { proposeDuplicates, listDuplicates, acceptDuplicate, rejectDuplicate, DUPLICATE_THRESHOLD, type DuplicateView } from "./duplicates.ts";
export {
  decide,
  disclose,
  approveRequest,
  declineRequest,
  recordConsent,
  listFlags,
  clearFlag,
  caseOf,
  disclosureImage,
  DECISION_STATUSES,
  STAGES,
  type DecisionStatus,
  type Stage,
  type DecisionView,
  type DisclosureView,
  type RequestView,
  type FlagView,
  type CaseView,
} from "./disclosure.ts";
export { linkMember, endMember } from "./members.ts";
export { previewFace, facePhotos, facePreviewImage, type FacePreviewView, type FacePhoto } from "./face-preview.ts";
export { withdrawDisclosure, WITHDRAWAL_REASONS, type WithdrawalReason, type WithdrawDisclosure } from "./withdrawal.ts";
export { portalReports, portalReport, portalConsent, requestMore, portalImage, proposeChange, type PortalReport, type PortalMatch, type PortalWithdrawal } from "./portal.ts";
export { listReportProposals, acceptReportProposal, refuseReportProposal, PROPOSABLE, type ReportProposalView } from "./proposals.ts";
export { createReferral, updateReferral, listReferrals, REFERRAL_STATUSES, REFERRAL_RESULTS, type ReferralView, type ReferralStatus, type ReferralResult } from "./referrals.ts";
export { rerankIfBodiesChanged, type WatchResult } from "./watch.ts";
export { publicDisplayConsents } from "./public-display.ts";
export { registerFamiliesJobs } from "./jobs.ts";
export { JOB_RERANK, JOB_WATCH_BODIES, enqueueRerank } from "./rerank-requests.ts";
