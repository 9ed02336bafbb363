import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import type { DatabaseHandle, Tx } from "../db/database.ts";
import { sql } from "kysely";
import { insertRows } from "../db/bulk.ts";
import { Conflict, IntegrityError, Invalid, NotFound } from "../core/errors.ts";
import type { Clock } from "../core/clock.ts";
import type { CustodyLog } from "./log.ts";
import { MerkleAppender, consistencyProof, inclusionProof, treeHash, verifyConsistency, type HashReader } from "./merkle.ts";
import { generateSigner, newSigner, newVerifier, type NoteSigner } from "./note.ts";
import { openCheckpoint, signCheckpoint } from "./checkpoint.ts";
import { formatConsistencyProof, formatTlogProof } from "./tlog-proof.ts";
import { tileForPath, type TileFile } from "./tiles.ts";
import { requestTimestamp } from "./timestamp.ts";
import { withCosignatures, type WitnessClient, type WitnessOutcome } from "./witness-client.ts";

const READ_SLICE = 5000;
import type { Logger } from "../core/logger.ts";
import { writeKeyFile } from "../core/key-file.ts";
import { say } from "../core/messages.ts";

/**
 * The Merkle tree over the custody log, kept in the database: every complete subtree's hash is a row of
 * log_hashes, written in the same transaction as the events (so the tree can never disagree with the log it
 * covers), and signed checkpoints are rows of checkpoints. Proofs read O(log n) stored hashes.
 */
export interface LogKeys {
  signer: NoteSigner;
  verifierKey: string;
  origin: string;
}

const LOG_KEY_FILE = "log.key";

/** The log's Ed25519 signing key, created on first use (0600), or DALIL_LOG_KEY (a signer key string). */
export function loadOrCreateLogKey(keysDir: string, origin: string, env: NodeJS.ProcessEnv = process.env): LogKeys {
  let signerKey = env.DALIL_LOG_KEY;
  if (!signerKey) {
    const file = join(keysDir, LOG_KEY_FILE);
    // a second process starting at the same moment either wins the link or reads the complete key of the one
    // that did, never half a file
    if (!existsSync(file)) writeKeyFile(keysDir, LOG_KEY_FILE, `${generateSigner(origin).signerKey}\n`, "create");
    signerKey = readFileSync(file, "utf8");
  }
  const signer = newSigner(signerKey);
  const { verifierKey } = keyStrings(signer);
  return { signer, verifierKey, origin: signer.name };
}

function keyStrings(signer: NoteSigner): { verifierKey: string } {
  const id = signer.keyId.toString(16).padStart(8, "0");
  const pub = Buffer.concat([Buffer.from([1]), signer.publicKey]).toString("base64");
  return { verifierKey: `${signer.name}+${id}+${pub}` };
}

/** A fresh origin for a new archive's log: a scheme-less URL-like name, unique per archive. */
export function newOrigin(): string {
  return `dalil.archive/${randomBytes(6).toString("hex")}`;
}

export interface StoredCheckpoint {
  size: number;
  root: Buffer;
  note: string;
  createdAt: string;
  timestampToken: Buffer | null;
  /** The note as published: the log's signature and the witnesses' cosignatures that verified (tlog-witness). */
  published: string;
}

/** One row of the proof read: k 0 the latest checkpoint, 1 the leaf, 2 a stored hash (n its index). */
interface ProofRow {
  k: number;
  n: number;
  b: Buffer | null;
  t: string | null;
  t2: string | null;
  b2: Buffer | null;
}

/** The proof read as one fixed statement (PostgreSQL plans it once per connection): the hashes' indexes are an array. */
const PROOF_IN_ONE_READ = `select 0 as k, c.size as n, c.root as b, c.note as t, c.created_at as t2, c.timestamp_token as b2
    from (select size, root, note, created_at, timestamp_token from checkpoints order by size desc limit 1) c
  union all select 1, seq, leaf, null, null, null from custody_events where seq = $1
  union all select 2, idx, hash, null, null, null from log_hashes where idx = any($2::bigint[])`;

export class LogTree {
  private witnessSource?: { current(): WitnessClient | undefined };

  constructor(
    private readonly dbh: DatabaseHandle,
    private readonly keys: LogKeys,
    private readonly clock: Clock,
    /** Verifier keys of earlier log keys (after a rotation): old checkpoints stay verifiable. */
    private readonly retiredVerifierKeys: string[] = [],
    /** False when the key file's key is not one registered for this log: it must then sign nothing. */
    readonly keyRegistered = true,
    /** An RFC 3161 authority (DALIL_TSA_URL) asked to timestamp every new checkpoint. */
    private readonly tsaUrl?: string,
    private readonly logger?: Logger,
  ) {}

