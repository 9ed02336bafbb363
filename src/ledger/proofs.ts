import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { Invalid, NotFound } from "../core/errors.ts";
import { say } from "../core/messages.ts";

/** The event that recorded an original's arrival (its ingestion, or its quarantine), and its proof. */
export async function proveOriginal(
  ctx: Ctx,
  actor: Actor,
  sha256: string,
): Promise<{ seq: number; proof: string; leaf: Buffer; checkpoint: string }> {
  ctx.policy.require(actor, "log.entries");
  if (!/^[0-9a-f]{64}$/.test(sha256)) throw new Invalid(say("proof.sha256Option"), "sha256");
  const events = await ctx.log.eventsFor(sha256);
  const arrival = events.find(
    (e) => (e.event.type === "ingestion" && e.event.outcome === "success") || e.event.type === "quarantine",
  ) ?? events.find((e) => e.event.type === "accession");
  if (!arrival) throw new NotFound(say("proof.noOriginal", { sha256 }));
  const p = await ctx.tree.proveEvent(arrival.seq);
  return { seq: arrival.seq, proof: p.proof, leaf: p.leaf, checkpoint: p.checkpoint.published };
}
