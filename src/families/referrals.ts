import type { z } from "zod";
import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { Conflict, Invalid, NotFound } from "../core/errors.ts";
import { parseInput } from "../core/input.ts";
import { newId } from "../core/ids.ts";
import { say } from "../core/messages.ts";
import type { Tx } from "../db/database.ts";
import { custody, type EventObject } from "../ledger/index.ts";
import { recordPersonalDataRead } from "../access/index.ts";
import { findBodyRow, readBodies } from "../catalogue/index.ts";
import type { DnaFinding } from "./scoring.ts";
import { consents } from "./disclosure.ts";
import { loadCaseReport } from "./members.ts";
import { enqueueRerank } from "./rerank-requests.ts";
import { fdb, type DnaReferralsTable } from "./tables.ts";
import * as contracts from "./contracts.ts";

/**
 * DNA and ante-mortem referrals (decision 0033): a caseworker records that a family's sample is asked for, taken
 * (from whom, when), sent to a laboratory (its name and reference) and what came back (match, exclusion,
 * inconclusive, with the date), for a report and optionally a body it is compared with. Only with the family's
 * dnaReferral consent, standing at the time of each change. Every change is a new version (a row); the earlier
 * ones stay as the referral's history. Each is a custody event naming the report, the body and the referral, with
 * the status only: the laboratory, its reference, who gave the sample and the notes stay in the table.
 *
 * The ranking reads the results (`dnaFindings`): an exclusion excludes the body, a match puts it first, anything
 * else is shown beside the body and changes nothing. A family member sees none of it in the portal: a result
 * reaches a family through a caseworker's decision and disclosure, as any other evidence does.
 */

export type ReferralView = contracts.ReferralView;
export type ReferralStatus = z.infer<typeof contracts.ReferralStatusName>;
export type ReferralResult = z.infer<typeof contracts.ReferralResultName>;
export const REFERRAL_STATUSES = contracts.ReferralStatusName.options;
export const REFERRAL_RESULTS = contracts.ReferralResultName.options;

const trimmed = (v: string | null | undefined): string | null => {
  const t = (v ?? "").normalize("NFC").trim();
  return t ? t : null;
};

/** A version's rules: a result with status result and only then; a match or exclusion names the body. */
function checkVersion(row: DnaReferralsTable): void {
  if (row.status === "result" && !row.result) throw new Invalid(say("families.dnaResultNeeded"), "result");
  if (row.status !== "result" && (row.result || row.result_on)) throw new Invalid(say("families.dnaResultWithStatus"), "result");
  if ((row.result === "match" || row.result === "exclusion") && !row.body_id) throw new Invalid(say("families.dnaResultNeedsBody"), "bodyId");
}

async function bodyOf(tx: Tx, idOrRef: string | null | undefined): Promise<string | null> {
  if (!idOrRef) return null;
  return (await findBodyRow(tx, idOrRef)).id;
}

function objectsOf(row: DnaReferralsTable): EventObject[] {
  return [{ id: row.report_id, role: "report" }, ...(row.body_id ? [{ id: row.body_id, role: "body" }] : []), { id: row.referral, role: "dna referral" }];
}

async function store(ctx: Ctx, tx: Tx, actor: Actor, row: DnaReferralsTable, how: { action: string }): Promise<void> {
  checkVersion(row);
  await fdb(tx).insertInto("family_dna_referrals").values(row).execute();
  await ctx.log.append(tx, custody("metadata modification", actor, ctx.clock.now(), objectsOf(row), { ...how, referral: row.referral, status: row.status }));
}

/** A report's referral refused without the family's consent to it, standing now. */
async function referableReport(tx: Tx, report: string) {
  const r = await loadCaseReport(tx, report);
  if (r.merged_into) throw new Conflict(say("families.mergedReferral", { report: r.ref }));
  if (!consents(r, "dnaReferral")) throw new Conflict(say("families.dnaNoConsent", { report: r.ref }));
  return r;
}

