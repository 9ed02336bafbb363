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

/** Where n fresh bytes start in the pool, drawing a new pool when this one has fewer left. */
function take(n: number): number {
  if (at + n > pool.length) {
    pool = randomBytes(POOL_BYTES);
    at = 0;
  }
  const start = at;
  at += n;
  return start;
}

/** n fresh random bytes, as a view that no later call reuses. */
export function pooledRandomBytes(n: number): Buffer {
  if (n > POOL_BYTES) return randomBytes(n);
  const start = take(n);
  return pool.subarray(start, start + n);
}

/** n fresh random bytes as lowercase hex. */
export function pooledRandomHex(n: number): string {
  if (n > POOL_BYTES) return randomBytes(n).toString("hex");
  const start = take(n);
  return pool.toString("hex", start, start + n);
}
