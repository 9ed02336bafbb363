import { randomBytes } from "node:crypto";

/**
 * Fresh random bytes from the system's CSPRNG, drawn 16 KiB at a time. One `randomBytes` call costs about as much
 * as hashing a custody event (the custody log makes an id and salts for every event it appends), so bytes are cut
 * from a pool instead. Every byte is handed out once and only once; a spent pool is dropped, never refilled in
 * place, so a slice handed out earlier never changes.
 */
const POOL_BYTES = 16 * 1024;
let pool = Buffer.alloc(0);
let at = 0;

/** n fresh random bytes (n ≤ 16 KiB), as a view that no later call reuses. */
export function pooledRandomBytes(n: number): Buffer {
  if (n > POOL_BYTES) return randomBytes(n);
  if (at + n > pool.length) {
    pool = randomBytes(POOL_BYTES);
    at = 0;
  }
  const out = pool.subarray(at, at + n);
  at += n;
  return out;
}

/** n fresh random bytes as lowercase hex. */
export function pooledRandomHex(n: number): string {
  if (n > POOL_BYTES) return randomBytes(n).toString("hex");
  if (at + n > pool.length) {
    pool = randomBytes(POOL_BYTES);
    at = 0;
  }
  const out = pool.toString("hex", at, at + n);
  at += n;
  return out;
}
