import { hash } from "node:crypto";
import { pooledRandomHex } from "../core/random-pool.ts";
import { canonicalJson } from "../core/canonical-json.ts";
import type { Tx } from "../db/database.ts";
import type { Dialect } from "../db/migrate.ts";
import { insertRows } from "../db/bulk.ts";
import type { CustodyEvent } from "./events.ts";

/**
 * Salted commitments in custody events. The log's leaves are proofs for strangers, so nothing a person typed (a
 * reason, a recipient, a purpose, a sampling seed), no path or file name a refusal quotes and no login name is
 * written into a leaf in the clear. The code that builds an event wraps such a value in `secret(…)`; when the
 * event is appended, each one becomes
 *
 *   "commit:" + hex(SHA-256(UTF-8(RFC 8785 canonical JSON of {"event": <event id>, "field": <path>,
 *                                                           "salt": <64 hex digits>, "value": <the value>})))
 *
 * and the opening (salt and value) is stored in log_openings, in the same transaction, for those the policy lets
 * read it. The salt is 32 random bytes, so a guess ("is the reason 'court order'?") cannot be tested against the
 * leaf; the event id and the field path are inside the hash, so an opening cannot be moved to another event or
 * field. `dalil verify` recomputes every commitment from its opening; a court gets the openings its package needs
 * beside the leaves (docs/packages.md).
 */
export const COMMITMENT_PREFIX = "commit:";
const COMMITMENT = /^commit:[0-9a-f]{64}$/;

/** A value to be committed to, not written, in a leaf. */
export class Secret {
  constructor(readonly value: unknown) {}
}

/** Marks a value for a commitment; null and undefined stay as they are (there is nothing to hide). */
export function secret<T>(value: T): Secret | Extract<T, null | undefined> {
  return (value === null || value === undefined ? value : new Secret(value)) as Secret | Extract<T, null | undefined>;
}

export function isCommitment(v: unknown): v is string {
  return typeof v === "string" && COMMITMENT.test(v);
}

export function commitment(eventId: string, field: string, salt: string, value: unknown): string {
  const body = canonicalJson({ event: eventId, field, salt, value });
  return COMMITMENT_PREFIX + hash("sha256", body, "hex");
}

export interface Opening {
  field: string;
  salt: string;
  value: unknown;
}

/**
 * Seals an event in place before its leaf bytes are made: every Secret in its detail, and an operator's login
 * name (`operator:$USER`, which names a person at the server), become commitments. Returns the openings.
 */
export function sealEvent(e: CustodyEvent): Opening[] {
  // An event appended again after its transaction rolled back is already sealed: its openings are the same ones.
  const before = sealed.get(e);
  if (before) return before;
  const out: Opening[] = [];
  if (e.actor.kind === "operator" && !isCommitment(e.actor.id)) e.actor = { ...e.actor, id: seal(e.id, out, "actor.id", e.actor.id) };
  // Most details hold no secret: they are kept as they are rather than copied.
  if (holdsSecret(e.detail)) e.detail = withCommitments(e.id, out, e.detail, "detail") as Record<string, unknown>;
  sealed.set(e, out);
  return out;
}

function seal(eventId: string, out: Opening[], field: string, value: unknown): string {
  const salt = nextSalt();
  out.push({ field, salt, value });
  return commitment(eventId, field, salt, value);
}

/** A copy of v with every Secret in it replaced by its commitment (module-level: the append path is hot). */
function withCommitments(eventId: string, out: Opening[], v: unknown, path: string): unknown {
  if (v instanceof Secret) return seal(eventId, out, path, v.value);
  if (Array.isArray(v)) return v.map((x, i) => withCommitments(eventId, out, x, `${path}.${i}`));
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, withCommitments(eventId, out, x, `${path}.${k}`)]));
  return v;
}

function holdsSecret(v: unknown): boolean {
  if (v instanceof Secret) return true;
  if (Array.isArray(v)) return v.some(holdsSecret);
  if (v && typeof v === "object") {
    for (const k in v) if (Object.hasOwn(v, k) && holdsSecret((v as Record<string, unknown>)[k])) return true;
  }
  return false;
}

const sealed = new WeakMap<CustodyEvent, Opening[]>();

/** 32 fresh random bytes as hex, from the process's CSPRNG pool (every byte used once). */
const SALT_BYTES = 32;
function nextSalt(): string {
  return pooledRandomHex(SALT_BYTES);
}

/** Throws if a Secret is still in the event: its value would otherwise be serialised into the leaf. */
export function assertSealed(e: CustodyEvent): void {
  if (holdsSecret(e.detail)) throw new Error(`custody event ${e.id} has a value marked secret that was not sealed into a commitment`);
}