export async function createReferral(ctx: Ctx, actor: Actor, sent: z.input<typeof contracts.NewReferralInput>): Promise<ReferralView> {
  ctx.policy.require(actor, "dna.refer");
  const input = parseInput(contracts.NewReferralInput, sent);
  const row = await ctx.db.transaction(async (tx) => {
    const r = await referableReport(tx, input.report);
    const row: DnaReferralsTable = {
      id: newId("dnv"),
      referral: newId("dnr"),
      version: 1,
      report_id: r.id,
      body_id: await bodyOf(tx, input.bodyId),
      status: input.status ?? "requested",
      sample_from: trimmed(input.sampleFrom),
      sample_taken_on: input.sampleTakenOn ?? null,
      lab: trimmed(input.lab),
      lab_ref: trimmed(input.labRef),
      result: input.result ?? null,
      result_on: input.resultOn ?? null,
      note: trimmed(input.note) ?? "",
      recorded_by: actor.id,
      recorded_at: ctx.clock.now().toISOString(),
    };
    await store(ctx, tx, actor, row, { action: "report.dna-referral" });
    return row;
  });
  if (row.result || row.body_id) await enqueueRerank(ctx, { reportId: row.report_id });
  return referralView(ctx, actor, row.referral);
}

export async function updateReferral(ctx: Ctx, actor: Actor, sent: z.input<typeof contracts.UpdateReferralInput>): Promise<ReferralView> {
  ctx.policy.require(actor, "dna.refer");
  const input = parseInput(contracts.UpdateReferralInput, sent);
  const { row, prev } = await ctx.db.transaction(async (tx) => {
    const prev = await fdb(tx).selectFrom("family_dna_referrals").selectAll().where("referral", "=", input.id).orderBy("version", "desc").limit(1).executeTakeFirst();
    if (!prev) throw new NotFound(say("families.noReferral"));
    if (input.expectedVersion !== undefined && input.expectedVersion !== prev.version) throw new Conflict(say("families.referralChanged", { version: prev.version }));
    const r = await referableReport(tx, prev.report_id);
    const given = <K extends keyof typeof input>(k: K): boolean => input[k] !== undefined;
    const row: DnaReferralsTable = {
      ...prev,
      id: newId("dnv"),
      version: prev.version + 1,
      report_id: r.id,
      body_id: given("bodyId") ? await bodyOf(tx, input.bodyId) : prev.body_id,
      status: input.status ?? prev.status,
      sample_from: given("sampleFrom") ? trimmed(input.sampleFrom) : prev.sample_from,
      sample_taken_on: given("sampleTakenOn") ? (input.sampleTakenOn ?? null) : prev.sample_taken_on,
      lab: given("lab") ? trimmed(input.lab) : prev.lab,
      lab_ref: given("labRef") ? trimmed(input.labRef) : prev.lab_ref,
      result: given("result") ? (input.result ?? null) : prev.result,
      result_on: given("resultOn") ? (input.resultOn ?? null) : prev.result_on,
      note: given("note") ? (trimmed(input.note) ?? "") : prev.note,
      recorded_by: actor.id,
      recorded_at: ctx.clock.now().toISOString(),
    };
    await store(ctx, tx, actor, row, { action: "report.dna-referral-changed" });
    return { row, prev };
  });
  if (row.result !== prev.result || row.body_id !== prev.body_id || row.status !== prev.status) await enqueueRerank(ctx, { reportId: row.report_id });
  return referralView(ctx, actor, row.referral);
}

/** A report's referrals, each as it stands with its history (a recorded read of the family's data). */
export async function listReferrals(ctx: Ctx, actor: Actor, report: string): Promise<ReferralView[]> {
  ctx.policy.require(actor, "dna.refer");
  const rows = await ctx.db.transaction(async (tx) => {
    const r = await loadCaseReport(tx, report);
    await recordPersonalDataRead(ctx, tx, actor, [{ id: r.id, role: "report" }], { read: "dna-referrals" });
    return fdb(tx).selectFrom("family_dna_referrals").selectAll().where("report_id", "=", r.id).orderBy("referral").orderBy("version", "desc").execute();
  });
  return viewsOf(ctx, actor, rows);
}

