import type { Readable } from "node:stream";
import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { Conflict, Forbidden, NotFound } from "../core/errors.ts";
import { say } from "../core/messages.ts";
import { newId } from "../core/ids.ts";
import type { Tx } from "../db/database.ts";
import { custody } from "../ledger/index.ts";
import { recordPersonalDataRead } from "../access/index.ts";
import { toReportView, type Consent } from "./reports.ts";
import { cwdb, type CaseDisclosuresTable, type CaseReportsTable } from "./casework-tables.ts";
import { homeReport, loadCaseReport, reportsOfUser, tiedUsers } from "./members.ts";
import { consents, raiseFlag, recordConsentInTx, requestView, type DecisionStatus, type Stage } from "./disclosure.ts";
import { checkedChange, recordProposalInTx } from "./proposals.ts";
import { Vocabularies, type Term } from "../catalogue/index.ts";
import * as contracts from "./contracts.ts";
import { parseInput } from "../core/input.ts";
import type { z } from "zod";

/**
 * The family member's portal. A family member sees the reports they are tied to (filed, or tied by a
 * caseworker) and, of the casework, only what was disclosed to them: never a candidate, a score, a body's
 * reference, another family's report, or an image they were not given. Everything they are not allowed is
 * "not found", so a guessed id tells them nothing. Images are served only while their consent to view photos
 * stands; an unblurred one exists only if they asked for it and a caseworker approved.
 */

/** What a family is shown about one possible match: named by the first disclosure's id, never the body's. */
export type PortalMatch = contracts.PortalMatch;

export type PortalReport = contracts.PortalReport;

export type PortalWithdrawal = contracts.PortalWithdrawal;

function familyOnly(ctx: Ctx, actor: Actor): void {
  if (!ctx.policy.stands(actor, "family.portal")) throw new Forbidden(say("families.portalOnly"));
}

const STAGE_ORDER: Record<string, number> = { text: 1, blurred_face: 2, more: 3 };

/**
 * The report, if the actor is tied to it ("not found" otherwise, whatever exists), with the actor's family's own
 * report among those merged into it (`home`: the report itself unless another family's report survived a merge).
 */
async function ownReport(tx: Tx, actor: Actor, idOrRef: string): Promise<{ r: CaseReportsTable; home: CaseReportsTable }> {
  const r = await loadCaseReport(tx, idOrRef).catch(() => null);
  if (!r || !(await tiedUsers(tx, r)).includes(actor.id)) throw new NotFound(say("record.notFound", { kind: "report" }));
  return { r, home: await homeReport(tx, r, actor.id) };
}

/** Consent as a family sees it: whether each tier is given and since when; not who recorded it or their note. */
function consentShown(c: Consent): Consent {
  return Object.fromEntries(Object.entries(c).map(([tier, v]) => [tier, { given: v.given, at: v.at }])) as Consent;
}

/**
 * The report as this family may see it: the missing person as the case knows them, and of the reporter only the
 * family's own: their name, relationship, contact and consent come from their own report (`home`), never from
 * another family's report that was merged with theirs.
 */
function publicView(r: CaseReportsTable, home: CaseReportsTable): PortalReport["report"] {
  const { caseworkerId, filedBy, ...rest } = toReportView(r);
  void caseworkerId;
  void filedBy;
  const own = toReportView(home);
  return { ...rest, reporterName: own.reporterName, reporterRelationship: own.reporterRelationship, reporterContact: own.reporterContact, consent: consentShown(own.consent) };
}

async function matchesFor(tx: Tx, actor: Actor, r: CaseReportsTable, home: CaseReportsTable): Promise<PortalMatch[]> {
  const rows = await cwdb(tx)
    .selectFrom("family_disclosures")
    .selectAll()
    .where("report_id", "=", r.id)
    .where("recipient_id", "=", actor.id)
    .where("withdrawn_at", "is", null)
    .orderBy("created_at")
    .orderBy("id")
    .execute();
  const byBody = new Map<string, CaseDisclosuresTable[]>();
  for (const d of rows) byBody.set(d.body_id, [...(byBody.get(d.body_id) ?? []), d]);
  const requests = await cwdb(tx).selectFrom("family_view_requests").selectAll().where("report_id", "=", r.id).where("requested_by", "=", actor.id).orderBy("created_at").execute();
  // the family's own consent governs what they are shown, whoever else's report this one absorbed
  const photosOk = consents(home, "viewingPhotos");
  return [...byBody.entries()].map(([body, ds]) => {
    const stage = ds.reduce((s, d) => (STAGE_ORDER[d.stage]! > STAGE_ORDER[s]! ? (d.stage as Stage) : s), "text" as Stage);
    const mine = requests.filter((q) => q.body_id === body).map(requestView);
    return {
      matchId: ds[0]!.id,
      status: ds[ds.length - 1]!.status as DecisionStatus,
      stage,
      messages: ds.filter((d) => d.text).map((d) => ({ at: d.created_at, stage: d.stage as Stage, text: d.text })),
      // images are listed only while the consent to view photos stands
      images: photosOk ? ds.filter((d) => d.image_sha256).map((d) => ({ id: d.id, stage: d.stage as Stage, blurred: d.blurred === 1, at: d.created_at })) : [],
      requests: mine.map((q) => ({ id: q.id, unblurred: q.unblurred, note: q.note, status: q.status, createdAt: q.createdAt })),
      mayRequestMore: photosOk && STAGE_ORDER[stage]! >= 2 && !mine.some((q) => q.status === "requested") && ds[ds.length - 1]!.status !== "excluded",
    };
  });
}

