/**
 * The bytes of the blob store, version 1 (docs/formats/blob-store.md is the normative description; keep the two
 * in step). Everything here is pure: no I/O, so the format can be tested byte for byte.
 *
 * Blob object  = header ‖ chunk 0 ‖ chunk 1 ‖ … ‖ chunk n-1
 * header       = "DALILBLB" ‖ version (1) ‖ 3 zero bytes ‖ chunk size (u32 BE) ‖ file id (16 random bytes)
 * chunk i      = AES-256-GCM(DEK, nonce_i, plaintext_i, AAD = header) ‖ 16-byte tag
 * nonce_i      = file id[0..7) ‖ i (u32 BE) ‖ (1 if i is the last chunk else 0)
 * Sidecar      = "DALILDEK" ‖ version (1) ‖ 3 zero bytes ‖ master key id (8) ‖ nonce (12) ‖ GCM(KEK, DEK) (32) ‖ tag (16)
 *                with AAD = sidecar[0..20) ‖ file id ‖ blob name (64 ASCII hex digits)
 */
import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from "node:crypto";

export const BLOB_MAGIC = Buffer.from("DALILBLB", "ascii");
export const SIDECAR_MAGIC = Buffer.from("DALILDEK", "ascii");
export const FORMAT_VERSION = 1;
export const HEADER_LENGTH = 32;
export const SIDECAR_LENGTH = 80;
export const TAG_LENGTH = 16;
export const KEY_LENGTH = 32;
export const FILE_ID_LENGTH = 16;
export const KEY_ID_LENGTH = 8;
export const DEFAULT_CHUNK_SIZE = 64 * 1024;
/** Bounds a reader accepts, so a damaged header cannot make it allocate gigabytes. */
export const MIN_CHUNK_SIZE = 1024;
export const MAX_CHUNK_SIZE = 16 * 1024 * 1024;
/** The nonce carries the chunk index in 32 bits. */
export const MAX_CHUNKS = 2 ** 32;

const SHA256_HEX = /^[0-9a-f]{64}$/;

export function isSha256Hex(s: string): boolean {
  return SHA256_HEX.test(s);
}

/** Object name: hex HMAC-SHA-256(naming key, the 32 raw bytes of the SHA-256). */
export function objectName(namingKey: Buffer, sha256Hex: string): string {
  return createHmac("sha256", namingKey).update(Buffer.from(sha256Hex, "hex")).digest("hex");
}

/** Master key id: the first 8 bytes of SHA-256(key), in hex. Names a key without revealing it. */
export function keyIdOf(key: Buffer): string {
  return createHash("sha256").update(key).digest().subarray(0, KEY_ID_LENGTH).toString("hex");
}

/** A value only the right naming key reproduces; stored in the store's marker to catch a swapped naming key. */
export function namingKeyCheck(namingKey: Buffer): string {
  return createHmac("sha256", namingKey).update("dalil blob store naming key check v1").digest("hex");
}

export interface BlobHeader {
  chunkSize: number;
  fileId: Buffer;
  /** The 32 header bytes exactly as stored: the AAD of every chunk. */
  bytes: Buffer;
}

export function encodeHeader(chunkSize: number, fileId: Buffer): Buffer {
  if (!Number.isInteger(chunkSize) || chunkSize < MIN_CHUNK_SIZE || chunkSize > MAX_CHUNK_SIZE) {
    throw new RangeError(`chunk size must be an integer from ${MIN_CHUNK_SIZE} to ${MAX_CHUNK_SIZE}`);
  }
  if (fileId.length !== FILE_ID_LENGTH) throw new RangeError("file id must be 16 bytes");
  const h = Buffer.alloc(HEADER_LENGTH);
  BLOB_MAGIC.copy(h, 0);
  h[8] = FORMAT_VERSION;
  h.writeUInt32BE(chunkSize, 12);
  fileId.copy(h, 16);
  return h;
}

