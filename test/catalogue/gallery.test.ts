import { test } from "node:test";
import assert from "node:assert/strict";
import { backends } from "../support/backends.ts";
import { freshArchive } from "../support/archive.ts";
import { checkNumber, getBody, photoBodies, photoGallery, type PhotoGalleryQuery } from "../../src/catalogue/index.ts";
import { Forbidden } from "../../src/core/errors.ts";
import type { Archive } from "../../src/app/context.ts";
import { as, investigator, seedBodies, typed } from "../support/catalogue.ts";

/**
 * The gallery's filters, on both databases: by the body a photo is in and how far it is identified, by numbers read
 * from the photo and checked by a second person, by source and by the day of intake; and a photo's bodies by
 * reference with their photos in order (the viewer's previous/next and its link).
 */
async function originals(a: Archive, source: string, day: string, shas: string[]): Promise<void> {
  await a.db.db
    .insertInto("sources")
    .values({ id: source, label: source, kind: "folder", intake_path: "/x", medium_sha256: null, medium_size: null, volume_label: null, volume_serial: null, fs_type: null, status: "complete", started_at: `${day}T08:00:00.000Z`, finished_at: null, actor: "t", files: shas.length, ingested: shas.length, duplicates: 0, quarantined: 0, bytes: 0 })
    .execute();
  await a.db.db
    .insertInto("originals")
    .values(shas.map((sha256, i) => ({ sha256, size: 1, format: "jpeg", mime: "image/jpeg", media_kind: "image", status: "preserved", quarantine_reason: null, first_seen_at: `${day}T09:00:0${i}.000Z`, first_source_id: source, width: 10, height: 10, phash: null, capture_time: `2012-05-01T10:${sha256.slice(-2)}:00+03:00`, camera_make: null, camera_model: null, camera_serial: null, metadata_json: null, exif_raw: null, xmp_raw: null })))
    .execute();
  await a.db.db
    .insertInto("sightings")
    .values(shas.map((sha256, i) => ({ source_id: source, entry_no: i, path: `DCIM/${i}.JPG`, size: 1, modified: null, original_sha256: sha256, outcome: "ingested", reason: null, seen_at: `${day}T09:00:00.000Z` })))
    .execute();
}

const sha = (n: number) => n.toString(16).padStart(64, "0");

for (const { backend, skip } of await backends()) {
  test(`the gallery filters by body, identification, numbers read and checked, source and day of intake (${backend.name})`, { skip }, async () => {
    const t = await freshArchive(backend);
    try {
      const a = t.archive;
      await originals(a, "src_card_one", "2026-03-01", [sha(1), sha(2), sha(3), sha(4)]);
      await originals(a, "src_card_two", "2026-03-05", [sha(5), sha(6)]);
      const [b1, b2] = await seedBodies(a, investigator, [
        { photos: [{ sha256: sha(2), role: "card" }, { sha256: sha(1), role: "face" }], numbers: [{ ...typed("detainee", "248"), sourceSha256: sha(2) }], identificationStatus: "identified" },
        { photos: [{ sha256: sha(3), role: "card" }, { sha256: sha(5) }], numbers: [{ ...typed("detainee", "77"), sourceSha256: sha(3) }, { ...typed("branch", "215"), sourceSha256: sha(5) }] },
      ]);
      // A second person checks 248 (read from photo 2); 77 and 215 stay unchecked.
      const archivist = as("archivist", "usr_arch");
      const numbers = (await getBody(a, investigator, b1!.id)).numbers;
      await checkNumber(a, archivist, { numberId: numbers[0]!.id, agree: true });
      const list = async (q: Partial<PhotoGalleryQuery>) => (await photoGallery(a, investigator, { offset: 0, limit: 100, ...q })).items.map((i) => i.sha256);
      const all = await list({});
      assert.deepEqual(all, [1, 2, 3, 4, 5, 6].map(sha), "capture order, no filter");
      assert.deepEqual(await list({ body: "none" }), [sha(4), sha(6)]);
      assert.deepEqual(await list({ body: "any" }), [sha(1), sha(2), sha(3), sha(5)]);
      assert.deepEqual(await list({ body: "identified" }), [sha(1), sha(2)]);
      assert.deepEqual(await list({ body: "unidentified" }), [sha(3), sha(5)]);
      assert.deepEqual(await list({ numbers: "read" }), [sha(2), sha(3), sha(5)]);
      assert.deepEqual(await list({ numbers: "checked" }), [sha(2)]);
      assert.deepEqual(await list({ numbers: "unchecked" }), [sha(3), sha(5)]);
      assert.deepEqual(await list({ numbers: "none" }), [sha(1), sha(4), sha(6)]);
      assert.deepEqual(await list({ source: "src_card_two" }), [sha(5), sha(6)]);
      assert.deepEqual(await list({ intakeFrom: "2026-03-02" }), [sha(5), sha(6)]);
      assert.deepEqual(await list({ intakeTo: "2026-03-01" }), [1, 2, 3, 4].map(sha), "the end day is inclusive");
      assert.deepEqual(await list({ source: "src_card_one", body: "unidentified", numbers: "unchecked" }), [sha(3)], "filters combine");
      const page = await photoGallery(a, investigator, { offset: 1, limit: 1, body: "any" });
      assert.deepEqual([page.total, page.items.map((i) => i.sha256)], [4, [sha(2)]], "total and offset count the filtered list");
      // Body filters ask for the catalogue; a role that reads the archive only is told so.
      const curator = as("curator", "usr_curator");
      if (!a.policy.allows(curator, "catalogue.read") && a.policy.allows(curator, "archive.read")) await assert.rejects(photoGallery(a, curator, { offset: 0, limit: 10, body: "any" }), Forbidden);

      // The viewer's view of a photo: its bodies by reference, their photos in the body's order.
      const of1 = await photoBodies(a, investigator, sha(1));
      assert.deepEqual(of1, { bodies: [{ ref: b1!.ref, photos: [sha(2), sha(1)] }] });
      assert.deepEqual(await photoBodies(a, investigator, sha(5)), { bodies: [{ ref: b2!.ref, photos: [sha(3), sha(5)] }] });
      assert.deepEqual(await photoBodies(a, investigator, sha(4)), { bodies: [] });
    } finally {
      await t.close();
    }
  });
}
