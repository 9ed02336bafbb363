import { createHash, randomBytes } from "node:crypto";
import { open, rm } from "node:fs/promises";
import { Readable } from "node:stream";
import { canonicalJson } from "../../core/canonical-json.ts";
import { IntegrityError, Invalid, NotFound, TooLarge } from "../../core/errors.ts";
import type { Backend } from "./backend.ts";
import {
  DEFAULT_CHUNK_SIZE,
  HEADER_LENGTH,
  MAX_CHUNKS,
  MAX_CHUNK_SIZE,
  MIN_CHUNK_SIZE,
  TAG_LENGTH,
  chunkCipherOffset,
  chunkPlainLength,
  decodeHeader,
  encodeHeader,
  geometryForCipher,
  geometryForPlain,
  isSha256Hex,
  layout,
  namingKeyCheck,
  objectName,
  openChunk,
  openSidecar,
  sealChunk,
  sealSidecar,
  sidecarKeyId,
} from "./format.ts";
import type { BlobHeader, Geometry } from "./format.ts";
import type { BlobKeys, MasterKey } from "./keys.ts";
import { decryptToFile as decryptHere, type DecryptJob, type DecryptResult } from "./decrypt-file.ts";
import { WorkerPool } from "../../core/worker-pool.ts";
import { writevAll } from "../../core/writev-all.ts";
import { say } from "../../core/messages.ts";

export interface PutOptions {
  /** When given, the bytes must hash to it (else Invalid, nothing stored); a known hash skips encryption. */
  expectedSha256?: string;
  /** More bytes than this: TooLarge, nothing stored. */
  maxBytes?: number;
}

export interface PutResult {
  sha256: string;
  size: number;
  /** False when the blob was already stored (the write was a no-op). */
  created: boolean;
}

/** Inclusive byte range of the original. */
export interface ByteRange {
  start: number;
  end: number;
}

export type VerifyResult = { ok: true; size: number } | { ok: false; problem: string };

export interface RewrapReport {
  sidecars: number;
  rewrapped: number;
  alreadyCurrent: number;
  failed: { key: string; problem: string }[];
}

export interface CleanupReport {
  temporaries: number;
  sidecars: number;
}

export interface BlobStore {
  putStream(src: Readable | AsyncIterable<Uint8Array>, opts?: PutOptions): Promise<PutResult>;
  putBuffer(buf: Buffer, opts?: Omit<PutOptions, "expectedSha256">): Promise<PutResult>;
  has(sha256: string): Promise<boolean>;
  /**
   * The original bytes (or a range of them). Rejects with NotFound, Invalid (bad range) or IntegrityError
   * (header or key record unreadable); a chunk that fails authentication errors the stream with IntegrityError.
   */
  get(sha256: string, range?: ByteRange): Promise<Readable>;
  /**
   * Decrypts a blob into a new file (never overwriting one) and returns the plaintext's size, SHA-256 and SHA-512,
   * hashed as it was written; IntegrityError when it does not hash to its name. On a local store the work runs on
   * a worker thread, so packaging thousands of photos keeps the main thread free.
   */
  decryptToFile(sha256: string, target: string): Promise<DecryptResult>;
  /** Whole blob in memory; for small blobs (TooLarge above 512 MiB). */
  read(sha256: string): Promise<Buffer>;
  stat(sha256: string): Promise<{ size: number } | null>;
  /** Decrypts every chunk and recomputes the SHA-256. */
  verify(sha256: string): Promise<VerifyResult>;
  /** Names of stored blobs (not their hashes: the store cannot invert the HMAC). */
  listNames(): AsyncIterable<string>;
  /**
   * Every object as it is at rest, for another custodian's copy (a mirror, a copy audit): the marker, each
   * blob's ciphertext and each wrapped-key sidecar, by key in byte order, with its size. Nothing here decrypts.
   */
  listObjects(): AsyncIterable<{ key: string; size: number }>;
  /** One object's bytes as they are at rest (ciphertext), or null when there is none under that key. */
  readObject(key: string): Promise<Readable | null>;
  /** Puts an object back as it was at rest (a repair or a restore from a copy that agrees with the log). */
  writeObject(key: string, bytes: Buffer): Promise<void>;
  nameOf(sha256: string): string;
  /** Rewraps every sidecar with target, opening each with whichever key of ring wrapped it. */
  rewrapKeys(ring: MasterKey[], target: MasterKey): Promise<RewrapReport>;
  /** Removes temporaries and orphaned sidecars older than olderThanMs (default one hour). */
  cleanupTemp(opts?: { olderThanMs?: number }): Promise<CleanupReport>;
  close(): Promise<void>;
}

