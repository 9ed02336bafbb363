/**
 * Exhibits of a dossier. A number (E-0001…) is issued once per dossier from a counter and never reused or
 * changed: a withdrawn exhibit keeps its number, and selecting the same record again brings back the same
 * number (an exhibit number names one record in the case for good, in every version and every package).
 */
import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { Conflict, Invalid, NotFound } from "../core/errors.ts";
import { newId } from "../core/ids.ts";
import type { EventObject } from "../ledger/index.ts";
import { findBodyRow, getEntity } from "../catalogue/index.ts";
import { resourceOf } from "../catalogue/index.ts";
import { getReview } from "../review/index.ts";
import { exhibitNumber, loadDossier, logDossierChange, toExhibitView, type EvidenceRef, type ExhibitKind, type ExhibitView } from "./dossiers.ts";
import { ddb } from "./tables.ts";
import { originalFact } from "../archive/index.ts";
import { parseInput } from "../core/input.ts";
import { say } from "../core/messages.ts";
import type { z } from "zod";
import * as contracts from "./contracts.ts";

const SHA = /^[0-9a-f]{64}$/;

/** `ref`: a body id or reference (B-000123), a photo's SHA-256, a review id, an entity id. */
export type AddExhibit = z.input<typeof contracts.AddExhibitInput>;

/** Checks the selected record exists (and the actor may read it); returns the id the exhibit stores. */
async function resolveTarget(ctx: Ctx, actor: Actor, kind: ExhibitKind, ref: string): Promise<string> {
  switch (kind) {
    case "body": {
      const row = await findBodyRow(ctx.db.db, ref);
      ctx.policy.require(actor, "catalogue.read", resourceOf(row));
      if (row.merged_into) throw new Invalid(say("exhibit.bodyMerged", { ref: row.ref }), "ref");
      return row.id;
    }
    case "photo": {
      const sha = ref.toLowerCase();
      if (!SHA.test(sha)) throw new Invalid(say("exhibit.photoBySha"), "ref");
      const o = await originalFact(ctx.db.db, sha);
      if (!o) throw new NotFound(say("record.notFound", { kind: "original" }));
      if (o.status !== "preserved") throw new Invalid(say("exhibit.notPreserved", { sha256: sha.slice(0, 12), status: o.status }), "ref");
      return sha;
    }
    case "review":
      return (await getReview(ctx, actor, ref)).id;
    default: {
      const e = await getEntity(ctx, actor, ref);
      if (e.kind !== kind) {
        const name = e.nameEn ?? e.nameAr ?? e.number ?? ref;
        throw new Invalid(kind === "unit" ? say("exhibit.notAUnit", { name, kind: e.kind }) : kind === "person" ? say("exhibit.notAPerson", { name, kind: e.kind }) : say("exhibit.notAFacility", { name, kind: e.kind }), "kind");
      };
      return e.id;
    }
  }
}

function checkReasoning(reasoning: string): string {
  const r = (reasoning ?? "").trim();
  if (r.length < 3) throw new Invalid(say("exhibit.reasoningNeeded"), "reasoning");
  return r;
}

async function checkEvidence(ctx: Ctx, list: EvidenceRef[] | undefined): Promise<EvidenceRef[]> {
  const out: EvidenceRef[] = [];
  for (const e of list ?? []) {
    const ref = e.ref.trim();
    if (!ref) throw new Invalid(say("exhibit.evidenceRef"), "evidence");
    if (e.kind === "photo") {
      if (!SHA.test(ref)) throw new Invalid(say("link.photoEvidence"), "evidence");
      if (!(await originalFact(ctx.db.db, ref))) throw new Invalid(say("original.notInArchivePrefix", { sha256: ref.slice(0, 12) }), "evidence");
    }
    const note = e.note?.trim();
    out.push({ kind: e.kind, ref, ...(note ? { note } : {}) });
  }
  return out;
}

function targetObject(kind: string, ref: string): EventObject {
  return kind === "photo" ? { sha256: ref, role: "exhibit" } : { id: ref, role: kind };
}

/**
 * Selects a record as an exhibit with the reasoning for it. A record withdrawn earlier comes back under its old
 * number with the new reasoning; a record already selected is refused (change its reasoning instead).
 */
