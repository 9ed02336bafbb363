import type { Ctx } from "../app/context.ts";
import type { Actor, Role } from "../core/actor.ts";
import { Conflict, Invalid, Unauthenticated } from "../core/errors.ts";
import { say, type Said } from "../core/messages.ts";
import type { Tx } from "../db/database.ts";
import { recordAccessChange } from "./audit.ts";
import { accountsKey } from "./keyring.ts";
import { checkNewPassword, hashPassword, oneTimePassword, verifyPassword } from "./passwords.ts";
import { openPacked, sealPacked, sha256Hex } from "./secrets.ts";
import { issueSession, revokeAllSessions, revokeSessionByToken, rotateSession, type IssuedSession, type LiveSession, type SessionStage } from "./sessions.ts";
import { adb, type UsersTable } from "./tables.ts";
import { accountKey, addressKey, clearFailures, lockIfSpent, releaseAttempt, reserveAttempt, THROTTLE, totpKey, type Reservation, type ThrottleRule } from "./throttle.ts";
import { base32, matchTotp, newTotpSecret, totpUri } from "./totp.ts";
import { normaliseEmail, revokeAllTokens } from "./users.ts";

/**
 * Signing in, step by step. A password opens a half-way session that can do one thing: give the second factor,
 * choose a new password, or enrol a second factor. Each step that succeeds replaces the session with a new one
 * (new token, old row deleted). Failures are counted per account, per address and per second factor, and
 * every refusal says the same thing whether or not the account exists.
 */
export interface SignedIn {
  session: IssuedSession;
  user: { id: string; role: Role };
  /** Present when a recovery code was used: how many are left. */
  recoveryCodesLeft?: number;
}

const BAD_PASSWORD = "The email address or the password is not right.";
export const RECOVERY_CODES = 10;

function stageAfter(ctx: Ctx, user: Pick<UsersTable, "role" | "totp_enabled_at" | "must_change_password">, passedTotp: boolean): SessionStage {
  if (user.totp_enabled_at !== null && !passedTotp) return "totp";
  if (user.must_change_password === 1) return "password_change";
  if (user.totp_enabled_at === null && ctx.policy.needsSecondFactor(user.role as Role)) return "totp_enrol";
  return "full";
}

export interface SignInInput {
  email: string;
  password: string;
  /** The network address the attempt came from (throttled under an HMAC, never stored in the clear). */
  address: string;
  /** A session token the browser already held: it is ended, never upgraded. */
  replacing?: string;
}

export async function signIn(ctx: Ctx, input: SignInInput): Promise<SignedIn> {
  const email = normaliseEmail(input.email);
  // Both places are taken before the password is checked: guesses sent in parallel are each counted. The
  // address first: from a locked address no account's count moves (nobody locks accounts from there).
  const address = await reserve(ctx, addressKey(ctx.config, input.address), THROTTLE.address);
  const account = await reserve(ctx, accountKey(ctx.config, email), THROTTLE.account);
  const user = await adb(ctx.db.db).selectFrom("users").selectAll().where("email", "=", email).executeTakeFirst();
  const ok = (await verifyPassword(user?.password_hash ?? null, input.password)) && user !== undefined && user.disabled_at === null;
  if (!ok || !user) {
    await failed(ctx, account, user?.id ?? null);
    await failed(ctx, address, null);
    throw new Unauthenticated(BAD_PASSWORD).says("signin.badPassword");
  }
  return ctx.db.transaction(async (tx) => {
    if (input.replacing) await revokeSessionByToken(tx, input.replacing);
    await clearFailures(tx, account.key);
    await releaseAttempt(tx, address);
    const stage = stageAfter(ctx, user, false);
    const session = await issueSession(tx, ctx.clock, user.id, stage);
    if (stage === "full") await markSignedIn(tx, ctx, user.id);
    return { session, user: { id: user.id, role: user.role as Role } };
  });
}

/** A reserved attempt failed: it stays counted, and the key is locked (and the lock recorded) once the count is spent. */
async function failed(ctx: Ctx, r: Reservation, subject: string | null): Promise<void> {
  const locked = await lockIfSpent(ctx.db, ctx.clock, r);
  if (locked) await recordLock(ctx, r.key, subject, locked);
}

