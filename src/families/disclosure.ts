import type { Readable } from "node:stream";
import type { Ctx } from "../app/context.ts";
import { systemActor, type Actor } from "../core/actor.ts";
import { canonicalJson } from "../core/canonical-json.ts";
import { Conflict, Invalid, NotFound } from "../core/errors.ts";
import { say, type Said } from "../core/messages.ts";
import { newId } from "../core/ids.ts";
import type { Tx } from "../db/database.ts";
import { custody, type EventObject } from "../ledger/index.ts";
import { recordPersonalDataRead } from "../access/index.ts";
import { getBody } from "../catalogue/index.ts";
import { toReportView, type Consent, type ConsentTier, type ReportView } from "./reports.ts";
import { cwdb, type CaseDisclosuresTable, type CaseReportsTable, type DecisionsTable, type FlagsTable, type ViewRequestsTable } from "./casework-tables.ts";
import { homeReport, loadCaseReport, tiedUsers } from "./members.ts";
import { familyImage, type FamilyImageKind } from "./images.ts";
import * as contracts from "./contracts.ts";
import { parseInput } from "../core/input.ts";
import type { z } from "zod";
import { bodyIdOf, followDecision } from "./identification.ts";
import { previewToSend } from "./face-preview.ts";

/**
 * Disclosure: a caseworker decides what a candidate body is to a report (presumptive, probable, confirmed,
 * excluded), records why, and shows the family only as much as they are ready for, in stages:
 *   1. text: a message in words, nothing else;
 *   2. blurred_face: a small blurred crop of the face photo, only with the family's consent to view photos;
 *   3. more: further photos (blurred, or unblurred if that is what they asked for), only on the family's own
 *      request and the caseworker's approval of it.
 * Every step is a custody event in its transaction; texts and reasons stay in the tables (the custody log is
 * readable by anyone who checks it). A case reopens when a confirmed or excluded decision changes, or a new
 * candidate scores above a disclosed one: the report's caseworker gets a flag to look at and clear.
 */

export const DECISION_STATUSES = contracts.DecisionStatusName.options;
export type DecisionStatus = (typeof DECISION_STATUSES)[number];
export const STAGES = ["text", "blurred_face", "more"] as const;
export type Stage = (typeof STAGES)[number];
const FINAL: readonly string[] = ["confirmed", "excluded"];

export type DecisionView = contracts.DecisionView;

export type DisclosureView = contracts.DisclosureView;

export type RequestView = contracts.RequestView;

export type FlagView = contracts.FlagView;

export type CaseView = contracts.CaseView;

/** Words as kept: NFC, trimmed; `needed`: what is said when there are none (the schema checked the length). */
function words(v: string | undefined, field: string, needed?: Said): string {
  const t = (v ?? "").normalize("NFC").trim();
  if (needed && !t) throw new Invalid(needed, field);
  return t;
}

export function decisionView(d: DecisionsTable): DecisionView {
  return { id: d.id, bodyId: d.body_id, status: d.status as DecisionStatus, score: d.score === null ? null : Number(d.score), decidedBy: d.decided_by, reason: d.reason, createdAt: d.created_at };
}

export function disclosureView(d: CaseDisclosuresTable): DisclosureView {
  return {
    id: d.id, bodyId: d.body_id, recipientId: d.recipient_id, stage: d.stage as Stage, status: d.status as DecisionStatus, text: d.text, consentNote: d.consent_note,
    decidedBy: d.decided_by, reason: d.reason, photo: d.photo_sha256, blurred: d.blurred === 1, requestId: d.request_id, createdAt: d.created_at,
    withdrawn: d.withdrawn_at ? { at: d.withdrawn_at, by: d.withdrawn_by ?? "", reason: d.withdraw_reason ?? "other", note: d.withdraw_note } : null,
  };
}

export function requestView(r: ViewRequestsTable): RequestView {
  return {
    id: r.id, bodyId: r.body_id, requestedBy: r.requested_by, unblurred: r.unblurred === 1, note: r.note, status: r.status as RequestView["status"],
    decidedBy: r.decided_by, decidedAt: r.decided_at, reason: r.reason, createdAt: r.created_at,
  };
}

