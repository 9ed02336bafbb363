import { test } from "node:test";
import assert from "node:assert/strict";
import sharp from "sharp";
import { isSrgbProfile, makeRenditions, MediaRejected, type RejectionReason } from "../../../src/archive/media/renditions.ts";
import { Invalid } from "../../../src/core/errors.ts";
import { insertAfterSoi, photo, segmentBytes, segments } from "../../support/exif.ts";

async function rejects(bytes: Buffer, reason: RejectionReason, limits?: { maxPixels?: number }): Promise<MediaRejected> {
  try {
    await makeRenditions(bytes, limits);
  } catch (err) {
    assert.ok(err instanceof MediaRejected, String(err));
    assert.ok(err instanceof Invalid, "it is one of the archive's typed errors");
    assert.equal(err.reason, reason, err.message);
    assert.match(err.message, /\.$/);
    return err;
  }
  assert.fail(`expected MediaRejected(${reason})`);
}

async function size(jpeg: Buffer): Promise<[number, number]> {
  const m = await sharp(jpeg).metadata();
  assert.equal(m.format, "jpeg");
  return [m.width ?? 0, m.height ?? 0];
}

test("three JPEG renditions at their sizes and the hash, from a 1600×1200 photo", async () => {
  const r = await makeRenditions(await photo({ width: 1600, height: 1200 }));
  assert.deepEqual([r.width, r.height, r.format], [1600, 1200, "jpeg"]);
  assert.deepEqual(await size(r.preview), [1280, 960]);
  assert.deepEqual(await size(r.thumbnail), [320, 240]);
  assert.deepEqual(await size(r.blurred), [640, 480]);
  assert.match(r.phash, /^[0-9a-f]{16}$/);
  assert.deepEqual(r.warnings, []);
});

test("small images are not enlarged; PNG with alpha is flattened", async () => {
  const png = await sharp({ create: { width: 200, height: 100, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } }).png().toBuffer();
  const r = await makeRenditions(png);
  assert.equal(r.format, "png");
  assert.deepEqual(await size(r.preview), [200, 100]);
  assert.deepEqual(await size(r.thumbnail), [200, 100]);
  assert.deepEqual(await size(r.blurred), [200, 100]);
  const { data } = await sharp(r.preview).raw().toBuffer({ resolveWithObject: true });
  assert.ok(data[0]! > 240, "transparent pixels become white, not black");
});

test("EXIF orientation is applied: a photo stored on its side comes out upright", async () => {
  // Stored 400×200: left half red, right half blue. Orientation 6 = turn 90° clockwise to display,
  // so the displayed picture is 200×400 with red on top.
  const w = 400;
  const h = 200;
  const raw = Buffer.alloc(w * h * 3);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) raw.set(x < w / 2 ? [220, 20, 20] : [20, 20, 220], (y * w + x) * 3);
  const jpeg = await sharp(raw, { raw: { width: w, height: h, channels: 3 } }).jpeg().withMetadata({ orientation: 6 }).toBuffer();
  const r = await makeRenditions(jpeg);
  assert.deepEqual([r.width, r.height], [200, 400]);
  for (const img of [r.thumbnail, r.preview]) {
    const { data, info } = await sharp(img).raw().toBuffer({ resolveWithObject: true });
    assert.ok(info.height > info.width);
    const top = ((10 * info.width + info.width / 2) | 0) * 3;
    const bottom = (((info.height - 10) * info.width + info.width / 2) | 0) * 3;
    assert.ok(data[top]! > 150 && data[top + 2]! < 100, "red on top");
    assert.ok(data[bottom + 2]! > 150 && data[bottom]! < 100, "blue at the bottom");
  }
});

