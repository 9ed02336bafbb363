import { readdirSync, renameSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { paths, type Config } from "../core/config.ts";
import { keyId, loadKeyFile, writeKeyFileExclusive } from "./secrets.ts";

/**
 * The access module's two keys, each in its own file under DATA/keys (0600), apart from the blob master key
 * and the log signing key:
 * - accounts.key: encrypts second-factor secrets and keys the HMACs that name throttled addresses and derive
 *   CSRF tokens. Created on first use. Every server process of one archive needs the same file.
 * - sealed.key: encrypts sealed source identities. Created when the first identity is sealed; it can be moved
 *   off the server (sealing then makes a new one only if none was ever made, opening says the key is missing)
 *   and brought back to open a record. During a rotation `sealed.next.key` and `sealed.previous.<id>.key` exist
 *   for a moment; every sealed*.key file is tried by key id, so a rotation interrupted anywhere loses nothing.
 */
export const ACCOUNTS_KEY = "accounts.key";
export const SEALED_KEY = "sealed.key";
const SEALED_NEXT = "sealed.next.key";
const SEALED_ANY = /^sealed\.(?:next\.|previous\.[0-9a-f]{16}\.)?key$/;

const cache = new Map<string, Buffer>();

export function accountsKey(config: Config): Buffer {
  const dir = paths.keys(config);
  const hit = cache.get(dir);
  if (hit) return hit;
  const key = loadKeyFile(dir, ACCOUNTS_KEY, true)!;
  cache.set(dir, key);
  return key;
}

/** Not cached: the file may be brought in or taken away while a server runs. */
export function sealedKey(config: Config, create: boolean): Buffer | null {
  return loadKeyFile(paths.keys(config), SEALED_KEY, create);
}

/** Every sealed key on this server by key id: the current one and any left by an unfinished rotation. */
export function sealedKeyring(config: Config): Map<string, Buffer> {
  const dir = paths.keys(config);
  const ring = new Map<string, Buffer>();
  let names: string[] = [];
  try {
    names = readdirSync(dir).filter((n) => SEALED_ANY.test(n)).sort();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  for (const n of names) {
    const k = loadKeyFile(dir, n, false);
    if (k) ring.set(keyId(k), k);
  }
  return ring;
}

/** Step 1 of a rotation: the new key, saved before any record is sealed under it. */
export function stageNextSealedKey(config: Config, key: Buffer): void {
  const dir = paths.keys(config);
  try {
    unlinkSync(join(dir, SEALED_NEXT));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  writeKeyFileExclusive(dir, SEALED_NEXT, key);
}

/** Step 3, after every record is sealed under the new key: it becomes sealed.key; the old one is removed. */
export function promoteNextSealedKey(config: Config, old: Buffer | null): void {
  const dir = paths.keys(config);
  if (old) renameSync(join(dir, SEALED_KEY), join(dir, `sealed.previous.${keyId(old)}.key`));
  renameSync(join(dir, SEALED_NEXT), join(dir, SEALED_KEY));
  if (old) unlinkSync(join(dir, `sealed.previous.${keyId(old)}.key`));
}
