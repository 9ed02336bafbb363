import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { normaliseArabic, toLatinDigits } from "../core/arabic.ts";
import { Conflict, Forbidden, Invalid, NotFound } from "../core/errors.ts";
import { newId } from "../core/ids.ts";
import { sql } from "kysely";
import type { Tx } from "../db/database.ts";
import { cdb, type BodyNumbersTable } from "./tables.ts";
import { recordChanges, type Change } from "./history.ts";
import { refreshSearchText } from "./search-index.ts";
import { resourceOf } from "./records.ts";
import * as contracts from "./contracts.ts";
import { parseInput } from "../core/input.ts";
import type { z } from "zod";
import { say } from "../core/messages.ts";

/**
 * The numbers written on a body (detainee, branch, forensic examiner), each kept as transcribed with where it
 * was read (which photo), how (OCR with its confidence, or typed by a person) and whether a second person has
 * checked it. A wrong number is never overwritten: it is retired with a reason and a new one entered. The
 * body's current number per role (bodies.detainee_no …) is the most recently entered active one.
 */
export const NUMBER_ROLES = ["detainee", "branch", "examiner"] as const;
export type NumberRole = (typeof NUMBER_ROLES)[number];
export type NumberMethod = "ocr" | "typed";

export type BodyNumber = contracts.BodyNumber;

const MAX_NUMBER = 40;

/**
 * The matching form of a number: Latin digits, Arabic letters folded, no spaces, any slash, dash or dot
 * between parts as "/". "١٢٣٤ / ب" → "1234/ب". The value as transcribed is always kept beside it.
 */
export function normaliseNumber(s: string): string {
  return normaliseArabic(toLatinDigits(s))
    .replace(/\s+/g, "")
    .replace(/[\\/\-\u2010-\u2015.]+/g, "/")
    .replace(/^\/+|\/+$/g, "");
}

/** Checks a number as entered: at most 40 characters and at least one digit (or a branch code). */
export function checkNumberValue(role: NumberRole, value: string, field: string = role): string {
  const v = value.trim();
  if (v === "") throw new Invalid(say("number.empty", { numberRole: role }), field);
  if (v.length > MAX_NUMBER) throw new Invalid(say("number.tooLong", { numberRole: role, max: MAX_NUMBER }), field);
  const norm = normaliseNumber(v);
  if (role !== "branch" && !/\d/.test(norm)) throw new Invalid(say("number.noDigits", { numberRole: role, value: v }), field);
  if (norm === "") throw new Invalid(say("number.noLettersOrDigits", { value: v }), field);
  return v;
}

export function isNumberRole(r: string): r is NumberRole {
  return (NUMBER_ROLES as readonly string[]).includes(r);
}

export function toBodyNumber(r: BodyNumbersTable): BodyNumber {
  return {
    id: r.id,
    bodyId: r.body_id,
    role: r.role as NumberRole,
    value: r.value,
    valueNorm: r.value_norm,
    sourceSha256: r.source_sha256,
    method: r.method as NumberMethod,
    confidence: r.confidence,
    origin: r.origin,
    enteredBy: r.entered_by,
    enteredAt: r.entered_at,
    checkedBy: r.checked_by,
    checkedAt: r.checked_at,
    retired: r.retired_at ? { at: r.retired_at, by: r.retired_by ?? "", reason: r.retired_reason ?? "" } : null,
  };
}

export interface NewNumber {
  role: NumberRole;
  value: string;
  sourceSha256?: string | null;
  method: NumberMethod;
  confidence?: number | null;
  origin?: string | null;
  /** Who entered it: the person, or for OCR the reader ("system:ocr/…"). */
  enteredBy: string;
}

