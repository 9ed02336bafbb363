import { sql } from "kysely";
import { canonicalJson } from "../core/canonical-json.ts";
import type { DatabaseHandle, Tx } from "../db/database.ts";
import { leafBytes, parseLeaf, type CustodyEvent, type EventType } from "./events.ts";
import { Conflict } from "../core/errors.ts";
import { say } from "../core/messages.ts";
import { insertOpenings, sealEvent, type StoredOpening } from "./openings.ts";
import { insertRows } from "../db/bulk.ts";

/**
 * The custody log: appends events as leaves, in the caller's transaction, at gapless indexes. The single
 * log_state row is locked for the rest of the transaction (FOR UPDATE on PostgreSQL; SQLite transactions
 * already hold the one write lock), so concurrent server processes serialise their appends and no two events
 * ever share an index.
 */
export interface AppendedEvent {
  seq: number;
  leaf: Buffer;
  event: CustodyEvent;
}

export type LeafHook = (tx: Tx, firstSeq: number, leaves: Buffer[]) => Promise<void>;

export class CustodyLog {
  private hooks: LeafHook[] = [];

  constructor(private readonly dbh: DatabaseHandle) {}

  /** Called inside the append transaction with the new leaves (the Merkle tree keeps its hashes this way). */
  onAppend(hook: LeafHook): void {
    this.hooks.push(hook);
  }

  async append(tx: Tx, event: CustodyEvent): Promise<AppendedEvent> {
    const [one] = await this.appendMany(tx, [event]);
    return one!;
  }

  async appendMany(tx: Tx, events: CustodyEvent[]): Promise<AppendedEvent[]> {
    if (events.length === 0) return [];
    const size = await this.lockedSize(tx);
    const out: AppendedEvent[] = [];
    const openings: StoredOpening[] = [];
    let seq = size;
    for (const event of events) {
      // Typed words, paths and login names become salted commitments; their openings go to log_openings.
      for (const o of sealEvent(event)) openings.push({ seq, eventId: event.id, field: o.field, salt: o.salt, value: canonicalJson(o.value) });
      out.push({ seq, leaf: leafBytes(event), event });
      seq++;
    }
    await this.insert(tx, size, out, openings);
    return out;
  }

  /**
   * Puts back the leaves of a log kept elsewhere (a mirror's copy), byte for byte, with their openings, into an
   * empty log: the restore of an archive. Every other write appends new events.
   */
  async restoreLeaves(tx: Tx, leaves: readonly Buffer[], openings: StoredOpening[]): Promise<void> {
    const size = await this.lockedSize(tx);
    if (size !== 0) throw new Conflict(say("log.restoreNotEmpty", { size }));
    const out = leaves.map((leaf, seq) => ({ seq, leaf, event: parseLeaf(leaf) }));
    await this.insert(tx, 0, out, openings);
  }

  private async lockedSize(tx: Tx): Promise<number> {
    let q = tx.selectFrom("log_state").select("size").where("id", "=", 1);
    if (this.dbh.dialect === "postgres") q = q.forUpdate();
    return (await q.executeTakeFirstOrThrow()).size;
  }

  private async insert(tx: Tx, size: number, out: AppendedEvent[], openings: StoredOpening[]): Promise<void> {
    const dialect = this.dbh.dialect;
    const events: unknown[][] = [];
    const objects: unknown[][] = [];
    for (const { seq: s, leaf, event } of out) {
      events.push([s, event.id, event.type, event.at, event.actor.id, event.outcome, leaf]);
      for (const o of dedupeObjects(event)) objects.push([s, o.key, o.role]);
    }
    await insertRows(tx, dialect, "custody_events", ["seq", "id", "type", "at", "actor", "outcome", "leaf"], events);
    await insertRows(tx, dialect, "event_objects", ["seq", "sha256", "role"], objects);
    await insertOpenings(tx, dialect, openings);
    const leaves = out.map((o) => o.leaf);
    for (const hook of this.hooks) await hook(tx, size, leaves);
    await tx
      .updateTable("log_state")
      .set({ size: sql<number>`size + ${out.length}` })
      .where("id", "=", 1)
      .execute();
  }