export type FlagWords = contracts.FlagWords;

function storedWords(json: string | null): FlagWords | null {
  if (!json) return null;
  try {
    return JSON.parse(json) as FlagWords;
  } catch {
    return null;
  }
}

function flagView(f: FlagsTable, ref: string): FlagView {
  return {
    id: f.id, reportId: f.report_id, reportRef: ref, bodyId: f.body_id, caseworkerId: f.caseworker_id, kind: f.kind as FlagView["kind"], detail: f.detail,
    words: storedWords(f.words),
    createdAt: f.created_at, clearedBy: f.cleared_by, clearedAt: f.cleared_at, clearNote: f.clear_note,
  };
}

function objects(report: string, body: string, more: EventObject[] = []): EventObject[] {
  return [{ id: report, role: "report" }, { id: body, role: "body" }, ...more];
}

/** The latest decision on a report × body, if any. */
export async function currentDecision(tx: Tx, reportId: string, bodyId: string): Promise<DecisionsTable | null> {
  const rows = await cwdb(tx).selectFrom("family_decisions").selectAll().where("report_id", "=", reportId).where("body_id", "=", bodyId).orderBy("created_at", "desc").orderBy("id", "desc").limit(1).execute();
  return rows[0] ?? null;
}

/** Raises a flag for the report's caseworker (once per report × body × kind while it is not cleared). */
export async function raiseFlag(ctx: Ctx, tx: Tx, actor: Actor, report: CaseReportsTable, bodyId: string, kind: FlagView["kind"], detail: string, words: FlagWords): Promise<boolean> {
  const open = await cwdb(tx).selectFrom("family_flags").select("id").where("report_id", "=", report.id).where("body_id", "=", bodyId).where("kind", "=", kind).where("cleared_at", "is", null).executeTakeFirst();
  if (open) return false;
  const id = newId("flg");
  await cwdb(tx)
    .insertInto("family_flags")
    .values({ id, report_id: report.id, body_id: bodyId, caseworker_id: report.caseworker_id, kind, detail, words: JSON.stringify(words), created_at: ctx.clock.now().toISOString(), cleared_by: null, cleared_at: null, clear_note: null })
    .execute();
  await ctx.log.append(tx, custody("metadata modification", actor, ctx.clock.now(), objects(report.id, bodyId), { action: "case.flagged", flag: id, kind }));
  return true;
}

/**
 * A caseworker's decision on one candidate body of a report. Only a body ranked for the report, or one already
 * decided on, can be decided on. Changing a confirmed or excluded decision reopens the case (a flag).
 */
export async function decide(ctx: Ctx, actor: Actor, sent: z.input<typeof contracts.DecideInput>): Promise<DecisionView> {
  ctx.policy.require(actor, "disclosure.make");
  const input = parseInput(contracts.DecideInput, sent);
  const reason = words(input.reason, "reason", say("families.reasonNeeded"));
  return ctx.db.transaction(async (tx) => {
    const r = await loadCaseReport(tx, input.report);
    if (r.merged_into) throw new Conflict(say("families.mergedDecide", { report: r.ref }));
    const bodyId = await bodyIdOf(tx, input.bodyId);
    const cand = await cwdb(tx).selectFrom("family_candidates").select("score").where("report_id", "=", r.id).where("body_id", "=", bodyId).executeTakeFirst();
    const prev = await currentDecision(tx, r.id, bodyId);
    if (!cand && !prev) throw new NotFound(say("families.notCandidate", { body: input.bodyId, report: r.ref }));
    const row: DecisionsTable = {
      id: newId("dec"), report_id: r.id, body_id: bodyId, status: input.status, score: cand ? Number(cand.score) : (prev?.score ?? null),
      decided_by: actor.id, reason, created_at: ctx.clock.now().toISOString(),
    };
    await cwdb(tx).insertInto("family_decisions").values(row).execute();
    await ctx.log.append(tx, custody("identification", actor, ctx.clock.now(), objects(r.id, bodyId), { action: "disclosure.decide", decision: row.id, status: row.status, ...(prev ? { previous: prev.status } : {}) }));
    await followDecision(ctx, tx, actor, r, row, prev);
    if (prev && FINAL.includes(prev.status) && prev.status !== row.status) {
      await raiseFlag(ctx, tx, actor, r, bodyId, "status-changed", `The decision changed from ${prev.status} to ${row.status}; the family was told of the earlier one if it was disclosed.`, {
        key: "statusChanged",
        params: { from: prev.status, to: row.status },
      });
    }
    return decisionView(row);
  });
}

