import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { Conflict } from "../core/errors.ts";
import { newId } from "../core/ids.ts";
import type { Tx } from "../db/database.ts";
import { cdb, type BodiesTable, type BodyIdentificationsTable } from "./tables.ts";
import { findBodyRow, updateBodyInTx, type SystemBodyPatch } from "./bodies.ts";
import { recordChanges } from "./history.ts";
import type { IdentificationStatus } from "./records.ts";
import type * as contracts from "./contracts.ts";
import { say } from "../core/messages.ts";

/**
 * A body identified as the person of a missing-person report. The families module records the caseworker's
 * confirmed decision and calls these use cases in its own transaction (it has asked the policy); the catalogue
 * keeps which report, by id and reference only, and sets the body's identification status. Reversing ends the
 * record (never deleted) and restores the status the body had before. One standing identification per body and
 * per report: a second is refused with a sentence naming the one that stands (and the unique indexes of
 * migration 0014 keep the rule under concurrent writers). Decision 0020.
 */
export type IdentificationView = contracts.IdentificationView;

export interface IdentifyBody {
  /** The body's id or reference. */
  body: string;
  reportId: string;
  reportRef: string;
  decisionId: string;
  /** The person's names, filled into the body only where it has none (null: the family did not consent to share). */
  names?: { nameAr: string | null; nameLat: string | null } | null;
}

function view(r: BodyIdentificationsTable, bodyRef: string): IdentificationView {
  return {
    id: r.id, bodyId: r.body_id, bodyRef, reportId: r.report_id, reportRef: r.report_ref, decisionId: r.decision_id, since: r.created_at, by: r.created_by,
    endedAt: r.ended_at, endedBy: r.ended_by,
  };
}

async function standing(tx: Tx, where: { body?: string; report?: string }): Promise<BodyIdentificationsTable | undefined> {
  let q = cdb(tx).selectFrom("body_identifications").selectAll().where("ended_at", "is", null);
  if (where.body) q = q.where("body_id", "=", where.body);
  if (where.report) q = q.where("report_id", "=", where.report);
  return q.executeTakeFirst();
}

async function refOf(tx: Tx, bodyId: string): Promise<string> {
  return (await cdb(tx).selectFrom("bodies").select("ref").where("id", "=", bodyId).executeTakeFirstOrThrow()).ref;
}

/** Records that a body is the person of a report, sets its status to identified; one custody event. */
export async function identifyBodyInTx(ctx: Ctx, tx: Tx, actor: Actor, input: IdentifyBody): Promise<IdentificationView> {
  const body = await findBodyRow(tx, input.body);
  if (body.merged_into) throw new Conflict(say("body.mergedIdentify", { ref: body.ref }));
  const onBody = await standing(tx, { body: body.id });
  if (onBody && onBody.report_id !== input.reportId) {
    throw new Conflict(say("identification.bodyTaken", { ref: body.ref, report: onBody.report_ref }));
  }
  const onReport = await standing(tx, { report: input.reportId });
  if (onReport && onReport.body_id !== body.id) {
    throw new Conflict(say("identification.reportTaken", { report: input.reportRef, body: await refOf(tx, onReport.body_id) }));
  }
  if (onBody) return view(onBody, body.ref); // the same report confirmed again: it stands already
  const fill = !body.name_ar && !body.name_lat && input.names && (input.names.nameAr || input.names.nameLat);
  const patch: SystemBodyPatch = { identificationStatus: "identified", ...(fill ? { nameAr: input.names!.nameAr, nameLat: input.names!.nameLat } : {}) };
  const now = ctx.clock.now().toISOString();
  const row: BodyIdentificationsTable = {
    id: newId("bid"), body_id: body.id, report_id: input.reportId, report_ref: input.reportRef, decision_id: input.decisionId,
    previous_status: body.identification_status, names_filled: fill ? 1 : 0, created_by: actor.id, created_at: now, ended_by: null, ended_at: null, end_decision_id: null,
  };
  await cdb(tx).insertInto("body_identifications").values(row).execute();
  await record(ctx, tx, actor, body, patch, { action: "body.identified", row, link: { old: null, new: input.reportRef } });
  return view(row, body.ref);
}

/**
 * Ends the standing identification of a body as a report's person (the confirmed decision was changed):
 * restores the body's earlier status, clears names that the identification filled; one custody event. Null
 * when none stands.
 */
export async function reverseIdentificationInTx(ctx: Ctx, tx: Tx, actor: Actor, input: { body: string; reportId: string; decisionId: string }): Promise<IdentificationView | null> {
  // by the report: a report has at most one standing identification, and after a merge of bodies it stands on
  // the body kept, not the one the decision named
  const row = await standing(tx, { report: input.reportId });
  if (!row) return null;
  const body = await findBodyRow(tx, row.body_id);
  const now = ctx.clock.now().toISOString();
  await cdb(tx).updateTable("body_identifications").set({ ended_at: now, ended_by: actor.id, end_decision_id: input.decisionId }).where("id", "=", row.id).execute();
  const ended = { ...row, ended_at: now, ended_by: actor.id, end_decision_id: input.decisionId };
  if (body.merged_into) return view(ended, body.ref);
  const patch: SystemBodyPatch = { identificationStatus: row.previous_status as IdentificationStatus, ...(row.names_filled ? { nameAr: null, nameLat: null } : {}) };
  await record(ctx, tx, actor, body, patch, { action: "body.identification-reversed", row: ended, link: { old: row.report_ref, new: null } });
  return view(ended, body.ref);
}

