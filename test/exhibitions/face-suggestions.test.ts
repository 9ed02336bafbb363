import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import sharp from "sharp";
import type { Actor } from "../../src/core/actor.ts";
import { Conflict } from "../../src/core/errors.ts";
import {
  ANGLES,
  JOB_FACE_SUGGEST,
  acceptSuggestion,
  addItem,
  createExhibition,
  discardSuggestion,
  enqueueFaceSuggestions,
  iou,
  listSuggestions,
  mapBack,
  mergeBoxes,
  showExhibition,
  submitExhibition,
  suggestFaceRegions,
  suggestFaces,
  type Angle,
  type FaceSuggestion,
} from "../../src/exhibitions/index.ts";
import { noCardPhoto } from "../../src/archive/demo-card/no-card.ts";
import { backends } from "../support/backends.ts";
import { ensureAccounts, freshArchive } from "../support/archive.ts";
import { storeOriginal } from "../support/casework.ts";

/**
 * The face detector's suggestions (decision 0029). Photographs with faces are the ones `@vladmandic/face-api`
 * ships as its own demo (living people, read from node_modules: never a photograph of a victim); photographs
 * without a face are made here (the no-card generator's scenes, blobs, noise, tiles). The model is loaded once for
 * this file; every detector run here costs about a second on this machine's CPU, so the set is kept small.
 */
const require = createRequire(import.meta.url);
const SAMPLES = join(dirname(require.resolve("@vladmandic/face-api/package.json")), "demo");
const sample = (n: number) => readFileSync(join(SAMPLES, `sample${n}.jpg`));

const author: Actor = { kind: "user", id: "usr_curator_a", role: "curator" };
const investigator: Actor = { kind: "user", id: "usr_inv", role: "investigator" };

test("a box found in a turned image maps back onto the same pixels of the upright one", async () => {
  // A white mark at a known place on a black 60×40 image; turned by sharp, found again, mapped back.
  const W = 60;
  const H = 40;
  const mark = { x: 7, y: 5, w: 11, h: 4 };
  const px = Buffer.alloc(W * H);
  for (let y = mark.y; y < mark.y + mark.h; y++) for (let x = mark.x; x < mark.x + mark.w; x++) px[y * W + x] = 255;
  for (const angle of ANGLES) {
    const { data, info } = await sharp(px, { raw: { width: W, height: H, channels: 1 } }).rotate(angle).raw().toBuffer({ resolveWithObject: true });
    let x0 = Infinity, y0 = Infinity, x1 = -1, y1 = -1;
    for (let y = 0; y < info.height; y++)
      for (let x = 0; x < info.width; x++)
        if (data[(y * info.width + x) * info.channels]! > 127) [x0, y0, x1, y1] = [Math.min(x0, x), Math.min(y0, y), Math.max(x1, x + 1), Math.max(y1, y + 1)];
    assert.deepEqual(mapBack({ x: x0, y: y0, w: x1 - x0, h: y1 - y0 }, angle, W, H), mark, `at ${angle}°`);
  }
});

test("overlapping boxes from several angles become one suggestion (their union, the best score)", () => {
  const merged = mergeBoxes([
    { x: 10, y: 10, w: 100, h: 100, score: 0.9, angle: 0 },
    { x: 14, y: 8, w: 100, h: 104, score: 0.95, angle: 180 },
    { x: 300, y: 300, w: 50, h: 50, score: 0.6, angle: 90 },
  ]);
  assert.equal(merged.length, 2);
  assert.deepEqual(merged[0], { x: 10, y: 8, w: 104, h: 104, score: 0.95, angle: 180, angles: [0, 180] });
  assert.deepEqual(merged[1]!.angles, [90]);
});

/** The image turned clockwise by angle, encoded losslessly (so only the turn differs). */
async function turned(jpeg: Buffer, angle: Angle): Promise<{ bytes: Buffer; width: number; height: number }> {
  const { data, info } = await sharp(jpeg).rotate().removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const t = await sharp(data, { raw: { width: info.width, height: info.height, channels: 3 } }).rotate(angle).png({ compressionLevel: 1 }).toBuffer();
  return { bytes: t, width: info.width, height: info.height };
}

/** Suggestions on a sample laid upright (losslessly), found once per process. */
const uprightFound = new Map<number, Promise<{ width: number; height: number; faces: FaceSuggestion[] }>>();
function upright(n: number) {
  let p = uprightFound.get(n);
  if (!p) {
    p = (async () => {
      const up = await turned(sample(n), 0);
      return { width: up.width, height: up.height, faces: (await suggestFaceRegions(up.bytes)).filter((s) => s.score >= 0.8) };
    })();
    uprightFound.set(n, p);
  }
  return p;
}

function matches(upright: readonly FaceSuggestion[], found: readonly FaceSuggestion[], angle: Angle, W: number, H: number): { matched: number; worstIou: number } {
  const back = found.map((s) => mapBack(s, angle, W, H));
  let matched = 0;
  let worstIou = 1;
  for (const u of upright) {
    const best = Math.max(0, ...back.map((b) => iou(u, b)));
    if (best >= 0.7) matched++;
    worstIou = Math.min(worstIou, best);
  }
  return { matched, worstIou };
}