async function recordLock(ctx: Ctx, key: string, subject: string | null, until: string): Promise<void> {
  const kind = key.split(":")[0] ?? "";
  await ctx.db.transaction((tx) => recordAccessChange(tx, ctx.clock, "system:dalil", "signin.locked", subject, { kind, until }));
  ctx.logger.log("warn", "sign-in locked after repeated failures", { kind, until });
}

/** Takes an attempt's place before it is checked; `subject` is the account the lock concerns, when known. */
function reserve(ctx: Ctx, key: string, rule: ThrottleRule, subject: string | null = null): Promise<Reservation> {
  return reserveAttempt(ctx.db, ctx.clock, key, rule, (until) => recordLock(ctx, key, subject, until));
}

async function markSignedIn(tx: Tx, ctx: Ctx, userId: string): Promise<void> {
  await adb(tx).updateTable("users").set({ last_sign_in_at: ctx.clock.now().toISOString() }).where("id", "=", userId).execute();
}

function requireStage(live: LiveSession, ...stages: SessionStage[]): void {
  if (!stages.includes(live.stage)) {
    throw new Conflict(FINISH[live.stage]);
  }
}

const FINISH: Record<SessionStage, Said> = {
  full: say("signin.already"),
  totp: say("signin.finishTotp"),
  password_change: say("signin.finishPasswordChange"),
  totp_enrol: say("signin.finishTotpEnrol"),
};

export function describeStage(stage: SessionStage): string {
  switch (stage) {
    case "totp":
      return "give the code from your authenticator app (or a recovery code)";
    case "password_change":
      return "choose a new password to replace the one-time password";
    case "totp_enrol":
      return "set up an authenticator app; your role needs a second factor";
    case "full":
      return "signed in";
  }
}

async function loadUser(tx: Tx, id: string): Promise<UsersTable> {
  const u = await adb(tx).selectFrom("users").selectAll().where("id", "=", id).executeTakeFirst();
  if (!u || u.disabled_at !== null) throw new Unauthenticated("This account cannot sign in; ask an administrator.").says("signin.accountCannot");
  return u;
}

export interface SecondFactor {
  code?: string;
  recoveryCode?: string;
}

type Attempt<T> = { ok: true; value: T } | { ok: false; message: string };

/** The second step: a TOTP code (each time step once only) or one unused recovery code. */
export async function verifySecondFactor(ctx: Ctx, live: LiveSession, input: SecondFactor): Promise<SignedIn> {
  requireStage(live, "totp");
  const slot = await reserve(ctx, totpKey(live.user.id), THROTTLE.totp, live.user.id);
  const attempt = await ctx.db.transaction(async (tx): Promise<Attempt<SignedIn>> => {
    const user = await loadUser(tx, live.user.id);
    let recoveryCodesLeft: number | undefined;
    if (input.recoveryCode) {
      const left = await useRecoveryCode(tx, ctx, user.id, input.recoveryCode);
      if (left === null) return { ok: false, message: "That recovery code is not right, or it has been used already." };
      recoveryCodesLeft = left;
    } else {
      const refused = await acceptTotp(tx, ctx, user, input.code ?? "");
      if (refused) return { ok: false, message: refused };
    }
    await clearFailures(tx, slot.key);
    const session = await rotateSession(tx, ctx.clock, live, stageAfter(ctx, user, true));
    if (session.stage === "full") await markSignedIn(tx, ctx, user.id);
    return { ok: true, value: { session, user: { id: user.id, role: user.role as Role }, ...(recoveryCodesLeft !== undefined ? { recoveryCodesLeft } : {}) } };
  });
  if (!attempt.ok) {
    await failed(ctx, slot, live.user.id);
    throw new Unauthenticated(attempt.message).says("signin.badCode");
  }
  return attempt.value;
}