async function withdrawnFor(tx: Tx, actor: Actor, r: CaseReportsTable): Promise<PortalWithdrawal[]> {
  const rows = await cwdb(tx)
    .selectFrom("family_disclosures")
    .select(["stage", "created_at", "withdrawn_at", "withdraw_reason", "withdraw_note"])
    .where("report_id", "=", r.id)
    .where("recipient_id", "=", actor.id)
    .where("withdrawn_at", "is not", null)
    .orderBy("withdrawn_at", "desc")
    .orderBy("created_at", "desc")
    .execute();
  return rows.map((d) => ({ stage: d.stage as Stage, sharedAt: d.created_at, withdrawnAt: d.withdrawn_at!, reason: d.withdraw_reason ?? "other", note: d.withdraw_note }));
}

/** The family member's own reports (a recorded read of their own data). */
export async function portalReports(ctx: Ctx, actor: Actor): Promise<{ id: string; ref: string; nameAr: string | null; nameLat: string | null; status: string; mergedInto: string | null; matches: number }[]> {
  familyOnly(ctx, actor);
  return ctx.db.transaction(async (tx) => {
    const ids = await reportsOfUser(tx, actor.id);
    if (ids.length === 0) return [];
    const rows = await cwdb(tx).selectFrom("family_reports").selectAll().where("id", "in", ids).orderBy("ref").execute();
    await recordPersonalDataRead(ctx, tx, actor, rows.map((r) => ({ id: r.id, role: "report" })), { read: "portal reports" });
    const counts = await cwdb(tx).selectFrom("family_disclosures").select(["report_id", "body_id"]).where("recipient_id", "=", actor.id).where("withdrawn_at", "is", null).where("report_id", "in", ids).distinct().execute();
    return rows.map((r) => ({ id: r.id, ref: r.ref, nameAr: r.name_ar, nameLat: r.name_lat, status: r.status, mergedInto: r.merged_into, matches: counts.filter((c) => c.report_id === r.id).length }));
  });
}

/** One of the family member's reports with what was disclosed to them about it. */
export async function portalReport(ctx: Ctx, actor: Actor, idOrRef: string): Promise<PortalReport> {
  familyOnly(ctx, actor);
  return ctx.db.transaction(async (tx) => {
    const { r, home } = await ownReport(tx, actor, idOrRef);
    await recordPersonalDataRead(ctx, tx, actor, [{ id: r.id, role: "report" }], { read: "portal report" });
    return {
      report: publicView(r, home), mergedInto: r.merged_into, matches: await matchesFor(tx, actor, r, home), withdrawn: await withdrawnFor(tx, actor, r),
      proposals: await proposalsFor(tx, actor, [r.id, home.id]),
    };
  });
}

/** This family member's own proposals on the case, newest first: which fields, and what a caseworker did with them. */
async function proposalsFor(tx: Tx, actor: Actor, reportIds: string[]): Promise<contracts.PortalProposal[]> {
  const rows = await cwdb(tx).selectFrom("family_report_proposals").selectAll().where("report_id", "in", [...new Set(reportIds)]).where("proposed_by", "=", actor.id).orderBy("created_at", "desc").orderBy("id", "desc").execute();
  return rows.map((p) => ({
    id: p.id, kind: p.kind as "new" | "change", fields: Object.keys(JSON.parse(p.fields) as object).sort(), status: p.status as contracts.PortalProposal["status"], createdAt: p.created_at,
    decidedAt: p.decided_at, reason: p.reason,
  }));
}

/**
 * The family adds or corrects something (a mark remembered, a document found, a date): it waits for a caseworker,
 * who accepts it (the report changes then) or refuses it with a reason the family reads.
 */
export async function proposeChange(ctx: Ctx, actor: Actor, sent: z.input<typeof contracts.ProposeChangeInput>): Promise<contracts.PortalProposal> {
  familyOnly(ctx, actor);
  const input = parseInput(contracts.ProposeChangeInput, sent);
  return ctx.db.transaction(async (tx) => {
    const { r } = await ownReport(tx, actor, input.report);
    if (r.status === "closed") throw new Conflict(say("families.reportClosed", { report: r.ref }));
    const fields = await checkedChange(tx, r, input.fields);
    const p = await recordProposalInTx(ctx, tx, actor, r, "change", fields);
    return { id: p.id, kind: "change", fields: Object.keys(fields).sort(), status: "proposed", createdAt: p.created_at, decidedAt: null, reason: null };
  });
}

