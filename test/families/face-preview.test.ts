import { test } from "node:test";
import assert from "node:assert/strict";
import sharp from "sharp";
import { backends } from "../support/backends.ts";
import { freshArchive } from "../support/archive.ts";
import { createReport, rerank } from "../../src/families/index.ts";
import { decide, recordConsent } from "../../src/families/disclosure.ts";
import { previewFace } from "../../src/families/face-preview.ts";
import { familyImage } from "../../src/families/images.ts";
import { caseOf } from "../../src/families/disclosure.ts";
import { Conflict, Forbidden } from "../../src/core/errors.ts";
import { caseworker, familyMember, REPORT, seedMatchingBody } from "../support/casework.ts";

for (const { backend, skip } of await backends()) {
  test(`the blurred face is made by the server and shown to the caseworker before sending, under the rules of sending it; nothing is sent (${backend.name})`, { skip }, async () => {
    const t = await freshArchive(backend);
    const a = t.archive;
    try {
      const body = await seedMatchingBody(a);
      const report = await createReport(a, caseworker, REPORT);
      await rerank(a, caseworker, { reportId: report.id });
      await assert.rejects(previewFace(a, caseworker, { report: report.ref, bodyId: body.ref }), (e: Error) => e instanceof Conflict && /decision/.test(e.message));
      await decide(a, caseworker, { report: report.ref, bodyId: body.ref, status: "probable", reason: "scar" });
      await assert.rejects(previewFace(a, caseworker, { report: report.ref, bodyId: body.ref }), (e: Error) => e instanceof Conflict && /consented to viewing photos/.test(e.message));
      await recordConsent(a, caseworker, { report: report.ref, tier: "viewingPhotos", given: true, note: "in person" });
      await assert.rejects(previewFace(a, await familyMember(a, "son"), { report: report.ref, bodyId: body.ref }), Forbidden);

      const img = await previewFace(a, caseworker, { report: report.ref, bodyId: body.ref });
      const meta = await sharp(img.bytes).metadata();
      assert.equal(meta.width, 240);
      assert.equal(meta.exif, undefined);
      assert.ok(img.bytes.equals(await familyImage(await a.blobs.read(body.face), "face")), "the face photo's crop, exactly what stage 2 sends");
      assert.equal((await caseOf(a, caseworker, report.ref)).disclosures.length, 0, "nothing was sent");
      const events = (await a.log.eventsFor(report.id)).map((e) => e.event).filter((e) => e.detail.action === "disclosure.previewed");
      assert.equal(events.length, 1);
      assert.ok(events[0]!.objects.some((o) => o.sha256 === body.face));
      await decide(a, caseworker, { report: report.ref, bodyId: body.ref, status: "excluded", reason: "DNA" });
      await assert.rejects(previewFace(a, caseworker, { report: report.ref, bodyId: body.ref }), (e: Error) => e instanceof Conflict && /excluded/.test(e.message));
    } finally {
      await t.close();
    }
  });
}