/** Inserts numbers for a body (no event: the caller records the change that brought them). */
export async function insertNumbers(tx: Tx, bodyId: string, at: string, numbers: NewNumber[]): Promise<BodyNumbersTable[]> {
  if (numbers.length === 0) return [];
  const first = await allocateSeq(tx, numbers.length);
  const rows: BodyNumbersTable[] = numbers.map((n, i) => ({
    id: newId("num"),
    seq: first + i,
    body_id: bodyId,
    role: n.role,
    value: n.value.trim(),
    value_norm: normaliseNumber(n.value),
    source_sha256: n.sourceSha256 ?? null,
    method: n.method,
    confidence: n.confidence ?? null,
    origin: n.origin ?? null,
    entered_by: n.enteredBy,
    entered_at: at,
    checked_by: null,
    checked_at: null,
    retired_at: null,
    retired_by: null,
    retired_reason: null,
  }));
  for (let i = 0; i < rows.length; i += 200) await cdb(tx).insertInto("body_numbers").values(rows.slice(i, i + 200)).execute();
  return rows;
}

/** Reserves n consecutive entry numbers; the counter row serialises concurrent writers. */
async function allocateSeq(tx: Tx, n: number): Promise<number> {
  const row = await cdb(tx)
    .updateTable("ref_counters")
    .set({ next: sql<number>`next + ${n}` })
    .where("name", "=", "number")
    .returning("next")
    .executeTakeFirstOrThrow();
  return Number(row.next) - n;
}

const COLUMN: Record<NumberRole, { value: "detainee_no" | "branch_no" | "examiner_no"; norm: "detainee_no_norm" | "branch_no_norm" | "examiner_no_norm"; field: string }> = {
  detainee: { value: "detainee_no", norm: "detainee_no_norm", field: "detaineeNo" },
  branch: { value: "branch_no", norm: "branch_no_norm", field: "branchNo" },
  examiner: { value: "examiner_no", norm: "examiner_no_norm", field: "examinerNo" },
};

/**
 * Sets the body's current number per role from its active numbers (the last entered wins) and
 * returns the body-field changes for the history. Does not touch version or search text.
 */
export async function refreshCurrentNumbers(tx: Tx, bodyId: string): Promise<Change[]> {
  const db = cdb(tx);
  const body = await db.selectFrom("bodies").selectAll().where("id", "=", bodyId).executeTakeFirstOrThrow();
  const active = await db
    .selectFrom("body_numbers")
    .selectAll()
    .where("body_id", "=", bodyId)
    .where("retired_at", "is", null)
    .orderBy("seq", "desc")
    .execute();
  const set: Record<string, string | null> = {};
  const changes: Change[] = [];
  for (const role of NUMBER_ROLES) {
    const c = COLUMN[role];
    const best = active.find((n) => n.role === role);
    const value = best?.value ?? null;
    if (value !== body[c.value] || (best?.value_norm ?? null) !== body[c.norm]) {
      set[c.value] = value;
      set[c.norm] = best?.value_norm ?? null;
      changes.push({ recordType: "body", recordId: bodyId, field: c.field, old: body[c.value], new: value });
    }
  }
  if (Object.keys(set).length) await db.updateTable("bodies").set(set).where("id", "=", bodyId).execute();
  return changes;
}

async function bumpBody(ctx: Ctx, tx: Tx, bodyId: string): Promise<void> {
  await cdb(tx)
    .updateTable("bodies")
    .set((eb) => ({ version: eb("version", "+", 1), updated_at: ctx.clock.now().toISOString() }))
    .where("id", "=", bodyId)
    .execute();
}

async function activeBody(tx: Tx, bodyId: string): Promise<{ id: string; sensitivity: string; merged_into: string | null }> {
  const b = await cdb(tx).selectFrom("bodies").select(["id", "sensitivity", "merged_into"]).where("id", "=", bodyId).executeTakeFirst();
  if (!b) throw new NotFound(`No body with id ${bodyId}.`).says("record.notFound", { kind: "body" });
  if (b.merged_into) throw new Conflict(say("body.mergedInto", { body: bodyId, into: b.merged_into }));
  return b;
}

export type AddNumber = z.input<typeof contracts.AddNumberInput>;

