import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";

/**
 * Blind review reaches beyond the reviews themselves: while a forensic reviewer's double review of a body is still
 * blind, nothing the other reviewer did about that body or its photos may reach them — not the other's review
 * event (it names the photos they drew regions on), not their reveals of the photos (and the reasons), not the
 * body's history they wrote (the status their submission set). The review module knows who is blind to whom; the
 * custody-history views (archive, catalogue) ask here, so neither depends on the review module.
 */
export interface BlindScope {
  /** Record id (a body) or photo SHA-256 → the co-reviewers whose acts on it are hidden. */
  hidden: Map<string, Set<string>>;
}

type Provider = (ctx: Ctx, actor: Actor) => Promise<BlindScope>;
let provider: Provider | null = null;

export function setBlindProvider(p: Provider): void {
  provider = p;
}

/** What is hidden from this actor now; null when nothing is (not a forensic reviewer, or nothing blind). */
export async function blindScope(ctx: Ctx, actor: Actor): Promise<BlindScope | null> {
  if (!ctx.policy.stands(actor, "review.blind") || !provider) return null;
  const scope = await provider(ctx, actor);
  return scope.hidden.size ? scope : null;
}

/** Whether an act (by `actorId`, on these records or photos) is hidden by the blind scope. */
export function hiddenByBlind(scope: BlindScope | null, actorId: string, keys: readonly (string | undefined)[]): boolean {
  if (!scope) return false;
  return keys.some((k) => k !== undefined && scope.hidden.get(k)?.has(actorId) === true);
}
