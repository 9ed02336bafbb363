import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { writeDemoCard } from "../../src/archive/demo-card/index.ts";
import type { DemoCardTruth } from "../../src/archive/demo-card/index.ts";
import { perceptualHash } from "../../src/archive/media/phash.ts";
import { Invalid } from "../../src/core/errors.ts";
import { NO_CARD_KINDS, noCardPhoto } from "../../src/archive/demo-card/no-card.ts";
import type { CardNumbers } from "../../src/catalogue/card-numbers.ts";
import { proposeBodies } from "../../src/catalogue/grouping.ts";
import { createCardReader, defaultLangPaths } from "../../src/catalogue/ocr.ts";
import { locateCard } from "../../src/catalogue/ocr/geometry.ts";
import type { CardReader } from "../../src/catalogue/ocr.ts";

// Three bodies, one of them written in Arabic-Indic digits, every examiner number with a letter suffix
// (e.g. 3756/ب), and one in-camera copy: chosen once by trying seeds.
const SEED = "ocr-test-3";
let dir = "";
let truth: DemoCardTruth;
let reader: CardReader;
const readings = new Map<string, CardNumbers>();

async function read(path: string): Promise<CardNumbers> {
  const cached = readings.get(path);
  if (cached) return cached;
  const n = await reader.read(readFileSync(join(dir, path)));
  readings.set(path, n);
  return n;
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "dalil-ocr-"));
  [truth, reader] = await Promise.all([writeDemoCard(join(dir, "card"), { bodies: 3, seed: SEED }), createCardReader()]);
  dir = join(dir, "card");
});

after(async () => {
  await reader?.close();
  if (dir) rmSync(join(dir, ".."), { recursive: true, force: true });
});

test("the language data is read from the npm packages on disk, never fetched", () => {
  const paths = defaultLangPaths();
  assert.ok(existsSync(join(paths.eng, "eng.traineddata.gz")));
  assert.ok(existsSync(join(paths.ara, "ara.traineddata.gz")));
  assert.ok(!/^[a-z]+:\/\//i.test(paths.eng) && !/^[a-z]+:\/\//i.test(paths.ara));
});

test("a missing language folder is refused with a sentence naming the package", async () => {
  await assert.rejects(createCardReader({ langPath: { eng: join(tmpdir(), "no-such-tessdata"), ara: join(tmpdir(), "no-such-tessdata") } }), (err: unknown) => {
    assert.ok(err instanceof Invalid);
    assert.match(err.message, /@tesseract\.js-data\/eng/);
    return true;
  });
});

test("the card's three numbers are read exactly, in Latin and in Arabic-Indic digits", async () => {
  assert.ok(truth.bodies.some((b) => b.digits === "latin") && truth.bodies.some((b) => b.digits === "arabic-indic"));
  for (const body of truth.bodies) {
    const n = await read(body.photos[0]!);
    assert.deepEqual(
      { detainee: n.detainee, branch: n.branch, examiner: n.examiner, digits: n.digits },
      { detainee: body.detainee_no, branch: body.branch_no, examiner: body.examiner_no, digits: body.digits },
      `${body.ref} (${body.photos[0]})`,
    );
    assert.ok(n.confidence > 0.3, `${body.ref} read with confidence ${n.confidence}`);
    // The reading carries what it rests on: the card's region in the photo and, per number, its line.
    const e = n.evidence!;
    assert.ok(e, `${body.ref}: evidence`);
    assert.ok(e.cardScore > 0.5 && e.region.width > 0.05 && e.region.width < 1 && e.region.cx > 0 && e.region.cx < 1, JSON.stringify(e));
    assert.deepEqual(e.lines.map((l) => l.role).sort(), ["branch", "detainee", "examiner"], JSON.stringify(e));
    assert.ok(e.lines.every((l) => l.confidence > 0.3));
    assert.ok(e.lines.some((l) => l.label !== null), "at least one printed label read beside its number");
  }
});

test("a photo stored on its side with an EXIF orientation reads the same", async () => {
  const body = truth.bodies[0]!;
  const bytes = readFileSync(join(dir, body.photos[1]!));
  // As a camera held upright writes it: pixels turned, the tag saying how to turn them back.
  const turned = await sharp(bytes).rotate(270).jpeg({ quality: 92 }).withMetadata({ orientation: 6 }).toBuffer();
  const n = await reader.read(turned);
  assert.equal(n.detainee, body.detainee_no);
  assert.equal(n.examiner, body.examiner_no);
});

test("a photo without a card gives no numbers, not an error", async () => {
  const width = 800;
  const height = 600;
  const px = Buffer.alloc(width * height * 3);
  for (let i = 0; i < px.length; i += 3) {
    const x = (i / 3) % width;
    px[i] = 90 + (x % 50);
    px[i + 1] = 100;
    px[i + 2] = 120;
  }
  const jpeg = await sharp(px, { raw: { width, height, channels: 3 } }).jpeg().toBuffer();
  const n = await reader.read(jpeg);
  assert.equal(n.detainee, undefined);
  assert.equal(n.branch, undefined);
  assert.equal(n.examiner, undefined);
  assert.equal(n.confidence, 0);
  assert.equal(locateCard({ data: px, width, height }), null);
});

test("photos without a card (a scene, a face, noise, paper, printed words, tiles) yield no reading", async () => {
  const kinds = new Set<string>();
  for (let i = 0; i < 2 * NO_CARD_KINDS.length; i++) {
    const { kind, jpeg } = await noCardPhoto("ocr-test", i);
    kinds.add(kind);
    const n = await reader.read(jpeg);
    assert.deepEqual([n.detainee, n.branch, n.examiner, n.confidence, n.evidence], [undefined, undefined, undefined, 0, undefined], `${kind} #${i}: ${n.raw}`);
  }
  assert.deepEqual([...kinds].sort(), [...NO_CARD_KINDS].sort());
  // A hostile file: a one-pixel image reads as nothing; bytes that are no image are refused (below).
  const dot = await sharp({ create: { width: 1, height: 1, channels: 3, background: "#fff" } }).jpeg().toBuffer();
  assert.equal((await reader.read(dot)).confidence, 0);
});

test("bytes that are not an image are refused with a reason", async () => {
  await assert.rejects(reader.read(Buffer.from("not a photo")), Invalid);
});

test("the card's photos group into its bodies exactly (pairwise F1 = 1), copies with their originals", async () => {
  const photos = truth.photos.filter((p) => p.kind !== "exact-duplicate");
  const input = [];
  for (const p of photos) {
    const bytes = readFileSync(join(dir, p.path));
    input.push({ sha256: p.sha256, path: p.path, captureTime: p.capture_time, phash: await perceptualHash(bytes), numbers: await read(p.path) });
  }
  const { groups } = proposeBodies(input);
  const want = truth.bodies.map((b) =>
    photos
      .filter((p) => p.body === b.ref)
      .map((p) => p.sha256)
      .sort(),
  );
  assert.deepEqual(
    groups.map((g) => [...g.photos].sort()),
    want,
  );
  groups.forEach((g, i) => {
    const b = truth.bodies[i]!;
    assert.deepEqual([g.numbers.detainee, g.numbers.branch, g.numbers.examiner], [b.detainee_no, b.branch_no, b.examiner_no]);
    assert.ok(g.reasons.length >= 2);
  });
  assert.ok(photos.some((p) => p.kind === "near-duplicate"), "the card has an in-camera copy to group");
});
