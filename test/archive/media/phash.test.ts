import { test } from "node:test";
import assert from "node:assert/strict";
import sharp from "sharp";
import { Invalid } from "../../../src/core/errors.ts";
import { hammingDistance, perceptualHash, phashFromPixels, resampleArea } from "../../../src/archive/media/phash.ts";
import { makeRenditions } from "../../../src/archive/media/renditions.ts";
import { photo } from "../../support/exif.ts";

/** The textbook definition, computed the slow way: full 2-D DCT-II of the 32×32 luma, coefficients 1..8. */
function referenceHash(grey32: Float32Array): string {
  const N = 32;
  const coef: number[] = [];
  for (let v = 1; v <= 8; v++) {
    for (let u = 1; u <= 8; u++) {
      let s = 0;
      for (let y = 0; y < N; y++) {
        for (let x = 0; x < N; x++) {
          s += grey32[y * N + x]! * Math.cos(((2 * x + 1) * u * Math.PI) / (2 * N)) * Math.cos(((2 * y + 1) * v * Math.PI) / (2 * N));
        }
      }
      coef.push(s);
    }
  }
  const sorted = [...coef].sort((a, b) => a - b);
  const median = (sorted[31]! + sorted[32]!) / 2;
  let bits = "";
  for (const c of coef) bits += c > median ? "1" : "0";
  return BigInt(`0b${bits}`).toString(16).padStart(16, "0");
}

test("the fast DCT hash equals the textbook definition", async () => {
  for (const seed of [1, 2, 3]) {
    const { data, info } = await sharp(await photo({ width: 300, height: 200, seed })).raw().toBuffer({ resolveWithObject: true });
    const px = { data, width: info.width, height: info.height, channels: info.channels };
    const h = phashFromPixels(px);
    assert.match(h, /^[0-9a-f]{16}$/);
    assert.equal(h, referenceHash(resampleArea(px, 32, 32, 1)));
  }
});

test("area resampling averages exactly: a 2×2 checker of 64×64 blocks becomes four flat cells", () => {
  const w = 128;
  const data = new Uint8Array(w * w);
  for (let y = 0; y < w; y++) for (let x = 0; x < w; x++) data[y * w + x] = (x < 64) !== (y < 64) ? 200 : 40;
  const out = resampleArea({ data, width: w, height: w, channels: 1 }, 2, 2, 1);
  assert.deepEqual(Array.from(out).map((v) => Math.round(v * 1000) / 1000), [40, 200, 200, 40]);
  const odd = resampleArea({ data, width: w, height: w, channels: 1 }, 3, 3, 1);
  assert.ok(Math.abs(odd[4]! - 120) < 1e-3, "the centre cell straddles all four blocks equally");
  const up = resampleArea({ data: new Uint8Array([10, 20]), width: 2, height: 1, channels: 1 }, 4, 2, 1);
  assert.deepEqual(Array.from(up), [10, 10, 20, 20, 10, 10, 20, 20]);
});

test("re-encoded and resized copies are near; unrelated photos are far", async () => {
  const near: number[] = [];
  const far: number[] = [];
  const hashes: string[] = [];
  for (const seed of [11, 12, 13, 14]) {
    const original = await photo({ width: 1200, height: 900, seed });
    const h = await perceptualHash(original);
    const reencoded = await perceptualHash(await sharp(original).jpeg({ quality: 40 }).toBuffer());
    const resized = await perceptualHash(await sharp(original).resize(500).jpeg({ quality: 70 }).toBuffer());
    const png = await perceptualHash(await sharp(original).resize(800).png().toBuffer());
    near.push(hammingDistance(h, reencoded), hammingDistance(h, resized), hammingDistance(h, png));
    hashes.push(h);
  }
  for (let i = 0; i < hashes.length; i++) for (let j = i + 1; j < hashes.length; j++) far.push(hammingDistance(hashes[i]!, hashes[j]!));
  assert.ok(Math.max(...near) <= 6, `near-duplicates differ by ${near.join(",")} bits`);
  assert.ok(Math.min(...far) >= 16, `unrelated photos differ by ${far.join(",")} bits`);
});

test("EXIF orientation is applied before hashing, and every input form agrees", async () => {
  const upright = await photo({ width: 400, height: 300, seed: 5 });
  const { data, info } = await sharp(upright).raw().toBuffer({ resolveWithObject: true });
  // Stored on its side with orientation 6, as a camera held upright writes it.
  const onSide = await sharp(data, { raw: { width: info.width, height: info.height, channels: 3 } })
    .rotate(270)
    .jpeg({ quality: 90 })
    .withMetadata({ orientation: 6 })
    .toBuffer();
  const a = await perceptualHash(upright);
  const b = await perceptualHash(onSide);
  assert.ok(hammingDistance(a, b) <= 4, `${a} vs ${b}`);
  assert.equal(await perceptualHash(upright), (await makeRenditions(upright)).phash, "bytes hash equals the rendition hash");
  const viaSharp = await perceptualHash(sharp(upright));
  const viaPixels = await perceptualHash({ data, width: info.width, height: info.height, channels: 3 });
  assert.ok(hammingDistance(a, viaSharp) <= 4 && hammingDistance(a, viaPixels) <= 4);
});

test("hammingDistance counts differing bits and refuses anything but 16 hex digits", () => {
  assert.equal(hammingDistance("0000000000000000", "0000000000000000"), 0);
  assert.equal(hammingDistance("0000000000000000", "ffffffffffffffff"), 64);
  assert.equal(hammingDistance("8000000000000001", "0000000000000000"), 2);
  assert.equal(hammingDistance("00000000000000F0", "00000000000000f1"), 1);
  for (const bad of ["", "123", "zzzzzzzzzzzzzzzz", "00000000000000000"]) {
    assert.throws(() => hammingDistance(bad, "0000000000000000"), Invalid);
  }
  assert.throws(() => phashFromPixels({ data: new Uint8Array(3), width: 2, height: 2, channels: 3 }), Invalid);
});
