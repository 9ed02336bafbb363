/**
 * C2SP tlog-cosignature@v1.0.1, the Ed25519 type (signature type 0x04): a witness's statement that, as of a
 * time, the largest consistent tree it has seen for a log has this root.
 *
 *   key ID    = SHA-256(name ‖ 0x0A ‖ 0x04 ‖ Ed25519 public key[32])[:4]                 (§ Format)
 *   message   = "cosignature/v1\n" "time " <decimal, no leading zeros> "\n" <checkpoint body>   (§ Ed25519 signed message)
 *   line      = "— " name " " base64(key ID[4] ‖ timestamp u64 big-endian[8] ‖ Ed25519 signature[64]) "\n"
 *               (76 bytes after base64 decoding)
 *   vkey      = name "+" hex(key ID) "+" base64(0x04 ‖ public key)                         (signed-note § Verifier keys)
 *   signer    = "PRIVATE+KEY+" name "+" hex(key ID) "+" base64(0x04 ‖ Ed25519 seed)        (this archive's file format)
 *
 * Pure functions over strings and bytes: no database, no clock (the caller passes the time).
 */
import { generateKeyPairSync, sign, verify } from "node:crypto";
import { Invalid } from "../core/errors.ts";
import { decodeBase64Strict, ed25519PublicKey, hex8, isValidKeyName, keyIdFor, seedToKeys, splitPlus, type NoteVerifier } from "./note.ts";
import { say } from "../core/messages.ts";

export const COSIGNATURE_TYPE = 0x04;
const HEADER = "cosignature/v1\n";
const LINE_PREFIX = "\u2014 ";
/** Key ID, timestamp, signature. */
export const COSIGNATURE_BYTES = 4 + 8 + 64;


export interface Cosigner {
  readonly name: string;
  readonly keyId: number;
  readonly publicKey: Buffer;
  /** A complete signature line ("— name base64\n") over `checkpointText` at `time` (POSIX seconds). */
  cosign(checkpointText: string, time: number): string;
}

export interface CosignerKey {
  readonly name: string;
  readonly keyId: number;
  readonly publicKey: Buffer;
  readonly vkey: string;
}

export interface Cosignature {
  name: string;
  keyId: number;
  /** POSIX seconds the witness put in its statement. */
  time: number;
  /** The whole line, with its final newline. */
  line: string;
}

export function cosignatureKeyId(name: string, publicKey: Uint8Array): number {
  return keyIdFor(name, publicKey, COSIGNATURE_TYPE);
}

/** The exact bytes a cosigner signs (§ Ed25519 signed message). */
export function cosignedMessage(checkpointText: string, time: number): Buffer {
  if (!Number.isSafeInteger(time) || time < 0) throw new Invalid(say("cosignature.time", { time }));
  if (!checkpointText.endsWith("\n")) throw new Invalid(say("cosignature.bodyNewline"));
  return Buffer.from(`${HEADER}time ${time}\n${checkpointText}`, "utf8");
}

function requireName(name: string): void {
  if (!isValidKeyName(name)) throw new Invalid(say("cosignature.name", { name: JSON.stringify(name) }));
}

export function cosignerVkey(name: string, publicKey: Uint8Array): string {
  requireName(name);
  if (publicKey.length !== 32) throw new Invalid(say("keys.ed25519Public"));
  return `${name}+${hex8(cosignatureKeyId(name, publicKey))}+${Buffer.concat([Buffer.from([COSIGNATURE_TYPE]), publicKey]).toString("base64")}`;
}

/** Parses a cosigner vkey (type 0x04) and checks its key ID against its key. */
export function parseCosignerVkey(vkey: string): CosignerKey {
  const bad = say("witness.keyMalformed", { key: JSON.stringify(vkey.slice(0, 200)) });
  const parts = splitPlus(vkey.trim(), 2);
  if (!parts) throw new Invalid(bad);
  const [name = "", idHex = "", b64 = ""] = parts;
  const key = decodeBase64Strict(b64);
  if (!/^[0-9a-fA-F]{8}$/.test(idHex) || !key || !isValidKeyName(name)) throw new Invalid(bad);
  if (key[0] !== COSIGNATURE_TYPE) {
    throw new Invalid(say("witness.keyType", { name, key: (key[0] ?? 0).toString(16).padStart(2, "0") }));
  }
  if (key.length !== 33) throw new Invalid(bad);
  const publicKey = key.subarray(1);
  const keyId = Number.parseInt(idHex, 16);
  if (cosignatureKeyId(name, publicKey) !== keyId) throw new Invalid(say("witness.keyIdMismatch", { name, keyId: idHex.toLowerCase() }));
  return { name, keyId, publicKey, vkey: vkey.trim() };
}

