import type { Ctx } from "../app/context.ts";
import { ROLES, type Actor, type Role } from "../core/actor.ts";
import { Conflict, Forbidden, Invalid, NotFound } from "../core/errors.ts";
import { newId } from "../core/ids.ts";
import type { Tx } from "../db/database.ts";
import { recordAccessChange } from "./audit.ts";
import { hashPassword, oneTimePassword } from "./passwords.ts";
import { revokeAllSessions } from "./sessions.ts";
import { adb, type UsersTable } from "./tables.ts";
import { accountKey, totpKey } from "./throttle.ts";
import * as contracts from "./contracts.ts";
import { say } from "../core/messages.ts";
import { parseInput } from "../core/input.ts";
import type { z } from "zod";

/**
 * Accounts. An administrator adds one with a role and hands over the one-time password printed once; the
 * person must choose their own at first sign-in (and enrol a second factor if the role needs one). Disabling
 * an account ends its sessions and tokens at once; every request also checks the account, so nothing that
 * was already issued outlives the decision.
 */
export type UserView = contracts.UserView;

export type AddUser = z.input<typeof contracts.AddUserInput>;

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,190}\.[^\s@]{2,63}$/;

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function parseRole(role: string): Role {
  const r = role.trim().toLowerCase().replace(/[\s-]+/g, "_") as Role;
  if (!ROLES.includes(r)) throw new Invalid(`There is no role "${role}"; choose one of: ${ROLES.join(", ")}.`, "role").says("account.noRole", { role: role.slice(0, 40) });
  return r;
}

export function toUserView(r: UsersTable): UserView {
  return {
    id: r.id,
    email: r.email,
    role: r.role as Role,
    disabled: r.disabled_at !== null,
    secondFactor: r.totp_enabled_at !== null,
    mustChangePassword: r.must_change_password === 1,
    createdAt: r.created_at,
    lastSignInAt: r.last_sign_in_at,
  };
}

export async function addUser(ctx: Ctx, actor: Actor, sent: AddUser): Promise<{ user: UserView; oneTimePassword: string }> {
  ctx.policy.require(actor, "users.manage");
  const input = parseInput(contracts.AddUserInput, sent);
  const email = normaliseEmail(input.email);
  if (!EMAIL.test(email)) throw new Invalid("Give the person's email address (name@example.org).", "email").says("account.email");
  const role = parseRole(input.role);
  const password = oneTimePassword();
  const passwordHash = await hashPassword(password);
  const now = ctx.clock.now().toISOString();
  const row: UsersTable = {
    id: newId("usr"),
    email,
    role,
    password_hash: passwordHash,
    must_change_password: 1,
    totp_secret: null,
    totp_enabled_at: null,
    totp_last_step: null,
    disabled_at: null,
    created_at: now,
    created_by: actor.id,
    password_changed_at: null,
    last_sign_in_at: null,
  };
  await ctx.db.transaction(async (tx) => {
    const existing = await adb(tx).selectFrom("users").select("id").where("email", "=", email).executeTakeFirst();
    if (existing) throw new Conflict("An account with that email address exists already; reset it instead (dalil users reset).").says("account.exists");
    await adb(tx).insertInto("users").values(row).execute();
    await recordAccessChange(tx, ctx.clock, actor, "user.added", row.id, { role });
  });
  return { user: toUserView(row), oneTimePassword: password };
}

export async function listUsers(ctx: Ctx, actor: Actor): Promise<UserView[]> {
  ctx.policy.require(actor, "users.manage");
  const rows = await adb(ctx.db.db).selectFrom("users").selectAll().orderBy("email").execute();
  return rows.map(toUserView);
}

/** Revokes every live API token of an account; returns how many. */
export async function revokeAllTokens(tx: Tx, userId: string, now: string): Promise<number> {
  const r = await adb(tx).updateTable("api_tokens").set({ revoked_at: now }).where("user_id", "=", userId).where("revoked_at", "is", null).executeTakeFirst();
  return Number(r.numUpdatedRows);
}

/**
 * An account of one role, by id or email address, for a use case that names people to act on (link a family
 * member to a report, assign a reviewer). Unknown, disabled and of another role all get the same answer after
 * the same single lookup, so such a form cannot be used to learn who has an account, or what their role is.
 */
export async function findAccountOfRole(tx: Tx, ref: string, role: Role, field: string): Promise<UsersTable> {
  const row = await accountByRef(tx, ref);
  if (!row || row.role !== role || row.disabled_at !== null) {
    throw new Invalid(`There is no enabled ${role.replace(/_/g, " ")}'s account ${ref.slice(0, 320)}.`, field).says("account.notOfRole", { role });
  }
  return row;
}

/**
 * The actor as the accounts say now, for work queued earlier (a job): a user's current role, or a refusal when the
 * account is gone or disabled. A queued job never runs with rights its person has since lost. The operator (at the
 * server's shell) and the software itself have no account to read.
 */
