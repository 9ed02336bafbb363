import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { canonicalJson } from "../core/canonical-json.ts";
import { Conflict, Invalid, NotFound } from "../core/errors.ts";
import { say } from "../core/messages.ts";
import { newId } from "../core/ids.ts";
import type { Tx } from "../db/database.ts";
import { custody } from "../ledger/index.ts";
import { recordPersonalDataRead } from "../access/index.ts";
import { Vocabularies } from "../catalogue/index.ts";
import { enqueueRerank } from "./rerank-requests.ts";
import { applyReportPatchInTx, inputOf, reportColumns, toReportView, type ReportInput } from "./reports.ts";
import { cwdb, type CaseReportsTable as FamilyReportsTable, type ReportProposalsTable } from "./casework-tables.ts";
import * as contracts from "./contracts.ts";
import { parseInput } from "../core/input.ts";
import type { z } from "zod";

/**
 * What families propose (issue 19, item 3). A report a family member files waits, with status `submitted`, for a
 * caseworker to read it: it is not matched nor weighed for duplicates before a caseworker accepts it (then it is
 * `open` and ranked) or refuses it (then `closed`, with a reason the family reads). What a family adds or
 * corrects later — a mark remembered, a document found, a date — comes the same way: a proposal the caseworker
 * accepts (the report changes then, as if the caseworker had typed it) or refuses with a reason. Proposals are
 * kept, never deleted: the report's history of what the family said and what was done with it. Custody events
 * name ids, the kind and the fields (never values, never the reason).
 */
export type ReportProposalView = contracts.ReportProposalView;

/** The fields a family may propose: the missing person and the family's own contact; never a ref or consent. */
export const PROPOSABLE = [
  "nameAr", "nameLat", "fatherName", "motherName", "aliases", "sex", "birthDate", "birthPlace", "arrestDate", "arrestPlace", "arrestGovernorate", "branch",
  "branchCertainty", "seenInDetention", "marks", "numbers", "reporterName", "reporterRelationship", "reporterContact",
] as const;

export function proposalView(p: ReportProposalsTable, report: FamilyReportsTable): ReportProposalView {
  const fields = JSON.parse(p.fields) as Record<string, unknown>;
  const now = inputOf(toReportView(report)) as Record<string, unknown>;
  return {
    id: p.id, reportId: p.report_id, reportRef: report.ref, kind: p.kind as ReportProposalView["kind"], fields, current: Object.fromEntries(Object.keys(fields).map((k) => [k, now[k] ?? null])), proposedBy: p.proposed_by,
    createdAt: p.created_at, status: p.status as ReportProposalView["status"], decidedBy: p.decided_by, decidedAt: p.decided_at, reason: p.reason,
  };
}

/** Records a proposal in the caller's transaction (the caller checked who may make it); one custody event. */
export async function recordProposalInTx(ctx: Ctx, tx: Tx, actor: Actor, report: Pick<FamilyReportsTable, "id">, kind: "new" | "change", fields: ReportInput): Promise<ReportProposalsTable> {
  const row: ReportProposalsTable = {
    id: newId("rpp"), report_id: report.id, kind, fields: canonicalJson(fields), proposed_by: actor.id, created_at: ctx.clock.now().toISOString(), status: "proposed",
    decided_by: null, decided_at: null, reason: null,
  };
  await cwdb(tx).insertInto("family_report_proposals").values(row).execute();
  await ctx.log.append(tx, custody("metadata modification", actor, ctx.clock.now(), [{ id: report.id, role: "report" }], { action: "report.proposed", proposal: row.id, kind, fields: Object.keys(fields).sort() }));
  return row;
}

/** Checks a family's proposed change: only fields they may propose, valid when laid over the report as it is. */
export async function checkedChange(tx: Tx, report: FamilyReportsTable, fields: Record<string, unknown>): Promise<ReportInput> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) {
    if (v === undefined) continue;
    if (!(PROPOSABLE as readonly string[]).includes(k)) throw new Invalid(say("families.notProposable", { field: k }), k);
    out[k] = v;
  }
  if (Object.keys(out).length === 0) throw new Invalid(say("families.writeWhat"), "fields");
  reportColumns({ ...inputOf(toReportView(report)), ...(out as ReportInput) }, await Vocabularies.load(tx)); // throws Invalid with the field
  return out as ReportInput;
}

async function reportsById(tx: Tx, ids: string[]): Promise<Map<string, FamilyReportsTable>> {
  if (ids.length === 0) return new Map();
  const rows = await cwdb(tx).selectFrom("family_reports").selectAll().where("id", "in", [...new Set(ids)]).execute();
  return new Map(rows.map((r) => [r.id, r]));
}

