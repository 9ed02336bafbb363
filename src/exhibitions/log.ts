import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import type { Tx } from "../db/database.ts";
import { custody, type EventObject, type EventType } from "../ledger/index.ts";

/** One custody event about an exhibition, in the caller's transaction. */
export async function logExhibition(ctx: Ctx, tx: Tx, actor: Actor, exhibitionId: string, objects: EventObject[], detail: Record<string, unknown>, type: EventType = "metadata modification"): Promise<number> {
  const ev = await ctx.log.append(tx, custody(type, actor, ctx.clock.now(), [{ id: exhibitionId, role: "exhibition" }, ...objects], { exhibition: exhibitionId, ...detail }));
  return ev.seq;
}