  /**
   * Sends every new checkpoint to the policy's witnesses and publishes it with their cosignatures: the client of
   * a watch of the policy file (WitnessPolicyWatch), which follows the file as it is edited.
   */
  useWitnesses(source: { current(): WitnessClient | undefined }): void {
    this.witnessSource = source;
  }

  get witnesses(): WitnessClient | undefined {
    return this.witnessSource?.current();
  }

  get origin(): string {
    return this.keys.origin;
  }

  get verifierKey(): string {
    return this.keys.verifierKey;
  }

  allVerifierKeys(): string[] {
    return [this.keys.verifierKey, ...this.retiredVerifierKeys];
  }

  /** Keeps the tree's hashes with every append (called by CustodyLog inside the append transaction). */
  attach(log: CustodyLog): void {
    log.onAppend(async (tx, firstSeq, leaves) => {
      const appender = await MerkleAppender.open(firstSeq, this.reader(tx));
      const { firstStoredIndex, hashes } = appender.appendLeaves(leaves);
      await insertRows(tx, this.dbh.dialect, "log_hashes", ["idx", "hash"], hashes.map((hash, j) => [firstStoredIndex + j, hash]));
    });
  }

  reader(tx: Tx = this.dbh.db): HashReader {
    return async (indexes) => {
      if (indexes.length === 0) return [];
      const byIdx = new Map<number, Buffer>();
      // In slices: SQLite and PostgreSQL both cap the parameters of one statement.
      for (let i = 0; i < indexes.length; i += READ_SLICE) {
        const rows = await tx.selectFrom("log_hashes").select(["idx", "hash"]).where("idx", "in", indexes.slice(i, i + READ_SLICE)).execute();
        for (const r of rows) byIdx.set(r.idx, r.hash);
      }
      return indexes.map((i) => byIdx.get(i) as Buffer);
    };
  }

  async latestCheckpoint(tx: Tx = this.dbh.db): Promise<StoredCheckpoint | null> {
    const row = await tx.selectFrom("checkpoints").selectAll().orderBy("size", "desc").limit(1).executeTakeFirst();
    const client = this.witnesses;
    return row ? toStored(row, client ? await client.linesFor(row.size, tx) : []) : null;
  }

  /** The latest signed checkpoint as the log's status shows it (no token bytes read), or null before the first. */
  async latestCheckpointStatus(): Promise<{ size: number; root: Buffer; note: string; createdAt: string; timestamped: boolean; authority: string | null } | null> {
    const cp = await this.dbh.db
      .selectFrom("checkpoints")
      .select(["size", "root", "note", "created_at", "timestamp_authority"])
      .select((eb) => eb("timestamp_token", "is not", null).as("has_token"))
      .orderBy("size", "desc")
      .limit(1)
      .executeTakeFirst();
    return cp ? { size: cp.size, root: cp.root, note: cp.note, createdAt: cp.created_at, timestamped: Boolean(cp.has_token), authority: cp.timestamp_authority } : null;
  }

  async checkpoints(): Promise<StoredCheckpoint[]> {
    return (await this.dbh.db.selectFrom("checkpoints").selectAll().orderBy("size").execute()).map((r) => toStored(r, []));
  }

  /**
   * Asks the witnesses to cosign the latest checkpoint (those that have not yet); what each answered. The
   * proof to each is from the size it last cosigned, or the size it says it holds.
   */
  async cosign(): Promise<{ checkpoint: StoredCheckpoint; outcomes: WitnessOutcome[] }> {
    const cp = await this.latestCheckpoint();
    if (!cp) throw new NotFound(say("checkpoint.none"));
    const client = this.witnesses;
    if (!client) return { checkpoint: cp, outcomes: [] };
    const outcomes = await client.cosign(cp.size, cp.note, (from, to) => consistencyProof(from, to, this.reader()));
    return { checkpoint: (await this.latestCheckpoint())!, outcomes };
  }

  /**
   * Signs a checkpoint of the log as it is now, unless the latest already covers it. Before signing, the new
   * root is proved consistent with the latest signed one: this log never signs two inconsistent checkpoints.
   */
  async checkpoint(opts: { cosign?: boolean } = {}): Promise<StoredCheckpoint> {
    const witnessed = this.witnesses !== undefined;
    const before = witnessed ? (await this.latestCheckpoint())?.size : undefined;
    let cp = await this.signCheckpoint();
    if (this.tsaUrl && !cp.timestampToken) cp = await this.timestamp(cp);
    // Only a newly signed checkpoint goes to the witnesses here (a witness that is down would otherwise slow
    // every call); `dalil log cosign` asks again.
    if (witnessed && cp.size !== before && opts.cosign !== false) cp = (await this.cosign()).checkpoint;
    return cp;
  }

