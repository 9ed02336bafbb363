import { test } from "node:test";
import assert from "node:assert/strict";
import sharp from "sharp";
import { backends } from "../support/backends.ts";
import { freshArchive } from "../support/archive.ts";
import { rerank } from "../../src/families/index.ts";
import { approveRequest, decide, disclose, recordConsent } from "../../src/families/disclosure.ts";
import { endMember, linkMember } from "../../src/families/members.ts";
import { portalConsent, portalImage, portalReport, portalReports, requestMore } from "../../src/families/portal.ts";
import { Conflict, Forbidden, NotFound } from "../../src/core/errors.ts";
import { caseworker, familyMember, REPORT, seedMatchingBody, seenFace, fileAsFamily } from "../support/casework.ts";

async function bytesOf(s: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of s) chunks.push(Buffer.from(c as Buffer));
  return Buffer.concat(chunks);
}

/** Mean absolute difference between neighbouring pixels: high for sharp detail, low once blurred. */
async function sharpness(img: Buffer): Promise<number> {
  const { data, info } = await sharp(img).greyscale().resize(240, 240, { fit: "fill" }).raw().toBuffer({ resolveWithObject: true });
  let sum = 0;
  for (let y = 0; y < info.height; y++) for (let x = 1; x < info.width; x++) sum += Math.abs(data[y * info.width + x]! - data[y * info.width + x - 1]!);
  return sum / (info.height * (info.width - 1));
}