/** A person types a number (from a photo or a document); it awaits a second person's check. */
export async function addNumber(ctx: Ctx, actor: Actor, sent: AddNumber): Promise<BodyNumber> {
  ctx.policy.require(actor, "catalogue.edit");
  const input = parseInput(contracts.AddNumberInput, sent);
  const value = checkNumberValue(input.role, input.value, "value");
  return ctx.db.transaction(async (tx) => {
    const body = await activeBody(tx, input.bodyId);
    ctx.policy.require(actor, "catalogue.edit", resourceOf(body));
    if (input.sourceSha256) await requirePhotoOfBody(tx, input.bodyId, input.sourceSha256);
    const now = ctx.clock.now().toISOString();
    const [row] = await insertNumbers(tx, input.bodyId, now, [
      { role: input.role, value, sourceSha256: input.sourceSha256 ?? null, method: "typed", origin: "user", enteredBy: actor.id },
    ]);
    const bodyChanges = await refreshCurrentNumbers(tx, input.bodyId);
    await bumpBody(ctx, tx, input.bodyId);
    await refreshSearchText(tx, input.bodyId);
    await recordChanges(ctx, tx, actor, {
      action: "number.add",
      objects: [{ id: input.bodyId, role: "body" }, { id: row!.id, role: "number" }, ...(input.sourceSha256 ? [{ sha256: input.sourceSha256, role: "source photo" }] : [])],
      changes: [
        { recordType: "body_number", recordId: row!.id, field: "value", old: null, new: value },
        { recordType: "body_number", recordId: row!.id, field: "role", old: null, new: input.role },
        ...bodyChanges,
      ],
    });
    return toBodyNumber(row!);
  });
}

async function requirePhotoOfBody(tx: Tx, bodyId: string, sha256: string): Promise<void> {
  const p = await cdb(tx).selectFrom("body_photos").select("original_sha256").where("body_id", "=", bodyId).where("original_sha256", "=", sha256).executeTakeFirst();
  if (!p) throw new Invalid(say("number.photoNotOfBody", { sha256: sha256.slice(0, 12) }), "sourceSha256");
}

/**
 * `agree`: the checker read the same number. `correctedValue`: when the checker reads something else, what they
 * read (the old number is retired, this one awaits a check).
 */
export type CheckNumber = z.input<typeof contracts.CheckNumberInput>;

/**
 * The second-person check. The person who typed a number cannot check it (OCR numbers may be checked by anyone,
 * including whoever accepted the proposal). Agreeing marks it checked; disagreeing retires it and enters the
 * checker's reading, which in turn awaits someone else's check.
 */