test("a face found upright is found at the same place when the photograph lies at 90, 180 or 270 degrees", { timeout: 300_000 }, async () => {
  // Sample 1 at every turn, sample 4 lying on either side (the turns a plain detector misses most).
  for (const [n, angles] of [[1, [90, 180, 270]], [4, [90, 270]]] as const) {
    const up = await upright(n);
    assert.ok(up.faces.length >= 3, `sample${n}: ${up.faces.length} faces found upright`);
    for (const angle of angles) {
      const t = await turned(sample(n), angle);
      const found = await suggestFaceRegions(t.bytes);
      const m = matches(up.faces, found, angle, up.width, up.height);
      assert.equal(m.matched, up.faces.length, `sample${n} at ${angle}°: ${m.matched} of ${up.faces.length} upright faces found again (worst IoU ${m.worstIou.toFixed(2)})`);
    }
  }
});

test("the photograph is searched upright as the camera's orientation says (EXIF orientation 6)", { timeout: 120_000 }, async () => {
  // Pixels stored turned 270° with orientation 6 ("turn 90° clockwise to view"): the viewer sees sample 1 upright.
  const up = await upright(1);
  const stored = await turned(sample(1), 270);
  const tagged = await sharp(stored.bytes).jpeg({ quality: 95 }).withMetadata({ orientation: 6 }).toBuffer();
  const m = await sharp(tagged).metadata();
  assert.equal(m.orientation, 6);
  const found = await suggestFaceRegions(tagged);
  assert.equal(matches(up.faces, found, 0, up.width, up.height).matched, up.faces.length, "boxes are in pixels of the upright image");
});

test("photographs without a face yield few or no suggestions", { timeout: 120_000 }, async () => {
  // Three kinds the no-card generator makes (a street scene, a face-like blob of ovals, sensor noise): measured 0
  // suggestions on 12 such images (all six kinds) and on plain noise and a gradient; the bound allows one in three.
  let total = 0;
  for (const i of [0, 1, 2]) total += (await suggestFaceRegions((await noCardPhoto("faces", i)).jpeg)).length;
  assert.ok(total <= 1, `${total} suggestions on 3 photographs without a face`);
});

for (const { backend, skip } of await backends()) {
  test(`suggestions are not regions: a curator accepts (a logged region) or discards each before submission (${backend.name})`, { skip, timeout: 300_000 }, async () => {
    const t = await freshArchive(backend);
    try {
      const a = t.archive;
      await ensureAccounts(a, [author, investigator]);
      const sha = await storeOriginal(a, sample(1), { width: 1920, height: 1280 }, "src_faces");
      const ex = await createExhibition(a, author, { title: { en: "Faces" }, languages: ["en"] });
      const it = await addItem(a, author, { exhibition: ex.id, kind: "photo", sha256: sha });
      await assert.rejects(suggestFaces(a, investigator, it.id), /may not do this \(exhibition\.edit\)/);

      // Asked for as a job, run by the worker.
      const before = await a.log.size();
      const { job } = await enqueueFaceSuggestions(a, author, it.id);
      await a.jobs.work({ once: true });
      const done = await a.jobs.get(job);
      assert.equal(done?.kind, JOB_FACE_SUGGEST);
      assert.equal(done?.status, "done", JSON.stringify(done));
      const pending = await listSuggestions(a, author, it.id);
      assert.ok(pending.length >= 3, `${pending.length} faces suggested`);
      assert.ok(pending.every((s) => s.status === "pending" && s.layer === "faces" && s.score >= 0.5 && [0, 90, 180, 270].includes(s.angle)));
      assert.equal(await a.log.size(), before, "finding suggestions is not a custody event");

      // Not regions: nothing hidden, the redaction record is what it was, and the exhibition is not submitted.
      const view = (await showExhibition(a, author, ex.id)).items[0]!;
      assert.deepEqual(view.regions, []);
      assert.equal(view.record, it.record);
      await assert.rejects(submitExhibition(a, author, ex.id), (e: unknown) => e instanceof Conflict && /Items 1 of exhibition X-0001 have faces suggested by the detector that no one has confirmed or discarded yet/.test(e.message));

      // Accepting one is a region, logged; discarding the others is not logged; then the exhibition can go on.
      const region = await acceptSuggestion(a, author, pending[0]!.id);
      assert.deepEqual([region.layer, region.origin, region.x, region.y, region.w, region.h], ["faces", "suggested", pending[0]!.x, pending[0]!.y, pending[0]!.w, pending[0]!.h]);
      assert.equal(await a.log.size(), before + 1);
      const events = await a.log.eventsFor(it.id);
      assert.equal(events.at(-1)!.event.detail.action, "exhibition.region-add");
      await assert.rejects(acceptSuggestion(a, author, pending[0]!.id), /already accepted/);
      for (const s of pending.slice(1)) await discardSuggestion(a, author, s.id);
      assert.equal(await a.log.size(), before + 1, "discarding is not a custody event");
      assert.deepEqual(await listSuggestions(a, author, it.id), []);
      assert.equal((await showExhibition(a, author, ex.id)).items[0]!.regions.length, 1);

      // Asked again: what was accepted or discarded is not suggested again.
      assert.equal((await suggestFaces(a, author, it.id)).length, 0);
      await submitExhibition(a, author, ex.id);
      await assert.rejects(enqueueFaceSuggestions(a, author, it.id), /only a draft can be changed/);
    } finally {
      await t.close();
    }
  });
}
