/**
 * C2SP signed-note@v1.0.0 with Ed25519 (signature type 0x01), interoperable with Go's
 * golang.org/x/mod/sumdb/note: same key strings, same key IDs, byte-identical signatures (Ed25519 is deterministic).
 *
 *   note      = text "\n" 1*signature-line          (text ends in "\n"; split at the LAST blank line)
 *   signature = "— " key-name " " base64(keyID[4] ‖ Ed25519 signature[64]) "\n"      (— is U+2014)
 *   key ID    = SHA-256(key name ‖ 0x0A ‖ 0x01 ‖ public key[32])[:4], big-endian uint32
 *   verifier key = name "+" hex(key ID, 8 digits) "+" base64(0x01 ‖ public key)
 *   signer key   = "PRIVATE+KEY+" name "+" hex(key ID) "+" base64(0x01 ‖ Ed25519 seed[32])
 *
 * Parsing is strict: anything Go's parser would reject we reject, and also a text whose first or last line is
 * blank (two blank lines before the signatures), so one note has one reading.
 */
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from "node:crypto";
import { IntegrityError, Invalid } from "../core/errors.ts";
import { say } from "../core/messages.ts";

const ALG_ED25519 = 0x01;
const EM_DASH_PREFIX = "\u2014 ";
/** Go's note package refuses more; the spec asks verifiers to accept at least 16. */
const MAX_SIGNATURES = 100;

// DER prefixes that wrap a raw 32-byte Ed25519 seed / public key as PKCS#8 / SPKI for node:crypto.
const PKCS8_ED25519_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");
const SPKI_ED25519_PREFIX = Buffer.from("302a300506032b6570032100", "hex");

export interface NoteSigner {
  readonly name: string;
  readonly keyId: number;
  readonly publicKey: Buffer;
  sign(message: Buffer): Buffer;
}

export interface NoteVerifier {
  readonly name: string;
  readonly keyId: number;
  verify(message: Buffer, signature: Buffer): boolean;
}

export interface NoteSignature {
  name: string;
  keyId: number;
  /** The base64 text of the signature line (key ID and signature). */
  base64: string;
}

export interface OpenedNote {
  /** The signed text, ending in "\n". */
  text: string;
  /** Signatures by known keys; all verified. */
  verified: NoteSignature[];
  /** Signatures by keys the caller did not pass; ignored, not checked. */
  unverified: NoteSignature[];
}

const BASE64_RE = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Standard padded base64 (RFC 4648 §4), canonical only: what our writers produce and Go reads. */
export function decodeBase64Strict(text: string): Buffer | null {
  if (!BASE64_RE.test(text)) return null;
  const bytes = Buffer.from(text, "base64");
  return bytes.toString("base64") === text ? bytes : null;
}

/** Key names: non-empty, no Unicode space, no "+" (Go's isValidName; U+0085 is a space to Go). */
export function isValidKeyName(name: string): boolean {
  return name.length > 0 && !/[\s\u0085+]/u.test(name) && !/\p{Surrogate}/u.test(name);
}

/** The key ID of a key of signature type `type` (0x01 a log's Ed25519 key; 0x04 a tlog-cosignature witness key). */
export function keyIdFor(name: string, publicKey: Uint8Array, type: number = ALG_ED25519): number {
  const digest = createHash("sha256")
    .update(Buffer.from(name, "utf8"))
    .update(Buffer.from([0x0a, type]))
    .update(publicKey)
    .digest();
  return digest.readUInt32BE(0);
}

export function hex8(id: number): string {
  return id.toString(16).padStart(8, "0");
}

function requireName(name: string): void {
  if (!isValidKeyName(name)) {
    throw new Invalid(say("note.keyName", { name: JSON.stringify(name) }));
  }
}

/** The Ed25519 key pair of a raw 32-byte seed: node's private key object and the raw 32-byte public key. */
export function seedToKeys(seed: Uint8Array): { privateKey: KeyObject; publicKey: Buffer } {
  if (seed.length !== 32) throw new Invalid(say("keys.ed25519Seed"));
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: "der", type: "pkcs8" });
  const spki = createPublicKey(privateKey).export({ format: "der", type: "spki" });
  return { privateKey, publicKey: spki.subarray(spki.length - 32) };
}

/** node's key object for a raw 32-byte Ed25519 public key. */
export function ed25519PublicKey(publicKey: Uint8Array): KeyObject {
  return createPublicKey({ key: Buffer.concat([SPKI_ED25519_PREFIX, publicKey]), format: "der", type: "spki" });
}

