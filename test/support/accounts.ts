import type { Role } from "../../src/core/actor.ts";
import type { Clock } from "../../src/core/clock.ts";
import { loadConfig } from "../../src/core/config.ts";
import type { Logger } from "../../src/core/logger.ts";
import { openArchive } from "../../src/app/open-archive.ts";
import type { Archive } from "../../src/app/context.ts";
import { operatorActor, type Actor } from "../../src/core/actor.ts";
import { addUser, csrfTokenFor, issueSession, totpCode } from "../../src/access/index.ts";
import { adb } from "../../src/access/tables.ts";
import { newTotpSecret } from "../../src/access/totp.ts";
import { sealPacked } from "../../src/access/secrets.ts";
import { accountsKey } from "../../src/access/keyring.ts";
import type { Backend } from "./backends.ts";

/** A clock the test moves by hand: expiry, lockout windows and TOTP steps without waiting. */
export interface TestClock extends Clock {
  advance(ms: number): void;
  set(d: Date): void;
}

export function testClock(start = new Date("2026-03-01T10:00:00.000Z")): TestClock {
  let t = start.getTime();
  return {
    now: () => new Date(t),
    advance: (ms) => {
      t += ms;
    },
    set: (d) => {
      t = d.getTime();
    },
  };
}

/** Every log line, so a test can check what was (not) written. */
export function capturingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    log(level, msg, fields) {
      lines.push(JSON.stringify({ level, msg, ...fields }));
    },
  };
}

export interface TestArchive {
  ctx: Archive;
  clock: TestClock;
  logger: Logger & { lines: string[] };
  dataDir: string;
  databaseUrl?: string;
  /** Another archive on the same data dir and database: a second server process. */
  second(): Promise<Archive>;
  close(): Promise<void>;
}

export async function freshAccessArchive(backend: Backend): Promise<TestArchive> {
  const fresh = await backend.fresh();
  const clock = testClock();
  const logger = capturingLogger();
  const env = fresh.databaseUrl ? { DALIL_DATABASE_URL: fresh.databaseUrl } : {};
  const config = loadConfig({ data: fresh.dataDir }, env);
  const ctx = await openArchive(config, { clock, logger });
  const others: Archive[] = [];
  return {
    ctx,
    clock,
    logger,
    dataDir: fresh.dataDir,
    ...(fresh.databaseUrl ? { databaseUrl: fresh.databaseUrl } : {}),
    async second() {
      const other = await openArchive(config, { clock, logger });
      others.push(other);
      return other;
    },
    async close() {
      for (const o of others) await o.close();
      await ctx.close();
      await fresh.cleanup();
    },
  };
}

export interface TestUser {
  id: string;
  email: string;
  role: Role;
  password: string;
  /** The TOTP secret when enrolled through `readyUser`. */
  totpSecret: Buffer;
  actor: Actor;
}

/**
 * An account past its first sign-in: its own password set and (for every role) an authenticator enrolled,
 * written straight to the tables so tests of other things do not walk the whole sign-in each time.
 */
export async function readyUser(ctx: Archive, role: Role, email = `${role.replace(/_/g, "-")}-${Math.random().toString(36).slice(2, 8)}@example.org`): Promise<TestUser> {
  const { user, oneTimePassword } = await addUser(ctx, operatorActor(), { email, role });
  const secret = newTotpSecret();
  await adb(ctx.db.db)
    .updateTable("users")
    .set({ must_change_password: 0, totp_secret: sealPacked(accountsKey(ctx.config), secret, `totp:${user.id}`), totp_enabled_at: ctx.clock.now().toISOString() })
    .where("id", "=", user.id)
    .execute();
  return { id: user.id, email, role, password: oneTimePassword, totpSecret: secret, actor: { kind: "user", id: user.id, role } };
}

/** A full session for the user, as the cookie value and its CSRF token. */
export async function fullSession(ctx: Archive, userId: string): Promise<{ token: string; csrf: string; id: string }> {
  const s = await ctx.db.transaction((tx) => issueSession(tx, ctx.clock, userId, "full"));
  return { token: s.token, csrf: csrfTokenFor(ctx.config, s.token), id: s.id };
}

export function codeAt(user: TestUser, at: Date): string {
  return totpCode(user.totpSecret, at);
}

/** A source and an original row, as intake would leave them (no blob needed for access checks). */
export async function seedOriginal(ctx: Archive, opts: { sourceId?: string; sha256?: string } = {}): Promise<{ sourceId: string; sha256: string }> {
  const sourceId = opts.sourceId ?? `src_${Math.random().toString(36).slice(2, 12)}`;
  const sha256 = opts.sha256 ?? Buffer.from(sourceId.padEnd(32, "x")).toString("hex").slice(0, 64);
  const now = ctx.clock.now().toISOString();
  await ctx.db.db
    .insertInto("sources")
    .values({ id: sourceId, label: "test card", kind: "folder", intake_path: "/media/card", medium_sha256: null, medium_size: null, volume_label: null, volume_serial: null, fs_type: null, status: "complete", started_at: now, finished_at: now, actor: "operator:test", files: 1, ingested: 1, duplicates: 0, quarantined: 0, bytes: 10 })
    .execute();
  await ctx.db.db
    .insertInto("originals")
    .values({ sha256, size: 10, format: "jpeg", mime: "image/jpeg", media_kind: "image", status: "preserved", quarantine_reason: null, first_seen_at: now, first_source_id: sourceId, width: 10, height: 10, phash: null, capture_time: null, camera_make: "Nikon", camera_model: "D90", camera_serial: "SERIAL-3141592", metadata_json: null, exif_raw: null, xmp_raw: null })
    .execute();
  return { sourceId, sha256 };
}
