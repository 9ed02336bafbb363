import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { analyseCard, reportDigest, type PhotoInput } from "../../src/authenticity/analyse.ts";
import { wordFinding } from "../../src/authenticity/messages.ts";
import { cameraShot, type CameraShot } from "./fixtures.ts";

function at(minute: number): string {
  return `2012:05:06 10:${String(minute).padStart(2, "0")}:00`;
}

async function card(shots: (CameraShot & { file: number; tail?: Buffer })[]): Promise<{ inputs: PhotoInput[]; byFile: Map<number, string> }> {
  const inputs: PhotoInput[] = [];
  const byFile = new Map<number, string>();
  for (const s of shots) {
    let bytes = await cameraShot(s);
    if (s.tail) bytes = Buffer.concat([bytes, s.tail]);
    const sha256 = createHash("sha256").update(bytes).digest("hex");
    byFile.set(s.file, sha256);
    inputs.push({ sha256, path: `DCIM/100NCD90/DSC_${String(s.file).padStart(4, "0")}.JPG`, phash: null, bytes: async () => bytes });
  }
  return { inputs, byFile };
}

test("a card of one camera with planted anomalies: each is flagged for its reason, clean photos stay clean", async () => {
  const shots: (CameraShot & { file: number; tail?: Buffer })[] = [];
  for (let i = 1; i <= 10; i++) shots.push({ seed: i, file: i, captured: at(i) });
  shots[2] = { ...shots[2]!, encoder: "editor", software: "Adobe Photoshop CS6 (Windows)", modified: "2013:01:01 12:00:00", thumbnail: true }; // file 3 re-saved by an editor
  shots[4] = { ...shots[4]!, captured: at(40) }; // file 5: capture time moved forward
  shots[6] = { ...shots[6]!, thumbnailSeed: 99 }; // file 7: its thumbnail shows another picture
  shots[8] = { ...shots[8]!, tail: Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(200, 7)]) }; // file 9: bytes after EOI
  shots.push({ seed: 11, file: 12, captured: at(12), makerNote: false }); // file 12 after a gap: maker note dropped
  const { inputs, byFile } = await card(shots);
  const r = await analyseCard(inputs, { content: true });
  const keysOf = (file: number, min: "look" | "strong" = "look") =>
    new Set(r.findings.filter((f) => f.photo === byFile.get(file) && (min === "look" ? f.severity !== "information" : f.severity === "strong")).map((f) => f.key));

  assert.ok(keysOf(3, "strong").has("editorSoftware"));
  assert.ok(keysOf(3, "strong").has("editorTables"));
  assert.ok(keysOf(3, "strong").has("signatureOutlier"));
  assert.ok(keysOf(5, "strong").has("timeBackwards"), JSON.stringify(r.findings.filter((f) => f.key === "timeBackwards")));
  assert.ok(keysOf(7, "strong").has("thumbnailDiffers"));
  assert.ok(keysOf(9, "strong").has("trailingBytes"));
  assert.ok(keysOf(12).has("makerNoteMissing"));
  for (const clean of [1, 2, 4, 6, 8, 10]) assert.deepEqual([...keysOf(clean)], [], `file ${clean} is clean`);
  assert.ok(r.findings.some((f) => f.photo === null && f.key === "numberGap" && f.params.from === 11 && f.params.to === 11));
  assert.equal(r.cameras.length, 1);
  assert.equal(r.cameras[0]!.label, "C1");
  assert.equal(r.cameras[0]!.signatures[0]!.photos, 9); // all but the editor's re-save and the one without a maker note
  assert.equal(r.sequence.length, 11);

  // Every finding is worded in both languages with no placeholder left.
  for (const f of r.findings) {
    for (const lang of ["en", "ar"] as const) assert.doesNotMatch(wordFinding(f.key, f.params, lang), /\{\w+\}/, `${f.key} ${lang}`);
  }
  assert.match(wordFinding("trailingBytes", { bytes: 204, what: "trailingJpeg" }, "ar"), /عددها ٢٠٤.*صورة JPEG أخرى/);

  // Deterministic: the same input gives the same report.
  const again = await analyseCard([...inputs].reverse(), { content: true });
  assert.equal(reportDigest(again), reportDigest(r));
});

test("a second camera of another model is its own group, not an outlier of the first", async () => {
  const shots: (CameraShot & { file: number })[] = [];
  for (let i = 1; i <= 4; i++) shots.push({ seed: i, file: i, captured: at(i) });
  for (let i = 5; i <= 8; i++) shots.push({ seed: i, file: i, captured: at(i), make: "FUJIFILM", model: "FinePix S2000HD", serial: "F1" });
  const { inputs } = await card(shots);
  const r = await analyseCard(inputs, { content: false });
  assert.equal(r.cameras.length, 2);
  assert.deepEqual(r.findings.filter((f) => f.severity !== "information"), []);
});

test("a photo claiming the card's camera but written by another camera's encoder is flagged", async () => {
  const shots: (CameraShot & { file: number })[] = [];
  for (let i = 1; i <= 6; i++) shots.push({ seed: i, file: i, captured: at(i) });
  shots[3] = { ...shots[3]!, thumbnail: false, makerNote: false, encoder: "editor" };
  const { inputs, byFile } = await card(shots);
  const r = await analyseCard(inputs, { content: false });
  const mine = r.findings.filter((f) => f.photo === byFile.get(4)).map((f) => `${f.severity}:${f.key}`);
  assert.ok(mine.includes("strong:signatureOutlier"), mine.join(" "));
  const outlier = r.findings.find((f) => f.photo === byFile.get(4) && f.key === "signatureOutlier")!;
  assert.match(String(outlier.params.parts), /tables/);
  assert.match(String(outlier.params.parts), /thumbnail/);
});
