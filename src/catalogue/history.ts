import { createHash, randomBytes } from "node:crypto";
import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { canonicalJson } from "../core/canonical-json.ts";
import { newId } from "../core/ids.ts";
import { NotFound } from "../core/errors.ts";
import type { Tx } from "../db/database.ts";
import { custody, type EventObject, type EventType } from "../ledger/index.ts";
import { cdb } from "./tables.ts";
import { blindScope, hiddenByBlind } from "../access/index.ts";
import type * as contracts from "./contracts.ts";
import { say } from "../core/messages.ts";

/**
 * Every change to a catalogue record keeps its old and new value per field (field_history) and is a custody
 * event, written in the caller's transaction. The custody log is readable by anyone, so the event names only
 * the records, the action and the fields; the values stay in field_history, readable with `catalogue.read`.
 * The event carries a salted SHA-256 commitment to the values (`detail.history`): whoever holds the history
 * rows can show they are the ones the log recorded, and whoever holds only the log learns nothing from it
 * (the salt is in the history rows, so a name cannot be tested against the hash).
 */
export interface Change {
  recordType: string;
  recordId: string;
  field: string;
  old: unknown;
  new: unknown;
}

export interface RecordChanges {
  /** What was done, e.g. "body.edit", "body.merge", "number.check". */
  action: string;
  changes: Change[];
  objects: EventObject[];
  type?: EventType;
  /** Extra detail for the event: never values of fields (those may be personal data). */
  detail?: Record<string, unknown>;
}

export type HistoryEntry = contracts.HistoryEntry;

/** Values as stored: canonical JSON, with undefined as null. */
function enc(v: unknown): string {
  return canonicalJson(v === undefined ? null : v);
}

function sameValue(a: unknown, b: unknown): boolean {
  return enc(a) === enc(b);
}

function sortChanges<T extends { recordType: string; recordId: string; field: string }>(cs: T[]): T[] {
  const k = (c: T) => `${c.recordType}\u0000${c.recordId}\u0000${c.field}`;
  return [...cs].sort((a, b) => (k(a) < k(b) ? -1 : k(a) > k(b) ? 1 : 0));
}

/** The commitment written into the event: SHA-256 over the salt and the changes in a fixed order, base64url. */
export function historyCommitment(salt: string, changes: { recordType: string; recordId: string; field: string; old: string; new: string }[]): string {
  const body = canonicalJson({
    salt,
    changes: sortChanges(changes).map((c) => [c.recordType, c.recordId, c.field, c.old, c.new]),
  });
  return createHash("sha256").update(body, "utf8").digest("base64url");
}

/**
 * Appends one custody event for the changes and one history row per changed field. Changes whose old and new
 * values are equal are dropped; with nothing left, nothing is written and null is returned.
 */
export async function recordChanges(ctx: Ctx, tx: Tx, actor: Actor, rc: RecordChanges): Promise<number | null> {
  const changes = rc.changes.filter((c) => !sameValue(c.old, c.new));
  if (changes.length === 0 && !rc.detail) return null;
  const salt = randomBytes(16).toString("hex");
  const encoded = changes.map((c) => ({ recordType: c.recordType, recordId: c.recordId, field: c.field, old: enc(c.old), new: enc(c.new) }));
  const at = ctx.clock.now();
  const fields = [...new Set(sortChanges(changes).map((c) => c.field))];
  const event = custody(rc.type ?? "metadata modification", actor, at, rc.objects, {
    action: rc.action,
    ...(fields.length ? { fields, history: historyCommitment(salt, encoded) } : {}),
    ...(rc.detail ?? {}),
  });
  const { seq } = await ctx.log.append(tx, event);
  const iso = at.toISOString();
  const rows = encoded.map((c) => ({
    id: newId("fh"),
    record_type: c.recordType,
    record_id: c.recordId,
    field: c.field,
    old_value: c.old,
    new_value: c.new,
    actor: actor.id,
    at: iso,
    event_seq: seq,
    salt,
  }));
  for (let i = 0; i < rows.length; i += 200) await cdb(tx).insertInto("field_history").values(rows.slice(i, i + 200)).execute();
  return seq;
}