export interface StoreOptions {
  /** Plaintext bytes per chunk for new blobs (readers take it from each header). */
  chunkSize?: number;
}

/** Bytes read with the header in one request: small blobs (thumbnails) then need no second read. */
const PREFETCH = 256 * 1024;
const WRITE_BATCH = 1024 * 1024;
const READ_LIMIT = 512 * 1024 * 1024;
const REWRAP_CONCURRENCY = 8;

/** Takes ownership of backend: closes it if the store cannot be opened. */
export async function createBlobStore(backend: Backend, keys: BlobKeys, opts: StoreOptions = {}): Promise<BlobStore> {
  try {
    const chunkSize = opts.chunkSize ?? DEFAULT_CHUNK_SIZE;
    if (!Number.isInteger(chunkSize) || chunkSize < MIN_CHUNK_SIZE || chunkSize > MAX_CHUNK_SIZE) {
      throw new Invalid(say("blob.chunkSize", { min: MIN_CHUNK_SIZE, max: MAX_CHUNK_SIZE }), "chunkSize");
    }
    const store = new EncryptedBlobStore(backend, keys, chunkSize);
    await store.checkMarker();
    return store;
  } catch (err) {
    await backend.close();
    throw err;
  }
}

interface OpenBlob {
  sha256: string;
  key: string;
  header: BlobHeader;
  geometry: Geometry;
  dek: Buffer;
  head: Buffer;
}

class EncryptedBlobStore implements BlobStore {
  private readonly ring = new Map<string, Buffer>();
  private writeKey: MasterKey;
  private readonly naming: Buffer;

  constructor(
    private readonly backend: Backend,
    keys: BlobKeys,
    readonly chunkSize: number,
  ) {
    this.naming = keys.naming;
    this.writeKey = keys.master;
    for (const k of [keys.master, ...keys.previous]) this.ring.set(k.id, k.key);
  }

  /** A store remembers a check value of its naming key: with another key every blob would look missing. */
  async checkMarker(): Promise<void> {
    const check = namingKeyCheck(this.naming);
    let bytes = await this.backend.readSmall(layout.marker);
    if (!bytes) {
      const body = Buffer.from(`${canonicalJson({ format: "dalil-blob-store", version: 1, namingKeyCheck: check })}\n`);
      if (await this.backend.writeSmall(layout.marker, body, "create")) return;
      bytes = await this.backend.readSmall(layout.marker);
    }
    let marker: unknown;
    try {
      marker = JSON.parse(bytes?.toString("utf8") ?? "");
    } catch {
      marker = null;
    }
    const m = marker as { format?: unknown; namingKeyCheck?: unknown } | null;
    if (!m || m.format !== "dalil-blob-store") {
      throw new IntegrityError(say("blob.markerDamaged", { marker: layout.marker }));
    }
    if (m.namingKeyCheck !== check) {
      throw new IntegrityError(
        say("blob.namingKey"),
      );
    }
  }

  private hashArg(sha256: string, field = "sha256"): string {
    const s = typeof sha256 === "string" ? sha256.toLowerCase() : "";
    if (!isSha256Hex(s)) throw new Invalid(say("request.notSha256", { field }), field);
    return s;
  }

  nameOf(sha256: string): string {
    return objectName(this.naming, this.hashArg(sha256));
  }

  async has(sha256: string): Promise<boolean> {
    return (await this.backend.size(layout.blob(this.nameOf(sha256)))) !== null;
  }

  async putBuffer(buf: Buffer, opts: Omit<PutOptions, "expectedSha256"> = {}): Promise<PutResult> {
    const maxBytes = checkedMax(opts.maxBytes);
    if (buf.length > maxBytes) throw new TooLarge(say("blob.fileTooLarge", { maxBytes }));
    // The bytes are all here: hashed once, and encrypted without being hashed again.
    const sha256 = createHash("sha256").update(buf).digest("hex");
    if (await this.has(sha256)) return { sha256, size: buf.length, created: false };
    return this.write([buf], sha256, maxBytes, true);
  }

