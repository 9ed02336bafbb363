/**
 * A witness (C2SP tlog-witness@v1.0.0): its own Ed25519 cosigning key and a small SQLite database in its data
 * directory, the logs it trusts, every checkpoint it cosigned (not only the latest) and every refused checkpoint
 * whose log signature was valid, kept as evidence of the log's misbehaviour. It shares nothing with an archive
 * but the formats, and runs as its own process, possibly at another organisation.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { join } from "node:path";
import SQLite from "better-sqlite3";
import { Conflict, DalilError, Invalid } from "../core/errors.ts";
import { EMPTY_ROOT, cosignerVkey, generateCosigner, newVerifier, openCheckpoint, parseCosignerKey, verifyConsistency, type Checkpoint, type Cosigner } from "../ledger/index.ts";
import { parseAddCheckpoint } from "./request.ts";
import { say } from "../core/messages.ts";

const KEY_FILE = "witness.key";
const DB_FILE = "witness.sqlite";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS log_keys (vkey TEXT PRIMARY KEY, origin TEXT NOT NULL, added_at TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS log_keys_origin ON log_keys(origin);
CREATE TABLE IF NOT EXISTS cosigned (
  id INTEGER PRIMARY KEY, origin TEXT NOT NULL, size INTEGER NOT NULL, root BLOB NOT NULL,
  note TEXT NOT NULL, cosignature TEXT NOT NULL, time INTEGER NOT NULL, at TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS cosigned_origin ON cosigned(origin, id);
CREATE TABLE IF NOT EXISTS latest (origin TEXT PRIMARY KEY, size INTEGER NOT NULL, root BLOB NOT NULL, cosigned_id INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS refused (
  id INTEGER PRIMARY KEY, origin TEXT NOT NULL, status INTEGER NOT NULL, reason TEXT NOT NULL,
  old_size INTEGER NOT NULL, size INTEGER NOT NULL, root BLOB NOT NULL, held_size INTEGER NOT NULL, held_root BLOB,
  request BLOB NOT NULL, at TEXT NOT NULL);
CREATE TRIGGER IF NOT EXISTS cosigned_kept BEFORE UPDATE ON cosigned BEGIN SELECT RAISE(ABORT, 'cosigned checkpoints are kept as they were'); END;
CREATE TRIGGER IF NOT EXISTS cosigned_not_deleted BEFORE DELETE ON cosigned BEGIN SELECT RAISE(ABORT, 'cosigned checkpoints are kept'); END;
CREATE TRIGGER IF NOT EXISTS refused_kept BEFORE UPDATE ON refused BEGIN SELECT RAISE(ABORT, 'refusals are evidence and kept as they were'); END;
CREATE TRIGGER IF NOT EXISTS refused_not_deleted BEFORE DELETE ON refused BEGIN SELECT RAISE(ABORT, 'refusals are evidence and kept'); END;
`;

/** What the HTTP layer sends back: a status, a body, its type. */
export interface WitnessAnswer {
  status: number;
  body: string;
  contentType: string;
}

export interface CosignedRow {
  origin: string;
  size: number;
  root: Buffer;
  note: string;
  cosignature: string;
  time: number;
  at: string;
}

export interface RefusedRow {
  origin: string;
  status: number;
  reason: string;
  oldSize: number;
  size: number;
  heldSize: number;
  request: Buffer;
  at: string;
}

const text = (status: number, body: string): WitnessAnswer => ({ status, body: body.endsWith("\n") ? body : `${body}\n`, contentType: "text/plain; charset=utf-8" });

export function witnessPaths(dir: string): { key: string; db: string } {
  return { key: join(dir, KEY_FILE), db: join(dir, DB_FILE) };
}

/** Creates a witness in an empty (or new) directory: its key (0600) and its database. */
export function initWitness(dir: string, name: string): { vkey: string } {
  const p = witnessPaths(dir);
  if (existsSync(p.key) || existsSync(p.db)) throw new Conflict(say("witness.exists", { dir }));
  const { signerKey, vkey } = generateCosigner(name);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(p.key, `${signerKey}\n`, { mode: 0o600, flag: "wx" });
  chmodSync(p.key, 0o600);
  new Witness(dir).close();
  return { vkey };
}

export class Witness {
  readonly cosigner: Cosigner;
  private readonly db: SQLite.Database;

  constructor(
    dir: string,
    private readonly now: () => Date = () => new Date(),
  ) {
    const p = witnessPaths(dir);
    if (!existsSync(p.key)) throw new Invalid(say("witness.none", { dir }), "data");
    this.cosigner = parseCosignerKey(readFileSync(p.key, "utf8"));
    this.db = new SQLite(p.db);
    this.db.pragma("journal_mode = WAL");
    this.db.pragma("synchronous = FULL");
    this.db.pragma("busy_timeout = 30000");
    this.db.exec(SCHEMA);
  }

  get vkey(): string {
    return cosignerVkey(this.cosigner.name, this.cosigner.publicKey);
  }

  close(): void {
    this.db.close();
  }

  /** Trusts a log's verifier key for the origin it names (the key name is the log's origin). */
  addLog(vkey: string): { origin: string; added: boolean } {
    const v = newVerifier(vkey);
    const r = this.db.prepare("INSERT OR IGNORE INTO log_keys (vkey, origin, added_at) VALUES (?, ?, ?)").run(vkey.trim(), v.name, this.now().toISOString());
    return { origin: v.name, added: r.changes === 1 };
  }