/** The report's current consent, read fresh: a withdrawal stops what it covers from that moment. */
export function consentOf(r: Pick<CaseReportsTable, "consent">): Consent {
  return JSON.parse(r.consent) as Consent;
}

export function consents(r: Pick<CaseReportsTable, "consent">, tier: ConsentTier): boolean {
  return consentOf(r)[tier]?.given === true;
}

/**
 * Records a family's consent to one tier, given or withdrawn, with how it was given. A caseworker records it
 * for any report; a family member for a report they are tied to (checked by the caller: the portal).
 */
export async function recordConsentInTx(ctx: Ctx, tx: Tx, actor: Actor, r: CaseReportsTable, tier: ConsentTier, given: boolean, note: string): Promise<ReportView> {
  const now = ctx.clock.now().toISOString();
  const consent: Consent = { ...consentOf(r), [tier]: { given, at: now, by: actor.id, ...(note ? { note } : {}) } };
  const next = { ...r, consent: canonicalJson(consent), version: r.version + 1, updated_at: now };
  await cwdb(tx).updateTable("family_reports").set({ consent: next.consent, version: next.version, updated_at: now }).where("id", "=", r.id).execute();
  await ctx.log.append(tx, custody("metadata modification", actor, ctx.clock.now(), [{ id: r.id, role: "report" }], { action: "report.consent", fields: ["consent"], tier }));
  return toReportView(next);
}

export async function recordConsent(ctx: Ctx, actor: Actor, sent: z.input<typeof contracts.RecordConsentInput>): Promise<ReportView> {
  ctx.policy.require(actor, "disclosure.make");
  const input = parseInput(contracts.RecordConsentInput, sent);
  const note = words(input.note, "note");
  return ctx.db.transaction(async (tx) => recordConsentInTx(ctx, tx, actor, await loadCaseReport(tx, input.report), input.tier, input.given, note));
}

async function recipientOf(tx: Tx, r: CaseReportsTable, recipientId: string | undefined): Promise<string> {
  const tied = await tiedUsers(tx, r);
  if (recipientId) {
    if (!tied.includes(recipientId)) throw new Invalid(tied.length ? say("families.recipientNotTied", { report: r.ref }) : say("families.noMemberTied", { report: r.ref }), "recipientId");
    return recipientId;
  }
  if (tied.length === 1) return tied[0]!;
  throw new Invalid(tied.length ? say("families.nameRecipient", { count: tied.length, report: r.ref }) : say("families.noMemberTied", { report: r.ref }), "recipientId");
}

async function disclosuresTo(tx: Tx, reportId: string, bodyId: string, recipient: string): Promise<CaseDisclosuresTable[]> {
  return cwdb(tx).selectFrom("family_disclosures").selectAll().where("report_id", "=", reportId).where("body_id", "=", bodyId).where("recipient_id", "=", recipient).where("withdrawn_at", "is", null).orderBy("created_at").execute();
}

/** Makes the image from the original and stores it as a blob; returns its hash. */
async function makeImage(ctx: Ctx, sha256: string, kind: FamilyImageKind): Promise<string> {
  const bytes = await ctx.blobs.read(sha256);
  // the image library's own words are English and technical: the family's caseworker reads which photo failed
  const img = await familyImage(bytes, kind).catch(() => {
    throw new Invalid(say("families.photoUnusable", { sha256: sha256.slice(0, 12) }), "photo");
  });
  return (await ctx.blobs.putBuffer(img)).sha256;
}

