import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import sharp from "sharp";
import type { Archive } from "../../src/app/context.ts";
import type { Actor } from "../../src/core/actor.ts";
import { canonicalJson } from "../../src/core/canonical-json.ts";
import {
  addItem,
  addRegion,
  approveExhibition,
  cleanCopy,
  createExhibition,
  exportExhibition,
  FILL,
  jpegStructure,
  metadataFindings,
  publishExhibition,
  reviewItem,
  showExhibition,
  snap,
  submitExhibition,
  updateItem,
} from "../../src/exhibitions/index.ts";
import { Manifest } from "../../src/exhibitions/contracts.ts";
import { createReport, decide, rerank, setConsent } from "../../src/families/index.ts";
import { backends, tempDir } from "../support/backends.ts";
import { freshArchive } from "../support/archive.ts";
import { caseworker, REPORT, seedMatchingBody, seedPhoto } from "../support/casework.ts";

const author: Actor = { kind: "user", id: "usr_curator_a", role: "curator" };
const second: Actor = { kind: "user", id: "usr_curator_b", role: "curator" };

/** A synthetic photo stored as taken sideways (EXIF orientation 6) with a GPS-like EXIF block and a comment. */
async function seedSideways(a: Archive): Promise<string> {
  const w = 400;
  const h = 240;
  const px = Buffer.alloc(w * h * 3);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) px.set([(x * 7) % 256, (y * 5) % 256, 128], (y * w + x) * 3);
  const bytes = await sharp(px, { raw: { width: w, height: h, channels: 3 } }).jpeg().withMetadata({ orientation: 6, exif: { IFD0: { Make: "Canon", Artist: "photographer", BodySerialNumber: "SN123" } } }).toBuffer();
  const { sha256, size } = await a.blobs.putBuffer(bytes);
  const now = a.clock.now().toISOString();
  const sourceId = `src_side_${Math.random().toString(36).slice(2, 8)}`;
  await a.db.db
    .insertInto("sources")
    .values({ id: sourceId, label: "test card", kind: "folder", intake_path: "/media/card", medium_sha256: null, medium_size: null, volume_label: null, volume_serial: null, fs_type: null, status: "complete", started_at: now, finished_at: now, actor: "operator:test", files: 1, ingested: 1, duplicates: 0, quarantined: 0, bytes: size })
    .execute();
  await a.db.db
    .insertInto("originals")
    .values({ sha256, size, format: "jpeg", mime: "image/jpeg", media_kind: "image", status: "preserved", quarantine_reason: null, first_seen_at: now, first_source_id: sourceId, width: w, height: h, phash: null, capture_time: null, camera_make: "Canon", camera_model: null, camera_serial: null, metadata_json: null, exif_raw: null, xmp_raw: null })
    .execute();
  return sha256;
}

function tree(dir: string, base = ""): string[] {
  return readdirSync(join(dir, base)).sort().flatMap((n) => (statSync(join(dir, base, n)).isDirectory() ? tree(dir, join(base, n)) : [join(base, n)]));
}

async function blobBytes(a: Archive, sha: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of await a.blobs.get(sha)) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

