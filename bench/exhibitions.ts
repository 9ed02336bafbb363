/**
 * The face detector that suggests regions on exhibition items (decision 0029), on the photographs
 * `@vladmandic/face-api` ships as its demo (living people, read from node_modules; never a photograph of a victim)
 * and on photographs without a face made by the no-card generator.
 *
 * No sample comes with marked faces. Counted by eye, samples 1–6 show 3, 3, 3, 4, 5 and 4 faces, all upright
 * and frontal; the detector's boxes on the upright photograph at 0° (score ≥ 0.5) are exactly that many, one on
 * each face, so they serve as the reference places. Each photograph is then laid at
 * 0/90/180/270° (a lossless turn) and searched once (0° only, as a plain detector would) and at four orientations
 * (as dalil does); a reference face counts as found when a box mapped back to the upright image overlaps it with
 * IoU ≥ 0.5. A suggestion matching no reference face is a false region (none of these photos has another face).
 *
 * `npm run bench -- exhibitions`; BENCH_FACES_SAMPLES sets how many sample photos (default 3, at most 6).
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import sharp from "sharp";
import { detectAt, iou, loadDetector, mapBack, mergeBoxes, uprightPixels, ANGLES, type Angle } from "../src/exhibitions/face-suggestions.ts";
import { noCardPhoto } from "../src/archive/demo-card/no-card.ts";
import { row, timed } from "./support.ts";

/** Faces in face-api's demo photos sample1…sample6, counted by eye on the pictures. */
const FACES_BY_EYE = [3, 3, 3, 4, 5, 4];

export async function benchExhibitions(samples = Math.min(6, Number(process.env.BENCH_FACES_SAMPLES ?? 3))): Promise<void> {
  const dir = join(dirname(createRequire(import.meta.url).resolve("@vladmandic/face-api/package.json")), "demo");
  console.log(`\nexhibitions — face suggestions on ${samples} of face-api's demo photos at 0/90/180/270°, and 6 photos without a face`);
  const load = await timed(() => loadDetector());
  row("model load (once per process)", `${(load.seconds * 1000).toFixed(0)} ms`);
  let t1 = 0;
  let t4 = 0;
  let runs4 = 0;
  let reference = 0;
  const found = { one: new Map<Angle, number>(), four: new Map<Angle, number>() };
  let other4 = 0;
  for (let n = 1; n <= samples; n++) {
    const px = await uprightPixels(readFileSync(join(dir, `sample${n}.jpg`)));
    const once = await timed(() => detectAt(px, [0]));
    t1 += once.seconds;
    const ref = once.value;
    reference += ref.length;
    for (const angle of ANGLES) {
      const turned = await sharp(px.data, { raw: { width: px.width, height: px.height, channels: 3 } }).rotate(angle).raw().toBuffer({ resolveWithObject: true });
      const input = { data: turned.data, width: turned.info.width, height: turned.info.height };
      const all = await timed(() => detectAt(input, ANGLES));
      t4 += all.seconds;
      runs4++;
      const back = (boxes: { x: number; y: number; w: number; h: number }[]) => boxes.map((b) => mapBack(b, angle, px.width, px.height));
      const one = back(all.value.filter((b) => b.angle === 0));
      const four = back(mergeBoxes(all.value));
      const hit = (boxes: typeof one) => ref.filter((r) => boxes.some((b) => iou(r, b) >= 0.5)).length;
      found.one.set(angle, (found.one.get(angle) ?? 0) + hit(one));
      found.four.set(angle, (found.four.get(angle) ?? 0) + hit(four));
      other4 += four.filter((b) => !ref.some((r) => iou(r, b) >= 0.5)).length;
    }
  }
  const per1 = t1 / samples;
  const per4 = t4 / runs4;
  row("detector time per image, 4 angles", `${(per4 * 1000).toFixed(0)} ms`, { label: "1 angle", value: `${(per1 * 1000).toFixed(0)} ms`, ratio: per4 / per1 });
  row("reference faces (found at 0°)", String(reference), { label: "counted by eye", value: String(FACES_BY_EYE.slice(0, samples).reduce((a, b) => a + b, 0)), ratio: reference / FACES_BY_EYE.slice(0, samples).reduce((a, b) => a + b, 0) });
  for (const angle of ANGLES) {
    const f4 = found.four.get(angle) ?? 0;
    const f1 = found.one.get(angle) ?? 0;
    row(`found, photo lying at ${angle}°`, `${f4}/${reference} (4 angles)`, { label: "0° only", value: `${f1}/${reference}`, ratio: f1 === 0 ? 0 : f4 / f1 });
  }
  const rotated = ([90, 180, 270] as const).reduce((s, a) => s + (found.four.get(a) ?? 0), 0);
  const rotated1 = ([90, 180, 270] as const).reduce((s, a) => s + (found.one.get(a) ?? 0), 0);
  row("recall at 90/180/270°, 4 angles", `${((100 * rotated) / (3 * reference)).toFixed(1)} %`, { label: "0° only", value: `${((100 * rotated1) / (3 * reference)).toFixed(1)} %`, ratio: rotated1 === 0 ? 0 : rotated / rotated1 });
  row("false regions per image, 4 angles", (other4 / runs4).toFixed(2));
  let none = 0;
  for (let i = 0; i < 6; i++) {
    const px = await uprightPixels((await noCardPhoto("faces", i)).jpeg);
    none += mergeBoxes(await detectAt(px, ANGLES)).length;
  }
  row("regions per photo without a face", (none / 6).toFixed(2));
}