/** The body's photos as the caseworker may see them: the face photo first. */
async function photosOf(ctx: Ctx, actor: Actor, bodyId: string): Promise<{ sha256: string; role: string }[]> {
  const body = await getBody(ctx, actor, bodyId);
  return [...body.photos].sort((a, b) => (a.role === "face" ? 0 : 1) - (b.role === "face" ? 0 : 1) || a.position - b.position).map((p) => ({ sha256: p.sha256, role: p.role }));
}

export type DiscloseInput = z.input<typeof contracts.DiscloseInput>;

/**
 * Stage 1 (text) or stage 2 (a blurred face crop) of a disclosure to one family member. Stage 1 needs a
 * decision; stage 2 needs stage 1, a decision other than excluded, and the family's consent to view photos.
 */
export async function disclose(ctx: Ctx, actor: Actor, sent: DiscloseInput): Promise<DisclosureView> {
  ctx.policy.require(actor, "disclosure.make");
  const input = parseInput(contracts.DiscloseInput, sent);
  const text = words(input.text, "text", say("families.textNeeded"));
  const consentNote = words(input.consentNote, "consentNote", say("families.consentNoteNeeded"));
  const reason = words(input.reason, "reason", say("families.reasonNeeded"));
  const bodyId = await bodyIdOf(ctx.db.db, input.bodyId);
  let photo: string | null = null;
  let image: string | null = null;
  let previewId: string | null = null;
  return ctx.db.transaction(async (tx) => {
    const r = await loadCaseReport(tx, input.report);
    if (r.merged_into) throw new Conflict(say("families.mergedDisclose", { report: r.ref }));
    const recipient = await recipientOf(tx, r, input.recipientId);
    const decision = await currentDecision(tx, r.id, bodyId);
    if (!decision) throw new Conflict(say("families.decisionFirst"));
    const before = await disclosuresTo(tx, r.id, bodyId, recipient);
    if (input.stage === "blurred_face") {
      if (decision.status === "excluded") throw new Conflict(say("families.excludedNoImage"));
      if (!before.some((d) => d.stage === "text")) throw new Conflict(say("families.wordsFirst"));
      // the recipient's own family's consent: after a merge, another family's consent does not speak for them
      if (!consents(await homeReport(tx, r, recipient), "viewingPhotos")) throw new Conflict(say("families.noPhotoConsent"));
      // only the crop this caseworker made and looked at, byte for byte (issue 20)
      const seen = await previewToSend(tx, actor, r, bodyId, input.preview);
      [photo, image, previewId] = [seen.photo_sha256, seen.image_sha256, seen.id];
    }
    const row: CaseDisclosuresTable = {
      id: newId("dis"), report_id: r.id, body_id: bodyId, recipient_id: recipient, stage: input.stage, status: decision.status, text, consent_note: consentNote,
      decided_by: actor.id, reason, created_at: ctx.clock.now().toISOString(), photo_sha256: photo, image_sha256: image, blurred: 1, request_id: null, withdrawn_at: null, withdrawn_by: null, withdraw_reason: null, withdraw_note: null,
      preview_id: previewId,
    };
    await cwdb(tx).insertInto("family_disclosures").values(row).execute();
    await ctx.log.append(
      tx,
      custody("disclosure", actor, ctx.clock.now(), objects(r.id, bodyId, [{ id: row.id, role: "disclosure" }, ...(photo ? [{ sha256: photo, role: "photo" }] : []), ...(previewId ? [{ id: previewId, role: "face preview" }] : [])]), {
        action: "disclosure.stage", stage: row.stage, status: row.status, recipient, blurred: true, ...(image ? { image } : {}),
      }),
    );
    return disclosureView(row);
  });
}

/**
 * Stage 3: a caseworker approves a family member's request to see more. The photos shown are the ones the
 * caseworker picks (default: every photo of the body but the face already shown), blurred unless the family
 * asked for them unblurred. Needs the consent to view photos, now.
 */
