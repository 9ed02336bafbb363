import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { Conflict, Invalid, NotFound } from "../core/errors.ts";
import { newId } from "../core/ids.ts";
import type { Tx } from "../db/database.ts";
import type { EventObject } from "../ledger/index.ts";
import { cdb, type LinksTable } from "./tables.ts";
import { recordChanges, type Change } from "./history.ts";
import { Vocabularies } from "./vocabularies.ts";
import { EVIDENCE_KINDS, oneOf, resourceOf, type LinkConfidence } from "./records.ts";
import { originalFact } from "../archive/index.ts";
import * as contracts from "./contracts.ts";
import { parseInput } from "../core/input.ts";
import type { z } from "zod";
import { say } from "../core/messages.ts";

/**
 * Typed links between bodies and entities ("body B-000123 held by branch 215", "person X commands branch 215"),
 * each with the evidence it rests on (a photo, a number read on the body, a document, a testimony) and the
 * reasoning that connects them. A link is never deleted: it is retracted with a reason, and stays on record.
 */
export type EndKind = "body" | "entity";

export type Evidence = contracts.Evidence;

export type LinkView = contracts.LinkView;

export type NewLink = z.input<typeof contracts.NewLinkInput>;

function toLinkView(r: LinksTable): LinkView {
  return {
    id: r.id,
    type: r.type,
    from: { kind: r.from_kind as EndKind, id: r.from_id },
    to: { kind: r.to_kind as EndKind, id: r.to_id },
    evidence: JSON.parse(r.evidence) as Evidence[],
    reasoning: r.reasoning,
    confidence: r.confidence as LinkConfidence,
    version: r.version,
    createdAt: r.created_at,
    createdBy: r.created_by,
    retracted: r.retracted_at ? { at: r.retracted_at, by: r.retracted_by ?? "", reason: r.retraction_reason ?? "" } : null,
  };
}

/** The kind used in the link vocabulary's constraints: "body", or the entity's own kind. */
async function endKind(ctx: Ctx, tx: Tx, actor: Actor, end: { kind: EndKind; id: string }, field: string): Promise<string> {
  if (end.kind === "body") {
    const b = await cdb(tx).selectFrom("bodies").select(["sensitivity", "merged_into", "ref"]).where("id", "=", end.id).executeTakeFirst();
    if (!b) throw new Invalid(say("link.noBody", { id: end.id }), field);
    if (b.merged_into) throw new Invalid(say("body.mergedLink", { ref: b.ref }), field);
    ctx.policy.require(actor, "catalogue.edit", resourceOf(b));
    return "body";
  }
  if (end.kind !== "entity") throw new Invalid(say("link.endKind"), field);
  const e = await cdb(tx).selectFrom("entities").select(["kind", "sensitivity"]).where("id", "=", end.id).executeTakeFirst();
  if (!e) throw new Invalid(say("link.noEntity", { id: end.id }), field);
  ctx.policy.require(actor, "catalogue.edit", resourceOf(e));
  return e.kind;
}

async function checkEvidence(tx: Tx, list: Evidence[]): Promise<Evidence[]> {
  if (!Array.isArray(list) || list.length === 0) throw new Invalid(say("link.evidenceNeeded"), "evidence");
  if (list.length > 100) throw new Invalid(say("link.evidenceTooMany"), "evidence");
  const out: Evidence[] = [];
  for (const e of list) {
    const kind = oneOf(EVIDENCE_KINDS, e.kind, "evidence");
    const ref = (e.ref ?? "").trim();
    if (!ref || ref.length > 500) throw new Invalid(say("link.evidenceRef"), "evidence");
    if (kind === "photo") {
      if (!/^[0-9a-f]{64}$/.test(ref)) throw new Invalid(say("link.photoEvidence"), "evidence");
      if (!(await originalFact(tx, ref))) throw new Invalid(say("original.notInArchivePrefix", { sha256: ref.slice(0, 12) }), "evidence");
    }
    if (kind === "number") {
      const n = await cdb(tx).selectFrom("body_numbers").select("id").where("id", "=", ref).executeTakeFirst();
      if (!n) throw new Invalid(say("link.noNumber", { id: ref }), "evidence");
    }
    const note = e.note?.trim();
    if (note && note.length > 2000) throw new Invalid(say("link.noteTooLong"), "evidence");
    out.push({ kind, ref, ...(note ? { note } : {}) });
  }
  return out;
}