/**
 * Many events at once (imports): one event per entry, appended together, history rows in bulk.
 * Entries with no change are skipped.
 */
export async function recordManyChanges(ctx: Ctx, tx: Tx, actor: Actor, list: RecordChanges[]): Promise<void> {
  const at = ctx.clock.now();
  const iso = at.toISOString();
  const prepared = list
    .map((rc) => ({ rc, changes: rc.changes.filter((c) => !sameValue(c.old, c.new)) }))
    .filter((p) => p.changes.length > 0 || p.rc.detail)
    .map(({ rc, changes }) => {
      const salt = randomBytes(16).toString("hex");
      const encoded = changes.map((c) => ({ recordType: c.recordType, recordId: c.recordId, field: c.field, old: enc(c.old), new: enc(c.new) }));
      const fields = [...new Set(sortChanges(changes).map((c) => c.field))];
      const event = custody(rc.type ?? "metadata modification", actor, at, rc.objects, {
        action: rc.action,
        ...(fields.length ? { fields, history: historyCommitment(salt, encoded) } : {}),
        ...(rc.detail ?? {}),
      });
      return { event, encoded, salt };
    });
  if (prepared.length === 0) return;
  const appended = await ctx.log.appendMany(
    tx,
    prepared.map((p) => p.event),
  );
  const rows = prepared.flatMap((p, i) =>
    p.encoded.map((c) => ({
      id: newId("fh"),
      record_type: c.recordType,
      record_id: c.recordId,
      field: c.field,
      old_value: c.old,
      new_value: c.new,
      actor: actor.id,
      at: iso,
      event_seq: appended[i]!.seq,
      salt: p.salt,
    })),
  );
  for (let i = 0; i < rows.length; i += 200) await cdb(tx).insertInto("field_history").values(rows.slice(i, i + 200)).execute();
}

/** The history of one record, oldest first. */
export async function recordHistory(ctx: Ctx, actor: Actor, recordId: string): Promise<HistoryEntry[]> {
  ctx.policy.require(actor, "catalogue.read");
  const rows = await cdb(ctx.db.db)
    .selectFrom("field_history")
    .selectAll()
    .where("record_id", "=", recordId)
    .orderBy("event_seq")
    .orderBy("field")
    .execute();
  // a blind reviewer does not see what the other reviewer's acts wrote into the body's history
  const blind = await blindScope(ctx, actor);
  return rows.filter((r) => !hiddenByBlind(blind, r.actor, [r.record_id])).map((r) => ({
    recordType: r.record_type,
    recordId: r.record_id,
    field: r.field,
    old: JSON.parse(r.old_value) as unknown,
    new: JSON.parse(r.new_value) as unknown,
    actor: r.actor,
    at: r.at,
    eventSeq: r.event_seq,
  }));
}

/**
 * Checks a record's history against the custody log: every history row belongs to an event whose commitment
 * it reproduces (together with the other rows of that event). Returns the event seqs that do not match.
 */
export async function verifyHistory(ctx: Ctx, recordId: string): Promise<{ checked: number; mismatched: number[] }> {
  const db = cdb(ctx.db.db);
  const seqs = (await db.selectFrom("field_history").select("event_seq").distinct().where("record_id", "=", recordId).execute()).map((r) => r.event_seq);
  const mismatched: number[] = [];
  for (const seq of seqs) {
    const rows = await db.selectFrom("field_history").selectAll().where("event_seq", "=", seq).execute();
    const leaf = await ctx.log.leafAt(seq);
    if (!leaf) throw new NotFound(say("history.eventMissing", { seq }));
    const detail = (JSON.parse(leaf.toString("utf8")) as { detail?: { history?: string } }).detail;
    const salt = rows[0]?.salt ?? "";
    const got = historyCommitment(
      salt,
      rows.map((r) => ({ recordType: r.record_type, recordId: r.record_id, field: r.field, old: r.old_value, new: r.new_value })),
    );
    if (rows.some((r) => r.salt !== salt) || detail?.history !== got) mismatched.push(seq);
  }
  return { checked: seqs.length, mismatched };
}