async function referralView(ctx: Ctx, actor: Actor, referral: string): Promise<ReferralView> {
  const rows = await fdb(ctx.db.db).selectFrom("family_dna_referrals").selectAll().where("referral", "=", referral).execute();
  return (await viewsOf(ctx, actor, rows))[0]!;
}

/** Rows (any order) → one view per referral, newest version first with the others as its history. */
async function viewsOf(ctx: Ctx, actor: Actor, rows: readonly DnaReferralsTable[]): Promise<ReferralView[]> {
  const bodyIds = [...new Set(rows.map((x) => x.body_id).filter((x): x is string => !!x))];
  // read after the transaction: the catalogue reads through its own connection, with the reader's clearance
  const refs = new Map(bodyIds.length ? (await readBodies(ctx, actor, { ids: bodyIds })).items.map((b) => [b.id, b.ref]) : []);
  const reportRefs = new Map<string, string>();
  for (const id of new Set(rows.map((x) => x.report_id))) reportRefs.set(id, (await loadCaseReport(ctx.db.db, id)).ref);
  const version = (x: DnaReferralsTable): contracts.ReferralVersion => ({
    version: x.version, status: x.status as ReferralStatus, bodyId: x.body_id, bodyRef: x.body_id ? (refs.get(x.body_id) ?? null) : null,
    sampleFrom: x.sample_from, sampleTakenOn: x.sample_taken_on, lab: x.lab, labRef: x.lab_ref, result: x.result as ReferralResult | null, resultOn: x.result_on,
    note: x.note, recordedBy: x.recorded_by, recordedAt: x.recorded_at,
  });
  const byReferral = new Map<string, DnaReferralsTable[]>();
  for (const x of rows) byReferral.set(x.referral, [...(byReferral.get(x.referral) ?? []), x]);
  return [...byReferral.values()].map((vs) => {
    const [cur, ...older] = [...vs].sort((a, b) => b.version - a.version);
    return { ...version(cur!), id: cur!.referral, reportRef: reportRefs.get(cur!.report_id) ?? "", history: older.map(version) };
  });
}

/**
 * What the ranking reads, by report: each body's latest referral's outcome (a result, or "pending" while a
 * comparison with a named body is under way), for reports whose family's dnaReferral consent stands.
 */
export async function dnaFindings(tx: Tx, reportIds?: readonly string[]): Promise<Map<string, DnaFinding[]>> {
  let q = fdb(tx).selectFrom("family_dna_referrals").selectAll().where("body_id", "is not", null).orderBy("recorded_at").orderBy("version");
  if (reportIds) {
    if (reportIds.length === 0) return new Map();
    q = q.where("report_id", "in", [...reportIds]);
  }
  const current = new Map<string, DnaReferralsTable>();
  for (const x of await q.execute()) current.set(x.referral, x);
  const consented = new Map<string, boolean>();
  const byBody = new Map<string, DnaReferralsTable>(); // report|body → the latest referral on it
  for (const x of current.values()) {
    const k = `${x.report_id}|${x.body_id}`;
    const was = byBody.get(k);
    if (!was || was.recorded_at <= x.recorded_at) byBody.set(k, x);
  }
  const out = new Map<string, DnaFinding[]>();
  for (const x of byBody.values()) {
    if (!consented.has(x.report_id)) consented.set(x.report_id, consents(await loadCaseReport(tx, x.report_id), "dnaReferral"));
    if (!consented.get(x.report_id)) continue;
    const finding: DnaFinding = { bodyId: x.body_id!, outcome: x.status === "result" ? (x.result as DnaFinding["outcome"]) : "pending", on: x.result_on };
    out.set(x.report_id, [...(out.get(x.report_id) ?? []), finding]);
  }
  return out;
}
