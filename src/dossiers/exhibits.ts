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
import { EVIDENCE_KINDS, EXHIBIT_KINDS, exhibitNumber, loadDossier, logDossierChange, toExhibitView, type EvidenceRef, type ExhibitKind, type ExhibitView } from "./dossiers.ts";
import { ddb } from "./tables.ts";
import { originalFact } from "../archive/index.ts";

const SHA = /^[0-9a-f]{64}$/;

export interface AddExhibit {
  dossierId: string;
  kind: string;
  /** A body id or reference (B-000123), a photo's SHA-256, a review id, an entity id. */
  ref: string;
  reasoning: string;
  evidence?: EvidenceRef[];
}

/** Checks the selected record exists (and the actor may read it); returns the id the exhibit stores. */
async function resolveTarget(ctx: Ctx, actor: Actor, kind: ExhibitKind, ref: string): Promise<string> {
  switch (kind) {
    case "body": {
      const row = await findBodyRow(ctx.db.db, ref);
      ctx.policy.require(actor, "catalogue.read", resourceOf(row));
      if (row.merged_into) throw new Invalid(`Body ${row.ref} was merged into another record; select that one.`, "ref");
      return row.id;
    }
    case "photo": {
      const sha = ref.toLowerCase();
      if (!SHA.test(sha)) throw new Invalid("A photo is selected by its original's SHA-256 (64 hex digits).", "ref");
      const o = await originalFact(ctx.db.db, sha);
      if (!o) throw new NotFound(`No original with SHA-256 ${sha}.`);
      if (o.status !== "preserved") throw new Invalid(`The original ${sha.slice(0, 12)}… is ${o.status}, not preserved; it cannot be an exhibit.`, "ref");
      return sha;
    }
    case "review":
      return (await getReview(ctx, actor, ref)).id;
    default: {
      const e = await getEntity(ctx, actor, ref);
      if (e.kind !== kind) throw new Invalid(`Entity ${ref} is a ${e.kind}, not a ${kind}.`, "kind");
      return e.id;
    }
  }
}

function checkReasoning(reasoning: string): string {
  const r = (reasoning ?? "").trim();
  if (r.length < 3) throw new Invalid("Say which evidence ties this record to the case (reasoning).", "reasoning");
  if (r.length > 8000) throw new Invalid("The reasoning is at most 8000 characters.", "reasoning");
  return r;
}

async function checkEvidence(ctx: Ctx, list: EvidenceRef[] | undefined): Promise<EvidenceRef[]> {
  const out: EvidenceRef[] = [];
  if ((list ?? []).length > 100) throw new Invalid("At most 100 pieces of evidence per exhibit.", "evidence");
  for (const e of list ?? []) {
    if (!(EVIDENCE_KINDS as readonly string[]).includes(e.kind)) throw new Invalid(`Evidence is one of ${EVIDENCE_KINDS.join(", ")}, not ${JSON.stringify(e.kind)}.`, "evidence");
    const ref = (e.ref ?? "").trim();
    if (!ref || ref.length > 500) throw new Invalid("Each piece of evidence names what it is (ref, at most 500 characters).", "evidence");
    if (e.kind === "photo") {
      if (!SHA.test(ref)) throw new Invalid("Photo evidence is named by the original's SHA-256.", "evidence");
      if (!(await originalFact(ctx.db.db, ref))) throw new Invalid(`No original with SHA-256 ${ref.slice(0, 12)}… in this archive.`, "evidence");
    }
    const note = e.note?.trim();
    if (note && note.length > 2000) throw new Invalid("An evidence note is at most 2000 characters.", "evidence");
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
export async function addExhibit(ctx: Ctx, actor: Actor, input: AddExhibit): Promise<ExhibitView> {
  ctx.policy.require(actor, "dossier.edit");
  if (!(EXHIBIT_KINDS as readonly string[]).includes(input.kind)) throw new Invalid(`An exhibit is one of ${EXHIBIT_KINDS.join(", ")}, not ${JSON.stringify(input.kind)}.`, "kind");
  const kind = input.kind as ExhibitKind;
  const reasoning = checkReasoning(input.reasoning);
  await loadDossier(ctx.db.db, input.dossierId);
  const ref = await resolveTarget(ctx, actor, kind, (input.ref ?? "").trim());
  const evidence = JSON.stringify(await checkEvidence(ctx, input.evidence));
  return ctx.db.transaction(async (tx) => {
    await loadDossier(tx, input.dossierId);
    const db = ddb(tx);
    const now = ctx.clock.now().toISOString();
    const old = await db.selectFrom("dossier_exhibits").selectAll().where("dossier_id", "=", input.dossierId).where("kind", "=", kind).where("ref", "=", ref).executeTakeFirst();
    if (old?.status === "active") throw new Conflict(`This ${kind} is already exhibit ${old.number} of the dossier; change its reasoning instead.`);
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
  if (!row) throw new NotFound(`Dossier ${dossierId} has no exhibit ${number}.`);
  if (row.status !== "active") throw new Conflict(`Exhibit ${row.number} is withdrawn; add its record again to bring it back.`);
  return row;
}

/** Withdraws an exhibit with a reason: it keeps its number, stays in later versions as withdrawn. */
export async function withdrawExhibit(ctx: Ctx, actor: Actor, input: { dossierId: string; number: string; reason: string }): Promise<ExhibitView> {
  ctx.policy.require(actor, "dossier.edit");
  const reason = (input.reason ?? "").trim();
  if (reason.length < 3 || reason.length > 2000) throw new Invalid("Say why the exhibit is withdrawn (reason, 3 to 2000 characters).", "reason");
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
export async function reviseReasoning(ctx: Ctx, actor: Actor, input: { dossierId: string; number: string; reasoning: string; evidence?: EvidenceRef[] }): Promise<ExhibitView> {
  ctx.policy.require(actor, "dossier.edit");
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
