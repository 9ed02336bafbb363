/**
 * The custody log's proofs, checked in the browser with WebCrypto: nothing here trusts the server beyond the
 * bytes it sent. A port of src/ledger (note.ts: C2SP signed notes with Ed25519; checkpoint.ts; tlog-proof.ts;
 * merkle.ts verifyInclusion, RFC 9162 §2.1.3.2) without node:crypto, so it runs in any modern browser (and in
 * Node ≥ 20, where the tests run it against proofs the server made).
 *
 * Failures are reason codes, not sentences, so the page can say them in the reader's language.
 */
export type ProofFailure =
  | "malformed-key" // the verifier key string is not name+id+base64 key, or its id does not match
  | "malformed-note" // the checkpoint is not a signed note
  | "malformed-checkpoint" // the note's text is not origin / size / root hash
  | "malformed-proof" // the tlog-proof text is not in the C2SP format
  | "untrusted" // no signature by the given key
  | "bad-signature" // a signature by the given key does not verify
  | "index" // the proof's index is outside the signed tree
  | "mismatch" // the leaf bytes with this proof do not give the signed root
  | "no-ed25519"; // this browser's WebCrypto has no Ed25519

export type ProofCheck =
  | { ok: true; index: number; size: number; origin: string; rootHash: string; signedBy: string[] }
  | { ok: false; reason: ProofFailure };

export interface OpenedCheckpoint {
  origin: string;
  size: number;
  rootHash: Uint8Array;
  signedBy: string[];
}

class Failure extends Error {
  constructor(readonly reason: ProofFailure) {
    super(reason);
  }
}

type Subtle = typeof globalThis.crypto.subtle;
type Key = Awaited<ReturnType<Subtle["importKey"]>>;
const subtle = (): Subtle => globalThis.crypto.subtle;
/** WebCrypto takes buffers it owns (never a SharedArrayBuffer view): a copy. */
const own = (u: Uint8Array): Uint8Array<ArrayBuffer> => new Uint8Array(u);
const utf8 = new TextEncoder();
const BASE64_RE = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function toBase64(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
}

/** Canonical padded base64 only, as the server writes and Go reads. */
export function decodeBase64Strict(text: string): Uint8Array | null {
  if (!BASE64_RE.test(text)) return null;
  const bin = atob(text);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return toBase64(out) === text ? out : null;
}

async function sha256(...parts: Uint8Array[]): Promise<Uint8Array> {
  let n = 0;
  for (const p of parts) n += p.length;
  const buf = new Uint8Array(n);
  let at = 0;
  for (const p of parts) {
    buf.set(p, at);
    at += p.length;
  }
  return new Uint8Array(await subtle().digest("SHA-256", buf));
}

export function leafHash(leaf: Uint8Array): Promise<Uint8Array> {
  return sha256(new Uint8Array([0]), leaf);
}

function nodeHash(left: Uint8Array, right: Uint8Array): Promise<Uint8Array> {
  return sha256(new Uint8Array([1]), left, right);
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let d = 0;
  for (let i = 0; i < a.length; i++) d |= a[i]! ^ b[i]!;
  return d === 0;
}

function isValidKeyName(name: string): boolean {
  return name.length > 0 && !/[\s\u0085+]/u.test(name);
}

function parseDecimal(text: string): number | null {
  if (!/^(?:0|[1-9][0-9]*)$/.test(text)) return null;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : null;
}

interface Verifier {
  name: string;
  keyId: number;
  publicKey: Uint8Array;
}

async function keyIdFor(name: string, publicKey: Uint8Array): Promise<number> {
  const d = await sha256(utf8.encode(name), new Uint8Array([0x0a, 0x01]), publicKey);
  return ((d[0]! << 24) | (d[1]! << 16) | (d[2]! << 8) | d[3]!) >>> 0;
}

/** `<name>+<8 hex digit key id>+<base64(0x01 ‖ 32-byte Ed25519 public key)>` */
export async function parseVerifierKey(vkey: string): Promise<Verifier> {
  const text = vkey.trim();
  const a = text.indexOf("+");
  const b = a < 0 ? -1 : text.indexOf("+", a + 1);
  if (a < 0 || b < 0) throw new Failure("malformed-key");
  const name = text.slice(0, a);
  const idHex = text.slice(a + 1, b);
  const key = decodeBase64Strict(text.slice(b + 1));
  if (!isValidKeyName(name) || !/^[0-9a-fA-F]{8}$/.test(idHex) || !key || key.length !== 33 || key[0] !== 0x01) throw new Failure("malformed-key");
  const publicKey = key.subarray(1);
  const keyId = Number.parseInt(idHex, 16);
  if ((await keyIdFor(name, publicKey)) !== keyId) throw new Failure("malformed-key");
  return { name, keyId, publicKey };
}

async function ed25519Verify(publicKey: Uint8Array, signature: Uint8Array, message: Uint8Array): Promise<boolean> {
  let key: Key;
  try {
    key = await subtle().importKey("raw", own(publicKey), { name: "Ed25519" }, false, ["verify"]);
  } catch {
    throw new Failure("no-ed25519");
  }
  return subtle().verify({ name: "Ed25519" }, key, own(signature), own(message));
}

