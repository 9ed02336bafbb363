import type { Readable } from "node:stream";
import type { FastifyReply } from "fastify";
import { z } from "zod";
import { bytes, route, usecase, withPath, type RouteSpec } from "../http/route-spec.ts";
import { createReport, getReport, importReportsCsv, listReports, updateReport } from "./reports.ts";
import { listCandidates } from "./matching.ts";
import { acceptDuplicate, listDuplicates, proposeDuplicates, rejectDuplicate } from "./duplicates.ts";
import { approveRequest, caseOf, clearFlag, declineRequest, decide, disclose, disclosureImage, listFlags, recordConsent } from "./disclosure.ts";
import { endMember, linkMember } from "./members.ts";
import { withdrawDisclosure } from "./withdrawal.ts";
import { facePhotos, facePreviewImage, previewFace } from "./face-preview.ts";
import { portalConsent, portalImage, portalReport, portalReports, portalVocabulary, proposeChange, requestMore } from "./portal.ts";
import { acceptReportProposal, listReportProposals, refuseReportProposal } from "./proposals.ts";
import { createReferral, listReferrals, updateReferral } from "./referrals.ts";
import * as contracts from "./contracts.ts";
import { Term } from "../catalogue/contracts.ts";

/**
 * Families over HTTP: thin shells over the use cases, which ask the policy themselves and parse their own input
 * (the `usecase(...)` bodies: schemas in contracts.ts, decision 0021). Types named here are exported by the
 * modules in brackets. Errors: { error, message, field? } with 400/401/403/404/409/422.
 *
 * Caseworkers (roles admin, family_caseworker; a family member may use the report routes on their own report):
 *   GET  /api/families/reports?after=REF&limit=N         → ReportView[]                              [reports.ts]
 *   POST /api/families/reports            NewReportInput → ReportView (a family member files their own)
 *   GET  /api/families/reports/:id        (id or ref)    → ReportView
 *   PUT  /api/families/reports/:id        EditReportInput (the fields and expectedVersion?) → ReportView
 *   POST /api/families/reports/import     { csv, dryRun? } → ReportImportReport
 *   GET  /api/families/reports/:id/candidates?top=K      → { report: ref, candidates: CandidateView[] } [matching.ts]
 *   GET  /api/families/reports/:id/case                  → CaseView { report, members, decisions (current per body,
 *                                                           with history), disclosures, requests, flags } [disclosure.ts]
 *   POST /api/families/reports/:id/members { userId, relationship? } → { reportId, userId, members }  [members.ts]
 *   POST /api/families/reports/:id/members/:userId/end   → { reportId, userId, members }
 *   POST /api/families/reports/:id/consent { tier, given, note? } → ReportView
 *   POST /api/families/reports/:id/decisions { bodyId (id or ref), status, reason } → DecisionView (confirmed identifies the
 *                                                body in the catalogue; a second identification of either is 409)
 *   POST /api/families/reports/:id/disclosures { bodyId, stage: text|blurred_face, text, consentNote, reason,
 *                                                recipientId?, preview? (stage 2: a face preview the caseworker made) } → DisclosureView
 *   GET  /api/families/bodies/:id/face-photos            → FacePhoto[] (the photos marked as showing the face; none: no stage 2) [face-preview.ts]
 *   POST /api/families/reports/:id/face-previews { bodyId, photo, region: { cx, cy, size } } → FacePreviewView (a blurred
 *                                                crop made now, stored, recorded with who saw it; stage 2 sends only such a crop)
 *   GET  /api/families/face-previews/:id/image           → image/jpeg (that crop)
 *   GET  /api/families/disclosures/:id/image             → image/jpeg (what the family was shown)
 *   POST /api/families/disclosures/:id/withdraw { reason: sentInError|wrongRecipient|decisionChanged|familyAsked|other,
 *                                                 note? } → DisclosureView[] (this one and the later ones of the match) [withdrawal.ts]
 *   POST /api/families/requests/:id/approve { reason, photos?, text? } → DisclosureView[] (stage "more")
 *   POST /api/families/requests/:id/decline { reason }   → RequestView
 *   GET  /api/families/flags?all=true                    → FlagView[] (reopened cases, view requests)
 *   POST /api/families/flags/:id/clear { note }          → FlagView
 *   GET  /api/families/reports/:id/referrals             → ReferralView[] (DNA / ante-mortem referrals with history) [referrals.ts]
 *   POST /api/families/reports/:id/referrals NewReferralInput { bodyId?, status?, sampleFrom?, sampleTakenOn?, lab?, labRef?,
 *                                                result?, resultOn?, note? } → ReferralView (only with the family's dnaReferral consent)
 *   PUT  /api/families/referrals/:id UpdateReferralInput (the fields and expectedVersion?) → ReferralView (a new version)
 *   GET  /api/families/duplicates?status=proposed|accepted|rejected|superseded → DuplicateView[] [duplicates.ts]
 *   POST /api/families/duplicates/scan                   → { proposed, proposals: DuplicateView[] }
 *   POST /api/families/duplicates/:id/accept { survivor?, reason? } → { survivor: ReportView, merged: ReportView }
 *   POST /api/families/duplicates/:id/reject { reason? } → DuplicateView
 *   GET  /api/families/proposals?status=proposed|accepted|refused&report= → ReportProposalView[] (what families filed or
 *                                                added, waiting for a caseworker; a report's whole history with report=) [proposals.ts]
 *   POST /api/families/proposals/:id/accept { reason? }  → ReportProposalView (a new report opens and is ranked; a change is applied)
 *   POST /api/families/proposals/:id/refuse { reason }   → ReportProposalView (the family reads the reason; a new report is closed)
 *
 * Family members (role family_member; anything not theirs is 404):
 *   GET  /api/portal/reports                             → [{ id, ref, nameAr, nameLat, status, mergedInto, matches }]
 *   GET  /api/portal/reports/:id                         → PortalReport { report, mergedInto, matches: PortalMatch[],
 *                                                           withdrawn: PortalWithdrawal[] } [portal.ts]
 *   POST /api/portal/reports/:id/consent { tier, given } → PortalReport["report"]
 *   POST /api/portal/reports/:id/requests { matchId, unblurred, note? } → { id, unblurred, note, status, createdAt }
 *   POST /api/portal/reports/:id/proposals { fields } (ProposeChangeInput) → PortalProposal (something to add or correct,
 *                                                for a caseworker to accept or refuse)
 *   GET  /api/portal/images/:id                          → image/jpeg (an image disclosed to this member)
 *   GET  /api/portal/vocabularies/:vocabulary            → Term[] (mark_type, body_region, governorate: what the forms offer)
 */
