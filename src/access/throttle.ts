import { sql } from "kysely";
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
 * After `limit` failures within `windowMs` the key is locked for `lockMs`. Each attempt takes its place in the
 * count before it is checked (`reserveAttempt`), so attempts sent in parallel cannot all pass a check made
 * before any of them was counted.
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

function lockedError(until: string): RateLimited {
  const hhmm = until.slice(11, 16);
  return new RateLimited(`Too many failed attempts. Wait until ${hhmm} UTC and try again, or ask an administrator to reset the account.`).says("signin.throttled", { time: hhmm });
}

/** An attempt's place in a key's count, taken before the attempt is checked. */
export interface Reservation {
  key: string;
  rule: ThrottleRule;
  /** This attempt's number within the key's window (1 for the first). */
  attempt: number;
}

/**
 * Takes the next place in a key's count, in one upsert (both databases run `INSERT … ON CONFLICT DO UPDATE …
 * RETURNING` as one atomic statement), before the password or code is checked. Fifty guesses sent at once are
 * fifty places: only the first `limit` are checked at all, the rest are refused here. Refused when the key is
 * locked, or when this attempt is past the limit (which locks the key, if no attempt has yet).
 * A lock that has run out starts a new window; so does a window older than `windowMs`.
 */
export async function reserveAttempt(
  dbh: DatabaseHandle,
  clock: Clock,
  key: string,
  rule: ThrottleRule,
  /** Told when this call locks the key (once per lock, whichever attempt sets it). */
  onLock?: (until: string) => Promise<void>,
): Promise<Reservation> {
  const now = clock.now();
  const nowIso = now.toISOString();
  const windowStart = new Date(now.getTime() - rule.windowMs).toISOString();
  const fresh = sql<boolean>`(auth_throttle.locked_until is not null and auth_throttle.locked_until <= ${nowIso}) or auth_throttle.window_started_at <= ${windowStart}`;
  const row = await adb(dbh.db)
    .insertInto("auth_throttle")
    .values({ key, failures: 1, window_started_at: nowIso, locked_until: null, updated_at: nowIso })
    .onConflict((oc) =>
      oc.column("key").doUpdateSet({
        failures: sql<number>`case when ${fresh} then 1 else auth_throttle.failures + 1 end`,
        window_started_at: sql<string>`case when ${fresh} then ${nowIso} else auth_throttle.window_started_at end`,
        locked_until: sql<string | null>`case when auth_throttle.locked_until is not null and auth_throttle.locked_until <= ${nowIso} then null else auth_throttle.locked_until end`,
        updated_at: nowIso,
      }),
    )
    .returning(["failures", "locked_until"])
    .executeTakeFirstOrThrow();
  // Old rows say nothing useful and name addresses (if only by HMAC): keep the table small.
  const stale = new Date(now.getTime() - 24 * 60 * MIN).toISOString();
  await adb(dbh.db).deleteFrom("auth_throttle").where("updated_at", "<", stale).where((eb) => eb.or([eb("locked_until", "is", null), eb("locked_until", "<", nowIso)])).execute();
  if (row.locked_until !== null && row.locked_until > nowIso) throw lockedError(row.locked_until);
  const reservation = { key, rule, attempt: Number(row.failures) };
  if (reservation.attempt > rule.limit) {
    const until = await lockKey(dbh, clock, reservation);
    if (until) await onLock?.(until);
    throw lockedError(until ?? new Date(now.getTime() + rule.lockMs).toISOString());
  }
  return reservation;
}

/**
 * After a reserved attempt failed: the key is locked once its count reaches the limit. Returns the new lock's
 * end when this call set it (so the lock is reported once), null otherwise.
 */
export async function lockIfSpent(dbh: DatabaseHandle, clock: Clock, r: Reservation): Promise<string | null> {
  return r.attempt >= r.rule.limit ? lockKey(dbh, clock, r) : null;
}

async function lockKey(dbh: DatabaseHandle, clock: Clock, r: Reservation): Promise<string | null> {
  const now = clock.now();
  const until = new Date(now.getTime() + r.rule.lockMs).toISOString();
  const res = await adb(dbh.db)
    .updateTable("auth_throttle")
    .set({ locked_until: until, updated_at: now.toISOString() })
    .where("key", "=", r.key)
    .where((eb) => eb.or([eb("locked_until", "is", null), eb("locked_until", "<=", now.toISOString())]))
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1 ? until : null;
}

/** After a reserved attempt succeeded: its place is given back (the count holds failures and attempts under way). */
export async function releaseAttempt(tx: Tx, r: Reservation): Promise<void> {
  await adb(tx)
    .updateTable("auth_throttle")
    .set({ failures: sql<number>`case when failures > 0 then failures - 1 else 0 end` })
    .where("key", "=", r.key)
    .execute();
}

/** After a success that ends the run of failures (the right password, the right code): the count starts again. */
export async function clearFailures(tx: Tx, key: string): Promise<void> {
  await adb(tx).deleteFrom("auth_throttle").where("key", "=", key).where("locked_until", "is", null).execute();
  await adb(tx).updateTable("auth_throttle").set({ failures: 0 }).where("key", "=", key).execute();
}
