import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import sharp from "sharp";
import { backends } from "../support/backends.ts";
import { freshArchive } from "../support/archive.ts";
import { createReport, rerank } from "../../src/families/index.ts";
import { caseOf, decide, disclose, recordConsent } from "../../src/families/disclosure.ts";
import { facePhotos, facePreviewImage, previewFace } from "../../src/families/face-preview.ts";
import { familyImage } from "../../src/families/images.ts";
import { linkMember } from "../../src/families/members.ts";
import { portalImage, portalReport } from "../../src/families/portal.ts";
import { Conflict, Forbidden, Invalid } from "../../src/core/errors.ts";
import type { Actor } from "../../src/core/actor.ts";
import { investigator, seedBodies } from "../support/catalogue.ts";
import { caseworker, familyMember, REPORT, seedMatchingBody, seedPhoto } from "../support/casework.ts";

const otherCaseworker: Actor = { kind: "user", id: "usr_cw2", role: "family_caseworker" };
const REGION = { cx: 0.5, cy: 0.45, size: 0.6 };

async function read(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of stream) parts.push(Buffer.from(c as Buffer));
  return Buffer.concat(parts);
}

for (const { backend, skip } of await backends()) {
  test(`the caseworker chooses the face photo and the square, sees the server's blurred crop, and only that crop can be sent, byte for byte (${backend.name})`, { skip }, async () => {
    const t = await freshArchive(backend);
    const a = t.archive;
    try {
      const body = await seedMatchingBody(a);
      const report = await createReport(a, caseworker, REPORT);
      const son = await familyMember(a, "son");
      await linkMember(a, caseworker, { report: report.ref, userId: son.id });
      await rerank(a, caseworker, { reportId: report.id });
      assert.deepEqual((await facePhotos(a, caseworker, { bodyId: body.ref })).map((p) => p.sha256), [body.face], "only the photo marked as showing the face is offered");

      const ask = (who: Actor = caseworker, over: Record<string, unknown> = {}) => previewFace(a, who, { report: report.ref, bodyId: body.ref, photo: body.face, region: REGION, ...over });
      await assert.rejects(ask(), (e: Error) => e instanceof Conflict && /decision/.test(e.message));
      await decide(a, caseworker, { report: report.ref, bodyId: body.ref, status: "probable", reason: "scar" });
      await assert.rejects(ask(), (e: Error) => e instanceof Conflict && /consented to viewing photos/.test(e.message));
      await recordConsent(a, caseworker, { report: report.ref, tier: "viewingPhotos", given: true, note: "in person" });
      await assert.rejects(ask(son), Forbidden);
      await assert.rejects(ask(caseworker, { photo: body.other }), (e: Error) => e instanceof Invalid && /marked as showing the face/.test(e.message), "a photo not marked as the face is refused");
      await assert.rejects(ask(caseworker, { region: undefined }), (e: Error) => e instanceof Invalid && /square around the face/.test(e.message));
      await assert.rejects(ask(caseworker, { region: { cx: 1.5, cy: 0.5, size: 0.5 } }), Invalid);

      const p = await ask();
      const bytes = (await facePreviewImage(a, caseworker, p.id)).bytes;
      assert.equal(p.sha256, createHash("sha256").update(bytes).digest("hex"), "the preview is named by the SHA-256 of the crop shown");
      assert.equal(p.previewedBy, caseworker.id);
      assert.deepEqual(p.region, REGION);
      const meta = await sharp(bytes).metadata();
      assert.equal(meta.width, 240);
      assert.equal(meta.exif, undefined, "no metadata travels with it");
      assert.ok(bytes.equals(await familyImage(await a.blobs.read(body.face), "face", REGION)), "the crop of the region drawn");
      assert.ok(!bytes.equals(await familyImage(await a.blobs.read(body.face), "face")), "not the middle of the photo");
      assert.equal((await caseOf(a, caseworker, report.ref)).disclosures.length, 0, "nothing was sent");
      const previewed = (await a.log.eventsFor(report.id)).map((e) => e.event).filter((e) => e.detail.action === "disclosure.previewed");
      assert.equal(previewed.length, 1);
      assert.ok(previewed[0]!.objects.some((o) => o.sha256 === body.face) && previewed[0]!.objects.some((o) => o.id === p.id));
      assert.equal(previewed[0]!.detail.image, p.sha256, "the log names the crop by its hash");

      // stage 2 sends a crop a caseworker has seen, and only the one who saw it sends it
      const send = (who: Actor, preview?: string) =>
        disclose(a, who, { report: report.ref, bodyId: body.ref, stage: "blurred_face", text: "A blurred image.", consentNote: "in person", reason: "ready", ...(preview ? { preview } : {}) });
      await disclose(a, caseworker, { report: report.ref, bodyId: body.ref, stage: "text", text: "We may have found him.", consentNote: "in person", reason: "r" });
      await assert.rejects(send(caseworker), (e: Error) => e instanceof Invalid && /only a crop you have seen can be sent/.test(e.message));
      await assert.rejects(send(otherCaseworker, p.id), (e: Error) => e instanceof Conflict && /look at the crop yourself/.test(e.message));
      const s2 = await send(caseworker, p.id);
      assert.equal(s2.photo, body.face);
      const m = (await portalReport(a, son, report.ref)).matches[0]!;
      const served = await read((await portalImage(a, son, m.images[0]!.id)).stream);
      assert.ok(served.equals(bytes), "the family receives exactly the bytes the caseworker saw");
      const staged = (await a.log.eventsFor(report.id)).map((e) => e.event).find((e) => e.detail.action === "disclosure.stage" && e.detail.stage === "blurred_face")!;
      assert.equal(staged.detail.image, p.sha256);
      assert.ok(staged.objects.some((o) => o.id === p.id && o.role === "face preview"));

      // excluded: no preview is made
      await decide(a, caseworker, { report: report.ref, bodyId: body.ref, status: "excluded", reason: "DNA" });
      await assert.rejects(ask(), (e: Error) => e instanceof Conflict && /excluded/.test(e.message));
    } finally {
      await t.close();
    }
  });

  test(`a body with no photo marked as showing the face offers no blurred face: no photos, and a preview is refused with a sentence (${backend.name})`, { skip }, async () => {
    const t = await freshArchive(backend);
    const a = t.archive;
    try {
      const full = await seedPhoto(a, 7);
      const [body] = await seedBodies(a, investigator, [
        { sex: "male", ageMin: 22, ageMax: 32, photoDate: "2012-09-03", nameAr: "محمد احمد الخطيب", photos: [{ sha256: full, role: "full" }] },
      ]);
      const report = await createReport(a, caseworker, { ...REPORT, consent: { viewingPhotos: true } });
      await rerank(a, caseworker, { reportId: report.id });
      await decide(a, caseworker, { report: report.ref, bodyId: body!.ref, status: "probable", reason: "r" });
      assert.deepEqual(await facePhotos(a, caseworker, { bodyId: body!.ref }), []);
      await assert.rejects(
        previewFace(a, caseworker, { report: report.ref, bodyId: body!.ref, photo: full, region: REGION }),
        (e: Error) => e instanceof Conflict && e.message.startsWith(`No photo of body ${body!.ref} is marked as showing the face`),
      );
    } finally {
      await t.close();
    }
  });
}