function linkObjects(r: LinksTable, evidence: Evidence[]): EventObject[] {
  return [
    { id: r.id, role: "link" },
    { id: r.from_id, role: r.from_kind },
    { id: r.to_id, role: r.to_kind },
    ...evidence.filter((e) => e.kind === "photo").map((e) => ({ sha256: e.ref, role: "evidence" })),
  ];
}

export async function createLink(ctx: Ctx, actor: Actor, sent: NewLink): Promise<LinkView> {
  ctx.policy.require(actor, "catalogue.edit");
  const input = parseInput(contracts.NewLinkInput, sent);
  const reasoning = input.reasoning.trim();
  if (reasoning.length < 3) throw new Invalid(say("link.reasoningNeeded"), "reasoning");
  const confidence = input.confidence ?? "probable";
  if (input.from.id === input.to.id) throw new Invalid(say("link.twoRecords"), "to");
  return ctx.db.transaction(async (tx) => {
    const vocab = await Vocabularies.load(tx);
    const type = vocab.require("link_type", input.type, "type");
    const fromKind = await endKind(ctx, tx, actor, input.from, "from");
    const toKind = await endKind(ctx, tx, actor, input.to, "to");
    const allowedFrom = type.extra.from;
    const allowedTo = type.extra.to;
    if (Array.isArray(allowedFrom) && !allowedFrom.includes(fromKind)) {
      throw new Invalid(say("link.fromKind", { type: type.code, allowed: allowedFrom.join(" / "), kind: fromKind }), "from");
    }
    if (Array.isArray(allowedTo) && !allowedTo.includes(toKind)) {
      throw new Invalid(say("link.toKind", { type: type.code, allowed: allowedTo.join(" / "), kind: toKind }), "to");
    }
    const evidence = await checkEvidence(tx, input.evidence);
    const now = ctx.clock.now().toISOString();
    const row: LinksTable = {
      id: newId("lnk"),
      type: type.code,
      from_kind: input.from.kind,
      from_id: input.from.id,
      to_kind: input.to.kind,
      to_id: input.to.id,
      evidence: JSON.stringify(evidence),
      reasoning,
      confidence,
      version: 1,
      created_at: now,
      created_by: actor.id,
      retracted_at: null,
      retracted_by: null,
      retraction_reason: null,
    };
    await cdb(tx).insertInto("links").values(row).execute();
    const rid = row.id;
    await recordChanges(ctx, tx, actor, {
      action: "link.create",
      objects: linkObjects(row, evidence),
      changes: [
        { recordType: "link", recordId: rid, field: "type", old: null, new: row.type },
        { recordType: "link", recordId: rid, field: "from", old: null, new: input.from },
        { recordType: "link", recordId: rid, field: "to", old: null, new: input.to },
        { recordType: "link", recordId: rid, field: "evidence", old: null, new: evidence },
        { recordType: "link", recordId: rid, field: "reasoning", old: null, new: reasoning },
        { recordType: "link", recordId: rid, field: "confidence", old: null, new: confidence },
      ],
    });
    return toLinkView(row);
  });
}

async function loadLink(tx: Tx, id: string): Promise<LinksTable> {
  const r = await cdb(tx).selectFrom("links").selectAll().where("id", "=", id).executeTakeFirst();
  if (!r) throw new NotFound(say("link.notFound", { id }));
  return r;
}