export async function checkNumber(ctx: Ctx, actor: Actor, sent: CheckNumber): Promise<BodyNumber> {
  ctx.policy.require(actor, "catalogue.check");
  const input = parseInput(contracts.CheckNumberInput, sent);
  return ctx.db.transaction(async (tx) => {
    const db = cdb(tx);
    const n = await db.selectFrom("body_numbers").selectAll().where("id", "=", input.numberId).executeTakeFirst();
    if (!n) throw new NotFound(say("number.notFound", { id: input.numberId }));
    const body = await activeBody(tx, n.body_id);
    ctx.policy.require(actor, "catalogue.check", resourceOf(body));
    if (n.retired_at) throw new Conflict(say("number.retiredCheckCurrent"));
    if (n.checked_by) throw new Conflict(say("number.alreadyChecked", { by: n.checked_by }));
    if (n.entered_by === actor.id) throw new Forbidden(say("number.ownEntry"));
    const now = ctx.clock.now().toISOString();
    const role = n.role as NumberRole;
    if (input.agree) {
      await db.updateTable("body_numbers").set({ checked_by: actor.id, checked_at: now }).where("id", "=", n.id).execute();
      await bumpBody(ctx, tx, n.body_id);
      await recordChanges(ctx, tx, actor, {
        action: "number.check",
        objects: [{ id: n.body_id, role: "body" }, { id: n.id, role: "number" }],
        changes: [{ recordType: "body_number", recordId: n.id, field: "checkedBy", old: null, new: actor.id }],
      });
      return toBodyNumber({ ...n, checked_by: actor.id, checked_at: now });
    }
    if (input.correctedValue === undefined) throw new Invalid(say("number.correctedNeeded"), "correctedValue");
    const value = checkNumberValue(role, input.correctedValue, "correctedValue");
    // who corrected it is the row's retired_by; the reason is read by people, so it names no account id
    const reason = "corrected at a second check";
    await db.updateTable("body_numbers").set({ retired_at: now, retired_by: actor.id, retired_reason: reason }).where("id", "=", n.id).execute();
    const [row] = await insertNumbers(tx, n.body_id, now, [
      { role, value, sourceSha256: n.source_sha256, method: "typed", origin: `check:${n.id}`, enteredBy: actor.id },
    ]);
    const bodyChanges = await refreshCurrentNumbers(tx, n.body_id);
    await bumpBody(ctx, tx, n.body_id);
    await refreshSearchText(tx, n.body_id);
    await recordChanges(ctx, tx, actor, {
      action: "number.correct",
      objects: [{ id: n.body_id, role: "body" }, { id: n.id, role: "number" }, { id: row!.id, role: "number" }],
      changes: [
        { recordType: "body_number", recordId: n.id, field: "retired", old: null, new: reason },
        { recordType: "body_number", recordId: row!.id, field: "value", old: null, new: value },
        { recordType: "body_number", recordId: row!.id, field: "role", old: null, new: role },
        ...bodyChanges,
      ],
    });
    return toBodyNumber(row!);
  });
}

/** Withdraws a number entered in error (it stays on record, retired with the reason). */
export async function retireNumber(ctx: Ctx, actor: Actor, sent: z.input<typeof contracts.RetireNumberInput>): Promise<BodyNumber> {
  ctx.policy.require(actor, "catalogue.edit");
  const input = parseInput(contracts.RetireNumberInput, sent);
  const reason = input.reason.trim();
  if (reason.length < 3) throw new Invalid(say("number.withdrawReason"), "reason");
  return ctx.db.transaction(async (tx) => {
    const db = cdb(tx);
    const n = await db.selectFrom("body_numbers").selectAll().where("id", "=", input.numberId).executeTakeFirst();
    if (!n) throw new NotFound(say("number.notFound", { id: input.numberId }));
    const body = await activeBody(tx, n.body_id);
    ctx.policy.require(actor, "catalogue.edit", resourceOf(body));
    if (n.retired_at) throw new Conflict(say("number.alreadyRetired"));
    const now = ctx.clock.now().toISOString();
    await db.updateTable("body_numbers").set({ retired_at: now, retired_by: actor.id, retired_reason: reason }).where("id", "=", n.id).execute();
    const bodyChanges = await refreshCurrentNumbers(tx, n.body_id);
    await bumpBody(ctx, tx, n.body_id);
    await refreshSearchText(tx, n.body_id);
    await recordChanges(ctx, tx, actor, {
      action: "number.retire",
      objects: [{ id: n.body_id, role: "body" }, { id: n.id, role: "number" }],
      changes: [{ recordType: "body_number", recordId: n.id, field: "retired", old: null, new: reason }, ...bodyChanges],
    });
    return toBodyNumber({ ...n, retired_at: now, retired_by: actor.id, retired_reason: reason });
  });
}

/** A body's numbers, active first then retired, each role in entry order. */
export async function numbersOf(tx: Tx, bodyId: string): Promise<BodyNumber[]> {
  const rows = await cdb(tx).selectFrom("body_numbers").selectAll().where("body_id", "=", bodyId).orderBy("seq").execute();
  const list = rows.map(toBodyNumber);
  return [...list.filter((n) => !n.retired), ...list.filter((n) => n.retired)];
}
