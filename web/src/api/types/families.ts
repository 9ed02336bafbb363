import type { z } from "zod";
import type * as server from "../../../../src/families/contracts.ts";
/** The families area's views, as the server sends them (src/families/{reports,matching,disclosure,duplicates,portal}.ts). */
/** The server's lists (src/families/contracts.ts), as values the screens loop over; the types are the server's. */
export type ConsentTier = z.infer<typeof server.ConsentTierName>;
export const CONSENT_TIERS = ["dataSharing", "recontact", "viewingPhotos", "dnaReferral", "publicDisplay"] as const satisfies readonly ConsentTier[];
export type Consent = Partial<Record<ConsentTier, { given: boolean; at: string; by: string }>>;
export type BranchCertainty = z.infer<typeof server.BranchCertaintyName>;
export const BRANCH_CERTAINTIES = ["certain", "probable", "rumoured"] as const satisfies readonly BranchCertainty[];
export type DecisionStatus = z.infer<typeof server.DecisionStatusName>;
export const DECISION_STATUSES = ["presumptive", "probable", "confirmed", "excluded"] as const satisfies readonly DecisionStatus[];
export type Stage = "text" | "blurred_face" | "more";
export type Band = server.Band;

export interface Mark {
  type: string;
  region: string | null;
  description: string;
}

export type NameSlots = server.NameSlots;

export interface Sighting {
  place: string;
  when?: string;
  witness?: string;
}

/** A new report's fields as the web app sends them (the archive gives the reference). */
export type ReportInput = Omit<z.input<typeof server.NewReportInput>, "ref">;
/** What a family adds or corrects from the portal: the report's fields but its consent. */
export type ProposalFields = z.input<typeof server.ProposeChangeInput>["fields"];
export type DiscloseInput = Omit<z.input<typeof server.DiscloseInput>, "report">;
export type FacePreviewInput = Omit<z.input<typeof server.PreviewFaceInput>, "report">;

export type ReportView = server.ReportView;

export type ReportImportReport = server.ReportImportReport;

export type Evidence = server.FamiliesEvidence;

export type MarkPart = server.MarkPart;

export type CandidateView = server.CandidateView;

export type DecisionView = server.DecisionView;

export type DisclosureView = server.DisclosureView;

export type FacePhoto = server.FacePhoto;

export type ReportProposalView = server.ReportProposalView;

export type PortalProposal = server.PortalProposal;

export type FacePreviewView = server.FacePreviewView;

export type FaceRegion = FacePreviewView["region"];

export type RequestView = server.RequestView;

export type WithdrawalReason = z.infer<typeof server.WithdrawalReasonName>;
export const WITHDRAWAL_REASONS = ["sentInError", "wrongRecipient", "decisionChanged", "familyAsked", "other"] as const satisfies readonly WithdrawalReason[];

export type FlagView = server.FlagView;

export type CaseView = server.CaseView;

export type DuplicateStatus = "proposed" | "accepted" | "rejected" | "superseded";
export interface DuplicateSide {
  id: string;
  ref: string;
  nameAr: string | null;
  nameLat: string | null;
}
export type DuplicateView = server.DuplicateView;

export type PortalSummary = server.GetPortalReportsAnswer[number];

export type PortalMatch = server.PortalMatch;

export type PortalReport = server.PortalReport;

export type PortalWithdrawal = server.PortalWithdrawal;

export type ReferralView = server.ReferralView;
export type ReferralVersion = server.ReferralVersion;
export type ReferralStatus = z.infer<typeof server.ReferralStatusName>;
export type ReferralResult = z.infer<typeof server.ReferralResultName>;
export const REFERRAL_STATUSES = ["requested", "sample_taken", "sent", "result"] as const satisfies readonly ReferralStatus[];
export const REFERRAL_RESULTS = ["match", "exclusion", "inconclusive"] as const satisfies readonly ReferralResult[];
/** A new referral's fields, or a change's (the report and the referral come from the path). */
export type ReferralInput = Omit<z.input<typeof server.NewReferralInput>, "report">;
