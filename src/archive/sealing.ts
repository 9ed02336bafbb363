import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { sealIdentity as sealWithAccess, type SealedView, type SealIdentity } from "../access/index.ts";
import { sourceExists } from "./facts.ts";


/**
 * Sealing the identity of whoever handed over a source: the sealing itself is access's (keys, encryption, who
 * may), the source is the archive's; the archive asks access to seal with its own check that the source exists.
 */
export function sealIdentity(ctx: Ctx, actor: Actor, input: SealIdentity): Promise<SealedView> {
  return sealWithAccess(ctx, actor, input, sourceExists);
}