test("renditions carry no metadata at all (no EXIF, XMP, ICC, IPTC or comment)", async () => {
  const xmp = `<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description xmlns:aux="http://ns.adobe.com/exif/1.0/aux/" aux:SerialNumber="0012345"/></rdf:RDF></x:xmpmeta>`;
  const base = await sharp(await photo({ width: 800, height: 600 }))
    .jpeg()
    .withIccProfile("p3")
    .withExif({ IFD0: { Make: "NIKON", Artist: "Source Name" }, IFD2: { BodySerialNumber: "4012345" }, IFD3: { GPSLatitudeRef: "N", GPSLatitude: "33/1 30/1 0/1" } })
    .withXmp(xmp)
    .toBuffer();
  const original = insertAfterSoi(base, segmentBytes(0xfe, Buffer.from("shot by Source Name")), segmentBytes(0xed, Buffer.from("Photoshop 3.0\0 8BIM", "latin1")));
  const before = segments(original).map((s) => s.marker);
  assert.ok([0xe1, 0xe2, 0xed, 0xfe].every((m) => before.includes(m)), "the original has every kind of metadata");
  const r = await makeRenditions(original);
  for (const img of [r.thumbnail, r.preview, r.blurred]) {
    for (const s of segments(img)) {
      const allowed = s.marker === 0xe0 || (s.marker >= 0xc0 && s.marker <= 0xdf);
      assert.ok(allowed, `segment 0x${s.marker.toString(16)} in a rendition`);
    }
    const m = await sharp(img).metadata();
    assert.equal(m.exif, undefined);
    assert.equal(m.xmp, undefined);
    assert.equal(m.icc, undefined);
    assert.equal(m.iptc, undefined);
    assert.ok(!img.includes(Buffer.from("Source Name")) && !img.includes(Buffer.from("4012345")));
  }
});

