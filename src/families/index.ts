/**
 * The families module: missing-person reports, candidates ranked by a transparent score, disclosures. Other
 * modules and the shells use only what is exported here (names.ts is used directly by `dalil names`).
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
export { rerank, matchAll, listCandidates, registerFamiliesJobs, bodyFeatures, reportFeatures, JOB_RERANK, type CandidateView, type MatchLine, type RerankResult } from "./matching.ts";
export { scoreBody, rankBodies, BANDS, type Band, type Evidence, type Scored, type BodyFeatures, type ReportFeatures } from "./scoring.ts";
