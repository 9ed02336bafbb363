import type { Config } from "../core/config.ts";
import type { Clock } from "../core/clock.ts";
import { RateLimited } from "../core/errors.ts";
import type { DatabaseHandle, Tx } from "../db/database.ts";
import { accountsKey } from "./keyring.ts";
import { hmacHex } from "./secrets.ts";
import { adb } from "./tables.ts";

/**
 * Failed sign-ins and codes, counted in the database so that every server process of the archive sees the
 * same counts. Counted per account (by an HMAC of the email address, so an address that has no account is
 * counted the same way and lockout tells nothing about who has one), per network address (also by HMAC: the
 * table never holds a person's address in the clear), and per account for second-factor codes.
 * After `limit` failures within `windowMs` the key is locked for `lockMs`.
 */
export interface ThrottleRule {
  limit: number;
  windowMs: number;
  lockMs: number;
}

const MIN = 60 * 1000;
export const THROTTLE = {
  account: { limit: 5, windowMs: 15 * MIN, lockMs: 15 * MIN },
  address: { limit: 30, windowMs: 15 * MIN, lockMs: 15 * MIN },
  totp: { limit: 5, windowMs: 15 * MIN, lockMs: 15 * MIN },
} satisfies Record<string, ThrottleRule>;

export function accountKey(config: Config, email: string): string {
  return `acct:${hmacHex(accountsKey(config), "throttle.account", email)}`;
}

export function addressKey(config: Config, ip: string): string {
  return `ip:${hmacHex(accountsKey(config), "throttle.address", ip)}`;
}

export function totpKey(userId: string): string {
  return `totp:${userId}`;
}

/** Throws RateLimited when any of the keys is locked now. */
export async function assertNotLocked(tx: Tx, clock: Clock, keys: string[]): Promise<void> {
  const now = clock.now().toISOString();
  const rows = await adb(tx).selectFrom("auth_throttle").select(["locked_until"]).where("key", "in", keys).where("locked_until", ">", now).execute();
  const until = rows.map((r) => r.locked_until!).sort().at(-1);
  if (until) throw lockedError(until);
}

function lockedError(until: string): RateLimited {
  const hhmm = until.slice(11, 16);
  return new RateLimited(`Too many failed attempts. Wait until ${hhmm} UTC and try again, or ask an administrator to reset the account.`);
}

/**
 * Counts one failure, in its own transaction so that it stays counted when the request then fails.
 * Returns the time the key is locked until, when this failure locked it.
 */
export async function recordFailure(dbh: DatabaseHandle, clock: Clock, key: string, rule: ThrottleRule): Promise<string | null> {
  return dbh.transaction(async (tx) => {
    const now = clock.now();
    const nowIso = now.toISOString();
    await adb(tx)
      .insertInto("auth_throttle")
      .values({ key, failures: 0, window_started_at: nowIso, locked_until: null, updated_at: nowIso })
      .onConflict((oc) => oc.column("key").doNothing())
      .execute();
    let q = adb(tx).selectFrom("auth_throttle").selectAll().where("key", "=", key);
    if (dbh.dialect === "postgres") q = q.forUpdate();
    const row = (await q.executeTakeFirst())!;
    const windowOver = now.getTime() - new Date(row.window_started_at).getTime() >= rule.windowMs;
    const failures = windowOver ? 1 : row.failures + 1;
    const lock = failures >= rule.limit ? new Date(now.getTime() + rule.lockMs).toISOString() : null;
    await adb(tx)
      .updateTable("auth_throttle")
      .set({
        failures: lock ? 0 : failures,
        window_started_at: windowOver || lock ? nowIso : row.window_started_at,
        locked_until: lock ?? row.locked_until,
        updated_at: nowIso,
      })
      .where("key", "=", key)
      .execute();
    // Old rows say nothing useful and name addresses (if only by HMAC): keep the table small.
    const stale = new Date(now.getTime() - 24 * 60 * MIN).toISOString();
    await adb(tx).deleteFrom("auth_throttle").where("updated_at", "<", stale).execute();
    return lock;
  });
}

export async function clearFailures(tx: Tx, key: string): Promise<void> {
  await adb(tx).deleteFrom("auth_throttle").where("key", "=", key).where("locked_until", "is", null).execute();
  await adb(tx).updateTable("auth_throttle").set({ failures: 0 }).where("key", "=", key).execute();
}