test("the blurred preview keeps no detail: a face, text and stripes become smooth colour", async () => {
  const w = 1200;
  const h = 900;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}">
    <rect width="100%" height="100%" fill="#fff"/>
    ${Array.from({ length: 60 }, (_, i) => `<rect x="${i * 20}" y="0" width="10" height="${h}" fill="#000"/>`).join("")}
    <ellipse cx="600" cy="450" rx="330" ry="420" fill="#e0b090"/>
    <circle cx="470" cy="360" r="45" fill="#000"/><circle cx="730" cy="360" r="45" fill="#000"/>
    <rect x="480" y="600" width="240" height="40" fill="#900"/>
    <text x="420" y="500" font-size="90" fill="#000">1234</text></svg>`;
  const sharpImg = await sharp(Buffer.from(svg)).jpeg({ quality: 92 }).toBuffer();
  const r = await makeRenditions(sharpImg);
  const { data, info } = await sharp(r.blurred).raw().toBuffer({ resolveWithObject: true });
  assert.deepEqual([info.width, info.height], [640, 480]);
  let maxStep = 0;
  for (let y = 0; y < info.height - 1; y++) {
    for (let x = 0; x < info.width - 1; x++) {
      for (let c = 0; c < 3; c++) {
        const p = (y * info.width + x) * 3 + c;
        maxStep = Math.max(maxStep, Math.abs(data[p]! - data[p + 3]!), Math.abs(data[p]! - data[p + info.width * 3]!));
      }
    }
  }
  // The source has 255-level edges every 10 px; anything finer than an eighth of the frame is gone.
  assert.ok(maxStep <= 6, `largest step between neighbouring pixels is ${maxStep}`);
  // The two black eyes, 260 px apart on a 1200 px face, are no longer two dark spots: the skin between them
  // is no lighter than they are.
  const at = (x: number, y: number) => data[(Math.round(y * (480 / 900)) * 640 + Math.round(x * (640 / 1200))) * 3]!;
  const [left, between, right] = [at(470, 360), at(600, 360), at(730, 360)];
  assert.ok(between <= Math.min(left, right) + 4, `eyes ${left}, ${right}; between them ${between}`);
});

test("a tiny file declaring 30000×30000 is refused from its header, quickly and without allocating", async () => {
  const small = await sharp({ create: { width: 16, height: 16, channels: 3, background: "#888" } }).jpeg().toBuffer();
  const bomb = Buffer.from(small);
  const sof = segments(bomb).find((s) => s.marker === 0xc0)!;
  bomb.writeUInt16BE(30000, sof.payloadAt + 1);
  bomb.writeUInt16BE(30000, sof.payloadAt + 3);
  const rss = process.memoryUsage().rss;
  const t0 = performance.now();
  const err = await rejects(bomb, "decompression-bomb");
  assert.ok(performance.now() - t0 < 500);
  assert.ok(process.memoryUsage().rss - rss < 64 * 1024 * 1024);
  assert.match(err.message, /30000×30000/);
  // The limit is the caller's to set.
  await rejects(await photo({ width: 1600, height: 1200 }), "decompression-bomb", { maxPixels: 1_000_000 });
  // A JPEG with hundreds of scans (the progressive-decoding bomb) is refused before decoding.
  await rejects(Buffer.concat([small, Buffer.from(Array.from({ length: 500 }, () => [0xff, 0xda]).flat())]), "decompression-bomb");
});

test("truncated, corrupt, damaged and non-image input", async () => {
  const jpeg = await photo({ width: 800, height: 600 });
  await rejects(jpeg.subarray(0, Math.floor(jpeg.length * 0.6)), "truncated");
  const png = await sharp(await photo({ width: 300, height: 200 })).png().toBuffer();
  await rejects(png.subarray(0, Math.floor(png.length * 0.6)), "truncated");
  const badTable = Buffer.from(jpeg);
  const dht = segments(badTable).find((s) => s.marker === 0xc4)!;
  badTable.fill(0xff, dht.payloadAt + 1, dht.end);
  await rejects(badTable, "corrupt");
  const hierarchical = Buffer.from(jpeg); // a hierarchical-process JPEG (SOF5), which libjpeg-turbo does not decode
  hierarchical[segments(hierarchical).find((s) => s.marker === 0xc0)!.start + 1] = 0xc5;
  await rejects(hierarchical, "unsupported");
  await rejects(Buffer.alloc(0), "unsupported");
  await rejects(Buffer.from("%PDF-1.4 not a photo"), "unsupported");
  await rejects(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>'), "unsupported");
  // Zeroed bytes inside the entropy data: decodable with damage, rendered, and the damage reported.
  const damaged = Buffer.from(jpeg);
  const sos = segments(damaged).find((s) => s.marker === 0xda)!;
  damaged.fill(0, sos.end + 2000, sos.end + 6000);
  const r = await makeRenditions(damaged);
  assert.equal(r.width, 800);
  assert.ok(r.warnings.length > 0 && /Corrupt JPEG data/i.test(r.warnings[0]!), r.warnings.join("; "));
});

test("colour profiles: Display P3 is converted to sRGB; an embedded sRGB profile is recognised and skipped", async () => {
  const px = Buffer.alloc(64 * 64 * 3);
  for (let i = 0; i < px.length; i += 3) px.set([200, 100, 50], i);
  const tagged = (profile: string) =>
    sharp(px, { raw: { width: 64, height: 64, channels: 3 } }).jpeg({ quality: 95 }).withIccProfile(profile).toBuffer();
  const p3 = await tagged("p3");
  const stored = await sharp(p3, { ignoreIcc: true }).raw().toBuffer();
  assert.ok(Math.abs(stored[0]! - 200) > 8, "the P3 file stores different numbers for the same colour");
  for (const file of [p3, await tagged("srgb")]) {
    const shown = await sharp((await makeRenditions(file)).preview).raw().toBuffer();
    assert.ok(Math.abs(shown[0]! - 200) <= 3 && Math.abs(shown[1]! - 100) <= 3 && Math.abs(shown[2]! - 50) <= 4, `${[...shown.subarray(0, 3)]}`);
  }
  const srgb = (await sharp(await tagged("srgb")).metadata()).icc!;
  assert.equal(isSrgbProfile(srgb), true);
  // The same primaries with a linear tone curve are another encoding: not skipped.
  const linear = Buffer.from(srgb);
  for (let i = 0; i < linear.readUInt32BE(128); i++) {
    const e = 132 + 12 * i;
    if (linear.toString("latin1", e, e + 4) !== "rTRC") continue;
    const at = linear.readUInt32BE(e + 4);
    assert.equal(linear.toString("latin1", at, at + 4), "para");
    linear.writeInt32BE(65536, at + 12); // gamma 1.0
  }
  assert.equal(isSrgbProfile(linear), false);
  assert.equal(isSrgbProfile((await sharp(p3).metadata()).icc), false);
  assert.equal(isSrgbProfile(undefined), false);
  assert.equal(isSrgbProfile(Buffer.alloc(200)), false);
});