  /**
   * Asks the configured authority for a token over the note's exact bytes, after the signing transaction has
   * committed (a network call holds no lock). A failure leaves the checkpoint valid without a token; the next
   * checkpoint or `dalil log timestamp` tries again.
   */
  async timestamp(cp: StoredCheckpoint): Promise<StoredCheckpoint> {
    if (!this.tsaUrl) throw new Invalid(say("timestamp.notConfigured"));
    try {
      const ts = await requestTimestamp(this.tsaUrl, Buffer.from(cp.note, "utf8"));
      await this.attachTimestamp(cp.size, ts.token, this.tsaUrl);
      return { ...cp, timestampToken: ts.token };
    } catch (err) {
      this.logger?.log("warn", "checkpoint not timestamped", { size: cp.size, error: (err as Error).message });
      return cp;
    }
  }

  private async signCheckpoint(): Promise<StoredCheckpoint> {
    if (!this.keyRegistered) {
      throw new IntegrityError(
        say("log.keyNotRegistered"),
      );
    }
    return this.dbh.transaction(async (tx) => {
      let q = tx.selectFrom("log_state").select("size").where("id", "=", 1);
      if (this.dbh.dialect === "postgres") q = q.forUpdate();
      const { size } = await q.executeTakeFirstOrThrow();
      const latest = await this.latestCheckpoint(tx);
      if (latest && latest.size >= size) return latest;
      const read = this.reader(tx);
      const root = await treeHash(size, read);
      if (latest && latest.size > 0) {
        const proof = await consistencyProof(latest.size, size, read);
        if (!verifyConsistency(latest.size, size, proof, latest.root, root)) {
          throw new IntegrityError(
            say("log.inconsistent", { size, signed: latest.size }),
          );
        }
      }
      const note = signCheckpoint({ origin: this.keys.origin, size, rootHash: root, extensions: [] }, [this.keys.signer]);
      const createdAt = this.clock.now().toISOString();
      await tx
        .insertInto("checkpoints")
        .values({ size, root, note, key_name: this.keys.origin, created_at: createdAt, timestamp_token: null, timestamp_authority: null })
        .execute();
      return { size, root, note, createdAt, timestampToken: null, published: note };
    });
  }

  /** Attaches an RFC 3161 token to a stored checkpoint (the token covers the note's bytes). */
  async attachTimestamp(size: number, token: Buffer, authority: string): Promise<void> {
    await this.dbh.db
      .updateTable("checkpoints")
      .set({ timestamp_token: token, timestamp_authority: authority })
      .where("size", "=", size)
      .where("timestamp_token", "is", null)
      .execute();
  }

  /** A C2SP tlog-proof of event `seq` against the latest checkpoint (signed now if it does not cover seq yet). */
  async proveEvent(seq: number): Promise<{ proof: string; leaf: Buffer; checkpoint: StoredCheckpoint }> {
    const guess = this.lastProvedSize;
    if (guess !== undefined && !this.witnesses && Number.isSafeInteger(seq) && seq >= 0 && seq < guess) {
      const fast = await this.proveInOneRead(seq, guess);
      if (fast) return fast;
    }
    const out = await this.proveEventSlowly(seq);
    this.lastProvedSize = out.checkpoint.size;
    return out;
  }

  /** The size of the latest checkpoint the last proof was made against: the likely one for the next. */
  private lastProvedSize?: number;

  /**
   * A proof in one round trip to the database, for when the latest checkpoint is still of the size guessed: the
   * latest checkpoint, the leaf and the audit path's stored hashes for that size in one statement. Null when the
   * latest checkpoint is another (a newer one was signed) or a row is missing: the caller then takes the long way.
   */
  private async proveInOneRead(seq: number, size: number): Promise<{ proof: string; leaf: Buffer; checkpoint: StoredCheckpoint } | null> {
    const indexes: number[] = [];
    const zero = Buffer.alloc(32);
    // The audit path's stored-hash indexes, learnt by asking for them (pure arithmetic, nothing read).
    await inclusionProof(seq, size, (ix) => {
      indexes.push(...ix);
      return Promise.resolve(ix.map(() => zero));
    });
    const rows = this.dbh.prepared ? await this.dbh.prepared<ProofRow>("dalil_proof_in_one_read", PROOF_IN_ONE_READ, [seq, indexes]) : await this.proofRowsSqlite(seq, indexes);
    const head = rows.find((r) => Number(r.k) === 0);
    const leaf = rows.find((r) => Number(r.k) === 1)?.b;
    if (!head || Number(head.n) !== size || !leaf || !head.b || head.t === null || head.t2 === null) return null;
    const byIdx = new Map(rows.filter((r) => Number(r.k) === 2).map((r) => [Number(r.n), r.b as Buffer]));
    if (indexes.some((i) => !byIdx.has(i))) return null;
    const hashes = await inclusionProof(seq, size, (ix) => Promise.resolve(ix.map((i) => byIdx.get(i)!)));
    const cp: StoredCheckpoint = { size, root: head.b, note: head.t, createdAt: head.t2, timestampToken: head.b2, published: head.t };
    return { proof: formatTlogProof({ index: seq, proof: hashes, checkpoint: cp.published }), leaf, checkpoint: cp };
  }