/**
 * Two missing-person reports merged into one (families' duplicate merge): the standing identification of the
 * report merged away moves to the report kept, which now carries the confirmed decision `decisionId`. The old
 * record is ended (never deleted) and a new one stands for the kept report, with the same earlier status and
 * names, so reversing it later restores the body as it was before either. The body's status does not change;
 * its history says `identifiedAs` went from one reference to the other; one custody event. Null when the
 * merged report identified no body.
 */
export async function moveIdentificationToReportInTx(
  ctx: Ctx,
  tx: Tx,
  actor: Actor,
  input: { fromReportId: string; toReportId: string; toReportRef: string; decisionId: string },
): Promise<IdentificationView | null> {
  const row = await standing(tx, { report: input.fromReportId });
  if (!row) return null;
  const body = await findBodyRow(tx, row.body_id);
  const onReport = await standing(tx, { report: input.toReportId });
  if (onReport) {
    // the families' merge refuses this first (families/identification.ts); here it is said in the same words
    throw new Conflict(say("families.mergeConfirmedTwo", { report: input.toReportRef, body: await refOf(tx, onReport.body_id), report2: row.report_ref, body2: body.ref }));
  }
  const now = ctx.clock.now().toISOString();
  await cdb(tx).updateTable("body_identifications").set({ ended_at: now, ended_by: actor.id, end_decision_id: input.decisionId }).where("id", "=", row.id).execute();
  const moved: BodyIdentificationsTable = {
    ...row, id: newId("bid"), report_id: input.toReportId, report_ref: input.toReportRef, decision_id: input.decisionId, created_by: actor.id, created_at: now,
    ended_by: null, ended_at: null, end_decision_id: null,
  };
  await cdb(tx).insertInto("body_identifications").values(moved).execute();
  await recordChanges(ctx, tx, actor, {
    action: "body.identification-moved",
    type: "identification",
    objects: [
      { id: body.id, role: "body" },
      { id: row.report_id, role: "report merged" },
      { id: input.toReportId, role: "report" },
      { id: row.id, role: "identification ended" },
      { id: moved.id, role: "identification" },
    ],
    changes: [{ recordType: "body", recordId: body.id, field: "identifiedAs", old: row.report_ref, new: input.toReportRef }],
    detail: { ref: body.ref },
  });
  return view(moved, body.ref);
}

async function record(
  ctx: Ctx,
  tx: Tx,
  actor: Actor,
  body: BodiesTable,
  patch: SystemBodyPatch,
  { action, row, link }: { action: string; row: BodyIdentificationsTable; link: { old: string | null; new: string | null } },
): Promise<void> {
  const { changes } = await updateBodyInTx(ctx, tx, actor, body.id, patch, { action, defer: true });
  // the report's reference is history (readable with catalogue.read), never in the public log's detail
  await recordChanges(ctx, tx, actor, {
    action,
    type: "identification",
    objects: [{ id: body.id, role: "body" }, { id: row.report_id, role: "report" }, { id: row.id, role: "identification" }],
    changes: [...changes, { recordType: "body", recordId: body.id, field: "identifiedAs", ...link }],
    detail: { ref: body.ref },
  });
}

/** A body's identifications, the standing one first, then the ended ones newest first. */
export async function identificationsOf(tx: Tx, bodyId: string): Promise<IdentificationView[]> {
  const rows = await cdb(tx).selectFrom("body_identifications").selectAll().where("body_id", "=", bodyId).orderBy("created_at", "desc").orderBy("id", "desc").execute();
  if (rows.length === 0) return [];
  const ref = await refOf(tx, bodyId);
  return rows.sort((a, b) => Number(a.ended_at !== null) - Number(b.ended_at !== null)).map((r) => view(r, ref));
}

/**
 * Two bodies merged: a standing identification of the absorbed one moves to the body kept (history on both);
 * two standing identifications of different reports refuse the merge with a sentence. Returns the change for
 * the merge's own history, or null.
 */
export async function moveIdentificationOnMerge(tx: Tx, keep: BodiesTable, absorb: BodiesTable): Promise<{ recordType: string; recordId: string; field: string; old: unknown; new: unknown }[]> {
  const [k, a] = [await standing(tx, { body: keep.id }), await standing(tx, { body: absorb.id })];
  if (!a) return [];
  if (k && k.report_id !== a.report_id) {
    throw new Conflict(say("identification.mergeTwo", { body: keep.ref, body2: absorb.ref, report: k.report_ref, report2: a.report_ref }));
  }
  // (the same report on both cannot be: one standing identification per report)
  // reversing it later restores the status the kept body had before
  await cdb(tx).updateTable("body_identifications").set({ body_id: keep.id, previous_status: keep.identification_status }).where("id", "=", a.id).execute();
  return [
    { recordType: "body", recordId: absorb.id, field: "identifiedAs", old: a.report_ref, new: null },
    { recordType: "body", recordId: keep.id, field: "identifiedAs", old: null, new: a.report_ref },
  ];
}

/** The standing identification of a body, if any (an edit of its status by hand is refused while one stands). */
export async function standingIdentification(tx: Tx, bodyId: string): Promise<BodyIdentificationsTable | undefined> {
  return standing(tx, { body: bodyId });
}