export async function approveRequest(ctx: Ctx, actor: Actor, sent: z.input<typeof contracts.ApproveRequestInput>): Promise<DisclosureView[]> {
  ctx.policy.require(actor, "disclosure.make");
  const input = parseInput(contracts.ApproveRequestInput, sent);
  const reason = words(input.reason, "reason", say("families.reasonNeeded"));
  const req = await cwdb(ctx.db.db).selectFrom("family_view_requests").selectAll().where("id", "=", input.id).executeTakeFirst();
  if (!req) throw new NotFound(say("families.noRequest"));
  const photos = await photosOf(ctx, actor, req.body_id);
  const chosen = input.photos?.length ? input.photos : photos.map((p) => p.sha256);
  for (const sha of chosen) if (!photos.some((p) => p.sha256 === sha)) throw new Invalid(say("families.photoNotOfBody", { sha256: sha.slice(0, 12) }), "photos");
  if (chosen.length === 0) throw new Invalid(say("families.noPhotos"), "photos");
  const kind: FamilyImageKind = req.unblurred === 1 ? "plain" : "blurred";
  const images = new Map<string, string>();
  for (const sha of chosen) images.set(sha, await makeImage(ctx, sha, kind));
  return ctx.db.transaction(async (tx) => {
    const fresh = await cwdb(tx).selectFrom("family_view_requests").selectAll().where("id", "=", req.id).executeTakeFirstOrThrow();
    if (fresh.status !== "requested") throw new Conflict(fresh.status === "approved" ? say("families.requestApproved") : say("families.requestDeclined"));
    const r = await loadCaseReport(tx, fresh.report_id);
    if (!consents(await homeReport(tx, r, fresh.requested_by), "viewingPhotos")) throw new Conflict(say("families.consentGoneMore"));
    const decision = await currentDecision(tx, r.id, fresh.body_id);
    if (!decision || decision.status === "excluded") throw new Conflict(say("families.excludedOrUndecided"));
    const tied = await tiedUsers(tx, r);
    if (!tied.includes(fresh.requested_by)) throw new Conflict(say("families.askerUntied"));
    const now = ctx.clock.now().toISOString();
    const rows: CaseDisclosuresTable[] = chosen.map((sha) => ({
      id: newId("dis"), report_id: r.id, body_id: fresh.body_id, recipient_id: fresh.requested_by, stage: "more", status: decision.status, text: words(input.text, "text"),
      consent_note: "requested in the portal", // the request itself is request_id: no id in a note a person reads
      decided_by: actor.id, reason, created_at: now, photo_sha256: sha, image_sha256: images.get(sha)!,
      blurred: kind === "plain" ? 0 : 1, request_id: fresh.id, withdrawn_at: null, withdrawn_by: null, withdraw_reason: null, withdraw_note: null, preview_id: null,
    }));
    await cwdb(tx).insertInto("family_disclosures").values(rows).execute();
    await cwdb(tx).updateTable("family_view_requests").set({ status: "approved", decided_by: actor.id, decided_at: now, reason }).where("id", "=", fresh.id).execute();
    await clearFlagsOf(tx, actor, fresh.report_id, fresh.body_id, "view-request", `approved ${fresh.id}`, now);
    await ctx.log.append(
      tx,
      custody("disclosure", actor, ctx.clock.now(), objects(r.id, fresh.body_id, [...rows.map((d) => ({ id: d.id, role: "disclosure" })), ...chosen.map((sha) => ({ sha256: sha, role: "photo" }))]), {
        action: "disclosure.stage", stage: "more", status: decision.status, recipient: fresh.requested_by, request: fresh.id, blurred: kind !== "plain",
      }),
    );
    return rows.map(disclosureView);
  });
}

export async function declineRequest(ctx: Ctx, actor: Actor, sent: z.input<typeof contracts.DeclineRequestInput>): Promise<RequestView> {
  ctx.policy.require(actor, "disclosure.make");
  const input = parseInput(contracts.DeclineRequestInput, sent);
  const reason = words(input.reason, "reason", say("families.reasonNeeded"));
  return ctx.db.transaction(async (tx) => {
    const req = await cwdb(tx).selectFrom("family_view_requests").selectAll().where("id", "=", input.id).executeTakeFirst();
    if (!req) throw new NotFound(say("families.noRequest"));
    if (req.status !== "requested") throw new Conflict(req.status === "approved" ? say("families.requestApproved") : say("families.requestDeclined"));
    const now = ctx.clock.now().toISOString();
    const next = { ...req, status: "declined", decided_by: actor.id, decided_at: now, reason };
    await cwdb(tx).updateTable("family_view_requests").set({ status: next.status, decided_by: actor.id, decided_at: now, reason }).where("id", "=", req.id).execute();
    await clearFlagsOf(tx, actor, req.report_id, req.body_id, "view-request", `declined ${req.id}`, now);
    await ctx.log.append(tx, custody("disclosure", actor, ctx.clock.now(), objects(req.report_id, req.body_id), { action: "disclosure.request-declined", request: req.id }));
    return requestView(next);
  });
}