export async function actorNow(tx: Tx, actor: Actor): Promise<Actor> {
  if (actor.kind !== "user") return actor;
  const row = await adb(tx).selectFrom("users").select(["id", "role", "disabled_at"]).where("id", "=", actor.id).executeTakeFirst();
  if (!row) throw new Forbidden(say("job.queuerGone"));
  if (row.disabled_at !== null) throw new Forbidden(say("job.queuerDisabled"));
  return { kind: "user", id: row.id, role: row.role as Role };
}

/** Who a person is, as a reader recognises them: their address and role. */
export interface Person {
  email: string;
  role: Role;
}

/**
 * The people behind account ids (a report's preparer, a number's checker), so what is printed or shown names a
 * person rather than a `usr_` id. Ids that are not accounts (operators, the system) are left out: the caller
 * says what they are.
 */
export async function peopleByIds(ctx: Ctx, ids: readonly string[]): Promise<Map<string, Person>> {
  const wanted = [...new Set(ids.filter((id) => id.startsWith("usr_")))];
  if (wanted.length === 0) return new Map();
  const rows = await adb(ctx.db.db).selectFrom("users").select(["id", "email", "role"]).where("id", "in", wanted).execute();
  return new Map(rows.map((r) => [r.id, { email: r.email, role: r.role as Role }]));
}

/** The one lookup of an account by id (usr_…) or email address; undefined when there is none. */
function accountByRef(tx: Tx, ref: string): Promise<UsersTable | undefined> {
  const q = adb(tx).selectFrom("users").selectAll();
  return ref.startsWith("usr_") ? q.where("id", "=", ref).executeTakeFirst() : q.where("email", "=", normaliseEmail(ref)).executeTakeFirst();
}

/** An account by id (usr_…) or email address. */
export async function findUser(tx: Tx, ref: string): Promise<UsersTable> {
  const row = await accountByRef(tx, ref);
  if (!row) throw new NotFound("There is no such account; `dalil users list` shows them.").says("account.notFound");
  return row;
}

export async function disableUser(ctx: Ctx, actor: Actor, ref: string): Promise<UserView> {
  ctx.policy.require(actor, "users.manage");
  return ctx.db.transaction(async (tx) => {
    const user = await findUser(tx, ref);
    if (user.id === actor.id) throw new Conflict("You cannot disable your own account; ask another administrator.").says("account.disableSelf");
    const now = ctx.clock.now().toISOString();
    if (user.disabled_at === null) {
      await adb(tx).updateTable("users").set({ disabled_at: now }).where("id", "=", user.id).execute();
      await revokeAllSessions(tx, user.id);
      await revokeAllTokens(tx, user.id, now);
      await recordAccessChange(tx, ctx.clock, actor, "user.disabled", user.id);
    }
    return toUserView({ ...user, disabled_at: user.disabled_at ?? now });
  });
}

export async function enableUser(ctx: Ctx, actor: Actor, ref: string): Promise<UserView> {
  ctx.policy.require(actor, "users.manage");
  return ctx.db.transaction(async (tx) => {
    const user = await findUser(tx, ref);
    if (user.disabled_at !== null) {
      await adb(tx).updateTable("users").set({ disabled_at: null }).where("id", "=", user.id).execute();
      await recordAccessChange(tx, ctx.clock, actor, "user.enabled", user.id);
    }
    return toUserView({ ...user, disabled_at: null });
  });
}

/** `user`: the account's id or address; `secondFactor`: also remove the second factor and recovery codes (a lost phone). */
export type ResetUser = z.input<typeof contracts.ResetUserInput>;

/** A new one-time password (and optionally a new second factor); every session of the account ends. */
export async function resetUser(ctx: Ctx, actor: Actor, sent: ResetUser): Promise<{ user: UserView; oneTimePassword: string }> {
  ctx.policy.require(actor, "users.manage");
  const input = parseInput(contracts.ResetUserInput, sent);
  const password = oneTimePassword();
  const passwordHash = await hashPassword(password);
  return ctx.db.transaction(async (tx) => {
    const user = await findUser(tx, input.user);
    const clearTotp = Boolean(input.secondFactor);
    const changes: Partial<UsersTable> = { password_hash: passwordHash, must_change_password: 1 };
    if (clearTotp) Object.assign(changes, { totp_secret: null, totp_enabled_at: null, totp_last_step: null });
    await adb(tx).updateTable("users").set(changes).where("id", "=", user.id).execute();
    if (clearTotp) await adb(tx).deleteFrom("recovery_codes").where("user_id", "=", user.id).execute();
    await revokeAllSessions(tx, user.id);
    // A reset answers a password that may be known to someone else: what was made with it goes too.
    const tokens = await revokeAllTokens(tx, user.id, ctx.clock.now().toISOString());
    // An administrator's reset also lifts a lockout: the person is about to sign in with a fresh password.
    await adb(tx).deleteFrom("auth_throttle").where("key", "in", [accountKey(ctx.config, user.email), totpKey(user.id)]).execute();
    await recordAccessChange(tx, ctx.clock, actor, "user.reset", user.id, { secondFactor: clearTotp, tokensRevoked: tokens });
    return { user: toUserView({ ...user, ...changes }), oneTimePassword: password };
  });
}