  async size(tx: Tx = this.dbh.db): Promise<number> {
    const { size } = await tx.selectFrom("log_state").select("size").where("id", "=", 1).executeTakeFirstOrThrow();
    return size;
  }

  /** The latest event of this type (its indexed columns and leaf), or null when the log holds none. */
  async lastOfType(type: EventType, tx: Tx = this.dbh.db): Promise<{ seq: number; at: string; outcome: string; leaf: Buffer } | null> {
    const row = await tx.selectFrom("custody_events").select(["seq", "at", "outcome", "leaf"]).where("type", "=", type).orderBy("seq", "desc").limit(1).executeTakeFirst();
    return row ?? null;
  }

  /** The leaf bytes of the event at this position, or null when the log holds no such event. */
  async leafAt(seq: number, tx: Tx = this.dbh.db): Promise<Buffer | null> {
    const row = await tx.selectFrom("custody_events").select("leaf").where("seq", "=", seq).executeTakeFirst();
    return row?.leaf ?? null;
  }

  /** Events that concern an object (an original's SHA-256 or a record id), oldest first. */
  async eventsFor(key: string, tx: Tx = this.dbh.db): Promise<AppendedEvent[]> {
    const rows = await tx
      .selectFrom("event_objects")
      .innerJoin("custody_events", "custody_events.seq", "event_objects.seq")
      .select(["custody_events.seq", "custody_events.leaf"])
      .where("event_objects.sha256", "=", key)
      .orderBy("custody_events.seq")
      .execute();
    const seen = new Set<number>();
    const out: AppendedEvent[] = [];
    for (const r of rows) {
      if (seen.has(r.seq)) continue;
      seen.add(r.seq);
      out.push({ seq: r.seq, leaf: r.leaf, event: JSON.parse(r.leaf.toString("utf8")) as CustodyEvent });
    }
    return out;
  }

  /**
   * eventsFor of many objects in a few queries: each key's events, oldest first. An event that concerns many of
   * them (a handover names thousands of photos) is read and parsed once and shared between their lists.
   */
  async eventsForMany(keys: readonly string[], tx: Tx = this.dbh.db): Promise<Map<string, AppendedEvent[]>> {
    const seqsOf = new Map<string, Set<number>>(keys.map((k) => [k, new Set<number>()]));
    for (let i = 0; i < keys.length; i += KEY_SLICE) {
      const rows = await tx.selectFrom("event_objects").select(["sha256", "seq"]).where("sha256", "in", keys.slice(i, i + KEY_SLICE)).execute();
      for (const r of rows) seqsOf.get(r.sha256)?.add(r.seq);
    }
    const all = [...new Set([...seqsOf.values()].flatMap((s) => [...s]))].sort((a, b) => a - b);
    const bySeq = new Map<number, AppendedEvent>();
    for (let i = 0; i < all.length; i += KEY_SLICE) {
      const rows = await tx.selectFrom("custody_events").select(["seq", "leaf"]).where("seq", "in", all.slice(i, i + KEY_SLICE)).execute();
      for (const r of rows) bySeq.set(r.seq, { seq: r.seq, leaf: r.leaf, event: JSON.parse(r.leaf.toString("utf8")) as CustodyEvent });
    }
    return new Map(
      [...seqsOf].map(([k, seqs]) => [
        k,
        [...seqs]
          .sort((a, b) => a - b)
          .map((s) => bySeq.get(s))
          .filter((e): e is AppendedEvent => e !== undefined),
      ]),
    );
  }
}

/** Keys per statement when asking about many objects at once (both databases cap a statement's parameters). */
const KEY_SLICE = 2000;
/** event_objects indexes both file hashes and record ids, so "everything about X" is one lookup. */
function dedupeObjects(e: CustodyEvent): { key: string; role: string }[] {
  const seen = new Set<string>();
  const out: { key: string; role: string }[] = [];
  for (const o of e.objects) {
    const key = o.sha256 ?? o.id;
    if (!key) continue;
    const k = `${key}\u0000${o.role}`;
    if (seen.has(k)) continue;
    seen.add(k);
    out.push({ key, role: o.role });
  }
  return out;
}
