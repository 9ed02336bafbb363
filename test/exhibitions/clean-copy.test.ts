import { test } from "node:test";
import assert from "node:assert/strict";
import sharp from "sharp";
import { cleanCopy, FILL, fillsFor, snap } from "../../src/exhibitions/clean-copy.ts";
import { essentialJpeg, jpegStructure, JpegStructureError, markerName, metadataFindings } from "../../src/exhibitions/jpeg-markers.ts";
import type { Layers } from "../../src/exhibitions/contracts.ts";

/** A noisy synthetic photo (no real photograph) with EXIF, XMP, ICC, a comment-bearing trailer and an orientation. */
async function photo(orientation = 1): Promise<Buffer> {
  const w = 320;
  const h = 200;
  const noise = Buffer.alloc(w * h * 3);
  let x = 2463534242;
  for (let i = 0; i < noise.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    noise[i] = 60 + ((x >>> 0) % 160);
  }
  const jpeg = await sharp(noise, { raw: { width: w, height: h, channels: 3 } })
    .jpeg()
    .withMetadata({ orientation, exif: { IFD0: { Make: "Nikon", Model: "D90", Artist: "someone", ImageDescription: "typed words" } } })
    .toBuffer();
  // a COM segment after SOI and bytes after EOI, as cameras and editors leave them
  const com = Buffer.concat([Buffer.from([0xff, 0xfe, 0x00, 0x0a]), Buffer.from("comment!")]);
  return Buffer.concat([jpeg.subarray(0, 2), com, jpeg.subarray(2), Buffer.from("TRAILER-DATA-AFTER-EOI")]);
}

const ALL: Layers = { faces: true, numbers: true, marks: true, background: true, everything: "off" };

test("the synthetic original does carry metadata and trailing bytes (so the next tests mean something)", async () => {
  const found = metadataFindings(await photo(6));
  assert.ok(found.includes("APP1"), found.join(","));
  assert.ok(found.includes("COM"));
  assert.ok(found.some((f) => f.includes("after EOI")));
});

test("a clean copy holds no metadata segment (no APPn, no COM) and nothing after EOI", async () => {
  const out = await cleanCopy(await photo(6), ALL, [{ layer: "faces", x: 10, y: 10, w: 30, h: 30 }]);
  const s = jpegStructure(out.bytes);
  assert.equal(s.trailing, 0, "nothing after EOI");
  const names = s.segments.map((x) => markerName(x.marker));
  assert.deepEqual(names.filter((n) => n.startsWith("APP") || n === "COM"), [], names.join(" "));
  assert.deepEqual(metadataFindings(out.bytes), []);
  assert.equal(s.segments[0]!.marker, 0xd8);
  assert.equal(s.segments.at(-1)!.marker, 0xd9);
  const meta = await sharp(out.bytes).metadata();
  assert.equal(meta.exif, undefined);
  assert.equal(meta.icc, undefined);
  assert.equal(meta.xmp, undefined);
  assert.equal(meta.orientation, undefined, "no orientation tag: the pixels are upright");
});

test("a clean copy is turned as the viewer sees it (orientation 6: 320×200 stored, 200×320 shown)", async () => {
  const out = await cleanCopy(await photo(6), ALL, []);
  assert.deepEqual([out.width, out.height], [200, 320]);
  const meta = await sharp(out.bytes).metadata();
  assert.deepEqual([meta.width, meta.height], [200, 320]);
});