/** Verifies a signed note's signatures by the given key; returns the signed text and who signed. */
export async function openNote(note: string, verifier: Verifier): Promise<{ text: string; signedBy: string[] }> {
  const split = note.lastIndexOf("\n\n");
  if (split < 0) throw new Failure("malformed-note");
  const text = note.slice(0, split + 1);
  const block = note.slice(split + 2);
  if (text.length === 0 || text.startsWith("\n") || !block.endsWith("\n")) throw new Failure("malformed-note");
  const message = utf8.encode(text);
  const signedBy: string[] = [];
  for (const line of block.slice(0, -1).split("\n")) {
    if (!line.startsWith("\u2014 ")) throw new Failure("malformed-note");
    const rest = line.slice(2);
    const space = rest.indexOf(" ");
    const name = space < 0 ? rest : rest.slice(0, space);
    const raw = space < 0 ? null : decodeBase64Strict(rest.slice(space + 1));
    if (!raw || raw.length < 5 || !isValidKeyName(name)) throw new Failure("malformed-note");
    const keyId = ((raw[0]! << 24) | (raw[1]! << 16) | (raw[2]! << 8) | raw[3]!) >>> 0;
    if (name !== verifier.name || keyId !== verifier.keyId) continue;
    const sig = raw.subarray(4);
    if (sig.length !== 64 || !(await ed25519Verify(verifier.publicKey, sig, message))) throw new Failure("bad-signature");
    signedBy.push(name);
  }
  if (signedBy.length === 0) throw new Failure("untrusted");
  return { text, signedBy };
}

export async function openCheckpoint(note: string, vkey: string): Promise<OpenedCheckpoint> {
  const verifier = await parseVerifierKey(vkey);
  const { text, signedBy } = await openNote(note, verifier);
  const lines = text.slice(0, -1).split("\n");
  const [origin = "", sizeText = "", rootText = ""] = lines;
  const size = parseDecimal(sizeText);
  const rootHash = decodeBase64Strict(rootText);
  if (lines.length < 3 || origin.length === 0 || size === null || !rootHash || rootHash.length !== 32) throw new Failure("malformed-checkpoint");
  return { origin, size, rootHash, signedBy };
}

export interface TlogProof {
  index: number;
  hashes: Uint8Array[];
  checkpoint: string;
}

export function parseTlogProof(text: string): TlogProof {
  const lines = text.split("\n");
  let i = 0;
  if (lines[i++] !== "c2sp.org/tlog-proof@v1") throw new Failure("malformed-proof");
  if (lines[i]?.startsWith("extra ")) i++;
  const indexLine = lines[i++] ?? "";
  const index = indexLine.startsWith("index ") ? parseDecimal(indexLine.slice(6)) : null;
  if (index === null) throw new Failure("malformed-proof");
  const hashes: Uint8Array[] = [];
  for (; i < lines.length && lines[i] !== ""; i++) {
    const h = decodeBase64Strict(lines[i]!);
    if (!h || h.length !== 32) throw new Failure("malformed-proof");
    hashes.push(h);
  }
  if (i >= lines.length) throw new Failure("malformed-proof");
  const checkpoint = lines.slice(i + 1).join("\n");
  if (checkpoint.length === 0) throw new Failure("malformed-proof");
  return { index, hashes, checkpoint };
}

/** RFC 9162 §2.1.3.2, the same loop as src/ledger/merkle.ts verifyInclusion. */
export async function verifyInclusion(leaf: Uint8Array, index: number, size: number, proof: readonly Uint8Array[], root: Uint8Array): Promise<boolean> {
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(size) || index < 0 || index >= size) return false;
  let fn = index;
  let sn = size - 1;
  let r = leaf;
  for (const p of proof) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = await nodeHash(p, r);
      while (fn % 2 === 0 && fn !== 0) {
        fn /= 2;
        sn = Math.floor(sn / 2);
      }
    } else {
      r = await nodeHash(r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && sameBytes(r, root);
}

/** Does this tlog-proof show that these exact leaf bytes are in the log signed by this key? */
export async function checkProof(input: { proofText: string; leafBytes: Uint8Array; verifierKey: string }): Promise<ProofCheck> {
  try {
    const proof = parseTlogProof(input.proofText);
    const cp = await openCheckpoint(proof.checkpoint, input.verifierKey);
    if (proof.index >= cp.size) return { ok: false, reason: "index" };
    const ok = await verifyInclusion(await leafHash(input.leafBytes), proof.index, cp.size, proof.hashes, cp.rootHash);
    if (!ok) return { ok: false, reason: "mismatch" };
    return { ok: true, index: proof.index, size: cp.size, origin: cp.origin, rootHash: toBase64(cp.rootHash), signedBy: cp.signedBy };
  } catch (e) {
    if (e instanceof Failure) return { ok: false, reason: e.reason };
    throw e;
  }
}

/** A checkpoint's signature checked against the key; null when it verifies, else the reason. */
export async function checkCheckpoint(note: string, vkey: string): Promise<{ ok: true; checkpoint: OpenedCheckpoint } | { ok: false; reason: ProofFailure }> {
  try {
    return { ok: true, checkpoint: await openCheckpoint(note, vkey) };
  } catch (e) {
    if (e instanceof Failure) return { ok: false, reason: e.reason };
    throw e;
  }
}
