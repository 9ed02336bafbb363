import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { canonicalJson } from "../core/canonical-json.ts";
import { Conflict, Invalid, NotFound } from "../core/errors.ts";
import { say } from "../core/messages.ts";
import { newId } from "../core/ids.ts";
import type { Tx } from "../db/database.ts";
import { custody } from "../ledger/index.ts";
import { getBody } from "../catalogue/index.ts";
import { loadCaseReport } from "./members.ts";
import { consents, currentDecision } from "./disclosure.ts";
import { bodyIdOf } from "./identification.ts";
import { familyImage, type FaceRegion } from "./images.ts";
import { cwdb, type CaseReportsTable, type FacePreviewsTable } from "./casework-tables.ts";
import * as contracts from "./contracts.ts";
import { parseInput } from "../core/input.ts";
import type { z } from "zod";

/**
 * A family is never sent an image a caseworker has not seen (issue 20). The caseworker chooses the photo — only
 * one the body's record marks as showing the face (photo role `face`; with none, the step is not offered) — and
 * the square around the face; the server makes the blurred crop from the original under stage 2's rules (a
 * decision other than excluded, the family's consent to viewing photos), stores it and shows it. Stage 2 sends
 * that crop, by its id, and nothing else: the bytes the family receives are the bytes the caseworker saw (the
 * same SHA-256). Each crop made is a custody event naming the photo, the crop's hash and the preview.
 */
export type FacePreviewView = contracts.FacePreviewView;
export type FacePhoto = contracts.FacePhoto;

function previewView(p: FacePreviewsTable): FacePreviewView {
  return { id: p.id, bodyId: p.body_id, photo: p.photo_sha256, region: JSON.parse(p.region) as FaceRegion, sha256: p.image_sha256, previewedBy: p.previewed_by, previewedAt: p.previewed_at };
}

/** The body's photos marked as showing the face, in their order on the body (empty: no blurred face is offered). */
export async function facePhotos(ctx: Ctx, actor: Actor, sent: z.input<typeof contracts.FacePhotosInput>): Promise<FacePhoto[]> {
  ctx.policy.require(actor, "disclosure.make");
  const input = parseInput(contracts.FacePhotosInput, sent);
  const body = await getBody(ctx, actor, await bodyIdOf(ctx.db.db, input.bodyId));
  return body.photos
    .filter((p) => p.role === "face")
    .sort((a, b) => a.position - b.position)
    .map((p) => ({ sha256: p.sha256, position: p.position }));
}

/** The square as stored: its fractions rounded to a thousandth (the schema checked their ranges). */
function regionOf(r: FaceRegion): FaceRegion {
  const round = (v: number) => Math.round(v * 1000) / 1000;
  return { cx: round(r.cx), cy: round(r.cy), size: round(r.size) };
}

/**
 * The rules of stage 2 that do not depend on the recipient: a decision other than excluded, and a family of the
 * case (this report's, or one merged into it) that consented to viewing photos; sending checks the recipient's own.
 */
async function stageTwoAllowed(tx: Tx, r: CaseReportsTable, bodyId: string): Promise<void> {
  const decision = await currentDecision(tx, r.id, bodyId);
  if (!decision) throw new Conflict(say("families.decisionFirstPreview"));
  if (decision.status === "excluded") throw new Conflict(say("families.excludedNoImage"));
  const merged = await cwdb(tx).selectFrom("family_reports").select("consent").where("merged_into", "=", r.id).execute();
  if (![r, ...merged].some((x) => consents(x, "viewingPhotos"))) throw new Conflict(say("families.noPhotoConsent"));
}

/** Makes the blurred crop of the chosen face photo and region, stores it and records who looked at it. */
export async function previewFace(ctx: Ctx, actor: Actor, sent: z.input<typeof contracts.PreviewFaceInput>): Promise<FacePreviewView> {
  ctx.policy.require(actor, "disclosure.make");
  const input = parseInput(contracts.PreviewFaceInput, sent);
  const bodyId = await bodyIdOf(ctx.db.db, input.bodyId);
  const body = await getBody(ctx, actor, bodyId);
  const faces = body.photos.filter((p) => p.role === "face");
  if (faces.length === 0) {
    throw new Conflict(say("families.noFacePhoto", { body: body.ref }));
  }
  const chosen = faces.find((p) => p.sha256 === input.photo);
  if (!chosen) throw new Invalid(say("families.notFacePhoto"), "photo");
  const region = regionOf(input.region);
  const r = await ctx.db.transaction(async (tx) => {
    const r = await loadCaseReport(tx, input.report);
    if (r.merged_into) throw new Conflict(say("families.mergedDisclose", { report: r.ref }));
    await stageTwoAllowed(tx, r, body.id);
    return r;
  });
  const bytes = await familyImage(await ctx.blobs.read(chosen.sha256), "face", region).catch(() => {
    throw new Invalid(say("families.faceUnusable"), "photo");
  });
  const { sha256 } = await ctx.blobs.putBuffer(bytes);
  const row: FacePreviewsTable = {
    id: newId("fpv"), report_id: r.id, body_id: body.id, photo_sha256: chosen.sha256, region: canonicalJson(region), image_sha256: sha256, previewed_by: actor.id,
    previewed_at: ctx.clock.now().toISOString(),
  };
  await ctx.db.transaction(async (tx) => {
    await cwdb(tx).insertInto("family_face_previews").values(row).execute();
    await ctx.log.append(
      tx,
      custody("disclosure", actor, ctx.clock.now(), [{ id: r.id, role: "report" }, { id: body.id, role: "body" }, { sha256: chosen.sha256, role: "photo" }, { id: row.id, role: "face preview" }], {
        action: "disclosure.previewed",
        blurred: true,
        image: sha256,
      }),
    );
  });
  return previewView(row);
}

/** The crop of a preview, for the caseworker's screen (the preview's own event recorded the look). */
export async function facePreviewImage(ctx: Ctx, actor: Actor, id: string): Promise<{ bytes: Buffer; mime: string; sha256: string }> {
  ctx.policy.require(actor, "disclosure.make");
  const p = await cwdb(ctx.db.db).selectFrom("family_face_previews").selectAll().where("id", "=", id).executeTakeFirst();
  if (!p) throw new NotFound(say("families.noPreview"));
  return { bytes: await ctx.blobs.read(p.image_sha256), mime: "image/jpeg", sha256: p.image_sha256 };
}

/**
 * The preview a stage 2 disclosure sends: made for this report and body, and looked at by the caseworker who
 * sends it (another's look does not stand for theirs). Called inside the disclosure's transaction.
 */
export async function previewToSend(tx: Tx, actor: Actor, r: CaseReportsTable, bodyId: string, previewId: string | undefined): Promise<FacePreviewsTable> {
  if (!previewId) throw new Invalid(say("families.previewFirst"), "preview");
  const p = await cwdb(tx).selectFrom("family_face_previews").selectAll().where("id", "=", previewId).executeTakeFirst();
  if (!p || p.report_id !== r.id || p.body_id !== bodyId) throw new Invalid(say("families.previewNotThis"), "preview");
  if (p.previewed_by !== actor.id) throw new Conflict(say("families.previewOthers"));
  return p;
}
