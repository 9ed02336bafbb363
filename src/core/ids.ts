import { pooledRandomBytes } from "./random-pool.ts";

/**
 * Record ids: a prefix naming the record kind and 16 random bytes in lowercase base32 (no ambiguity with
 * digits, safe in URLs and file names). Random, not sequential, so one id does not reveal others (IDOR).
 */
const ALPHABET = "abcdefghijklmnopqrstuvwxyz234567";

export function newId(prefix: string): string {
  const bytes = pooledRandomBytes(16);
  let bits = 0;
  let value = 0;
  let out = "";
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += ALPHABET[(value << (5 - bits)) & 31];
  return `${prefix}_${out}`;
}