test("every pixel in a redacted region is the fill, exactly, and the region is grown to the block grid, never shrunk", async () => {
  const regions = [
    { layer: "faces" as const, x: 21, y: 37, w: 50, h: 41 },
    { layer: "numbers" as const, x: 150, y: 100, w: 9, h: 9 },
    { layer: "background" as const, x: 0, y: 300, w: 200, h: 20 },
    { layer: "marks" as const, x: 100, y: 10, w: 20, h: 20 }, // layer off below: not filled
  ];
  const layers: Layers = { ...ALL, marks: false };
  const out = await cleanCopy(await photo(6), layers, regions);
  const { data, info } = await sharp(out.bytes).raw().toBuffer({ resolveWithObject: true });
  const at = (x: number, y: number): number[] => [...data.subarray((y * info.width + x) * info.channels, (y * info.width + x) * info.channels + 3)];
  assert.equal(out.filled.length, 3);
  for (const r of regions.slice(0, 3)) {
    const g = snap(r, out.width, out.height);
    assert.ok(g.x <= r.x && g.y <= r.y && g.x + g.w >= Math.min(r.x + r.w, out.width) && g.y + g.h >= Math.min(r.y + r.h, out.height), "grown, not shrunk");
    let bad = 0;
    for (let y = g.y; y < g.y + g.h; y++) for (let x = g.x; x < g.x + g.w; x++) if (at(x, y).some((v, i) => v !== FILL.hidden[i])) bad++;
    assert.equal(bad, 0, `every pixel of ${JSON.stringify(g)} is the fill`);
  }
  const marks = regions[3]!;
  let varied = 0;
  for (let y = marks.y; y < marks.y + marks.h; y++) for (let x = marks.x; x < marks.x + marks.w; x++) if (at(x, y).some((v) => v > 20)) varied++;
  assert.ok(varied > 100, "a layer turned off leaves its region as it was");
});

test("the everything layer: a silhouette on a plain ground, or nothing of the photo at all", async () => {
  const orig = await photo(1);
  const sil = await cleanCopy(orig, { ...ALL, everything: "silhouette" }, [{ layer: "everything", x: 64, y: 32, w: 128, h: 96 }, { layer: "faces", x: 0, y: 0, w: 16, h: 16 }]);
  const { data, info } = await sharp(sil.bytes).raw().toBuffer({ resolveWithObject: true });
  const counts = new Map<string, number>();
  for (let i = 0; i < data.length; i += info.channels) {
    const k = `${data[i]},${data[i + 1]},${data[i + 2]}`;
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  assert.deepEqual([...counts.keys()].sort(), [FILL.ground.join(","), FILL.silhouette.join(",")].sort(), "two flat colours, nothing of the photo");
  assert.equal(counts.get(FILL.silhouette.join(",")), 128 * 96);
  assert.deepEqual(fillsFor({ ...ALL, everything: "hidden" }, [{ layer: "everything", x: 0, y: 0, w: 5, h: 5 }], 320, 200), [{ rect: { x: 0, y: 0, w: 320, h: 200 }, fill: FILL.ground }]);
});

test("the same pixels and regions give byte-identical copies", async () => {
  const orig = await photo(3);
  const r = [{ layer: "faces" as const, x: 5, y: 5, w: 40, h: 40 }];
  const [a, b] = [await cleanCopy(orig, ALL, r), await cleanCopy(orig, ALL, r)];
  assert.ok(a.bytes.equals(b.bytes));
});

test("hostile JPEG structure is refused with a reason, never read past the end", () => {
  assert.throws(() => jpegStructure(Buffer.from("not a jpeg")), JpegStructureError);
  assert.throws(() => jpegStructure(Buffer.from([0xff, 0xd8, 0xff, 0xe1, 0xff, 0xff])), /past the end/);
  assert.throws(() => jpegStructure(Buffer.from([0xff, 0xd8, 0xff, 0xda, 0x00, 0x02, 0x12, 0x34])), /without EOI/);
  assert.throws(() => jpegStructure(Buffer.from([0xff, 0xd8, 0x00, 0x00])), /expected a marker/);
  const minimal = Buffer.from([0xff, 0xd8, 0xff, 0xfe, 0x00, 0x04, 0x41, 0x42, 0xff, 0xd9, 0x99]);
  assert.deepEqual(metadataFindings(minimal), ["COM", "1 byte(s) after EOI"]);
  assert.deepEqual([...essentialJpeg(minimal)], [0xff, 0xd8, 0xff, 0xd9]);
});
