import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import type { Tx } from "../db/database.ts";
import { sealIdentity as sealWithAccess, type SealedView, type SealIdentity } from "../access/index.ts";

/** Whether the archive holds a source with this id (in the caller's transaction when given one). */
export async function sourceExists(db: Tx, sourceId: string): Promise<boolean> {
  const row = await db.selectFrom("sources").select("id").where("id", "=", sourceId).executeTakeFirst();
  return row !== undefined;
}

/**
 * Sealing the identity of whoever handed over a source: the sealing itself is access's (keys, encryption, who
 * may), the source is the archive's; the archive asks access to seal with its own check that the source exists.
 */
export function sealIdentity(ctx: Ctx, actor: Actor, input: SealIdentity): Promise<SealedView> {
  return sealWithAccess(ctx, actor, input, sourceExists);
}
