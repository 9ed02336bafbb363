import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { chmodSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { IntegrityError } from "../core/errors.ts";
import { base64KeyText, writeKeyFile } from "../core/key-file.ts";
import { say } from "../core/messages.ts";

/**
 * Secrets at rest and in comparison. Credentials handed to people (session cookies, API tokens, recovery
 * codes) carry at least 128 random bits, so a plain SHA-256 of them is enough to store; passwords, which
 * people choose, go through argon2id instead (passwords.ts). Comparisons of secrets are constant-time.
 */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString("base64url");
}

export function sha256Hex(s: string | Buffer): string {
  return createHash("sha256").update(s).digest("hex");
}

/** Equal strings in time that does not depend on where they differ (hash both: lengths may differ). */
export function constantTimeEqual(a: string, b: string): boolean {
  const ha = createHash("sha256").update(a).digest();
  const hb = createHash("sha256").update(b).digest();
  return timingSafeEqual(ha, hb);
}

export function hmacHex(key: Buffer, label: string, value: string): string {
  return createHmac("sha256", key).update(`${label}\u0000${value}`).digest("hex");
}

/** AES-256-GCM with a fresh 96-bit nonce; the AAD binds the ciphertext to the record it belongs to. */
export function seal(key: Buffer, plaintext: Buffer, aad: string): { nonce: Buffer; ciphertext: Buffer } {
  const nonce = randomBytes(12);
  const c = createCipheriv("aes-256-gcm", key, nonce);
  c.setAAD(Buffer.from(aad, "utf8"));
  const ciphertext = Buffer.concat([c.update(plaintext), c.final(), c.getAuthTag()]);
  return { nonce, ciphertext };
}

export function open(key: Buffer, nonce: Buffer, ciphertext: Buffer, aad: string): Buffer {
  if (ciphertext.length < 16) throw new IntegrityError(say("sealed.truncated"));
  const d = createDecipheriv("aes-256-gcm", key, nonce);
  d.setAAD(Buffer.from(aad, "utf8"));
  d.setAuthTag(ciphertext.subarray(ciphertext.length - 16));
  try {
    return Buffer.concat([d.update(ciphertext.subarray(0, ciphertext.length - 16)), d.final()]);
  } catch {
    throw new IntegrityError(say("sealed.wrongKey"));
  }
}

/** nonce ‖ ciphertext ‖ tag in one column, for small values (TOTP secrets). */
export function sealPacked(key: Buffer, plaintext: Buffer, aad: string): Buffer {
  const { nonce, ciphertext } = seal(key, plaintext, aad);
  return Buffer.concat([nonce, ciphertext]);
}

export function openPacked(key: Buffer, packed: Buffer, aad: string): Buffer {
  return open(key, packed.subarray(0, 12), packed.subarray(12), aad);
}

export function keyId(key: Buffer): string {
  return createHash("sha256").update(key).digest().subarray(0, 8).toString("hex");
}

/**
 * A 32-byte key in a file of the keys directory (mode 0600). Created on first use when `create` is set; two
 * processes racing to create it agree, because the file is written exclusively and the loser reads the winner's.
 */
export function loadKeyFile(keysDir: string, name: string, create: boolean): Buffer | null {
  const path = join(keysDir, name);
  try {
    const st = statSync(path);
    if ((st.mode & 0o077) !== 0) chmodSync(path, 0o600);
    return decodeKey(readFileSync(path, "utf8"), name);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  if (!create) return null;
  const key = randomBytes(32);
  return writeKeyFileExclusive(keysDir, name, key) ? key : decodeKey(readFileSync(path, "utf8"), name);
}

/** Writes a key file only if none exists (0600, directory 0700); false when one was there already. */
export function writeKeyFileExclusive(keysDir: string, name: string, key: Buffer): boolean {
  return writeKeyFile(keysDir, name, base64KeyText(key), "create");
}

function decodeKey(text: string, name: string): Buffer {
  const key = Buffer.from(text.trim(), "base64");
  if (key.length !== 32) throw new IntegrityError(say("keys.badKeyFile", { file: name }));
  return key;
}
