import type { Ctx } from "../app/context.ts";
import type { Actor, Role } from "../core/actor.ts";
import type { Clock } from "../core/clock.ts";
import { Forbidden, Invalid, NotFound } from "../core/errors.ts";
import { newId } from "../core/ids.ts";
import type { Tx } from "../db/database.ts";
import { recordAccessChange } from "./audit.ts";
import { ACTIONS, type Action, type ScopedActor } from "./policy.ts";
import { randomToken, sha256Hex } from "./secrets.ts";
import { adb, type ApiTokensTable } from "./tables.ts";
import * as contracts from "./contracts.ts";
import { say } from "../core/messages.ts";
import { parseInput } from "../core/input.ts";
import type { z } from "zod";

/**
 * API tokens for scripts: `Authorization: Bearer dalil_…`. A token acts as its user, narrowed to its scopes
 * (a list of actions; the policy intersects them with the user's role at every request, so a role taken away
 * is taken from the token too). The token is shown once; the archive keeps its SHA-256. Tokens are made from a
 * signed-in session (which had its second factor), never from another token.
 */
export const TOKEN_PREFIX = "dalil_";
const MAX_DAYS = 365;

export type ApiTokenView = contracts.ApiTokenView;

/** `days`: until it stops working; default 90, at most 365. */
export type CreateApiToken = z.input<typeof contracts.CreateApiTokenInput>;

function view(r: ApiTokensTable): ApiTokenView {
  return {
    id: r.id,
    name: r.name,
    scopes: JSON.parse(r.scopes) as Action[],
    createdAt: r.created_at,
    lastUsedAt: r.last_used_at,
    expiresAt: r.expires_at,
    revoked: r.revoked_at !== null,
  };
}

export async function createApiToken(ctx: Ctx, actor: Actor, sent: CreateApiToken): Promise<ApiTokenView & { token: string }> {
  ctx.policy.require(actor, "token.manage", { relations: { self: [actor.id] } });
  const input = parseInput(contracts.CreateApiTokenInput, sent);
  if ((actor as ScopedActor).scopes) throw new Forbidden(say("token.fromSession"));
  const name = input.name.trim();
  if (!name || name.length > 100) throw new Invalid(say("token.name"), "name");
  if (input.scopes.length === 0) throw new Invalid(say("token.scopeNeeded"), "scopes");
  const scopes = [...new Set(input.scopes)];
  for (const s of scopes) {
    if (!ACTIONS.includes(s as Action)) throw new Invalid(say("token.noAction", { action: s }), "scopes");
    if (!ctx.policy.mayAttempt(actor, s as Action)) throw new Forbidden(say("token.beyondRole", { role: actor.role, action: s }));
  }
  const days = input.days ?? 90;
  if (!Number.isInteger(days) || days < 1 || days > MAX_DAYS) throw new Invalid(say("token.days", { max: MAX_DAYS }), "days");
  const now = ctx.clock.now();
  const token = `${TOKEN_PREFIX}${randomToken(32)}`;
  const row: ApiTokensTable = {
    id: newId("tok"),
    user_id: actor.id,
    name,
    scopes: JSON.stringify(scopes),
    token_hash: sha256Hex(token),
    created_at: now.toISOString(),
    last_used_at: null,
    expires_at: new Date(now.getTime() + days * 86_400_000).toISOString(),
    revoked_at: null,
  };
  await ctx.db.transaction(async (tx) => {
    await adb(tx).insertInto("api_tokens").values(row).execute();
    await recordAccessChange(tx, ctx.clock, actor, "token.created", actor.id, { token: row.id, scopes: scopes.join(" ") });
  });
  return { ...view(row), token };
}

export async function listApiTokens(ctx: Ctx, actor: Actor): Promise<ApiTokenView[]> {
  ctx.policy.require(actor, "token.manage", { relations: { self: [actor.id] } });
  const rows = await adb(ctx.db.db).selectFrom("api_tokens").selectAll().where("user_id", "=", actor.id).orderBy("created_at", "desc").execute();
  return rows.map(view);
}

/** Revokes one of one's own tokens (an administrator may revoke anyone's). Someone else's id is "not found". */
export async function revokeApiToken(ctx: Ctx, actor: Actor, id: string): Promise<ApiTokenView> {
  return ctx.db.transaction(async (tx) => {
    const row = await adb(tx).selectFrom("api_tokens").selectAll().where("id", "=", id).executeTakeFirst();
    const mine = row && ctx.policy.allows(actor, "token.manage", { relations: { self: [row.user_id] } });
    if (!row || !(mine || ctx.policy.allows(actor, "users.manage"))) throw new NotFound(say("token.notFound"));
    const now = ctx.clock.now().toISOString();
    if (row.revoked_at === null) {
      await adb(tx).updateTable("api_tokens").set({ revoked_at: now }).where("id", "=", id).execute();
      await recordAccessChange(tx, ctx.clock, actor, "token.revoked", row.user_id, { token: row.id });
    }
    return view({ ...row, revoked_at: row.revoked_at ?? now });
  });
}

/** The actor a bearer token stands for, or null (unknown, revoked, expired, or its account disabled). */
export async function actorForToken(tx: Tx, clock: Clock, token: string): Promise<ScopedActor | null> {
  if (!token.startsWith(TOKEN_PREFIX) || token.length > 128) return null;
  const row = await adb(tx)
    .selectFrom("api_tokens")
    .innerJoin("users", "users.id", "api_tokens.user_id")
    .select(["api_tokens.id", "api_tokens.scopes", "api_tokens.expires_at", "api_tokens.revoked_at", "api_tokens.last_used_at", "users.id as user_id", "users.role", "users.disabled_at"])
    .where("api_tokens.token_hash", "=", sha256Hex(token))
    .executeTakeFirst();
  if (!row || row.revoked_at !== null || row.disabled_at !== null) return null;
  const now = clock.now();
  if (row.expires_at && now.toISOString() >= row.expires_at) return null;
  if (!row.last_used_at || now.getTime() - new Date(row.last_used_at).getTime() >= 60_000) {
    await adb(tx).updateTable("api_tokens").set({ last_used_at: now.toISOString() }).where("id", "=", row.id).execute();
  }
  return { kind: "user", id: row.user_id, role: row.role as Role, scopes: JSON.parse(row.scopes) as Action[] };
}