async function clearFlagsOf(tx: Tx, actor: Actor, reportId: string, bodyId: string, kind: string, note: string, now: string): Promise<void> {
  await cwdb(tx).updateTable("family_flags").set({ cleared_by: actor.id, cleared_at: now, clear_note: note }).where("report_id", "=", reportId).where("body_id", "=", bodyId).where("kind", "=", kind).where("cleared_at", "is", null).execute();
}

/**
 * Looks for cases reopened by a re-rank: a candidate not yet decided on that now scores above a body already
 * disclosed (and not excluded) to the family. Each is flagged once to the report's caseworker.
 */
export async function sweepOutranked(ctx: Ctx, actor: Actor): Promise<number> {
  return ctx.db.transaction(async (tx) => {
    const disclosed = await cwdb(tx).selectFrom("family_disclosures").select(["report_id", "body_id"]).where("withdrawn_at", "is", null).distinct().execute();
    let raised = 0;
    const byReport = new Map<string, string[]>();
    for (const d of disclosed) byReport.set(d.report_id, [...(byReport.get(d.report_id) ?? []), d.body_id]);
    for (const [reportId, bodies] of byReport) {
      const r = await loadCaseReport(tx, reportId);
      if (r.status !== "open") continue;
      const cands = await cwdb(tx).selectFrom("family_candidates").select(["body_id", "score", "band"]).where("report_id", "=", reportId).orderBy("rank").execute();
      const decided = new Set((await cwdb(tx).selectFrom("family_decisions").select("body_id").where("report_id", "=", reportId).execute()).map((d) => d.body_id));
      let floor = -Infinity;
      for (const b of bodies) {
        const dec = await currentDecision(tx, reportId, b);
        if (dec?.status === "excluded") continue;
        const c = cands.find((x) => x.body_id === b);
        const s = c ? Number(c.score) : (dec?.score ?? null);
        if (s !== null) floor = Math.max(floor, Number(s));
      }
      if (floor === -Infinity) continue;
      for (const c of cands) {
        if (Number(c.score) <= floor || c.band === "exclude" || decided.has(c.body_id)) continue;
        if (await raiseFlag(ctx, tx, actor, r, c.body_id, "outranked", `A candidate not yet decided on now scores ${Number(c.score).toFixed(2)}, above the body disclosed to the family (${floor.toFixed(2)}).`, {
          key: "outranked",
          params: { score: Number(c.score).toFixed(2), floor: floor.toFixed(2) },
        }))
          raised++;
      }
    }
    return raised;
  });
}

/** The caseworker's flags: their reports' and unassigned ones (an administrator sees all). Open ones unless `all`. */
export async function listFlags(ctx: Ctx, actor: Actor, input: { all?: boolean } = {}): Promise<FlagView[]> {
  ctx.policy.require(actor, "disclosure.make");
  // the software finds reopened cases: the flags it raises are its events, not the caseworker's who looked
  await sweepOutranked(ctx, systemActor);
  const rows = await cwdb(ctx.db.db)
    .selectFrom("family_flags")
    .innerJoin("family_reports", "family_reports.id", "family_flags.report_id")
    .selectAll("family_flags")
    .select("family_reports.ref as ref")
    .$if(!input.all, (q) => q.where("family_flags.cleared_at", "is", null))
    .$if(!ctx.policy.stands(actor, "family.flags.all"), (q) => q.where((eb) => eb.or([eb("family_flags.caseworker_id", "=", actor.id), eb("family_flags.caseworker_id", "is", null)])))
    .orderBy("family_flags.created_at", "desc")
    .limit(500)
    .execute();
  return rows.map((f) => flagView(f, f.ref));
}