  async putStream(src: Readable | AsyncIterable<Uint8Array>, opts: PutOptions = {}): Promise<PutResult> {
    const expected = opts.expectedSha256 === undefined ? undefined : this.hashArg(opts.expectedSha256, "expectedSha256");
    const maxBytes = checkedMax(opts.maxBytes);
    if (expected && (await this.has(expected))) {
      const { sha256, size } = await hashOnly(src, maxBytes);
      if (sha256 !== expected) throw mismatch(expected, sha256);
      return { sha256, size, created: false };
    }
    return this.write(src, expected, maxBytes, false);
  }

  /**
   * Encrypts src into a temporary object and commits it under its hash. `hashed`: expected was computed from
   * these very bytes in this process, so they are not hashed a second time.
   */
  private async write(src: Iterable<Buffer> | Readable | AsyncIterable<Uint8Array>, expected: string | undefined, maxBytes: number, hashed: boolean): Promise<PutResult> {
    const dek = randomBytes(32);
    const header = decodeHeader(encodeHeader(this.chunkSize, randomBytes(16))) as BlobHeader;
    const tmp = await this.backend.createTemp();
    let sha256: string;
    let size = 0;
    // One batch is written while the next is encrypted, so disk and CPU work at the same time.
    let writing: Promise<void> = Promise.resolve();
    try {
      const hash = hashed ? null : createHash("sha256");
      const chunk = Buffer.allocUnsafe(this.chunkSize);
      let filled = 0;
      let index = 0;
      let batch: Buffer[] = [header.bytes];
      let batchLength = header.bytes.length;
      const seal = async (final: boolean) => {
        if (index >= MAX_CHUNKS) throw new TooLarge(say("blob.streamTooLong"));
        const [body, tag] = sealChunk(dek, header, index, final, chunk.subarray(0, filled));
        batch.push(body, tag);
        batchLength += body.length + tag.length;
        index++;
        filled = 0;
        if (batchLength >= WRITE_BATCH || final) {
          const out = Buffer.concat(batch, batchLength);
          batch = [];
          batchLength = 0;
          await writing;
          writing = tmp.write(out);
          writing.catch(() => {});
        }
      };
      for await (const piece of src as AsyncIterable<unknown>) {
        const b = asBytes(piece);
        size += b.length;
        if (size > maxBytes) throw new TooLarge(say("blob.fileTooLarge", { maxBytes }));
        hash?.update(b);
        let pos = 0;
        while (pos < b.length) {
          // A full chunk is sealed only once more bytes arrive: until then it may be the last one.
          if (filled === this.chunkSize) await seal(false);
          const n = Math.min(this.chunkSize - filled, b.length - pos);
          b.copy(chunk, filled, pos, pos + n);
          filled += n;
          pos += n;
        }
      }
      await seal(true);
      await writing;
      await tmp.finish();
      sha256 = hash ? hash.digest("hex") : expected!;
      if (expected && sha256 !== expected) throw mismatch(expected, sha256);
    } catch (err) {
      await writing.catch(() => {});
      await tmp.abort();
      throw err;
    }

    const name = objectName(this.naming, sha256);
    const blobKey = layout.blob(name);
    // With an expected hash, absence was checked just before encrypting, and commit refuses to replace a blob
    // wherever the storage can (link(2), If-None-Match).
    if (!expected && (await this.backend.size(blobKey)) !== null) {
      await this.backend.discardTemp(tmp.id);
      return { sha256, size, created: false };
    }
    // The sidecar goes first, under a name of its own (the file id), so the blob is never visible without the
    // key that opens it, and a concurrent writer of the same blob can never overwrite it.
    const sidecarKey = layout.sidecar(name, header.fileId);
    let created: boolean;
    try {
      await this.backend.writeSmall(sidecarKey, sealSidecar(this.writeKey, dek, header.fileId, name), "replace");
      created = await this.backend.commitTemp(tmp.id, blobKey, geometryForPlain(size, this.chunkSize).cipherSize);
    } catch (err) {
      // The sidecar stays: if the commit did land, it is the only key to the blob; if not, cleanup removes it.
      await this.backend.discardTemp(tmp.id).catch(() => {});
      throw err;
    }
    if (!created) await this.backend.remove(sidecarKey);
    return { sha256, size, created };
  }