/** A signer from a raw 32-byte Ed25519 seed (the RFC 8032 secret key). */
export function signerFromSeed(name: string, seed: Uint8Array): NoteSigner {
  requireName(name);
  const { privateKey, publicKey } = seedToKeys(seed);
  return {
    name,
    keyId: keyIdFor(name, publicKey),
    publicKey,
    sign: (message) => sign(null, message, privateKey),
  };
}

/** The verifier key string for a name and raw 32-byte Ed25519 public key. */
export function verifierKeyFor(name: string, publicKey: Uint8Array): string {
  requireName(name);
  if (publicKey.length !== 32) throw new Invalid(say("keys.ed25519Public"));
  const encoded = Buffer.concat([Buffer.from([ALG_ED25519]), publicKey]).toString("base64");
  return `${name}+${hex8(keyIdFor(name, publicKey))}+${encoded}`;
}

function signerKeyFor(name: string, seed: Uint8Array, publicKey: Uint8Array): string {
  const encoded = Buffer.concat([Buffer.from([ALG_ED25519]), seed]).toString("base64");
  return `PRIVATE+KEY+${name}+${hex8(keyIdFor(name, publicKey))}+${encoded}`;
}

/** A fresh Ed25519 key pair as Go-style key strings. The signer key is secret (store it 0600). */
export function generateSigner(name: string): { signerKey: string; verifierKey: string } {
  requireName(name);
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  const pkcs8 = privateKey.export({ format: "der", type: "pkcs8" });
  const seed = pkcs8.subarray(pkcs8.length - 32);
  const pub = publicKey.export({ format: "der", type: "spki" }).subarray(-32);
  return { signerKey: signerKeyFor(name, seed, pub), verifierKey: verifierKeyFor(name, pub) };
}

/** Splits "a+b+rest" at the first `count` plus signs (base64 may itself contain "+"). */
/** `text` split at its first `count` "+" signs (the last part may hold more); null with fewer. */
export function splitPlus(text: string, count: number): string[] | null {
  const parts: string[] = [];
  let rest = text;
  for (let i = 0; i < count; i++) {
    const at = rest.indexOf("+");
    if (at < 0) return null;
    parts.push(rest.slice(0, at));
    rest = rest.slice(at + 1);
  }
  parts.push(rest);
  return parts;
}

function parseKeyId(hex: string): number | null {
  return /^[0-9a-fA-F]{8}$/.test(hex) ? Number.parseInt(hex, 16) : null;
}

/** Parses a signer key string (`PRIVATE+KEY+<name>+<hex id>+<base64(0x01 ‖ seed)>`). */
export function newSigner(signerKey: string): NoteSigner {
  const parts = splitPlus(signerKey.trim(), 4);
  const bad = say("note.signingKeyMalformed");
  if (!parts || parts[0] !== "PRIVATE" || parts[1] !== "KEY") throw new Invalid(bad);
  const [, , name = "", idHex = "", b64 = ""] = parts;
  const id = parseKeyId(idHex);
  const key = decodeBase64Strict(b64);
  if (id === null || !key || !isValidKeyName(name)) throw new Invalid(bad);
  if (key[0] !== ALG_ED25519) throw new Invalid(say("note.signingAlgorithm"));
  if (key.length !== 33) throw new Invalid(bad);
  const signer = signerFromSeed(name, key.subarray(1));
  if (signer.keyId !== id) throw new Invalid(say("note.signingKeyId"));
  return signer;
}

/** Parses a verifier key string (`<name>+<hex id>+<base64(0x01 ‖ public key)>`). */
export function newVerifier(verifierKey: string): NoteVerifier {
  const parts = splitPlus(verifierKey.trim(), 2);
  const bad = say("note.verifierKeyMalformed", { key: JSON.stringify(verifierKey.slice(0, 200)) });
  if (!parts) throw new Invalid(bad);
  const [name = "", idHex = "", b64 = ""] = parts;
  const id = parseKeyId(idHex);
  const key = decodeBase64Strict(b64);
  if (id === null || !key || key.length === 0 || !isValidKeyName(name)) throw new Invalid(bad);
  if (key[0] !== ALG_ED25519) throw new Invalid(say("note.verifierAlgorithm", { name }));
  if (key.length !== 33) throw new Invalid(bad);
  const publicKey = key.subarray(1);
  if (keyIdFor(name, publicKey) !== id) {
    throw new Invalid(say("note.verifierKeyId", { name, keyId: idHex.toLowerCase() }));
  }
  const keyObject = ed25519PublicKey(publicKey);
  return {
    name,
    keyId: id,
    verify: (message, signature) => signature.length === 64 && verify(null, message, keyObject, signature),
  };
}

