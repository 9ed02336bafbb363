import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { Conflict, Invalid } from "../core/errors.ts";
import { custody } from "../ledger/index.ts";
import { getBody } from "../catalogue/index.ts";
import { loadCaseReport } from "./members.ts";
import { consents, currentDecision } from "./disclosure.ts";
import { bodyIdOf } from "./identification.ts";
import { familyImage } from "./images.ts";

/**
 * The blurred face crop exactly as stage 2 would show it, made by the server from the original, for the
 * caseworker to look at before sending: the same rules as sending it (a decision other than excluded, the
 * family's consent to viewing photos), nothing stored, nothing shown to the family. A custody event, like
 * every look at a family's image.
 */
export async function previewFace(ctx: Ctx, actor: Actor, input: { report: string; bodyId: string; photo?: string }): Promise<{ bytes: Buffer; mime: string }> {
  ctx.policy.require(actor, "disclosure.make");
  const bodyId = await bodyIdOf(ctx.db.db, input.bodyId);
  const body = await getBody(ctx, actor, bodyId);
  const photos = [...body.photos].sort((a, b) => (a.role === "face" ? 0 : 1) - (b.role === "face" ? 0 : 1) || a.position - b.position);
  const chosen = input.photo ? photos.find((p) => p.sha256 === input.photo) : photos[0];
  if (!chosen) throw new Invalid(input.photo ? "That photo is not one of the body's photos." : "The body has no photo to crop.", "photo");
  const r = await ctx.db.transaction(async (tx) => {
    const r = await loadCaseReport(tx, input.report);
    const decision = await currentDecision(tx, r.id, body.id);
    if (!decision) throw new Conflict("Record a decision on this candidate before preparing anything for the family.");
    if (decision.status === "excluded") throw new Conflict("This candidate is excluded: no image of it is shown to the family.");
    if (!consents(r, "viewingPhotos")) throw new Conflict("The family has not consented to viewing photos (or withdrew it); record their consent first.");
    return r;
  });
  const bytes = await familyImage(await ctx.blobs.read(chosen.sha256), "face");
  await ctx.db.transaction((tx) =>
    ctx.log.append(tx, custody("disclosure", actor, ctx.clock.now(), [{ id: r.id, role: "report" }, { id: body.id, role: "body" }, { sha256: chosen.sha256, role: "photo" }], { action: "disclosure.previewed", blurred: true })),
  );
  return { bytes, mime: "image/jpeg" };
}