export async function clearFlag(ctx: Ctx, actor: Actor, sent: z.input<typeof contracts.ClearFlagInput>): Promise<FlagView> {
  ctx.policy.require(actor, "disclosure.make");
  const input = parseInput(contracts.ClearFlagInput, sent);
  const note = words(input.note, "note", say("families.noteNeeded"));
  return ctx.db.transaction(async (tx) => {
    const f = await cwdb(tx).selectFrom("family_flags").selectAll().where("id", "=", input.id).executeTakeFirst();
    if (!f) throw new NotFound(say("families.noFlag"));
    if (f.cleared_at) throw new Conflict(say("families.flagCleared"));
    const now = ctx.clock.now().toISOString();
    await cwdb(tx).updateTable("family_flags").set({ cleared_by: actor.id, cleared_at: now, clear_note: note }).where("id", "=", f.id).execute();
    await ctx.log.append(tx, custody("metadata modification", actor, ctx.clock.now(), objects(f.report_id, f.body_id), { action: "case.flag-cleared", flag: f.id }));
    const r = await loadCaseReport(tx, f.report_id);
    return flagView({ ...f, cleared_by: actor.id, cleared_at: now, clear_note: note }, r.ref);
  });
}

/** Everything a caseworker needs on one report's casework: decisions, disclosures, requests, flags (a recorded read). */
export async function caseOf(ctx: Ctx, actor: Actor, report: string): Promise<CaseView> {
  ctx.policy.require(actor, "disclosure.make");
  return ctx.db.transaction(async (tx) => {
    const r = await loadCaseReport(tx, report);
    await recordPersonalDataRead(ctx, tx, actor, [{ id: r.id, role: "report" }], { read: "case" });
    const decisions = (await cwdb(tx).selectFrom("family_decisions").selectAll().where("report_id", "=", r.id).orderBy("created_at", "desc").orderBy("id", "desc").execute()).map(decisionView);
    const current = new Map<string, DecisionView & { history: DecisionView[] }>();
    for (const d of decisions) {
      const c = current.get(d.bodyId);
      if (c) c.history.push(d);
      else current.set(d.bodyId, { ...d, history: [] });
    }
    return {
      report: toReportView(r),
      members: await tiedUsers(tx, r),
      decisions: [...current.values()],
      disclosures: (await cwdb(tx).selectFrom("family_disclosures").selectAll().where("report_id", "=", r.id).orderBy("created_at").execute()).map(disclosureView),
      requests: (await cwdb(tx).selectFrom("family_view_requests").selectAll().where("report_id", "=", r.id).orderBy("created_at").execute()).map(requestView),
      flags: (await cwdb(tx).selectFrom("family_flags").selectAll().where("report_id", "=", r.id).orderBy("created_at").execute()).map((f) => flagView(f, r.ref)),
    };
  });
}

/** The image a disclosure showed, as the family sees it: for the caseworker to check (a custody event). */
export async function disclosureImage(ctx: Ctx, actor: Actor, id: string): Promise<{ stream: Readable; size: number; mime: string; blurred: boolean }> {
  ctx.policy.require(actor, "disclosure.make");
  const d = await ctx.db.transaction(async (tx) => {
    const d = await cwdb(tx).selectFrom("family_disclosures").selectAll().where("id", "=", id).executeTakeFirst();
    if (!d || !d.image_sha256) throw new NotFound(say("families.noDisclosedImage"));
    await ctx.log.append(tx, custody("disclosure", actor, ctx.clock.now(), objects(d.report_id, d.body_id, [{ id: d.id, role: "disclosure" }]), { action: "disclosure.image-checked", blurred: d.blurred === 1 }));
    return d;
  });
  const stat = await ctx.blobs.stat(d.image_sha256!);
  return { stream: await ctx.blobs.get(d.image_sha256!), size: stat?.size ?? 0, mime: "image/jpeg", blurred: d.blurred === 1 };
}