for (const { backend, skip } of await backends()) {
  test(`a published exhibition exports as a reproducible static folder of clean images tied to their originals; a withdrawn consent takes the item down (${backend.name})`, { skip, timeout: 180_000 }, async () => {
    const t = await freshArchive(backend);
    try {
      const a = t.archive;
      const side = await seedSideways(a);
      const plain = await seedPhoto(a, 3);
      const body = await seedMatchingBody(a, 9);
      const r = await createReport(a, caseworker, REPORT);
      await setConsent(a, caseworker, r.id, "dataSharing", true);
      await setConsent(a, caseworker, r.id, "publicDisplay", true);
      await rerank(a, caseworker, { reportId: r.id });
      await decide(a, caseworker, { report: r.ref, bodyId: body.id, status: "confirmed", reason: "identified" });

      const ex = await createExhibition(a, author, { title: { ar: "معرض", en: "Exhibition" }, statement: { ar: "بيان", en: "A statement <with> markup & quotes\"" }, languages: ["ar", "en"] });
      const i1 = await addItem(a, author, { exhibition: ex.id, kind: "photo", sha256: side, caption: { ar: "صورة مائلة", en: "Sideways" } });
      await addRegion(a, author, { item: i1.id, layer: "faces", x: 30, y: 40, w: 50, h: 60 });
      await addRegion(a, author, { item: i1.id, layer: "numbers", x: 100, y: 300, w: 60, h: 30 });
      await addRegion(a, author, { item: i1.id, layer: "marks", x: 0, y: 0, w: 17, h: 17 });
      await addRegion(a, author, { item: i1.id, layer: "background", x: 150, y: 350, w: 90, h: 50 });
      const i2 = await addItem(a, author, { exhibition: ex.id, kind: "photo", sha256: plain, caption: { en: "Silhouette" } });
      await addRegion(a, author, { item: i2.id, layer: "everything", x: 120, y: 50, w: 160, h: 200 });
      await updateItem(a, author, { item: i2.id, layers: { everything: "silhouette" } });
      const i3 = await addItem(a, author, { exhibition: ex.id, kind: "body", body: body.ref, sha256: body.face, caption: { en: "Identified, with consent" } });
      await addRegion(a, author, { item: i3.id, layer: "faces", x: 110, y: 40, w: 180, h: 220 });
      await addItem(a, author, { exhibition: ex.id, kind: "text", caption: { en: "A panel", ar: "لوحة" } });
      await submitExhibition(a, author, ex.id);
      for (const it of [i1, i2, i3]) await reviewItem(a, second, { item: it.id });
      for (const it of (await showExhibition(a, author, ex.id)).items.filter((x) => x.kind === "text")) await reviewItem(a, second, { item: it.id });
      await approveExhibition(a, second, ex.id);
      await publishExhibition(a, second, ex.id);

      const out1 = join(tempDir("dalil-exh-"), "one");
      const out2 = join(tempDir("dalil-exh-"), "two");
      const e1 = await exportExhibition(a, author, { exhibition: ex.ref, out: out1 });
      const e2 = await exportExhibition(a, second, { exhibition: ex.ref, out: out2 });
      assert.deepEqual(tree(out1), tree(out2));
      assert.deepEqual(tree(out1), ["VERIFY.txt", "ar-text.html", "ar.html", "en-text.html", "en.html", "images/001.jpg", "images/002.jpg", "images/003.jpg", "index.html", "manifest.json", "style.css"]);
      for (const f of tree(out1)) assert.ok(readFileSync(join(out1, f)).equals(readFileSync(join(out2, f))), `${f} is byte-identical in both exports`);
      assert.equal(e1.manifestSha256, e2.manifestSha256);

      // The manifest ties each image to its original and its redaction record.
      const manifest = Manifest.parse(JSON.parse(readFileSync(join(out1, "manifest.json"), "utf8")));
      assert.deepEqual(manifest.images.map((m) => m.sha256), [side, plain, body.face]);
      for (const m of manifest.images) {
        const bytes = readFileSync(join(out1, m.file));
        assert.equal(createHash("sha256").update(bytes).digest("hex"), m.fileSha256);
        const original = await blobBytes(a, m.sha256);
        assert.equal(createHash("sha256").update(original).digest("hex"), m.sha256, "the manifest names the original's SHA-256");
        assert.deepEqual(metadataFindings(bytes), [], `${m.file}: no metadata segment, nothing after EOI`);
        assert.equal(jpegStructure(bytes).trailing, 0);
        // re-made from the original and the record in the manifest: the same bytes
        const again = await cleanCopy(original, m.redaction.layers, m.redaction.regions);
        assert.ok(again.bytes.equals(bytes), `${m.file} is the original with exactly the recorded regions filled`);
        const record = { v: "dalil.exhibition-redaction/1", item: m.item, original: m.sha256, layers: m.redaction.layers, regions: m.redaction.regions, fills: FILL, block: 16 };
        assert.equal(createHash("sha256").update(canonicalJson(record)).digest("hex"), m.redaction.record, "the record's SHA-256 is recomputed from the manifest");
        assert.equal(m.redaction.approvedBy, second.id);
      }
      // The sideways photo is published upright, its every region filled.
      const first = manifest.images[0]!;
      assert.deepEqual([first.width, first.height], [240, 400]);
      const { data, info } = await sharp(readFileSync(join(out1, first.file))).raw().toBuffer({ resolveWithObject: true });
      for (const rg of first.redaction.regions) {
        const g = snap(rg, info.width, info.height);
        for (let y = g.y; y < g.y + g.h; y++) for (let x = g.x; x < g.x + g.w; x++) {
          const o = (y * info.width + x) * info.channels;
          assert.deepEqual([data[o], data[o + 1], data[o + 2]], [...FILL.hidden], `${rg.layer} pixel (${x},${y})`);
        }
      }
      // The review events in the log carry the records the manifest names.
      const reviews = (await a.log.eventsFor(ex.id)).filter((e) => e.event.detail.action === "exhibition.item-review");
      for (const m of manifest.images) assert.ok(reviews.some((e) => e.seq === m.redaction.logIndex && e.event.detail.record === m.redaction.record), `${m.file}'s record is in the review event at ${m.redaction.logIndex}`);

      // Pages: a warning first, images behind a choice, a text-only page without images, Arabic right-to-left.
      const en = readFileSync(join(out1, "en.html"), "utf8");
      const ar = readFileSync(join(out1, "ar.html"), "utf8");
      assert.match(ar, /<html lang="ar" dir="rtl">/);
      assert.ok(en.indexOf("Content warning") < en.indexOf("<img"), "the warning comes before any image");
      assert.equal((en.match(/<img /g) ?? []).length, 3);
      assert.equal((en.match(/<details>/g) ?? []).length, 3, "every image waits behind a choice");
      assert.doesNotMatch(readFileSync(join(out1, "en-text.html"), "utf8"), /<img/);
      assert.match(en, /A statement &lt;with&gt; markup &amp; quotes&quot;/);
      assert.match(en, /Identified, with consent/);

      // The family withdraws consent: the item leaves the next export, and the takedown is logged once.
      await setConsent(a, caseworker, r.id, "publicDisplay", false);
      const out3 = join(tempDir("dalil-exh-"), "three");
      const e3 = await exportExhibition(a, author, { exhibition: ex.ref, out: out3 });
      assert.equal(e3.withheld, 1);
      assert.equal(e3.images, 2);
      assert.doesNotMatch(readFileSync(join(out3, "en.html"), "utf8"), /Identified, with consent/);
      assert.deepEqual(Manifest.parse(JSON.parse(readFileSync(join(out3, "manifest.json"), "utf8"))).images.map((m) => m.sha256), [side, plain]);
      const takedowns = (await a.log.eventsFor(ex.id)).filter((e) => e.event.detail.action === "exhibition.item-takedown");
      assert.equal(takedowns.length, 1);
      assert.deepEqual(takedowns[0]!.event.objects.map((o) => o.id ?? o.sha256), [ex.id, i3.id]);
      const exports = (await a.log.eventsFor(ex.id)).filter((e) => e.event.detail.action === "exhibition.export");
      assert.deepEqual(exports.map((e) => [e.event.type, e.event.detail.withheld]), [["export", 0], ["export", 0], ["export", 1]]);
    } finally {
      await t.close();
    }
  });
}