/** The family gives or withdraws one tier of consent: on their own report, whichever merged case they look at. */
export async function portalConsent(ctx: Ctx, actor: Actor, sent: z.input<typeof contracts.PortalConsentInput>): Promise<PortalReport["report"]> {
  familyOnly(ctx, actor);
  const input = parseInput(contracts.PortalConsentInput, sent);
  return ctx.db.transaction(async (tx) => {
    const { r, home } = await ownReport(tx, actor, input.report);
    await recordConsentInTx(ctx, tx, actor, home, input.tier, input.given, "in the portal");
    return publicView(await loadCaseReport(tx, r.id), await loadCaseReport(tx, home.id));
  });
}

/**
 * The family asks to see more of one match (stage 3): more photos, blurred, or unblurred if they say so. The
 * request waits for a caseworker (a flag on their list); nothing is shown until they approve it.
 */
export async function requestMore(ctx: Ctx, actor: Actor, sent: z.input<typeof contracts.RequestMoreInput>): Promise<PortalMatch["requests"][number]> {
  familyOnly(ctx, actor);
  const input = parseInput(contracts.RequestMoreInput, sent);
  const note = (input.note ?? "").trim();
  return ctx.db.transaction(async (tx) => {
    const { r, home } = await ownReport(tx, actor, input.report);
    const first = await cwdb(tx).selectFrom("family_disclosures").selectAll().where("id", "=", input.matchId).where("report_id", "=", r.id).where("recipient_id", "=", actor.id).where("withdrawn_at", "is", null).executeTakeFirst();
    if (!first) throw new NotFound(say("families.noMatch"));
    const match = (await matchesFor(tx, actor, r, home)).find((m) => m.matchId === first.id)!;
    if (!consents(home, "viewingPhotos")) throw new Conflict(say("families.viewingConsentNeeded"));
    if (!match.mayRequestMore) throw new Conflict(match.requests.some((q) => q.status === "requested") ? say("families.alreadyAsked") : say("families.noFirstImage"));
    const now = ctx.clock.now().toISOString();
    const row = { id: newId("vrq"), report_id: r.id, body_id: first.body_id, requested_by: actor.id, unblurred: input.unblurred ? 1 : 0, note, status: "requested", decided_by: null, decided_at: null, reason: null, created_at: now };
    await cwdb(tx).insertInto("family_view_requests").values(row).execute();
    await ctx.log.append(tx, custody("disclosure", actor, ctx.clock.now(), [{ id: r.id, role: "report" }, { id: first.body_id, role: "body" }], { action: "disclosure.requested", request: row.id, unblurred: input.unblurred }));
    await raiseFlag(ctx, tx, actor, r, first.body_id, "view-request", `The family asks to see more${input.unblurred ? ", unblurred" : " (blurred)"}; approve or decline request ${row.id}.`, {
      key: input.unblurred ? "viewUnblurred" : "viewBlurred",
      params: { request: row.id },
    });
    const v = requestView(row);
    return { id: v.id, unblurred: v.unblurred, note: v.note, status: v.status, createdAt: v.createdAt };
  });
}

/**
 * One image disclosed to this family member: served only to them, only while they are tied to the report and
 * their consent to view photos stands. Each viewing is a custody event.
 */
export async function portalImage(ctx: Ctx, actor: Actor, id: string): Promise<{ stream: Readable; size: number; mime: string; blurred: boolean }> {
  familyOnly(ctx, actor);
  const d = await ctx.db.transaction(async (tx) => {
    const d = await cwdb(tx).selectFrom("family_disclosures").selectAll().where("id", "=", id).where("recipient_id", "=", actor.id).where("withdrawn_at", "is", null).executeTakeFirst();
    if (!d || !d.image_sha256) throw new NotFound(say("families.noImage"));
    const { r, home } = await ownReport(tx, actor, d.report_id);
    if (!consents(home, "viewingPhotos")) throw new Forbidden(say("families.consentGoneImage"));
    await ctx.log.append(tx, custody("disclosure", actor, ctx.clock.now(), [{ id: r.id, role: "report" }, { id: d.body_id, role: "body" }, { id: d.id, role: "disclosure" }], { action: "disclosure.image-viewed", blurred: d.blurred === 1 }));
    return d;
  });
  const stat = await ctx.blobs.stat(d.image_sha256!);
  return { stream: await ctx.blobs.get(d.image_sha256!), size: stat?.size ?? 0, mime: "image/jpeg", blurred: d.blurred === 1 };
}

/** The vocabularies a family's form needs (kinds of mark, places on the body, governorates), in both languages. */
export const FORM_VOCABULARIES = contracts.FormVocabularyName.options;

export async function portalVocabulary(ctx: Ctx, actor: Actor, sent: z.input<typeof contracts.PortalVocabularyInput>): Promise<Term[]> {
  familyOnly(ctx, actor);
  const input = parseInput(contracts.PortalVocabularyInput, sent);
  return (await Vocabularies.cached(ctx.db.db)).terms(input.vocabulary);
}