export async function updateLink(ctx: Ctx, actor: Actor, sent: z.input<typeof contracts.UpdateLinkInput>): Promise<LinkView> {
  ctx.policy.require(actor, "catalogue.edit");
  const input = parseInput(contracts.UpdateLinkInput, sent);
  return ctx.db.transaction(async (tx) => {
    const row = await loadLink(tx, input.id);
    if (row.retracted_at) throw new Conflict(say("link.retractedCreateNew"));
    if (input.version !== undefined && input.version !== row.version) throw new Conflict(say("link.changedSince"));
    await endKind(ctx, tx, actor, { kind: row.from_kind as EndKind, id: row.from_id }, "from");
    await endKind(ctx, tx, actor, { kind: row.to_kind as EndKind, id: row.to_id }, "to");
    const before = toLinkView(row);
    const next: LinksTable = { ...row };
    const changes: Change[] = [];
    if (input.evidence !== undefined) {
      const ev = await checkEvidence(tx, input.evidence);
      next.evidence = JSON.stringify(ev);
      changes.push({ recordType: "link", recordId: row.id, field: "evidence", old: before.evidence, new: ev });
    }
    if (input.reasoning !== undefined) {
      const r = input.reasoning.trim();
      if (r.length < 3) throw new Invalid(say("link.reasoningNeeded"), "reasoning");
      next.reasoning = r;
      changes.push({ recordType: "link", recordId: row.id, field: "reasoning", old: before.reasoning, new: r });
    }
    if (input.confidence !== undefined) {
      next.confidence = input.confidence;
      changes.push({ recordType: "link", recordId: row.id, field: "confidence", old: before.confidence, new: next.confidence });
    }
    const seq = await recordChanges(ctx, tx, actor, { action: "link.edit", objects: linkObjects(row, JSON.parse(next.evidence) as Evidence[]), changes });
    if (seq === null) return before;
    await cdb(tx)
      .updateTable("links")
      .set({ evidence: next.evidence, reasoning: next.reasoning, confidence: next.confidence, version: row.version + 1 })
      .where("id", "=", row.id)
      .execute();
    return toLinkView({ ...next, version: row.version + 1 });
  });
}

export async function retractLink(ctx: Ctx, actor: Actor, sent: z.input<typeof contracts.RetractLinkInput>): Promise<LinkView> {
  ctx.policy.require(actor, "catalogue.edit");
  const input = parseInput(contracts.RetractLinkInput, sent);
  const reason = input.reason.trim();
  if (reason.length < 3) throw new Invalid(say("link.retractReason"), "reason");
  return ctx.db.transaction(async (tx) => {
    const row = await loadLink(tx, input.id);
    if (row.retracted_at) throw new Conflict(say("link.alreadyRetracted"));
    const now = ctx.clock.now().toISOString();
    await cdb(tx)
      .updateTable("links")
      .set({ retracted_at: now, retracted_by: actor.id, retraction_reason: reason.slice(0, 2000), version: row.version + 1 })
      .where("id", "=", row.id)
      .execute();
    await recordChanges(ctx, tx, actor, {
      action: "link.retract",
      objects: linkObjects(row, []),
      changes: [{ recordType: "link", recordId: row.id, field: "retracted", old: null, new: reason.slice(0, 2000) }],
    });
    return toLinkView({ ...row, retracted_at: now, retracted_by: actor.id, retraction_reason: reason.slice(0, 2000), version: row.version + 1 });
  });
}

/** Links that touch a record (either end), oldest first; retracted ones only when asked. */
export async function linksOf(ctx: Ctx, actor: Actor, input: { recordId: string; includeRetracted?: boolean }): Promise<LinkView[]> {
  ctx.policy.require(actor, "catalogue.read");
  let q = cdb(ctx.db.db)
    .selectFrom("links")
    .selectAll()
    .where((eb) => eb.or([eb("from_id", "=", input.recordId), eb("to_id", "=", input.recordId)]))
    .orderBy("created_at")
    .orderBy("id");
  if (!input.includeRetracted) q = q.where("retracted_at", "is", null);
  const rows = await q.execute();
  // A link shows only where the reader may see both ends.
  const ids = [...new Set(rows.flatMap((r) => [r.from_id, r.to_id]))];
  const visible = new Set<string>();
  if (ids.length) {
    for (const b of await cdb(ctx.db.db).selectFrom("bodies").select(["id", "sensitivity"]).where("id", "in", ids).execute()) {
      if (ctx.policy.allows(actor, "catalogue.read", resourceOf(b))) visible.add(b.id);
    }
    for (const e of await cdb(ctx.db.db).selectFrom("entities").select(["id", "sensitivity"]).where("id", "in", ids).execute()) {
      if (ctx.policy.allows(actor, "catalogue.read", resourceOf(e))) visible.add(e.id);
    }
  }
  return rows.filter((r) => visible.has(r.from_id) && visible.has(r.to_id)).map(toLinkView);
}
