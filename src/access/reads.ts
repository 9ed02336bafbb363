import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import type { Tx } from "../db/database.ts";
import { custody, type EventObject } from "../ledger/index.ts";

/**
 * Reads that are acts on evidence. Reads of families' personal data and of originals' bytes are custody events;
 * the helpers below append them inside the caller's transaction, with the read they record. Revealing an
 * original is the archive's (src/archive/reveals.ts): it reads the archive's table of originals.
 */

/** Records that the actor read an original's bytes (a download for verification, an export), in the caller's transaction. */
export async function recordOriginalRead(ctx: Ctx, tx: Tx, actor: Actor, sha256: string, detail: Record<string, string> = {}): Promise<string> {
  const { event } = await ctx.log.append(tx, custody("viewed original", actor, ctx.clock.now(), [{ sha256, role: "original" }], detail));
  return event.id;
}

/**
 * Records that the actor read a family's personal data (a report, a contact, a disclosure), in the caller's
 * transaction. Objects name records by id; the detail says what was read, never the data itself.
 */
export async function recordPersonalDataRead(
  ctx: Ctx,
  tx: Tx,
  actor: Actor,
  objects: EventObject[],
  detail: Record<string, string> = {},
): Promise<string> {
  const { event } = await ctx.log.append(tx, custody("viewed personal data", actor, ctx.clock.now(), objects, detail));
  return event.id;
}