/** Parses a header; returns a sentence describing what is wrong instead of throwing, so callers name the blob. */
export function decodeHeader(bytes: Buffer): BlobHeader | string {
  if (bytes.length < HEADER_LENGTH) return "it is shorter than a blob header";
  if (!bytes.subarray(0, 8).equals(BLOB_MAGIC)) return "its header does not start with the blob magic";
  if (bytes[8] !== FORMAT_VERSION) return `its header names format version ${bytes[8]}, which this software does not read`;
  if (bytes[9] !== 0 || bytes[10] !== 0 || bytes[11] !== 0) return "its header has non-zero reserved bytes";
  const chunkSize = bytes.readUInt32BE(12);
  if (chunkSize < MIN_CHUNK_SIZE || chunkSize > MAX_CHUNK_SIZE) return `its header names an impossible chunk size (${chunkSize})`;
  const own = Buffer.from(bytes.subarray(0, HEADER_LENGTH));
  return { chunkSize, fileId: own.subarray(16, 32), bytes: own };
}

export interface Geometry {
  chunkSize: number;
  chunkCount: number;
  plainSize: number;
  cipherSize: number;
}

/**
 * Chunks of a plaintext: ceil(size / chunkSize), the last one non-empty; an empty blob is one empty chunk.
 * The writer decides "last" only when the stream ends, so a size that is an exact multiple ends on a full chunk.
 */
export function geometryForPlain(plainSize: number, chunkSize: number): Geometry {
  const chunkCount = plainSize === 0 ? 1 : Math.ceil(plainSize / chunkSize);
  return { chunkSize, chunkCount, plainSize, cipherSize: HEADER_LENGTH + plainSize + chunkCount * TAG_LENGTH };
}

/** Inverts geometryForPlain; null when no plaintext encrypts to that length (truncated or padded object). */
export function geometryForCipher(cipherSize: number, chunkSize: number): Geometry | null {
  const body = cipherSize - HEADER_LENGTH;
  if (body < TAG_LENGTH) return null;
  const record = chunkSize + TAG_LENGTH;
  const full = Math.floor(body / record);
  const rest = body - full * record;
  let chunkCount: number;
  if (rest === 0) chunkCount = full;
  else if (rest > TAG_LENGTH || (rest === TAG_LENGTH && full === 0)) chunkCount = full + 1;
  else return null;
  const plainSize = body - chunkCount * TAG_LENGTH;
  if (chunkCount > MAX_CHUNKS) return null;
  return { chunkSize, chunkCount, plainSize, cipherSize };
}

export function chunkPlainLength(g: Geometry, index: number): number {
  if (index < g.chunkCount - 1) return g.chunkSize;
  return g.plainSize - (g.chunkCount - 1) * g.chunkSize;
}

export function chunkCipherOffset(g: Geometry, index: number): number {
  return HEADER_LENGTH + index * (g.chunkSize + TAG_LENGTH);
}

export function chunkNonce(fileId: Buffer, index: number, final: boolean): Buffer {
  const n = Buffer.alloc(12);
  fileId.copy(n, 0, 0, 7);
  n.writeUInt32BE(index, 7);
  n[11] = final ? 1 : 0;
  return n;
}

/** Returns ciphertext ‖ tag as two buffers so a writer can queue them without copying. */
export function sealChunk(dek: Buffer, header: BlobHeader, index: number, final: boolean, plain: Buffer): [Buffer, Buffer] {
  const c = createCipheriv("aes-256-gcm", dek, chunkNonce(header.fileId, index, final));
  c.setAAD(header.bytes);
  const body = c.update(plain);
  c.final();
  return [body, c.getAuthTag()];
}

/** Plaintext, or null when the chunk does not authenticate at this index and position. */
export function openChunk(dek: Buffer, header: BlobHeader, index: number, final: boolean, sealed: Buffer): Buffer | null {
  if (sealed.length < TAG_LENGTH) return null;
  const d = createDecipheriv("aes-256-gcm", dek, chunkNonce(header.fileId, index, final));
  d.setAAD(header.bytes);
  d.setAuthTag(sealed.subarray(sealed.length - TAG_LENGTH));
  const body = d.update(sealed.subarray(0, sealed.length - TAG_LENGTH));
  try {
    d.final();
  } catch {
    return null;
  }
  return body;
}