  private async openBlob(sha256: string, prefetch: number): Promise<OpenBlob> {
    const name = this.nameOf(sha256);
    const key = layout.blob(name);
    const got = await this.backend.readHead(key, prefetch);
    if (!got) throw new NotFound(say("blob.notFound", { sha256 }));
    const header = decodeHeader(got.bytes);
    if (typeof header === "string") throw new IntegrityError(say("blob.damagedHeader", { sha256, problem: header }));
    const geometry = geometryForCipher(got.size, header.chunkSize);
    if (!geometry) {
      throw new IntegrityError(
        say("blob.damagedLength", { sha256, size: got.size }),
      );
    }
    const dek = await this.dataKey(sha256, name, header);
    return { sha256, key, header, geometry, dek, head: got.bytes };
  }

  private async dataKey(sha256: string, name: string, header: BlobHeader): Promise<Buffer> {
    const bytes = await this.backend.readSmall(layout.sidecar(name, header.fileId));
    if (!bytes) {
      throw new IntegrityError(say("blob.sidecarMissing", { sha256 }));
    }
    const keyId = sidecarKeyId(bytes);
    if (typeof keyId !== "string") throw new IntegrityError(say("blob.cannotDecrypt", { sha256, problem: keyId.problem }));
    const kek = this.ring.get(keyId);
    if (!kek) {
      throw new IntegrityError(
        say("blob.masterNotLoaded", { sha256, keyId }),
      );
    }
    const dek = openSidecar(kek, bytes, header.fileId, name);
    if (!dek) {
      throw new IntegrityError(say("blob.recordAltered", { sha256, keyId }));
    }
    return dek;
  }

  async stat(sha256: string): Promise<{ size: number } | null> {
    const got = await this.backend.readHead(layout.blob(this.nameOf(sha256)), HEADER_LENGTH);
    if (!got) return null;
    const header = decodeHeader(got.bytes);
    if (typeof header === "string") throw new IntegrityError(say("blob.damagedHeader", { sha256, problem: header }));
    const g = geometryForCipher(got.size, header.chunkSize);
    if (!g) throw new IntegrityError(say("blob.damagedLengthShort", { sha256, size: got.size }));
    return { size: g.plainSize };
  }

  async get(sha256: string, range?: ByteRange): Promise<Readable> {
    const sha = this.hashArg(sha256);
    // A range far into a blob needs only the header from the start of the object.
    const blob = await this.openBlob(sha, range && range.start >= PREFETCH ? HEADER_LENGTH : PREFETCH);
    const size = blob.geometry.plainSize;
    let start = 0;
    let end = size - 1;
    if (range) {
      checkRange(range, size);
      ({ start, end } = range);
    }
    return Readable.from(this.plaintext(blob, start, end), { objectMode: false, highWaterMark: 1024 * 1024 });
  }

  /** Decrypts only the chunks that hold bytes start..end; nothing for an empty blob. */
  private async *plaintext(blob: OpenBlob, start: number, end: number): AsyncGenerator<Buffer> {
    const g = blob.geometry;
    if (end < start) {
      // Still authenticate the single (empty) chunk, so a damaged empty blob does not read as fine.
      yield* this.chunks(blob, 0, 0, 0, 0);
      return;
    }
    const first = Math.floor(start / g.chunkSize);
    const last = Math.floor(end / g.chunkSize);
    yield* this.chunks(blob, first, last, start - first * g.chunkSize, end - last * g.chunkSize + 1);
  }

