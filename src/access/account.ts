import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { NotFound } from "../core/errors.ts";
import { recordAccessChange } from "./audit.ts";
import { sessionsOf, type SessionView } from "./sessions.ts";
import { adb } from "./tables.ts";

/** One's own sessions: listed and ended one by one. Another account's session id is "not found", never "forbidden". */
export async function listOwnSessions(ctx: Ctx, actor: Actor, currentId?: string): Promise<SessionView[]> {
  ctx.policy.require(actor, "account.self", { relations: { self: [actor.id] } });
  return sessionsOf(ctx.db.db, actor.id, currentId);
}

export async function revokeOwnSession(ctx: Ctx, actor: Actor, id: string): Promise<{ ended: boolean }> {
  return ctx.db.transaction(async (tx) => {
    const row = await adb(tx).selectFrom("sessions").select(["id", "user_id"]).where("id", "=", id).executeTakeFirst();
    const allowed =
      row !== undefined &&
      (ctx.policy.allows(actor, "account.self", { relations: { self: [row.user_id] } }) || ctx.policy.allows(actor, "users.manage"));
    if (!row || !allowed) throw new NotFound("There is no such session among yours.").says("session.notFound");
    await adb(tx).deleteFrom("sessions").where("id", "=", id).execute();
    await recordAccessChange(tx, ctx.clock, actor, "sessions.revoked", row.user_id, { ended: 1 });
    return { ended: true };
  });
}
