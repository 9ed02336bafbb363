import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { Invalid, NotFound } from "../core/errors.ts";
import { custody, secret } from "../ledger/index.ts";
import { say } from "../core/messages.ts";

/**
 * Revealing an original: every view is the blurred rendition unless the viewer chooses otherwise; revealing a
 * graphic original is allowed by the policy, needs a reason, and is a custody event naming the viewer, the
 * original and the reason. It lives with the originals it reads (it was in access, which then had to read the
 * archive's table and made the two modules import each other).
 */
export const REVEAL_SECONDS = 300;
const MIN_REASON = 4;
const MAX_REASON = 500;

export interface RevealOriginal {
  sha256: string;
  reason: string;
}

/** Permission to stream one original's bytes (or its unblurred rendition) to this actor, for a short while. */
export interface RevealGrant {
  sha256: string;
  event: string;
  seq: number;
  revealedAt: string;
  expiresAt: string;
}

function checkReason(reason: string): string {
  const r = reason.trim();
  if (r.length < MIN_REASON) throw new Invalid(say("reveal.reasonNeeded"), "reason");
  if (r.length > MAX_REASON) throw new Invalid(say("reveal.reasonTooLong", { max: MAX_REASON }), "reason");
  return r;
}

/**
 * The reveal: checks the policy and the original, records "revealed graphic image", and returns the grant. The
 * caller streams the bytes only after this returns: no event, no bytes.
 */
export function revealOriginal(ctx: Ctx, actor: Actor, input: RevealOriginal): Promise<RevealGrant> {
  return grantOriginal(ctx, actor, input, "revealed graphic image");
}

/**
 * The download: the same permission and reason as a reveal, but a different act (a file leaves the archive,
 * where a reveal shows a photograph in one view), so the log records it as "downloaded original".
 */
export function downloadOriginal(ctx: Ctx, actor: Actor, input: RevealOriginal): Promise<RevealGrant> {
  return grantOriginal(ctx, actor, input, "downloaded original");
}

async function grantOriginal(
  ctx: Ctx,
  actor: Actor,
  input: RevealOriginal,
  type: "revealed graphic image" | "downloaded original",
): Promise<RevealGrant> {
  ctx.policy.require(actor, "original.reveal");
  const reason = checkReason(input.reason);
  return ctx.db.transaction(async (tx) => {
    const row = await tx.selectFrom("originals").select(["sha256", "status"]).where("sha256", "=", input.sha256).executeTakeFirst();
    if (!row) throw new NotFound(`No original with SHA-256 ${input.sha256}.`).says("record.notFound", { kind: "original" });
    const now = ctx.clock.now();
    const { seq, event } = await ctx.log.append(
      tx,
      custody(type, actor, now, [{ sha256: row.sha256, role: "original" }], { reason: secret(reason) }),
    );
    return {
      sha256: row.sha256,
      event: event.id,
      seq,
      revealedAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + REVEAL_SECONDS * 1000).toISOString(),
    };
  });
}