  private async *chunks(blob: OpenBlob, first: number, last: number, skip: number, lastEnd: number): AsyncGenerator<Buffer> {
    const g = blob.geometry;
    const from = chunkCipherOffset(g, first);
    const to = chunkCipherOffset(g, last) + chunkPlainLength(g, last) + TAG_LENGTH - 1;
    const reader = new ByteReader(this.cipherBytes(blob, from, to));
    try {
      for (let i = first; i <= last; i++) {
        const want = chunkPlainLength(g, i) + TAG_LENGTH;
        const sealed = await reader.read(want);
        const final = i === g.chunkCount - 1;
        const plain = sealed.length === want ? openChunk(blob.dek, blob.header, i, final, sealed) : null;
        if (!plain) {
          throw new IntegrityError(
            say("blob.chunkFailed", { sha256: blob.sha256, chunk: i, chunks: g.chunkCount }),
          );
        }
        const a = i === first ? skip : 0;
        const b = i === last ? lastEnd : plain.length;
        if (b > a) yield a === 0 && b === plain.length ? plain : plain.subarray(a, b);
      }
    } finally {
      await reader.close();
    }
  }

  /** Ciphertext bytes from..to: what the prefetch already holds, then one ranged read for the rest. */
  private async *cipherBytes(blob: OpenBlob, from: number, to: number): AsyncGenerator<Buffer> {
    let pos = from;
    if (pos < blob.head.length) {
      const upto = Math.min(to + 1, blob.head.length);
      yield blob.head.subarray(pos, upto);
      pos = upto;
    }
    if (pos > to) return;
    const stream = await this.backend.readRange(blob.key, pos, to);
    if (!stream) throw new IntegrityError(say("blob.disappeared", { sha256: blob.sha256 }));
    try {
      for await (const piece of stream) yield piece as Buffer;
    } finally {
      stream.destroy();
    }
  }

  async decryptToFile(sha256: string, target: string): Promise<DecryptResult> {
    const sha = this.hashArg(sha256);
    let got: DecryptResult;
    const local = this.backend.localPath;
    if (local) {
      const blob = await this.openBlob(sha, HEADER_LENGTH);
      got = await decryptPool().run({ sha256: sha, source: local.call(this.backend, blob.key), header: blob.header.bytes, dek: blob.dek, target });
    } else {
      got = await streamToFile(await this.get(sha), target);
    }
    if (got.sha256 !== sha) {
      await rm(target, { force: true });
      throw new IntegrityError(say("blob.hashMismatch", { blob: sha, actual: got.sha256 }));
    }
    return got;
  }

  async read(sha256: string): Promise<Buffer> {
    const st = await this.stat(sha256);
    if (!st) throw new NotFound(say("blob.notFound", { sha256: this.hashArg(sha256) }));
    if (st.size > READ_LIMIT) throw new TooLarge(say("blob.tooLargeToBuffer", { sha256, size: st.size }));
    const parts: Buffer[] = [];
    for await (const p of await this.get(sha256)) parts.push(p as Buffer);
    return Buffer.concat(parts);
  }

  async verify(sha256: string): Promise<VerifyResult> {
    const sha = this.hashArg(sha256);
    try {
      const blob = await this.openBlob(sha, PREFETCH);
      const hash = createHash("sha256");
      let size = 0;
      for await (const p of this.plaintext(blob, 0, blob.geometry.plainSize - 1)) {
        hash.update(p);
        size += p.length;
      }
      const actual = hash.digest("hex");
      if (actual !== sha) return { ok: false, problem: `Blob ${sha} decrypts, but its content hashes to ${actual}.` };
      return { ok: true, size };
    } catch (err) {
      if (err instanceof NotFound) return { ok: false, problem: `Blob ${sha} is missing from the store.` };
      if (err instanceof IntegrityError) return { ok: false, problem: err.message };
      throw err;
    }
  }

  async *listObjects(): AsyncIterable<{ key: string; size: number }> {
    const marker = await this.backend.size(layout.marker);
    if (marker !== null) yield { key: layout.marker, size: marker };
    for await (const key of this.backend.list(layout.objectsPrefix)) {
      if (!layout.parse(key)) continue;
      const size = await this.backend.size(key);
      if (size !== null) yield { key, size };
    }
  }

  async readObject(key: string): Promise<Readable | null> {
    if (key !== layout.marker && !layout.parse(key)) return null;
    const size = await this.backend.size(key);
    if (size === null) return null;
    if (size === 0) return Readable.from([]);
    return this.backend.readRange(key, 0, size - 1);
  }