function sidecarPrefix(keyId: string): Buffer {
  const p = Buffer.alloc(20);
  SIDECAR_MAGIC.copy(p, 0);
  p[8] = FORMAT_VERSION;
  Buffer.from(keyId, "hex").copy(p, 12);
  return p;
}

/**
 * The AAD binds the wrapped DEK to one blob header (file id) at one name: swapping a blob and its sidecar in
 * under another name fails here, so a storage provider cannot substitute one stored photo for another.
 */
function sidecarAad(prefix: Buffer, fileId: Buffer, name: string): Buffer {
  return Buffer.concat([prefix, fileId, Buffer.from(name, "ascii")]);
}

export function sealSidecar(master: { id: string; key: Buffer }, dek: Buffer, fileId: Buffer, name: string): Buffer {
  const prefix = sidecarPrefix(master.id);
  const nonce = randomBytes(12);
  const c = createCipheriv("aes-256-gcm", master.key, nonce);
  c.setAAD(sidecarAad(prefix, fileId, name));
  const wrapped = c.update(dek);
  c.final();
  return Buffer.concat([prefix, nonce, wrapped, c.getAuthTag()]);
}

/** The master key id a sidecar names, or a sentence saying why it is not a sidecar. */
export function sidecarKeyId(bytes: Buffer): string | { problem: string } {
  if (bytes.length !== SIDECAR_LENGTH) return { problem: `its key record is ${bytes.length} bytes, not ${SIDECAR_LENGTH}` };
  if (!bytes.subarray(0, 8).equals(SIDECAR_MAGIC)) return { problem: "its key record does not start with the key-record magic" };
  if (bytes[8] !== FORMAT_VERSION) return { problem: `its key record names format version ${bytes[8]}, which this software does not read` };
  if (bytes[9] !== 0 || bytes[10] !== 0 || bytes[11] !== 0) return { problem: "its key record has non-zero reserved bytes" };
  return bytes.subarray(12, 20).toString("hex");
}

/** The DEK, or null when this master key does not open this sidecar for this file id and name. */
export function openSidecar(masterKey: Buffer, bytes: Buffer, fileId: Buffer, name: string): Buffer | null {
  if (bytes.length !== SIDECAR_LENGTH) return null;
  const d = createDecipheriv("aes-256-gcm", masterKey, bytes.subarray(20, 32));
  d.setAAD(sidecarAad(bytes.subarray(0, 20), fileId, name));
  d.setAuthTag(bytes.subarray(64, 80));
  const dek = d.update(bytes.subarray(32, 64));
  try {
    d.final();
  } catch {
    return null;
  }
  return dek;
}

/** Storage keys, relative to the store root (a directory or a bucket prefix). */
export const layout = {
  marker: "dalil-blob-store.json",
  objectsPrefix: "objects/",
  blob: (name: string) => `objects/${name.slice(0, 2)}/${name.slice(2, 4)}/${name}`,
  sidecar: (name: string, fileId: Buffer) => `${layout.blob(name)}.${fileId.toString("hex")}.dek`,
  /** Splits an object key into its blob name and, for a sidecar, its file id. */
  parse(key: string): { name: string; fileId: Buffer | null } | null {
    const m = /^objects\/[0-9a-f]{2}\/[0-9a-f]{2}\/([0-9a-f]{64})(?:\.([0-9a-f]{32})\.dek)?$/.exec(key);
    if (!m || m[1] === undefined) return null;
    const name = m[1];
    if (key !== layout.blob(name) && !key.startsWith(`${layout.blob(name)}.`)) return null;
    return { name, fileId: m[2] === undefined ? null : Buffer.from(m[2], "hex") };
  },
};