  private async proofRowsSqlite(seq: number, indexes: number[]): Promise<ProofRow[]> {
    const hashRows = indexes.length
      ? sql`union all select 2, idx, hash, null, null, null from log_hashes where idx in (${sql.join(indexes)})`
      : sql``;
    const { rows } = await sql<ProofRow>`
      select 0 as k, c.size as n, c.root as b, c.note as t, c.created_at as t2, c.timestamp_token as b2
        from (select size, root, note, created_at, timestamp_token from checkpoints order by size desc limit 1) c
      union all select 1, seq, leaf, null, null, null from custody_events where seq = ${seq}
      ${hashRows}`.execute(this.dbh.db);
    return rows;
  }

  private async proveEventSlowly(seq: number): Promise<{ proof: string; leaf: Buffer; checkpoint: StoredCheckpoint }> {
    let cp = await this.latestCheckpoint();
    if (!cp || cp.size <= seq) cp = await this.checkpoint();
    if (seq < 0 || seq >= cp.size) throw new NotFound(say("log.noEvent", { seq }));
    const row = await this.dbh.db.selectFrom("custody_events").select("leaf").where("seq", "=", seq).executeTakeFirst();
    if (!row) throw new NotFound(say("log.noEvent", { seq }));
    const hashes = await inclusionProof(seq, cp.size, this.reader());
    return { proof: formatTlogProof({ index: seq, proof: hashes, checkpoint: cp.published }), leaf: row.leaf, checkpoint: cp };
  }

  /** A consistency proof between two signed checkpoints' sizes (to defaults to the latest). */
  async proveConsistency(from: number, to?: number): Promise<{ text: string; from: StoredCheckpoint; to: StoredCheckpoint }> {
    if (!Number.isSafeInteger(from) || from <= 0) {
      throw new Invalid(say("consistency.fromNeeded"), "from");
    }
    const all = await this.checkpoints();
    const a = all.find((c) => c.size === from);
    const b = to === undefined ? all[all.length - 1] : all.find((c) => c.size === to);
    if (!a) throw new NotFound(say("checkpoint.noneOfSize", { size: from, all: describeSizes(all) }));
    if (!b) throw new NotFound(say("checkpoint.noneOfSize", { size: to ?? 0, all: describeSizes(all) }));
    if (b.size < a.size) throw new Invalid(say("consistency.toBeforeFrom", { to: b.size, from: a.size }), "to");
    const proof = await consistencyProof(a.size, b.size, this.reader());
    return { text: formatConsistencyProof({ oldSize: a.size, newSize: b.size, proof }), from: a, to: b };
  }

  /**
   * A C2SP tlog-tiles file of the tree as of the latest checkpoint. `kind` says which tiles the caller may have:
   * hash tiles are for anyone, entry bundles (the events themselves) only for those allowed `log.entries`; a
   * path of the other kind is answered as a tile that does not exist.
   */
  async tile(path: string, kind: "hash" | "entries"): Promise<TileFile> {
    const cp = await this.latestCheckpoint();
    if (!cp) throw new NotFound(say("checkpoint.none"));
    return tileForPath(path, cp.size, kind, this.reader(), async (start, end) => {
      const rows = await this.dbh.db
        .selectFrom("custody_events")
        .select("leaf")
        .where("seq", ">=", start)
        .where("seq", "<", end)
        .orderBy("seq")
        .execute();
      return rows.map((r) => r.leaf);
    });
  }

  /** Checks a stored checkpoint's signature with the archive's known log keys. */
  openStored(cp: StoredCheckpoint): void {
    const verifiers = this.allVerifierKeys().map((k) => newVerifier(k));
    const { checkpoint } = openCheckpoint(cp.note, verifiers);
    if (checkpoint.size !== cp.size || !checkpoint.rootHash.equals(cp.root)) {
      throw new Conflict(say("checkpoint.rowMismatch", { size: cp.size, signed: checkpoint.size }));
    }
  }
}

function describeSizes(all: StoredCheckpoint[]): string {
  if (all.length === 0) return "none";
  const sizes = all.map((c) => c.size);
  return sizes.length > 8 ? `${sizes.slice(0, 4).join(", ")}, …, ${sizes.slice(-3).join(", ")}` : sizes.join(", ");
}

function toStored(row: { size: number; root: Buffer; note: string; created_at: string; timestamp_token: Buffer | null }, cosignatures: readonly string[]): StoredCheckpoint {
  return { size: row.size, root: row.root, note: row.note, createdAt: row.created_at, timestampToken: row.timestamp_token, published: withCosignatures(row.note, cosignatures) };
}
