import type { Config } from "../core/config.ts";
import type { Clock } from "../core/clock.ts";
import type { Role } from "../core/actor.ts";
import { newId } from "../core/ids.ts";
import type { Tx } from "../db/database.ts";
import { accountsKey } from "./keyring.ts";
import { hmacHex, randomToken, sha256Hex } from "./secrets.ts";
import { adb, type SessionsTable } from "./tables.ts";
import type * as contracts from "./contracts.ts";

/**
 * Browser sessions. The cookie holds 256 random bits; the server keeps only their SHA-256, so a copy of the
 * database opens no session. A session is at one stage of signing in, and each step forward issues a new
 * token and deletes the old row: a token planted in a browser before sign-in (fixation) or seen half-way
 * is worth nothing afterwards.
 */
export type SessionStage =
  | "password_change" // signed in with a one-time password: may only choose a new one
  | "totp_enrol" // the role needs a second factor and none is enrolled: may only enrol
  | "totp" // password accepted: waiting for the second factor
  | "full";

export const SESSION_LIMITS = {
  /** A full session ends after this long without a request. */
  idleMs: 30 * 60 * 1000,
  /** … and this long after sign-in, however active. */
  absoluteMs: 12 * 60 * 60 * 1000,
  /** A half-way session (waiting for a code, a new password, an enrolment). */
  pendingMs: 10 * 60 * 1000,
  /** last_seen_at is written at most this often, so reads do not turn into writes. */
  touchMs: 60 * 1000,
};

export interface IssuedSession {
  id: string;
  token: string;
  stage: SessionStage;
  expiresAt: string;
}

export interface LiveSession {
  id: string;
  stage: SessionStage;
  user: { id: string; email: string; role: Role; secondFactor: boolean; mustChangePassword: boolean };
  createdAt: string;
  expiresAt: string;
  /** The token this request presented, to derive its CSRF token and to rotate it. */
  token: string;
}

export async function issueSession(tx: Tx, clock: Clock, userId: string, stage: SessionStage): Promise<IssuedSession> {
  const now = clock.now();
  const token = randomToken(32);
  const row: SessionsTable = {
    id: newId("ses"),
    token_hash: sha256Hex(token),
    user_id: userId,
    stage,
    created_at: now.toISOString(),
    last_seen_at: now.toISOString(),
    expires_at: new Date(now.getTime() + (stage === "full" ? SESSION_LIMITS.absoluteMs : SESSION_LIMITS.pendingMs)).toISOString(),
  };
  await adb(tx).insertInto("sessions").values(row).execute();
  return { id: row.id, token, stage, expiresAt: row.expires_at };
}

/** Moves a session to its next stage: a new token, the old one deleted in the same transaction. */
export async function rotateSession(tx: Tx, clock: Clock, current: LiveSession, stage: SessionStage): Promise<IssuedSession> {
  await adb(tx).deleteFrom("sessions").where("id", "=", current.id).execute();
  return issueSession(tx, clock, current.user.id, stage);
}

/** The live session a token names, or null: expired (idle or absolute), revoked, or its account disabled. */
export async function findSession(tx: Tx, clock: Clock, token: string): Promise<LiveSession | null> {
  if (!token || token.length > 128) return null;
  const row = await adb(tx)
    .selectFrom("sessions")
    .innerJoin("users", "users.id", "sessions.user_id")
    .select([
      "sessions.id",
      "sessions.stage",
      "sessions.created_at",
      "sessions.last_seen_at",
      "sessions.expires_at",
      "users.id as user_id",
      "users.email",
      "users.role",
      "users.disabled_at",
      "users.totp_enabled_at",
      "users.must_change_password",
    ])
    .where("sessions.token_hash", "=", sha256Hex(token))
    .executeTakeFirst();
  if (!row || row.disabled_at !== null) return null;
  const now = clock.now();
  const idleEnd = new Date(row.last_seen_at).getTime() + (row.stage === "full" ? SESSION_LIMITS.idleMs : SESSION_LIMITS.pendingMs);
  if (now.getTime() >= new Date(row.expires_at).getTime() || now.getTime() >= idleEnd) {
    await adb(tx).deleteFrom("sessions").where("id", "=", row.id).execute();
    return null;
  }
  if (now.getTime() - new Date(row.last_seen_at).getTime() >= SESSION_LIMITS.touchMs) {
    await adb(tx).updateTable("sessions").set({ last_seen_at: now.toISOString() }).where("id", "=", row.id).execute();
  }
  return {
    id: row.id,
    stage: row.stage as SessionStage,
    user: {
      id: row.user_id,
      email: row.email,
      role: row.role as Role,
      secondFactor: row.totp_enabled_at !== null,
      mustChangePassword: row.must_change_password === 1,
    },
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    token,
  };
}

export async function revokeSessionByToken(tx: Tx, token: string): Promise<void> {
  await adb(tx).deleteFrom("sessions").where("token_hash", "=", sha256Hex(token)).execute();
}

export async function revokeAllSessions(tx: Tx, userId: string, except?: string): Promise<number> {
  let q = adb(tx).deleteFrom("sessions").where("user_id", "=", userId);
  if (except) q = q.where("id", "!=", except);
  const r = await q.executeTakeFirst();
  return Number(r.numDeletedRows);
}

/**
 * The CSRF token of a session: an HMAC of its cookie value under the accounts key. It changes whenever the
 * session does, needs no storage, and cannot be computed by a page that cannot read the cookie.
 */
export function csrfTokenFor(config: Config, sessionToken: string): string {
  return hmacHex(accountsKey(config), "dalil.csrf/1", sessionToken);
}

export type SessionView = contracts.SessionView;

export async function sessionsOf(tx: Tx, userId: string, currentId?: string): Promise<SessionView[]> {
  const rows = await adb(tx).selectFrom("sessions").selectAll().where("user_id", "=", userId).where("stage", "=", "full").orderBy("created_at", "desc").execute();
  return rows.map((r) => ({ id: r.id, createdAt: r.created_at, lastSeenAt: r.last_seen_at, expiresAt: r.expires_at, current: r.id === currentId }));
}
