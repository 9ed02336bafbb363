import { test } from "node:test";
import assert from "node:assert/strict";
import type { Actor } from "../../src/core/actor.ts";
import { Conflict, Forbidden } from "../../src/core/errors.ts";
import {
  addItem,
  addRegion,
  approveExhibition,
  createExhibition,
  orderItems,
  publishExhibition,
  returnToDraft,
  reviewItem,
  showExhibition,
  submitExhibition,
  updateItem,
  withdrawExhibition,
} from "../../src/exhibitions/index.ts";
import { createReport, decide, rerank, setConsent } from "../../src/families/index.ts";
import { backends } from "../support/backends.ts";
import { freshArchive } from "../support/archive.ts";
import { caseworker, REPORT, seedMatchingBody, seedPhoto } from "../support/casework.ts";

const author: Actor = { kind: "user", id: "usr_curator_a", role: "curator" };
const second: Actor = { kind: "user", id: "usr_curator_b", role: "curator" };
const investigator: Actor = { kind: "user", id: "usr_inv", role: "investigator" };

for (const { backend, skip } of await backends()) {
  test(`an exhibition goes draft → review → approved → published → withdrawn, reviewed item by item by a second person, every step logged (${backend.name})`, { skip, timeout: 120_000 }, async () => {
    const t = await freshArchive(backend);
    try {
      const a = t.archive;
      const p1 = await seedPhoto(a, 1);
      const p2 = await seedPhoto(a, 2);
      await assert.rejects(createExhibition(a, investigator, { title: { en: "x" }, languages: ["en"] }), /may not do this \(exhibition\.edit\)/);
      await assert.rejects(createExhibition(a, author, { title: { en: "Only English" }, languages: ["ar", "en"] }), /title in each of its languages \(ar is missing\)/);
      const before = await a.log.size();
      const ex = await createExhibition(a, author, { title: { ar: "قيصر", en: "Caesar" }, statement: { en: "What happened." }, languages: ["en", "ar"] });
      assert.equal(ex.ref, "X-0001");
      assert.deepEqual(ex.languages, ["ar", "en"]);
      const i1 = await addItem(a, author, { exhibition: ex.ref, kind: "photo", sha256: p1, caption: { ar: "صورة", en: "A photograph" } });
      const panel = await addItem(a, author, { exhibition: ex.id, kind: "text", caption: { en: "About the photographs", ar: "عن الصور" } });
      const i2 = await addItem(a, author, { exhibition: ex.id, kind: "photo", sha256: p2, caption: { en: "Second" } });
      assert.deepEqual([i1.graphic, panel.graphic], [true, false], "photos carry a content warning by default, panels do not");
      assert.deepEqual(i1.layers, { faces: true, numbers: true, marks: true, background: true, everything: "off" });
      await addRegion(a, author, { item: i1.id, layer: "faces", x: 120, y: 50, w: 160, h: 200 });
      await addRegion(a, author, { item: i2.id, layer: "everything", x: 100, y: 40, w: 200, h: 220 });
      await updateItem(a, author, { item: i2.id, layers: { everything: "silhouette" } });
      const ordered = await orderItems(a, author, { exhibition: ex.id, order: [panel.id, i1.id, i2.id] });
      assert.deepEqual(ordered.map((i) => i.kind), ["text", "photo", "photo"]);

      // The author may not review their own work; nothing is reviewed before submission.
      await assert.rejects(reviewItem(a, second, { item: i1.id }), /reviewed while it is in review/);
      await submitExhibition(a, author, ex.id);
      await assert.rejects(addRegion(a, author, { item: i1.id, layer: "numbers", x: 1, y: 1, w: 5, h: 5 }), (e: unknown) => e instanceof Conflict && /only a draft can be changed/.test(e.message));
      await assert.rejects(reviewItem(a, author, { item: i1.id }), (e: unknown) => e instanceof Forbidden && /second person/.test(e.message));
      await assert.rejects(approveExhibition(a, author, ex.id), /second person/);

      // An unreviewed item cannot be approved or published.
      await reviewItem(a, second, { item: i1.id });
      await reviewItem(a, second, { item: panel.id });
      await assert.rejects(approveExhibition(a, second, ex.id), (e: unknown) => e instanceof Conflict && /Items 3 of exhibition X-0001 are not reviewed/.test(e.message));
      await assert.rejects(publishExhibition(a, second, ex.id), /this step \(exhibition\.publish\) needs it to be approved/);

      // A change after the review voids it.
      await returnToDraft(a, second, ex.id);
      await updateItem(a, author, { item: i1.id, caption: { en: "A photograph, recaptioned" } });
      await submitExhibition(a, author, ex.id);
      const view = await showExhibition(a, author, ex.id);
      assert.deepEqual(view.items.map((i) => i.reviewed?.current ?? null), [true, false, null]);
      await assert.rejects(approveExhibition(a, second, ex.id), /Items 2, 3 of exhibition X-0001 are not reviewed/);
      await reviewItem(a, second, { item: i1.id });
      await reviewItem(a, second, { item: i2.id });
      await approveExhibition(a, second, ex.id);
      const pub = await publishExhibition(a, second, ex.id);
      assert.equal(pub.status, "published");
      await assert.rejects(updateItem(a, author, { item: i1.id, graphic: false }), /only a draft/);
      const wd = await withdrawExhibition(a, author, ex.id);
      assert.equal(wd.status, "withdrawn");

      const kinds = (await a.log.eventsFor(ex.id)).map(({ event: e }) => `${e.type}:${String(e.detail.action)}`);
      assert.equal(await a.log.size(), before + kinds.length, "every event of these steps names the exhibition");
      assert.deepEqual(kinds, [
        "metadata modification:exhibition.create",
        "metadata modification:exhibition.item-add",
        "metadata modification:exhibition.item-add",
        "metadata modification:exhibition.item-add",
        "metadata modification:exhibition.region-add",
        "metadata modification:exhibition.region-add",
        "metadata modification:exhibition.item-update",
        "metadata modification:exhibition.order",
        "metadata modification:exhibition.submit",
        "redaction:exhibition.item-review",
        "redaction:exhibition.item-review",
        "metadata modification:exhibition.return",
        "metadata modification:exhibition.item-update",
        "metadata modification:exhibition.submit",
        "redaction:exhibition.item-review",
        "redaction:exhibition.item-review",
        "metadata modification:exhibition.approve",
        "metadata modification:exhibition.publish",
        "metadata modification:exhibition.withdraw",
      ]);
    } finally {
      await t.close();
    }
  });

  test(`an identified person's image is published only with the family's consent to public display (${backend.name})`, { skip, timeout: 120_000 }, async () => {
    const t = await freshArchive(backend);
    try {
      const a = t.archive;
      const body = await seedMatchingBody(a, 7);
      const r = await createReport(a, caseworker, REPORT);
      await setConsent(a, caseworker, r.id, "dataSharing", true);
      await rerank(a, caseworker, { reportId: r.id });
      await decide(a, caseworker, { report: r.ref, bodyId: body.id, status: "confirmed", reason: "identified" });

      const ex = await createExhibition(a, author, { title: { en: "Consent" }, languages: ["en"] });
      const it = await addItem(a, author, { exhibition: ex.id, kind: "body", body: body.ref, sha256: body.face, caption: { en: "A man" } });
      assert.equal(it.consent, "missing");
      await submitExhibition(a, author, ex.id);
      await reviewItem(a, second, { item: it.id });
      await approveExhibition(a, second, ex.id);
      await assert.rejects(publishExhibition(a, second, ex.id), /Items 1 of exhibition X-0001 show an identified person whose family has not consented/);
      await setConsent(a, caseworker, r.id, "publicDisplay", true);
      assert.equal((await showExhibition(a, author, ex.id)).items[0]!.consent, "given");
      await publishExhibition(a, second, ex.id);
      await setConsent(a, caseworker, r.id, "publicDisplay", false);
      assert.equal((await showExhibition(a, author, ex.id)).items[0]!.consent, "missing", "a withdrawal is read at once");
    } finally {
      await t.close();
    }
  });
}