/** Proposals for caseworkers: by default those waiting, oldest first; or one report's whole history. A recorded read. */
export async function listReportProposals(ctx: Ctx, actor: Actor, input: { status?: ReportProposalView["status"]; report?: string } = {}): Promise<ReportProposalView[]> {
  ctx.policy.require(actor, "report.edit");
  ctx.policy.require(actor, "personal.read");
  return ctx.db.transaction(async (tx) => {
    let q = cwdb(tx).selectFrom("family_report_proposals").selectAll().orderBy("created_at").orderBy("id").limit(500);
    if (input.report) {
      const r = await cwdb(tx).selectFrom("family_reports").select("id").where((eb) => eb.or([eb("id", "=", input.report!), eb("ref", "=", input.report!)])).executeTakeFirst();
      if (!r) throw new NotFound(say("record.notFound", { kind: "report" }));
      q = q.where("report_id", "=", r.id);
      if (input.status) q = q.where("status", "=", input.status);
    } else q = q.where("status", "=", input.status ?? "proposed");
    const rows = await q.execute();
    if (rows.length) await recordPersonalDataRead(ctx, tx, actor, [...new Set(rows.map((r) => r.report_id))].map((id) => ({ id, role: "report" })), { read: "report proposals" });
    const byId = await reportsById(tx, rows.map((r) => r.report_id));
    return rows.map((r) => proposalView(r, byId.get(r.report_id)!));
  });
}

async function loadOpen(tx: Tx, id: string): Promise<{ p: ReportProposalsTable; r: FamilyReportsTable }> {
  const p = await cwdb(tx).selectFrom("family_report_proposals").selectAll().where("id", "=", id).executeTakeFirst();
  if (!p) throw new NotFound(say("families.noProposal"));
  const r = await cwdb(tx).selectFrom("family_reports").selectAll().where("id", "=", p.report_id).executeTakeFirstOrThrow();
  if (p.status !== "proposed") throw new Conflict(p.status === "accepted" ? say("families.proposalAccepted", { report: r.ref }) : say("families.proposalRefused", { report: r.ref }));
  return { p, r };
}

function reasonText(v: string | undefined, required: boolean): string | null {
  const t = (v ?? "").normalize("NFC").trim();
  if (required && !t) throw new Invalid(say("families.reasonForFamily"), "reason");
  return t || null;
}

/**
 * A caseworker accepts a proposal: a new report opens (and is ranked); a change is applied to the report as it
 * is now (validated again). One custody event for the decision, one for the change.
 */
export async function acceptReportProposal(ctx: Ctx, actor: Actor, sent: z.input<typeof contracts.AcceptProposalInput>): Promise<ReportProposalView> {
  ctx.policy.require(actor, "report.edit");
  ctx.policy.require(actor, "personal.read");
  const input = parseInput(contracts.AcceptProposalInput, sent);
  const reason = reasonText(input.reason, false);
  const out = await ctx.db.transaction(async (tx) => {
    const { p, r } = await loadOpen(tx, input.id);
    if (r.merged_into || (p.kind === "change" && r.status !== "open" && r.status !== "submitted")) throw new Conflict(say("families.proposalsNotApplicable", { report: r.ref }));
    const now = ctx.clock.now().toISOString();
    if (p.kind === "new") {
      await cwdb(tx).updateTable("family_reports").set({ status: "open", caseworker_id: r.caseworker_id ?? actor.id, version: r.version + 1, updated_at: now }).where("id", "=", r.id).execute();
    } else {
      await applyReportPatchInTx(ctx, tx, actor, r, await checkedChange(tx, r, JSON.parse(p.fields) as Record<string, unknown>), { proposal: p.id });
    }
    const done: ReportProposalsTable = { ...p, status: "accepted", decided_by: actor.id, decided_at: now, reason };
    await cwdb(tx).updateTable("family_report_proposals").set({ status: done.status, decided_by: done.decided_by, decided_at: now, reason }).where("id", "=", p.id).execute();
    await ctx.log.append(tx, custody("metadata modification", actor, ctx.clock.now(), [{ id: r.id, role: "report" }], { action: "report.proposal-accepted", proposal: p.id, kind: p.kind }));
    return proposalView(done, await cwdb(tx).selectFrom("family_reports").selectAll().where("id", "=", r.id).executeTakeFirstOrThrow());
  });
  await enqueueRerank(ctx, { reportId: out.reportId });
  return out;
}

/** A caseworker refuses a proposal with a reason the family reads; a refused new report is closed, not matched. */
export async function refuseReportProposal(ctx: Ctx, actor: Actor, sent: z.input<typeof contracts.RefuseProposalInput>): Promise<ReportProposalView> {
  ctx.policy.require(actor, "report.edit");
  ctx.policy.require(actor, "personal.read");
  const input = parseInput(contracts.RefuseProposalInput, sent);
  const reason = reasonText(input.reason, true);
  return ctx.db.transaction(async (tx) => {
    const { p, r } = await loadOpen(tx, input.id);
    const now = ctx.clock.now().toISOString();
    if (p.kind === "new") await cwdb(tx).updateTable("family_reports").set({ status: "closed", version: r.version + 1, updated_at: now }).where("id", "=", r.id).execute();
    const done: ReportProposalsTable = { ...p, status: "refused", decided_by: actor.id, decided_at: now, reason };
    await cwdb(tx).updateTable("family_report_proposals").set({ status: "refused", decided_by: actor.id, decided_at: now, reason }).where("id", "=", p.id).execute();
    await ctx.log.append(tx, custody("metadata modification", actor, ctx.clock.now(), [{ id: r.id, role: "report" }], { action: "report.proposal-refused", proposal: p.id, kind: p.kind }));
    return proposalView(done, await cwdb(tx).selectFrom("family_reports").selectAll().where("id", "=", r.id).executeTakeFirstOrThrow());
  });
}