/** null when accepted; otherwise why not. The step is claimed with a conditional update, so two processes cannot both accept it. */
async function acceptTotp(tx: Tx, ctx: Ctx, user: UsersTable, code: string): Promise<string | null> {
  if (!user.totp_secret) return "No authenticator app is set up for this account.";
  const secret = openPacked(accountsKey(ctx.config), user.totp_secret, `totp:${user.id}`);
  const step = matchTotp(secret, code, ctx.clock.now());
  if (step === null) return "That code is not right; check your authenticator app's clock and try the current code.";
  const r = await adb(tx)
    .updateTable("users")
    .set({ totp_last_step: step })
    .where("id", "=", user.id)
    .where((eb) => eb.or([eb("totp_last_step", "is", null), eb("totp_last_step", "<", step)]))
    .executeTakeFirst();
  if (Number(r.numUpdatedRows) !== 1) return "That code has been used already; wait for the next one.";
  return null;
}

function normaliseRecoveryCode(code: string): string {
  return code.toLowerCase().replace(/[^a-z0-9]/g, "");
}

async function useRecoveryCode(tx: Tx, ctx: Ctx, userId: string, code: string): Promise<number | null> {
  const hash = sha256Hex(`dalil.recovery/1\u0000${normaliseRecoveryCode(code)}`);
  const now = ctx.clock.now().toISOString();
  const r = await adb(tx)
    .updateTable("recovery_codes")
    .set({ used_at: now })
    .where("user_id", "=", userId)
    .where("code_hash", "=", hash)
    .where("used_at", "is", null)
    .executeTakeFirst();
  if (Number(r.numUpdatedRows) !== 1) return null;
  const left = await adb(tx).selectFrom("recovery_codes").select((eb) => eb.fn.countAll<number>().as("n")).where("user_id", "=", userId).where("used_at", "is", null).executeTakeFirstOrThrow();
  await recordAccessChange(tx, ctx.clock, userId, "recovery.used", userId, { left: Number(left.n) });
  return Number(left.n);
}

async function newRecoveryCodes(tx: Tx, userId: string): Promise<string[]> {
  await adb(tx).deleteFrom("recovery_codes").where("user_id", "=", userId).execute();
  const codes = Array.from({ length: RECOVERY_CODES }, () => oneTimePassword(4, 4));
  await adb(tx)
    .insertInto("recovery_codes")
    .values(codes.map((c) => ({ user_id: userId, code_hash: sha256Hex(`dalil.recovery/1\u0000${normaliseRecoveryCode(c)}`), used_at: null })))
    .execute();
  return codes;
}

export interface ChangePassword {
  current: string;
  next: string;
}

/** A new password, from a one-time password or a full session. Every other session of the account ends. */
export async function changePassword(ctx: Ctx, live: LiveSession, input: ChangePassword): Promise<SignedIn> {
  requireStage(live, "password_change", "full");
  const user = await loadUser(ctx.db.db, live.user.id);
  const slot = await reserve(ctx, accountKey(ctx.config, user.email), THROTTLE.account, user.id);
  if (!(await verifyPassword(user.password_hash, input.current))) {
    await failed(ctx, slot, user.id);
    throw new Unauthenticated("The current password is not right.").says("signin.currentPasswordWrong");
  }
  checkNewPassword(input.next, user.email);
  if (input.next === input.current) throw new Invalid("Choose a password different from the current one.", "next").says("signin.passwordUnchanged");
  const hash = await hashPassword(input.next);
  return ctx.db.transaction(async (tx) => {
    const now = ctx.clock.now().toISOString();
    await adb(tx).updateTable("users").set({ password_hash: hash, must_change_password: 0, password_changed_at: now }).where("id", "=", user.id).execute();
    await releaseAttempt(tx, slot);
    await revokeAllSessions(tx, user.id, live.id);
    // Whoever knew the old password may have made tokens with it: they end with it.
    const tokens = await revokeAllTokens(tx, user.id, now);
    await recordAccessChange(tx, ctx.clock, user.id, "password.changed", user.id, { tokensRevoked: tokens });
    const stage = live.stage === "full" ? "full" : stageAfter(ctx, { ...user, must_change_password: 0 }, user.totp_enabled_at !== null);
    const session = await rotateSession(tx, ctx.clock, live, stage);
    if (stage === "full") await markSignedIn(tx, ctx, user.id);
    return { session, user: { id: user.id, role: user.role as Role } };
  });
}