  logs(): { origin: string; vkey: string; size: number | null; cosignedAt: string | null; refusals: number }[] {
    return this.db
      .prepare(
        `SELECT k.origin, k.vkey, l.size, (SELECT at FROM cosigned c WHERE c.id = l.cosigned_id) AS cosignedAt,
                (SELECT count(*) FROM refused r WHERE r.origin = k.origin) AS refusals
         FROM log_keys k LEFT JOIN latest l ON l.origin = k.origin ORDER BY k.origin`,
      )
      .all() as { origin: string; vkey: string; size: number | null; cosignedAt: string | null; refusals: number }[];
  }

  cosignedOf(origin: string): CosignedRow[] {
    return this.db.prepare("SELECT origin, size, root, note, cosignature, time, at FROM cosigned WHERE origin = ? ORDER BY id").all(origin) as CosignedRow[];
  }

  refusedOf(origin: string): RefusedRow[] {
    return this.db
      .prepare("SELECT origin, status, reason, old_size AS oldSize, size, held_size AS heldSize, request, at FROM refused WHERE origin = ? ORDER BY id")
      .all(origin) as RefusedRow[];
  }

  /** GET <origin hash>/checkpoint: the latest cosigned checkpoint with the log's signature and ours. */
  latestFor(originHash: string): WitnessAnswer {
    const row = this.db
      .prepare("SELECT c.note, c.cosignature, c.origin FROM latest l JOIN cosigned c ON c.id = l.cosigned_id")
      .all()
      .find((r) => createHash("sha256").update((r as { origin: string }).origin).digest("hex") === originHash) as { note: string; cosignature: string } | undefined;
    if (!row) return text(404, "This witness has cosigned no checkpoint of that log.");
    return { status: 200, body: row.note + row.cosignature, contentType: "text/plain; charset=utf-8" };
  }

  /**
   * add-checkpoint, every rule of tlog-witness v1.0.0 in its order. The check against what is held and the
   * write of the new state are one BEGIN IMMEDIATE transaction, so two requests cannot both pass the check
   * and roll the state back (the race the spec describes). A checkpoint that the log signed but that is not
   * consistent with what this witness holds is kept in `refused`.
   */
  addCheckpoint(body: Buffer): WitnessAnswer {
    const parsed = parseAddCheckpoint(body);
    if (!parsed.ok) return text(400, `Malformed request: ${parsed.reason}.`);
    const req = parsed.value;
    const keys = (this.db.prepare("SELECT vkey FROM log_keys WHERE origin = ?").all(req.origin) as { vkey: string }[]).map((r) => r.vkey);
    if (keys.length === 0) return text(404, `This witness does not follow the log ${JSON.stringify(req.origin.slice(0, 200))}.`);
    let cp: Checkpoint;
    try {
      cp = openCheckpoint(req.note, keys.map((k) => newVerifier(k))).checkpoint;
    } catch (e) {
      if (!(e instanceof DalilError)) throw e;
      return e instanceof Invalid ? text(400, `Malformed checkpoint: ${e.message}`) : text(403, e.message);
    }
    if (req.oldSize > cp.size) return text(400, `The old size ${req.oldSize} is larger than the checkpoint's size ${cp.size}.`);

    const run = this.db.transaction((): WitnessAnswer => {
      const held = this.db.prepare("SELECT size, root FROM latest WHERE origin = ?").get(cp.origin) as { size: number; root: Buffer } | undefined;
      const heldSize = held?.size ?? 0;
      const refuse = (status: number, reason: string, extra?: WitnessAnswer): WitnessAnswer => {
        this.db
          .prepare("INSERT INTO refused (origin, status, reason, old_size, size, root, held_size, held_root, request, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
          .run(cp.origin, status, reason, req.oldSize, cp.size, cp.rootHash, heldSize, held?.root ?? null, body, this.now().toISOString());
        return extra ?? text(status, reason);
      };
      const conflict: WitnessAnswer = { status: 409, body: `${heldSize}\n`, contentType: "text/x.tlog.size" };
      // A stale old size is not misbehaviour (another client may have advanced us): answered, not kept.
      if (req.oldSize !== heldSize) return conflict;
      if (cp.size === 0 && !cp.rootHash.equals(EMPTY_ROOT)) return refuse(422, "A checkpoint of size zero must have the empty tree's root hash.");
      if (req.oldSize === 0 && req.proof.length > 0) return refuse(422, "The old size is zero, so the consistency proof must be empty.");
      if (req.oldSize === cp.size && held && !held.root.equals(cp.rootHash)) {
        // Two trees of one size: a split view. v1.0.0 answers 409 here (later drafts say 422); kept as evidence.
        return refuse(409, `The log signed another root for size ${cp.size} than the one this witness cosigned.`, conflict);
      }
      if (req.oldSize > 0 && !verifyConsistency(req.oldSize, cp.size, req.proof, held!.root, cp.rootHash)) {
        return refuse(422, `The consistency proof from size ${req.oldSize} to ${cp.size} does not verify against the checkpoint this witness holds.`);
      }
      const time = Math.floor(this.now().getTime() / 1000);
      const checkpointText = req.note.slice(0, req.note.lastIndexOf("\n\n") + 1);
      const line = this.cosigner.cosign(checkpointText, time);
      const id = this.db
        .prepare("INSERT INTO cosigned (origin, size, root, note, cosignature, time, at) VALUES (?, ?, ?, ?, ?, ?, ?)")
        .run(cp.origin, cp.size, cp.rootHash, req.note, line, time, this.now().toISOString()).lastInsertRowid;
      this.db
        .prepare("INSERT INTO latest (origin, size, root, cosigned_id) VALUES (?, ?, ?, ?) ON CONFLICT (origin) DO UPDATE SET size = excluded.size, root = excluded.root, cosigned_id = excluded.cosigned_id")
        .run(cp.origin, cp.size, cp.rootHash, id);
      return { status: 200, body: line, contentType: "text/plain; charset=utf-8" };
    });
    return run.immediate();
  }
}