export function cosignerFromSeed(name: string, seed: Uint8Array): Cosigner {
  requireName(name);
  const { privateKey, publicKey } = seedToKeys(seed);
  const keyId = cosignatureKeyId(name, publicKey);
  return {
    name,
    keyId,
    publicKey,
    cosign(checkpointText, time) {
      const raw = Buffer.alloc(COSIGNATURE_BYTES);
      raw.writeUInt32BE(keyId, 0);
      raw.writeBigUInt64BE(BigInt(time), 4);
      sign(null, cosignedMessage(checkpointText, time), privateKey).copy(raw, 12);
      return `${LINE_PREFIX}${name} ${raw.toString("base64")}\n`;
    },
  };
}

/** A new cosigner key as strings: the signer key (secret, store 0600) and its vkey. */
export function generateCosigner(name: string): { signerKey: string; vkey: string } {
  requireName(name);
  const { privateKey } = generateKeyPairSync("ed25519");
  const seed = privateKey.export({ format: "der", type: "pkcs8" }).subarray(-32);
  const c = cosignerFromSeed(name, seed);
  return {
    signerKey: `PRIVATE+KEY+${name}+${hex8(c.keyId)}+${Buffer.concat([Buffer.from([COSIGNATURE_TYPE]), seed]).toString("base64")}`,
    vkey: cosignerVkey(name, c.publicKey),
  };
}

export function parseCosignerKey(signerKey: string): Cosigner {
  const bad = say("witness.signingKeyMalformed");
  const parts = splitPlus(signerKey.trim(), 4);
  if (!parts || parts[0] !== "PRIVATE" || parts[1] !== "KEY") throw new Invalid(bad);
  const [, , name = "", idHex = "", b64 = ""] = parts;
  const key = decodeBase64Strict(b64);
  if (!/^[0-9a-fA-F]{8}$/.test(idHex) || !key || key.length !== 33 || key[0] !== COSIGNATURE_TYPE || !isValidKeyName(name)) throw new Invalid(bad);
  const c = cosignerFromSeed(name, key.subarray(1));
  if (c.keyId !== Number.parseInt(idHex, 16)) throw new Invalid(say("witness.signingKeyId"));
  return c;
}

/**
 * A signed-note verifier for one cosigner: openNote hands it the note body and the bytes after the key ID
 * (timestamp ‖ signature), so cosignatures verify through the same strict note parser as log signatures.
 */
export function cosignatureVerifier(key: CosignerKey): NoteVerifier {
  const keyObject = ed25519PublicKey(key.publicKey);
  return {
    name: key.name,
    keyId: key.keyId,
    verify(message, signature) {
      if (signature.length !== COSIGNATURE_BYTES - 4) return false;
      const time = signature.readBigUInt64BE(0);
      if (time > BigInt(Number.MAX_SAFE_INTEGER)) return false;
      return verify(null, cosignedMessage(message.toString("utf8"), Number(time)), keyObject, signature.subarray(8));
    },
  };
}

/**
 * Parses signature lines ("— name base64\n" …), as a witness returns them, keeping those by `key` that verify over
 * `checkpointText`. Lines by other keys are ignored (tlog-witness: the client MUST ignore unknown keys); a line
 * by `key` that does not verify is an error, as signed-note asks.
 */
export function verifyCosignatureLines(checkpointText: string, lines: string, key: CosignerKey): Cosignature[] {
  if (lines.length === 0 || !lines.endsWith("\n")) throw new Invalid(say("cosignature.lines"));
  const verifier = cosignatureVerifier(key);
  const out: Cosignature[] = [];
  for (const line of lines.slice(0, -1).split("\n")) {
    if (!line.startsWith(LINE_PREFIX)) throw new Invalid(say("cosignature.emDash", { line: JSON.stringify(line.slice(0, 80)) }));
    const rest = line.slice(LINE_PREFIX.length);
    const space = rest.indexOf(" ");
    const name = space < 0 ? rest : rest.slice(0, space);
    const raw = decodeBase64Strict(space < 0 ? "" : rest.slice(space + 1));
    if (!raw || raw.length < 5) throw new Invalid(say("cosignature.lineShape", { name: JSON.stringify(name) }));
    if (name !== key.name || raw.readUInt32BE(0) !== key.keyId) continue;
    if (raw.length !== COSIGNATURE_BYTES || !verifier.verify(Buffer.from(checkpointText, "utf8"), raw.subarray(4))) {
      throw new Invalid(say("cosignature.doesNotVerify", { name, keyId: hex8(key.keyId) }));
    }
    out.push({ name, keyId: key.keyId, time: Number(raw.readBigUInt64BE(4)), line: `${line}\n` });
  }
  return out;
}