for (const { backend, skip } of await backends()) {
  test(`portal: a family sees only its own report and only what was disclosed to it, at the stage reached (${backend.name})`, { skip }, async () => {
    const t = await freshArchive(backend);
    const a = t.archive;
    try {
      const body = await seedMatchingBody(a);
      const mother = await familyMember(a, "mother");
      const other = await familyMember(a, "other");
      const mine = await fileAsFamily(a, mother, { ...REPORT, reporterContact: "mother's phone", consent: { viewingPhotos: true } });
      const theirs = await fileAsFamily(a, other, { nameAr: "خالد حسن النجار", sex: "male", birthDate: "1970", reporterContact: "other family's phone" });
      await rerank(a, caseworker, {});

      // before any disclosure: the report, no candidate, no score, no body
      const before = await portalReport(a, mother, mine.ref);
      assert.deepEqual(before.matches, []);
      const text = JSON.stringify(before);
      assert.ok(!text.includes(body.id) && !text.includes(body.ref) && !/score|band|candidate/i.test(text), "nothing of the ranking reaches the family");
      assert.equal("caseworkerId" in before.report, false);

      // another family's report is "not found", by id or ref, and never listed
      await assert.rejects(portalReport(a, mother, theirs.ref), NotFound);
      await assert.rejects(portalReport(a, mother, theirs.id), NotFound);
      await assert.rejects(portalReport(a, mother, "R-999999"), NotFound, "same answer for what does not exist");
      assert.deepEqual((await portalReports(a, mother)).map((r) => r.id), [mine.id]);
      assert.ok(!JSON.stringify(await portalReports(a, mother)).includes("other family"));
      await assert.rejects(portalConsent(a, mother, { report: theirs.ref, tier: "viewingPhotos", given: false }), NotFound);
      await assert.rejects(portalReports(a, caseworker), Forbidden, "the portal is for family members");

      // a decision alone discloses nothing; stage 1 shows words only
      await decide(a, caseworker, { report: mine.ref, bodyId: body.id, status: "presumptive", reason: "strong candidate" });
      assert.deepEqual((await portalReport(a, mother, mine.ref)).matches, [], "a decision is not a disclosure");
      await disclose(a, caseworker, { report: mine.ref, bodyId: body.id, stage: "text", text: "We would like to meet you.", consentNote: "phone", reason: "r" });
      let m = (await portalReport(a, mother, mine.ref)).matches[0]!;
      assert.equal(m.stage, "text");
      assert.deepEqual(m.images, []);
      assert.equal(m.mayRequestMore, false, "no request before a first image");
      await assert.rejects(requestMore(a, mother, { report: mine.ref, matchId: m.matchId, unblurred: true }), Conflict);
      assert.deepEqual((await portalReport(a, other, theirs.ref)).matches, [], "the other family sees none of it");
      await assert.rejects(portalImage(a, other, m.matchId), NotFound);

      // stage 2: one blurred face crop
      const s2 = await disclose(a, caseworker, { report: mine.ref, bodyId: body.id, stage: "blurred_face", text: "A blurred image.", consentNote: "in person", reason: "r", preview: await seenFace(a, caseworker, mine.ref, body) });
      m = (await portalReport(a, mother, mine.ref)).matches[0]!;
      assert.equal(m.stage, "blurred_face");
      assert.deepEqual(m.images.map((i) => [i.id, i.blurred]), [[s2.id, true]]);
      const face = await bytesOf((await portalImage(a, mother, s2.id)).stream);
      const originalSharpness = await sharpness(await a.blobs.read(body.face));
      assert.ok((await sharpness(face)) < originalSharpness / 2, "the face crop is blurred");
      await assert.rejects(portalImage(a, other, s2.id), NotFound, "another family cannot fetch it by id");

      // asking for blurred photos gets blurred ones: no unblurred image without asking for it
      const r1 = await requestMore(a, mother, { report: mine.ref, matchId: m.matchId, unblurred: false });
      assert.equal((await portalReport(a, mother, mine.ref)).matches[0]!.images.length, 1, "a request shows nothing until approved");
      const blurredMore = await approveRequest(a, caseworker, { id: r1.id, photos: [body.other], reason: "asked" });
      assert.equal(blurredMore[0]!.blurred, true);
      const shown = (await portalReport(a, mother, mine.ref)).matches[0]!.images;
      assert.ok(shown.every((i) => i.blurred), "every image is blurred");
      for (const i of shown) {
        const img = await portalImage(a, mother, i.id);
        assert.equal(img.blurred, true);
        assert.ok((await sharpness(await bytesOf(img.stream))) < originalSharpness / 2);
      }
      // asking for unblurred photos and the caseworker approving: then (and only then) an unblurred image
      const r2 = await requestMore(a, mother, { report: mine.ref, matchId: m.matchId, unblurred: true, note: "please" });
      const plain = await approveRequest(a, caseworker, { id: r2.id, photos: [body.face], reason: "counselled, asked in writing" });
      const img = await portalImage(a, mother, plain[0]!.id);
      assert.equal(img.blurred, false);
      const bytes = await bytesOf(img.stream);
      assert.ok((await sharpness(bytes)) > (await sharpness(face)) * 2, "unblurred");
      assert.equal((await sharp(bytes).metadata()).exif, undefined, "without the camera's metadata");

      // withdrawn consent: images are no longer listed or served; given again, they are
      await portalConsent(a, mother, { report: mine.ref, tier: "viewingPhotos", given: false });
      assert.deepEqual((await portalReport(a, mother, mine.ref)).matches[0]!.images, []);
      await assert.rejects(portalImage(a, mother, plain[0]!.id), Forbidden);
      await recordConsent(a, caseworker, { report: mine.ref, tier: "viewingPhotos", given: true, note: "gave it again, in person" });
      assert.equal((await portalReport(a, mother, mine.ref)).matches[0]!.images.length, 3);

      // a caseworker-tied member sees the report, but only disclosures made to them; an ended tie sees nothing
      const father = await familyMember(a, "father");
      await linkMember(a, caseworker, { report: mine.ref, userId: father.id, relationship: "father" });
      assert.deepEqual((await portalReport(a, father, mine.ref)).matches, [], "disclosures are to a person, not to whoever is tied");
      await assert.rejects(portalImage(a, father, plain[0]!.id), NotFound);
      await endMember(a, caseworker, { report: mine.ref, userId: father.id });
      await assert.rejects(portalReport(a, father, mine.ref), NotFound);
    } finally {
      await t.close();
    }
  });
}