/** Checks the note text rules shared by signing and opening; returns a reason or null. */
function textProblem(text: string): string | null {
  if (text.length === 0 || !text.endsWith("\n")) return "the text must be non-empty and end with a newline";
  if (text.startsWith("\n")) return "the text must not begin with a blank line";
  if (text.endsWith("\n\n")) return "the text must not end with a blank line";
  return contentProblem(text);
}

function contentProblem(s: string): string | null {
  if (/\p{Surrogate}/u.test(s)) return "it is not valid Unicode";
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0009\u000b-\u001f]/.test(s)) return "it contains a control character other than newline";
  return null;
}

/** Signs `text` (which must end in "\n") with each signer, in order. */
export function signNote(text: string, signers: readonly NoteSigner[]): string {
  const problem = textProblem(text);
  if (problem) throw new Invalid(say("note.cannotSign", { problem }));
  if (signers.length === 0) throw new Invalid(say("note.noSigningKey"));
  const message = Buffer.from(text, "utf8");
  let out = `${text}\n`;
  for (const s of signers) {
    requireName(s.name);
    const sig = s.sign(message);
    const id = Buffer.alloc(4);
    id.writeUInt32BE(s.keyId);
    out += `${EM_DASH_PREFIX}${s.name} ${Buffer.concat([id, sig]).toString("base64")}\n`;
  }
  return out;
}

function decodeNote(note: string | Uint8Array): string {
  if (typeof note === "string") return note;
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(note);
  } catch {
    throw new Invalid(say("note.notUtf8"));
  }
}

/**
 * Opens a signed note: verifies every signature by a known key (name and key ID both match), ignores the others.
 * Throws Invalid if the note is malformed, IntegrityError if a known key's signature fails or no known key signed.
 */
export function openNote(note: string | Uint8Array, verifiers: readonly NoteVerifier[]): OpenedNote {
  const s = decodeNote(note);
  const malformed = (why: string): Invalid => new Invalid(say("note.malformed", { why }));
  const content = contentProblem(s);
  if (content) throw malformed(content);
  const split = s.lastIndexOf("\n\n");
  if (split < 0) throw malformed("there is no blank line before the signatures");
  const text = s.slice(0, split + 1);
  const block = s.slice(split + 2);
  const problem = textProblem(text);
  if (problem) throw malformed(problem);
  if (block.length === 0 || !block.endsWith("\n")) throw malformed("the signature lines must follow the blank line and end with a newline");
  const lines = block.slice(0, -1).split("\n");
  if (lines.length > MAX_SIGNATURES) throw malformed(`it has more than ${MAX_SIGNATURES} signatures`);

  const message = Buffer.from(text, "utf8");
  const verified: NoteSignature[] = [];
  const unverified: NoteSignature[] = [];
  for (const line of lines) {
    if (!line.startsWith(EM_DASH_PREFIX)) throw malformed(`a signature line does not start with an em dash (U+2014) and a space: ${JSON.stringify(line.slice(0, 80))}`);
    const rest = line.slice(EM_DASH_PREFIX.length);
    const space = rest.indexOf(" ");
    const name = space < 0 ? rest : rest.slice(0, space);
    const b64 = space < 0 ? "" : rest.slice(space + 1);
    const raw = decodeBase64Strict(b64);
    if (!isValidKeyName(name) || !raw || raw.length < 5) throw malformed(`the signature line for ${JSON.stringify(name)} is not "— <key name> <base64 signature>"`);
    const keyId = raw.readUInt32BE(0);
    const sig: NoteSignature = { name, keyId, base64: b64 };
    const verifier = verifiers.find((v) => v.name === name && v.keyId === keyId);
    if (!verifier) {
      unverified.push(sig);
      continue;
    }
    if (!verifier.verify(message, raw.subarray(4))) {
      throw new IntegrityError(say("note.signatureFails", { name, keyId: hex8(keyId) }));
    }
    verified.push(sig);
  }
  if (verified.length === 0) {
    const names = unverified.map((u) => `${u.name} (key ${hex8(u.keyId)})`).join(", ");
    throw new IntegrityError(say("note.untrusted", { names }));
  }
  return { text, verified, unverified };
}