export async function addExhibit(ctx: Ctx, actor: Actor, sent: AddExhibit): Promise<ExhibitView> {
  ctx.policy.require(actor, "dossier.edit");
  const input = parseInput(contracts.AddExhibitInput, sent);
  const kind: ExhibitKind = input.kind;
  const reasoning = checkReasoning(input.reasoning);
  await loadDossier(ctx.db.db, input.dossierId);
  const ref = await resolveTarget(ctx, actor, kind, input.ref.trim());
  const evidence = JSON.stringify(await checkEvidence(ctx, input.evidence));
  return ctx.db.transaction(async (tx) => {
    await loadDossier(tx, input.dossierId);
    const db = ddb(tx);
    const now = ctx.clock.now().toISOString();
    const old = await db.selectFrom("dossier_exhibits").selectAll().where("dossier_id", "=", input.dossierId).where("kind", "=", kind).where("ref", "=", ref).executeTakeFirst();
    if (old?.status === "active") throw new Conflict(say("exhibit.already", { kind, number: old.number }));
    if (old) {
      await db.updateTable("dossier_exhibits").set({ status: "active", reasoning, evidence, withdrawn_at: null, withdrawn_by: null, withdraw_reason: null, updated_at: now }).where("id", "=", old.id).execute();
      await logDossierChange(ctx, tx, actor, input.dossierId, [{ id: old.id, role: "dossier exhibit" }, targetObject(kind, ref)], { action: "exhibit.restore", exhibit: old.number, kind });
      return toExhibitView({ ...old, status: "active", reasoning, evidence, withdrawn_at: null, withdrawn_by: null, withdraw_reason: null, updated_at: now });
    }
    // The counter is taken with an atomic increment: two editors at once never get one number.
    const bumped = await db.updateTable("dossiers").set((eb) => ({ next_exhibit: eb("next_exhibit", "+", 1) })).where("id", "=", input.dossierId).returning("next_exhibit").executeTakeFirstOrThrow();
    const number = exhibitNumber(Number(bumped.next_exhibit) - 1);
    const row = { id: newId("dex"), dossier_id: input.dossierId, number, kind, ref, reasoning, evidence, status: "active", added_by: actor.id, added_at: now, withdrawn_by: null, withdrawn_at: null, withdraw_reason: null, updated_at: now };
    await db.insertInto("dossier_exhibits").values(row).execute();
    await logDossierChange(ctx, tx, actor, input.dossierId, [{ id: row.id, role: "dossier exhibit" }, targetObject(kind, ref)], { action: "exhibit.add", exhibit: number, kind });
    return toExhibitView(row);
  });
}

async function activeExhibit(ctx: Ctx, tx: Parameters<typeof ddb>[0], dossierId: string, number: string) {
  const row = await ddb(tx).selectFrom("dossier_exhibits").selectAll().where("dossier_id", "=", dossierId).where("number", "=", number.toUpperCase()).executeTakeFirst();
  if (!row) throw new NotFound(say("exhibit.notFound", { number: number.toUpperCase() }));
  if (row.status !== "active") throw new Conflict(say("exhibit.withdrawn", { number: row.number }));
  return row;
}

/** Withdraws an exhibit with a reason: it keeps its number, stays in later versions as withdrawn. */
export async function withdrawExhibit(ctx: Ctx, actor: Actor, sent: z.input<typeof contracts.WithdrawExhibitInput>): Promise<ExhibitView> {
  ctx.policy.require(actor, "dossier.edit");
  const input = parseInput(contracts.WithdrawExhibitInput, sent);
  const reason = input.reason.trim();
  if (reason.length < 3) throw new Invalid(say("exhibit.withdrawReason"), "reason");
  return ctx.db.transaction(async (tx) => {
    const row = await activeExhibit(ctx, tx, input.dossierId, input.number);
    const now = ctx.clock.now().toISOString();
    const next = { ...row, status: "withdrawn", withdrawn_at: now, withdrawn_by: actor.id, withdraw_reason: reason, updated_at: now };
    await ddb(tx).updateTable("dossier_exhibits").set({ status: next.status, withdrawn_at: now, withdrawn_by: actor.id, withdraw_reason: reason, updated_at: now }).where("id", "=", row.id).execute();
    await logDossierChange(ctx, tx, actor, input.dossierId, [{ id: row.id, role: "dossier exhibit" }, targetObject(row.kind, row.ref)], { action: "exhibit.withdraw", exhibit: row.number, kind: row.kind });
    return toExhibitView(next);
  });
}

/** Replaces an exhibit's reasoning (and evidence, when given); earlier versions keep the reasoning they froze. */
export async function reviseReasoning(ctx: Ctx, actor: Actor, sent: z.input<typeof contracts.ReviseReasoningInput>): Promise<ExhibitView> {
  ctx.policy.require(actor, "dossier.edit");
  const input = parseInput(contracts.ReviseReasoningInput, sent);
  const reasoning = checkReasoning(input.reasoning);
  const evidence = input.evidence ? JSON.stringify(await checkEvidence(ctx, input.evidence)) : undefined;
  return ctx.db.transaction(async (tx) => {
    const row = await activeExhibit(ctx, tx, input.dossierId, input.number);
    const now = ctx.clock.now().toISOString();
    const next = { ...row, reasoning, evidence: evidence ?? row.evidence, updated_at: now };
    await ddb(tx).updateTable("dossier_exhibits").set({ reasoning, evidence: next.evidence, updated_at: now }).where("id", "=", row.id).execute();
    await logDossierChange(ctx, tx, actor, input.dossierId, [{ id: row.id, role: "dossier exhibit" }, targetObject(row.kind, row.ref)], { action: "exhibit.reasoning", exhibit: row.number, kind: row.kind });
    return toExhibitView(next);
  });
}