/** Every commitment in an event, by the field path its opening is stored under. */
export function commitmentsIn(e: CustodyEvent): Map<string, string> {
  const out = new Map<string, string>();
  if (isCommitment(e.actor?.id)) out.set("actor.id", e.actor.id);
  collectCommitments(e.detail, "detail", out);
  return out;
}

function collectCommitments(v: unknown, path: string, out: Map<string, string>): void {
  if (isCommitment(v)) out.set(path, v);
  else if (Array.isArray(v)) v.forEach((x, i) => collectCommitments(x, `${path}.${i}`, out));
  else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) collectCommitments(x, `${path}.${k}`, out);
}

export interface StoredOpening {
  seq: number;
  eventId: string;
  field: string;
  salt: string;
  /** Canonical JSON, as stored. */
  value: string;
}

export async function insertOpenings(tx: Tx, dialect: Dialect, rows: StoredOpening[]): Promise<void> {
  await insertRows(
    tx,
    dialect,
    "log_openings",
    ["seq", "event_id", "field", "salt", "value"],
    rows.map((r) => [r.seq, r.eventId, r.field, r.salt, r.value]),
  );
}

/** The openings of events [from, to], by seq. */
export async function openingsBetween(tx: Tx, from: number, to: number): Promise<Map<number, StoredOpening[]>> {
  const rows = await tx.selectFrom("log_openings").selectAll().where("seq", ">=", from).where("seq", "<=", to).execute();
  return group(rows);
}

/** The openings of the given events, by seq. */
export async function openingsOf(tx: Tx, seqs: readonly number[]): Promise<Map<number, StoredOpening[]>> {
  const out = new Map<number, StoredOpening[]>();
  for (let i = 0; i < seqs.length; i += 2000) {
    const rows = await tx.selectFrom("log_openings").selectAll().where("seq", "in", seqs.slice(i, i + 2000)).execute();
    for (const [k, v] of group(rows)) out.set(k, v);
  }
  return out;
}

function group(rows: { seq: number; event_id: string; field: string; salt: string; value: string }[]): Map<number, StoredOpening[]> {
  const out = new Map<number, StoredOpening[]>();
  for (const r of rows) {
    const list = out.get(r.seq) ?? [];
    list.push({ seq: r.seq, eventId: r.event_id, field: r.field, salt: r.salt, value: r.value });
    out.set(r.seq, list);
  }
  return out;
}

/** Whether an opening reproduces the commitment the leaf holds for its field. */
export function opens(eventId: string, field: string, leafCommitment: string, o: { salt: string; value: unknown }): boolean {
  return commitment(eventId, field, o.salt, o.value) === leafCommitment;
}

/**
 * The problems between an event's commitments and its stored openings (none when every commitment has an opening
 * that reproduces it and no opening is left over), as sentences for `dalil verify` and the package verifier.
 */
export function openingProblems(e: CustodyEvent, openings: readonly { field: string; salt: string; value: string }[]): string[] {
  const problems: string[] = [];
  const want = commitmentsIn(e);
  const byField = new Map(openings.map((o) => [o.field, o]));
  for (const [field, c] of want) {
    const o = byField.get(field);
    if (!o) {
      problems.push(`${field} is a commitment with no opening (the value behind it was deleted)`);
      continue;
    }
    let value: unknown;
    try {
      value = JSON.parse(o.value);
    } catch {
      problems.push(`the opening of ${field} is not JSON`);
      continue;
    }
    if (!opens(e.id, field, c, { salt: o.salt, value })) problems.push(`the opening of ${field} does not reproduce the commitment in the leaf (its value or salt was changed)`);
  }
  for (const field of byField.keys()) {
    if (!want.has(field)) problems.push(`an opening of ${field} is stored, but the leaf holds no commitment there`);
  }
  return problems;
}

/** An event with its commitments replaced by the values of their openings (for readers the policy allows). */
export function openEvent(e: CustodyEvent, openings: readonly StoredOpening[] | undefined): CustodyEvent {
  if (!openings?.length) return e;
  const values = new Map(openings.map((o) => [o.field, JSON.parse(o.value) as unknown]));
  const walk = (v: unknown, path: string): unknown => {
    if (isCommitment(v)) return values.has(path) ? values.get(path) : v;
    if (Array.isArray(v)) return v.map((x, i) => walk(x, `${path}.${i}`));
    if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, `${path}.${k}`)]));
    return v;
  };
  const actorId = values.has("actor.id") && isCommitment(e.actor.id) ? String(values.get("actor.id")) : e.actor.id;
  return { ...e, actor: { ...e.actor, id: actorId }, detail: walk(e.detail, "detail") as Record<string, unknown> };
}