/** Starts enrolment: a new secret, kept (encrypted) but not in force until a code from it is confirmed. */
export async function beginEnrolment(ctx: Ctx, live: LiveSession): Promise<{ secret: string; uri: string }> {
  requireStage(live, "totp_enrol", "full");
  return ctx.db.transaction(async (tx) => {
    const user = await loadUser(tx, live.user.id);
    if (user.totp_enabled_at !== null) {
      throw new Conflict("An authenticator app is set up already; to move to a new phone, ask an administrator to reset your second factor.").says("signin.totpSetUp");
    }
    const secret = newTotpSecret();
    const packed = sealPacked(accountsKey(ctx.config), secret, `totp:${user.id}`);
    await adb(tx).updateTable("users").set({ totp_secret: packed, totp_last_step: null }).where("id", "=", user.id).execute();
    return { secret: base32(secret), uri: totpUri(secret, user.email) };
  });
}

/** Confirms enrolment with a first code; hands out recovery codes (shown once) and a full session. */
export async function confirmEnrolment(ctx: Ctx, live: LiveSession, code: string): Promise<SignedIn & { recoveryCodes: string[] }> {
  requireStage(live, "totp_enrol", "full");
  const slot = await reserve(ctx, totpKey(live.user.id), THROTTLE.totp, live.user.id);
  const attempt = await ctx.db.transaction(async (tx): Promise<Attempt<SignedIn & { recoveryCodes: string[] }>> => {
    const user = await loadUser(tx, live.user.id);
    if (user.totp_enabled_at !== null) throw new Conflict("An authenticator app is set up already.").says("signin.totpSetUp");
    if (!user.totp_secret) throw new Conflict("Start the set-up first: ask for a new secret.").says("signin.totpStartFirst");
    const refused = await acceptTotp(tx, ctx, user, code);
    if (refused) return { ok: false, message: refused };
    await adb(tx).updateTable("users").set({ totp_enabled_at: ctx.clock.now().toISOString() }).where("id", "=", user.id).execute();
    const recoveryCodes = await newRecoveryCodes(tx, user.id);
    await recordAccessChange(tx, ctx.clock, user.id, "totp.enrolled", user.id);
    await clearFailures(tx, slot.key);
    const enrolled = { ...user, totp_enabled_at: "now" };
    const session = await rotateSession(tx, ctx.clock, live, stageAfter(ctx, enrolled, true));
    if (session.stage === "full") await markSignedIn(tx, ctx, user.id);
    return { ok: true, value: { session, user: { id: user.id, role: user.role as Role }, recoveryCodes } };
  });
  if (!attempt.ok) {
    await failed(ctx, slot, live.user.id);
    throw new Unauthenticated(attempt.message).says("signin.badCode");
  }
  return attempt.value;
}

/** New recovery codes (the old ones stop working), against a current code from the authenticator app. */
export async function regenerateRecoveryCodes(ctx: Ctx, live: LiveSession, code: string): Promise<string[]> {
  requireStage(live, "full");
  const slot = await reserve(ctx, totpKey(live.user.id), THROTTLE.totp, live.user.id);
  const attempt = await ctx.db.transaction(async (tx): Promise<Attempt<string[]>> => {
    const user = await loadUser(tx, live.user.id);
    const refused = await acceptTotp(tx, ctx, user, code);
    if (refused) return { ok: false, message: refused };
    await clearFailures(tx, slot.key);
    return { ok: true, value: await newRecoveryCodes(tx, user.id) };
  });
  if (!attempt.ok) {
    await failed(ctx, slot, live.user.id);
    throw new Unauthenticated(attempt.message).says("signin.badCode");
  }
  return attempt.value;
}

export async function signOut(ctx: Ctx, token: string): Promise<void> {
  await ctx.db.transaction((tx) => revokeSessionByToken(tx, token));
}

/** Ends every session of the actor's account (API tokens are revoked one by one, or by disabling the account). */
export async function signOutEverywhere(ctx: Ctx, actor: Actor): Promise<{ ended: number }> {
  ctx.policy.require(actor, "account.self", { relations: { self: [actor.id] } });
  return ctx.db.transaction(async (tx) => {
    const ended = await revokeAllSessions(tx, actor.id);
    await recordAccessChange(tx, ctx.clock, actor, "sessions.revoked", actor.id, { ended });
    return { ended };
  });
}