  async writeObject(key: string, bytes: Buffer): Promise<void> {
    if (key !== layout.marker && !layout.parse(key)) throw new Invalid(`${JSON.stringify(key.slice(0, 120))} is not an object key of a blob store.`);
    await this.backend.writeSmall(key, bytes, "replace");
  }

  async *listNames(): AsyncIterable<string> {
    for await (const key of this.backend.list(layout.objectsPrefix)) {
      const p = layout.parse(key);
      if (p && !p.fileId) yield p.name;
    }
  }

  async rewrapKeys(ring: MasterKey[], target: MasterKey): Promise<RewrapReport> {
    for (const k of [...ring, target]) this.ring.set(k.id, k.key);
    this.writeKey = target;
    const report: RewrapReport = { sidecars: 0, rewrapped: 0, alreadyCurrent: 0, failed: [] };
    const one = async (key: string, name: string, fileId: Buffer) => {
      const bytes = await this.backend.readSmall(key);
      if (!bytes) return;
      report.sidecars++;
      const keyId = sidecarKeyId(bytes);
      if (typeof keyId !== "string") return void report.failed.push({ key, problem: keyId.problem });
      if (keyId === target.id) return void report.alreadyCurrent++;
      const kek = this.ring.get(keyId);
      if (!kek) return void report.failed.push({ key, problem: `wrapped by master key ${keyId}, which is not loaded` });
      const dek = openSidecar(kek, bytes, fileId, name);
      if (!dek) return void report.failed.push({ key, problem: `does not open with master key ${keyId}` });
      await this.backend.writeSmall(key, sealSidecar(target, dek, fileId, name), "replace");
      report.rewrapped++;
    };
    const running = new Set<Promise<void>>();
    for await (const key of this.backend.list(layout.objectsPrefix)) {
      const p = layout.parse(key);
      if (!p?.fileId) continue;
      const job: Promise<void> = one(key, p.name, p.fileId)
        .catch((err: unknown) => void report.failed.push({ key, problem: err instanceof Error ? err.message : String(err) }))
        .finally(() => running.delete(job));
      running.add(job);
      if (running.size >= REWRAP_CONCURRENCY) await Promise.race(running);
    }
    await Promise.all(running);
    return report;
  }

  async cleanupTemp(opts: { olderThanMs?: number } = {}): Promise<CleanupReport> {
    const olderThan = opts.olderThanMs ?? 60 * 60 * 1000;
    const cutoff = Date.now() - olderThan;
    const report: CleanupReport = { temporaries: 0, sidecars: 0 };
    const stale: string[] = [];
    for await (const t of this.backend.listTemp()) if (t.modified.getTime() <= cutoff) stale.push(t.id);
    for (const id of stale) {
      await this.backend.discardTemp(id).then(
        () => report.temporaries++,
        () => {},
      );
    }

    // Sidecars whose blob was never committed (a crash, a lost race). Listing order puts a blob just before its
    // sidecars, so one pass groups them; a blob with one sidecar needs no further read.
    let name: string | null = null;
    let blobPresent = false;
    let sidecars: { key: string; fileId: Buffer }[] = [];
    const settle = async () => {
      if (name === null || sidecars.length === 0) return;
      let keep: Buffer | null = null;
      if (blobPresent) {
        if (sidecars.length === 1) return;
        const got = await this.backend.readHead(layout.blob(name), HEADER_LENGTH);
        const header = got ? decodeHeader(got.bytes) : "gone";
        // A blob whose header cannot be read keeps all its sidecars: they are evidence for the repair.
        if (typeof header === "string") return;
        keep = header.fileId;
      }
      for (const s of sidecars) {
        if (keep && s.fileId.equals(keep)) continue;
        const m = await this.backend.modified(s.key);
        if (m && m.getTime() <= cutoff) {
          await this.backend.remove(s.key);
          report.sidecars++;
        }
      }
    };
    for await (const key of this.backend.list(layout.objectsPrefix)) {
      const p = layout.parse(key);
      if (!p) continue;
      if (p.name !== name) {
        await settle();
        name = p.name;
        blobPresent = false;
        sidecars = [];
      }
      if (p.fileId) sidecars.push({ key, fileId: p.fileId });
      else blobPresent = true;
    }
    await settle();
    return report;
  }