const Id = z.object({ id: z.string().min(1).max(80) });
/** A family image: never cached by a browser or proxy (consent can be withdrawn, a tie ended). */
function sendImage(reply: FastifyReply, r: { stream: Readable; size: number; mime: string }): FastifyReply {
  reply.header("content-type", r.mime).header("content-length", String(r.size)).header("cache-control", "private, no-store");
  return reply.send(r.stream);
}

export const FAMILIES_ROUTES: readonly RouteSpec[] = [
  route({
    method: "GET",
    url: "/api/families/reports",
    action: "report.read",
    query: z.object({ after: z.string().max(60).optional(), limit: z.coerce.number().int().min(1).max(1000).optional() }).strict(),
    summary: "missing-person reports in ref order (a family member: their own); a recorded read",
    response: contracts.GetFamiliesReportsAnswer,
    handler: (_req, ctx, actor, { query: q }) => listReports(ctx, actor, q),
  }),
  route({
    method: "POST",
    url: "/api/families/reports",
    action: "report.file",
    summary: "enter a missing-person report (a family member files their own and becomes its filer)",
    body: usecase(contracts.NewReportInput),
    response: contracts.ReportView,
    handler: (req, ctx, actor, { body }) => createReport(ctx, actor, body),
  }),
  route({
    method: "POST",
    url: "/api/families/reports/import",
    action: "report.import",
    summary: "import reports from CSV text (all or nothing; every rejected row reported)",
    bodyLimit: 21 * 1024 * 1024,
    body: usecase(contracts.ImportReportsInput),
    response: contracts.ReportImportReport,
    handler: (req, ctx, actor, { body }) => importReportsCsv(ctx, actor, body),
  }),
  route({
    method: "GET",
    url: "/api/families/reports/:id",
    action: "report.read",
    summary: "one report by id or ref (a recorded read)",
    params: Id,
    response: contracts.ReportView,
    handler: (req, ctx, actor, { params }) => getReport(ctx, actor, params.id),
  }),
  route({
    method: "PUT",
    url: "/api/families/reports/:id",
    action: "report.edit",
    summary: "change a report (fields given replace the stored ones; expectedVersion guards against a concurrent edit)",
    params: Id,
    body: usecase(contracts.EditReportInput, "id"),
    response: contracts.ReportView,
    handler: (req, ctx, actor, { params, body }) => updateReport(ctx, actor, withPath(body, { id: params.id })),
  }),
  route({
    method: "GET",
    url: "/api/families/reports/:id/candidates",
    action: "family.candidates",
    query: z.object({ top: z.coerce.number().int().min(1).max(50).optional() }).strict(),
    summary: "a report's ranked candidate bodies with score, band and evidence in words",
    params: Id,
    response: contracts.GetFamiliesReportsByIdCandidatesAnswer,
    handler: (req, ctx, actor, { query: q, params }) => listCandidates(ctx, actor, params.id, q),
  }),
  route({
    method: "GET",
    url: "/api/families/reports/:id/case",
    action: "disclosure.make",
    summary: "a report's casework: tied family members, decisions with history, disclosures, requests, flags",
    params: Id,
    response: contracts.CaseView,
    handler: (req, ctx, actor, { params }) => caseOf(ctx, actor, params.id),
  }),
  route({
    method: "POST",
    url: "/api/families/reports/:id/members",
    action: "disclosure.make",
    summary: "tie a family member's account to a report",
    params: Id,
    body: usecase(contracts.LinkMemberInput, "report"),
    response: contracts.PostFamiliesReportsByIdMembersAnswer,
    handler: (req, ctx, actor, { params, body }) => linkMember(ctx, actor, withPath(body, { report: params.id })),
  }),
  route({
    method: "POST",
    url: "/api/families/reports/:id/members/:userId/end",
    action: "disclosure.make",
    summary: "end a family member's tie to a report",
    params: z.object({ id: z.string().min(1).max(80), userId: z.string().min(1).max(80) }),
    response: contracts.PostFamiliesReportsByIdMembersByUserIdEndAnswer,
    handler: (req, ctx, actor, { params }) => endMember(ctx, actor, { report: params.id, userId: params.userId }),
  }),
  route({
    method: "POST",
    url: "/api/families/reports/:id/consent",
    action: "disclosure.make",
    summary: "record the family's consent to one tier, given or withdrawn, with how it was given",
    params: Id,
    body: usecase(contracts.RecordConsentInput, "report"),
    response: contracts.ReportView,
    handler: (req, ctx, actor, { params, body }) => recordConsent(ctx, actor, withPath(body, { report: params.id })),
  }),
  route({
    method: "POST",
    url: "/api/families/reports/:id/decisions",
    action: "disclosure.make",
    summary: "decide what a candidate body is to the report: presumptive, probable, confirmed or excluded, and why",
    params: Id,
    body: usecase(contracts.DecideInput, "report"),
    response: contracts.DecisionView,
    handler: (req, ctx, actor, { params, body }) => decide(ctx, actor, withPath(body, { report: params.id })),
  }),
  route({
    method: "POST",
    url: "/api/families/reports/:id/disclosures",
    action: "disclosure.make",
    summary: "disclose stage 1 (text) or stage 2 (a blurred face crop) of a decided candidate to a family member",
    params: Id,
    body: usecase(contracts.DiscloseInput, "report"),
    response: contracts.DisclosureView,
    handler: (req, ctx, actor, { params, body }) => disclose(ctx, actor, withPath(body, { report: params.id })),
  }),
  route({
    method: "GET",
    url: "/api/families/disclosures/:id/image",
    action: "disclosure.make",
    summary: "the image a disclosure showed the family, as they see it (JPEG)",
    params: Id,
    response: bytes("application/octet-stream"),
    handler: async (req, ctx, actor, { params }, reply) => sendImage(reply, await disclosureImage(ctx, actor, params.id)),
  }),
  route({
    method: "GET",
    url: "/api/families/bodies/:id/face-photos",
    action: "disclosure.make",
    summary: "a body's photos marked as showing the face, from which stage 2's crop is chosen (none: stage 2 is not offered)",
    params: Id,
    response: z.array(contracts.FacePhoto),
    handler: (req, ctx, actor, { params }) => facePhotos(ctx, actor, { bodyId: params.id }),
  }),
  route({
    method: "POST",
    url: "/api/families/reports/:id/face-previews",
    action: "disclosure.make",
    summary: "make the blurred face crop of a chosen photo and square for the caseworker to look at; stage 2 sends only such a crop",
    params: Id,
    body: usecase(contracts.PreviewFaceInput, "report"),
    response: contracts.FacePreviewView,
    handler: (req, ctx, actor, { params, body }) => previewFace(ctx, actor, withPath(body, { report: params.id })),
  }),
  route({
    method: "GET",
    url: "/api/families/face-previews/:id/image",
    action: "disclosure.make",
    summary: "a face preview's blurred crop, exactly the bytes stage 2 would send (JPEG)",
    params: Id,
    response: bytes("image/jpeg"),
    handler: async (req, ctx, actor, { params }, reply) => {
      const img = await facePreviewImage(ctx, actor, params.id);
      return reply.header("content-type", img.mime).header("content-length", String(img.bytes.length)).header("etag", `"${img.sha256}"`).header("cache-control", "private, no-store").send(img.bytes);
    },
  }),
  route({
    method: "POST",
    url: "/api/families/disclosures/:id/withdraw",
    action: "disclosure.make",
    summary: "withdraw a disclosure (and the later ones of the same match to that family member), with the reason the family will read",
    params: Id,
    body: usecase(contracts.WithdrawDisclosureInput, "id"),
    response: z.array(contracts.DisclosureView),
    handler: (req, ctx, actor, { params, body }) => withdrawDisclosure(ctx, actor, withPath(body, { id: params.id })),
  }),
  route({
    method: "POST",
    url: "/api/families/requests/:id/approve",
    action: "disclosure.make",
    summary: "approve a family's request to see more (stage 3): the photos chosen, blurred unless they asked otherwise",
    params: Id,
    body: usecase(contracts.ApproveRequestInput, "id"),
    response: contracts.PostFamiliesRequestsByIdApproveAnswer,
    handler: (req, ctx, actor, { params, body }) => approveRequest(ctx, actor, withPath(body, { id: params.id })),
  }),
  route({
    method: "POST",
    url: "/api/families/requests/:id/decline",
    action: "disclosure.make",
    summary: "decline a family's request to see more, with the reason",
    params: Id,
    body: usecase(contracts.DeclineRequestInput, "id"),
    response: contracts.RequestView,
    handler: (req, ctx, actor, { params, body }) => declineRequest(ctx, actor, withPath(body, { id: params.id })),
  }),
  route({
    method: "GET",
    url: "/api/families/flags",
    action: "disclosure.make",
    query: z.object({ all: z.enum(["true", "false"]).optional() }).strict(),
    summary: "the caseworker's flags: reopened cases and families' requests (open ones unless all=true)",
    response: contracts.GetFamiliesFlagsAnswer,
    handler: (_req, ctx, actor, { query: q }) => listFlags(ctx, actor, { all: q.all === "true" }),
  }),
  route({
    method: "GET",
    url: "/api/families/reports/:id/referrals",
    action: "dna.refer",
    summary: "a report's DNA / ante-mortem referrals, each as it stands with its history",
    params: Id,
    response: contracts.GetFamiliesReportsByIdReferralsAnswer,
    handler: (req, ctx, actor, { params }) => listReferrals(ctx, actor, params.id),
  }),
  route({
    method: "POST",
    url: "/api/families/reports/:id/referrals",
    action: "dna.refer",
    summary: "record a DNA / ante-mortem referral for the report (only with the family's dnaReferral consent)",
    params: Id,
    body: usecase(contracts.NewReferralInput, "report"),
    response: contracts.ReferralView,
    handler: (req, ctx, actor, { params, body }) => createReferral(ctx, actor, withPath(body, { report: params.id })),
  }),
  route({
    method: "PUT",
    url: "/api/families/referrals/:id",
    action: "dna.refer",
    summary: "change a referral: its status, sample, laboratory, result (a new version; the earlier ones stay)",
    params: Id,
    body: usecase(contracts.UpdateReferralInput, "id"),
    response: contracts.ReferralView,
    handler: (req, ctx, actor, { params, body }) => updateReferral(ctx, actor, withPath(body, { id: params.id })),
  }),
  route({
    method: "POST",
    url: "/api/families/flags/:id/clear",
    action: "disclosure.make",
    summary: "clear a flag with a note of what was done",
    params: Id,
    body: usecase(contracts.ClearFlagInput, "id"),
    response: contracts.FlagView,
    handler: (req, ctx, actor, { params, body }) => clearFlag(ctx, actor, withPath(body, { id: params.id })),
  }),
  route({
    method: "GET",
    url: "/api/families/duplicates",
    action: "family.match",
    query: z.object({ status: z.enum(["proposed", "accepted", "rejected", "superseded"]).optional() }).strict(),
    summary: "duplicate-report proposals, best first (a recorded read)",
    response: contracts.GetFamiliesDuplicatesAnswer,
    handler: (_req, ctx, actor, { query: q }) => listDuplicates(ctx, actor, q),
  }),
  route({
    method: "POST",
    url: "/api/families/duplicates/scan",
    action: "family.match",
    summary: "look for new pairs of reports that are likely the same person and propose them",
    response: contracts.PostFamiliesDuplicatesScanAnswer,
    handler: (_req, ctx, actor) => proposeDuplicates(ctx, actor),
  }),
  route({
    method: "POST",
    url: "/api/families/duplicates/:id/accept",
    action: "report.edit",
    summary: "merge a proposed pair: the survivor keeps both reporters and all data; the other points to it",
    params: Id,
    body: usecase(contracts.AcceptDuplicateInput, "id"),
    response: contracts.PostFamiliesDuplicatesByIdAcceptAnswer,
    handler: (req, ctx, actor, { params, body }) => acceptDuplicate(ctx, actor, withPath(body, { id: params.id })),
  }),
  route({
    method: "POST",
    url: "/api/families/duplicates/:id/reject",
    action: "report.edit",
    summary: "reject a proposed pair: it is never proposed again",
    params: Id,
    body: usecase(contracts.RejectDuplicateInput, "id"),
    response: contracts.DuplicateView,
    handler: (req, ctx, actor, { params, body }) => rejectDuplicate(ctx, actor, withPath(body, { id: params.id })),
  }),

  // --- the family members' portal ---------------------------------------------------------------------------
  route({
    method: "GET",
    url: "/api/portal/reports",
    action: "disclosure.read",
    summary: "the family member's own reports, with how many matches were disclosed to them",
    response: contracts.GetPortalReportsAnswer,
    handler: (_req, ctx, actor) => portalReports(ctx, actor),
  }),
  route({
    method: "GET",
    url: "/api/portal/reports/:id",
    action: "disclosure.read",
    summary: "one of the family member's reports and what was disclosed to them, stage by stage",
    params: Id,
    response: contracts.PortalReport,
    handler: (req, ctx, actor, { params }) => portalReport(ctx, actor, params.id),
  }),
  route({
    method: "POST",
    url: "/api/portal/reports/:id/consent",
    action: "disclosure.read",
    summary: "give or withdraw one tier of consent on one's own report",
    params: Id,
    body: usecase(contracts.PortalConsentInput, "report"),
    response: contracts.PostPortalReportsByIdConsentAnswer,
    handler: (req, ctx, actor, { params, body }) => portalConsent(ctx, actor, withPath(body, { report: params.id })),
  }),
  route({
    method: "GET",
    url: "/api/families/proposals",
    action: "family.match",
    summary: "what families filed or added from the portal, waiting for a caseworker (or a report's whole history)",
    query: z.object({ status: z.enum(["proposed", "accepted", "refused"]).optional(), report: z.string().min(1).max(80).optional() }).strict(),
    response: z.array(contracts.ReportProposalView),
    handler: (req, ctx, actor, { query }) => listReportProposals(ctx, actor, query),
  }),
  route({
    method: "POST",
    url: "/api/families/proposals/:id/accept",
    action: "family.match",
    summary: "accept a family's proposal: a new report opens and is ranked; a change is applied to the report",
    params: Id,
    body: usecase(contracts.AcceptProposalInput, "id"),
    response: contracts.ReportProposalView,
    handler: (req, ctx, actor, { params, body }) => acceptReportProposal(ctx, actor, withPath(body, { id: params.id })),
  }),
  route({
    method: "POST",
    url: "/api/families/proposals/:id/refuse",
    action: "family.match",
    summary: "refuse a family's proposal with a reason they read (a new report is closed, never matched)",
    params: Id,
    body: usecase(contracts.RefuseProposalInput, "id"),
    response: contracts.ReportProposalView,
    handler: (req, ctx, actor, { params, body }) => refuseReportProposal(ctx, actor, withPath(body, { id: params.id })),
  }),
  route({
    method: "GET",
    url: "/api/portal/vocabularies/:vocabulary",
    action: "disclosure.read",
    summary: "the terms a family's forms offer (kinds of mark, places on the body, governorates), in both languages",
    params: contracts.PortalVocabularyInput,
    response: z.array(Term),
    handler: (req, ctx, actor, { params }) => portalVocabulary(ctx, actor, params),
  }),
  route({
    method: "POST",
    url: "/api/portal/reports/:id/proposals",
    action: "disclosure.read",
    summary: "the family adds or corrects something about the missing person; a caseworker accepts or refuses it",
    params: Id,
    body: usecase(contracts.ProposeChangeInput, "report"),
    response: contracts.PortalProposal,
    handler: (req, ctx, actor, { params, body }) => proposeChange(ctx, actor, withPath(body, { report: params.id })),
  }),
  route({
    method: "POST",
    url: "/api/portal/reports/:id/requests",
    action: "disclosure.read",
    summary: "ask the caseworker to see more of a match (blurred, or unblurred if asked)",
    params: Id,
    body: usecase(contracts.RequestMoreInput, "report"),
    response: contracts.PostPortalReportsByIdRequestsAnswer,
    handler: (req, ctx, actor, { params, body }) => requestMore(ctx, actor, withPath(body, { report: params.id })),
  }),
  route({
    method: "GET",
    url: "/api/portal/images/:id",
    action: "disclosure.read",
    summary: "an image disclosed to this family member (JPEG), while their consent to view photos stands",
    params: Id,
    response: bytes("application/octet-stream"),
    handler: async (req, ctx, actor, { params }, reply) => sendImage(reply, await portalImage(ctx, actor, params.id)),
  }),
];
