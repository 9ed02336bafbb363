/**
 * Decrypting a stored blob straight into a new plain file, hashing the plaintext as it is written: the one pass
 * an evidence package needs per photo. Synchronous on purpose: it runs on a worker thread (decrypt-worker.ts),
 * where blocking calls cost nothing and save the main thread a promise per chunk; the store runs it in-process
 * only where no worker can start. Reads and writes go about 1 MiB at a time.
 */
import { createHash } from "node:crypto";
import { closeSync, fstatSync, openSync, readSync, unlinkSync } from "node:fs";
import { IntegrityError } from "../../core/errors.ts";
import { writevAllSync } from "../../core/writev-all.ts";
import { HEADER_LENGTH, TAG_LENGTH, chunkCipherOffset, chunkPlainLength, decodeHeader, geometryForCipher, openChunk } from "./format.ts";
import { say } from "../../core/messages.ts";

export interface DecryptJob {
  /** The blob's SHA-256 (for messages; the caller checks the digest against it). */
  sha256: string;
  /** The stored (encrypted) blob, a local file. */
  source: string;
  /** Its header as the store read and authenticated it with the key record. */
  header: Uint8Array;
  dek: Uint8Array;
  /** A new file: an existing one is never overwritten. */
  target: string;
}

export interface DecryptResult {
  size: number;
  sha256: string;
  sha512: string;
}

const BATCH = 1 << 20;

const buf = (u: Uint8Array): Buffer => Buffer.from(u.buffer, u.byteOffset, u.byteLength);

export function decryptToFile(job: DecryptJob): DecryptResult {
  const header = decodeHeader(buf(job.header));
  if (typeof header === "string") throw new IntegrityError(say("blob.damagedHeader", { sha256: job.sha256, problem: header }));
  const dek = buf(job.dek);
  const fd = openSync(job.source, "r");
  let out = -1;
  try {
    const g = geometryForCipher(fstatSync(fd).size, header.chunkSize);
    if (!g) throw new IntegrityError(say("blob.damagedLengthChanged", { sha256: job.sha256 }));
    const head = Buffer.alloc(HEADER_LENGTH);
    if (readSync(fd, head, 0, HEADER_LENGTH, 0) !== HEADER_LENGTH || !head.equals(header.bytes)) {
      throw new IntegrityError(say("blob.changedWhileRead", { sha256: job.sha256 }));
    }
    out = openSync(job.target, "wx");
    const h256 = createHash("sha256");
    const h512 = createHash("sha512");
    const record = g.chunkSize + TAG_LENGTH;
    const perBatch = Math.max(1, Math.floor(BATCH / record));
    const cipher = Buffer.allocUnsafe(perBatch * record);
    for (let first = 0; first < g.chunkCount; first += perBatch) {
      const last = Math.min(g.chunkCount, first + perBatch) - 1;
      const from = chunkCipherOffset(g, first);
      const want = chunkCipherOffset(g, last) + chunkPlainLength(g, last) + TAG_LENGTH - from;
      let got = 0;
      while (got < want) {
        const n = readSync(fd, cipher, got, want - got, from + got);
        if (n === 0) throw new IntegrityError(say("blob.endedEarly", { sha256: job.sha256 }));
        got += n;
      }
      const plain: Buffer[] = [];
      for (let i = first, at = 0; i <= last; i++) {
        const len = chunkPlainLength(g, i) + TAG_LENGTH;
        const p = openChunk(dek, header, i, i === g.chunkCount - 1, cipher.subarray(at, at + len));
        if (!p) {
          throw new IntegrityError(
            say("blob.chunkFailed", { sha256: job.sha256, chunk: i, chunks: g.chunkCount }),
          );
        }
        at += len;
        if (p.length) {
          plain.push(p);
          h256.update(p);
          h512.update(p);
        }
      }
      writevAllSync(out, plain, job.target);
    }
    return { size: g.plainSize, sha256: h256.digest("hex"), sha512: h512.digest("hex") };
  } catch (e) {
    if (out >= 0) {
      closeSync(out);
      out = -1;
      unlinkSync(job.target);
    }
    throw e;
  } finally {
    closeSync(fd);
    if (out >= 0) closeSync(out);
  }
}