  async close(): Promise<void> {
    await this.backend.close();
  }
}

function mismatch(expected: string, actual: string): Invalid {
  return new Invalid(say("upload.hashMismatch", { actual, expected }), "expectedSha256");
}

function asBytes(piece: unknown): Buffer {
  if (Buffer.isBuffer(piece)) return piece;
  if (piece instanceof Uint8Array) return Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength);
  throw new Invalid(say("blob.notBytes"));
}

async function hashOnly(src: Readable | AsyncIterable<Uint8Array>, maxBytes: number): Promise<{ sha256: string; size: number }> {
  const hash = createHash("sha256");
  let size = 0;
  for await (const piece of src as AsyncIterable<unknown>) {
    const b = asBytes(piece);
    size += b.length;
    if (size > maxBytes) throw new TooLarge(say("blob.fileTooLarge", { maxBytes }));
    hash.update(b);
  }
  return { sha256: hash.digest("hex"), size };
}

function checkedMax(maxBytes: number | undefined): number {
  const max = maxBytes ?? Number.MAX_SAFE_INTEGER;
  if (!Number.isSafeInteger(max) || max < 0) throw new Invalid(say("blob.maxBytes"), "maxBytes");
  return max;
}

function checkRange(range: ByteRange, size: number): void {
  const { start, end } = range;
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < 0) {
    throw new Invalid(say("range.offsets"), "range");
  }
  if (start > end) throw new Invalid(say("range.startAfterEnd", { start, end }), "range");
  if (end >= size) {
    throw new Invalid(say("range.beyond", { start, end, size, last: size - 1 }), "range");
  }
}

/** Exact-length reads over a stream of buffers of any sizes. */
class ByteReader {
  private pieces: Buffer[] = [];
  private length = 0;
  private done = false;

  constructor(private readonly it: AsyncGenerator<Buffer>) {}

  /** n bytes, or fewer only at the end of the stream. */
  async read(n: number): Promise<Buffer> {
    while (this.length < n && !this.done) {
      const r = await this.it.next();
      if (r.done) this.done = true;
      else if (r.value.length > 0) {
        this.pieces.push(r.value);
        this.length += r.value.length;
      }
    }
    const want = Math.min(n, this.length);
    const head = this.pieces[0];
    let out: Buffer;
    if (head && head.length >= want) {
      out = head.subarray(0, want);
      if (head.length === want) this.pieces.shift();
      else this.pieces[0] = head.subarray(want);
    } else {
      const all = Buffer.concat(this.pieces, this.length);
      out = all.subarray(0, want);
      this.pieces = want < all.length ? [all.subarray(want)] : [];
    }
    this.length -= want;
    return out;
  }

  async close(): Promise<void> {
    await this.it.return(undefined);
  }
}

let pool: WorkerPool<DecryptJob, DecryptResult> | null = null;

function decryptPool(): WorkerPool<DecryptJob, DecryptResult> {
  pool ??= new WorkerPool<DecryptJob, DecryptResult>(new URL("./decrypt-worker.ts", import.meta.url), decryptHere, (message, code) =>
    code === "integrity" ? new IntegrityError(message) : new Error(message),
  );
  return pool;
}

/** The remote-storage path of decryptToFile: the stream written in batches and hashed on this thread. */
async function streamToFile(source: Readable, target: string): Promise<DecryptResult> {
  const fh = await open(target, "wx");
  const h256 = createHash("sha256");
  const h512 = createHash("sha512");
  let size = 0;
  try {
    let batch: Buffer[] = [];
    let batched = 0;
    const flush = async (): Promise<void> => {
      await writevAll(fh, batch, target);
      batch = [];
      batched = 0;
    };
    for await (const c of source) {
      const b = c as Buffer;
      h256.update(b);
      h512.update(b);
      size += b.length;
      batch.push(b);
      batched += b.length;
      if (batched >= WRITE_BATCH) await flush();
    }
    await flush();
  } catch (e) {
    await fh.close();
    await rm(target, { force: true });
    throw e;
  }
  await fh.close();
  return { size, sha256: h256.digest("hex"), sha512: h512.digest("hex") };
}
