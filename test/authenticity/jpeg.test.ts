import { test } from "node:test";
import assert from "node:assert/strict";
import sharp from "sharp";
import { parseJpeg, photoshopResources } from "../../src/authenticity/jpeg.ts";
import { readExifLayout } from "../../src/authenticity/exif-layout.ts";
import { estimateImageQuality, huffmanIsStandard, ijgTable } from "../../src/authenticity/quality.ts";
import { readHeader } from "../../src/authenticity/header.ts";
import { cameraShot, segment } from "./fixtures.ts";

async function plain(o: { quality?: number; progressive?: boolean; subsampling?: string; optimise?: boolean } = {}): Promise<Buffer> {
  return sharp({ create: { width: 64, height: 48, channels: 3, background: "#a04020" } })
    .jpeg({ quality: o.quality ?? 80, progressive: o.progressive, chromaSubsampling: o.subsampling ?? "4:2:0", optimiseCoding: o.optimise ?? true })
    .toBuffer();
}

function insertAfterSoi(jpeg: Buffer, ...segs: Buffer[]): Buffer {
  return Buffer.concat([jpeg.subarray(0, 2), ...segs, jpeg.subarray(2)]);
}

test("markers are read in order, with tables, frame, subsampling and the end", async () => {
  const s = parseJpeg(await plain());
  assert.deepEqual(s.problems, []);
  const names = s.markers.map((m) => m.code);
  assert.equal(names[0], 0xd8);
  assert.equal(names.at(-1), 0xd9);
  assert.ok(names.includes(0xdb) && names.includes(0xc4) && names.includes(0xda));
  assert.equal(s.frame?.kind, "baseline");
  assert.equal(s.frame?.width, 64);
  assert.equal(s.subsampling, "4:2:0");
  assert.equal(s.trailing, 0);
  assert.equal(s.scans, 1);
  assert.equal(s.quantTables[0]?.precision, 8);
});

test("progressive files have many scans; 4:4:4 is told from 4:2:0", async () => {
  const p = parseJpeg(await plain({ progressive: true, subsampling: "4:4:4" }));
  assert.equal(p.frame?.kind, "progressive");
  assert.ok(p.scans > 1);
  assert.equal(p.subsampling, "4:4:4");
});

test("quality is estimated exactly for libjpeg tables at known qualities", async () => {
  for (const q of [50, 75, 85, 90, 95]) {
    const s = parseJpeg(await plain({ quality: q }));
    const e = estimateImageQuality(s.quantTables, s.frame!.components.map((c) => c.tq));
    assert.equal(e.luma?.quality, q, `quality ${q}`);
    assert.equal(e.luma?.exact, true);
    assert.equal(e.chroma?.exact, true);
  }
});

test("standard Huffman tables are told from optimised ones", async () => {
  assert.equal(huffmanIsStandard(parseJpeg(await plain({ optimise: false })).huffmanTables), true);
  assert.equal(huffmanIsStandard(parseJpeg(await plain({ optimise: true })).huffmanTables), false);
});

test("a 16-bit DQT, a restart interval, APP13 resources and bytes after EOI are all read", async () => {
  const base = await plain();
  const dqt16 = Buffer.alloc(1 + 128);
  dqt16[0] = 0x12; // precision 1 (16-bit), table 2
  ijgTable(50, false).forEach((v, k) => dqt16.writeUInt16BE(v * 300, 1 + 2 * k));
  const dri = Buffer.from([0, 4]);
  const res = Buffer.concat([Buffer.from("8BIM", "latin1"), Buffer.from([0x04, 0x04, 0, 0]), Buffer.from([0, 0, 0, 3]), Buffer.from([1, 2, 3, 0])]);
  const app13 = Buffer.concat([Buffer.from("Photoshop 3.0\0", "latin1"), res]);
  const file = Buffer.concat([insertAfterSoi(base, segment(0xed, app13), segment(0xdb, dqt16), segment(0xdd, dri)), Buffer.from("tail-bytes-here-that-matter")]);
  const s = parseJpeg(file);
  const t = s.quantTables.find((x) => x.id === 2)!;
  assert.equal(t.precision, 16);
  assert.equal(t.values[0], 16 * 300);
  assert.equal(s.restartInterval, 4);
  assert.equal(s.trailing, 27);
  assert.ok(s.photoshop);
  const r = photoshopResources(s.photoshop!);
  assert.deepEqual(r.resources.map((x) => x.id), [0x0404]);
  assert.equal(r.broken, false);
});

test("restart markers inside the entropy-coded data are counted, not taken for segments", async () => {
  // libjpeg writes restart markers when asked; sharp does not expose it, so the test builds a scan by hand.
  const base = await plain();
  const sos = base.indexOf(Buffer.from([0xff, 0xda]));
  const len = base.readUInt16BE(sos + 2);
  const headerEnd = sos + 2 + len;
  const body = Buffer.from([0x12, 0x34, 0xff, 0x00, 0x56, 0xff, 0xd0, 0x78, 0xff, 0xd1, 0x9a]);
  const file = Buffer.concat([base.subarray(0, headerEnd), body, Buffer.from([0xff, 0xd9])]);
  const s = parseJpeg(file);
  assert.equal(s.restartMarkers, 2);
  assert.equal(s.end, file.length);
  assert.deepEqual(s.problems, []);
});

test("hostile lengths and truncation are named, never thrown", async () => {
  const base = await plain();
  const cut = parseJpeg(base.subarray(0, base.length - 10));
  assert.ok(cut.problems.some((p) => p.code === "noEoi" || p.code === "truncatedSegment"));
  const huge = Buffer.concat([base.subarray(0, 2), Buffer.from([0xff, 0xe1, 0xff, 0xff, 0x45, 0x78])]);
  const h = parseJpeg(huge);
  assert.equal(h.problems[0]?.code, "truncatedSegment");
  assert.equal(h.problems[0]?.params.declared, 0xffff);
  const tiny = parseJpeg(Buffer.from([0xff, 0xd8, 0xff, 0xdb, 0x00, 0x01]));
  assert.equal(tiny.problems[0]?.code, "badSegmentLength");
  assert.equal(parseJpeg(Buffer.from("GIF89a....")).problems[0]?.code, "notJpeg");
  const badDqt = parseJpeg(Buffer.concat([base.subarray(0, 2), segment(0xdb, Buffer.from([0x30, 1, 2])), Buffer.from([0xff, 0xd9])]));
  assert.ok(badDqt.problems.some((p) => p.code === "badTable" && p.params.marker === "DQT"));
  const stray = parseJpeg(Buffer.concat([base.subarray(0, 2), Buffer.from("garbage"), base.subarray(2)]));
  assert.deepEqual(stray.problems.map((p) => [p.code, p.params.bytes]), [["strayBytes", 7]]);
  assert.equal(stray.frame?.width, 64, "reading goes on after the stray bytes");
  const loop = Buffer.concat([base.subarray(0, 2), ...Array.from({ length: 5000 }, () => Buffer.from([0xff, 0xfe, 0x00, 0x02]))]);
  assert.equal(parseJpeg(loop).problems[0]?.code, "tooManySegments");
  // random bytes after SOI: no crash, some problem
  for (let seed = 1; seed < 50; seed++) {
    const junk = Buffer.alloc(200);
    let x = seed;
    for (let i = 0; i < junk.length; i++) junk[i] = x = (x * 1103515245 + 12345) & 0xff;
    const s = parseJpeg(Buffer.concat([Buffer.from([0xff, 0xd8]), junk]));
    assert.ok(s.problems.length > 0);
  }
});

test("the EXIF layout gives the IFDs, the IFD1 thumbnail, the maker note and the values", async () => {
  const shot = await cameraShot({ seed: 3, captured: "2012:05:06 10:00:00", serial: "3050001" });
  const s = parseJpeg(shot);
  const l = readExifLayout(s.exif!)!;
  assert.equal(l.values.make, "NIKON CORPORATION");
  assert.equal(l.values.serial, "3050001");
  assert.equal(l.values.captured, "2012:05:06 10:00:00");
  assert.ok(l.thumbnail && parseJpeg(l.thumbnail).frame?.width === 160);
  assert.equal(l.makerNote?.header.startsWith("Nikon"), true);
  assert.equal(l.faults.length, 0);
  const h = readHeader(shot);
  assert.equal(h.huffman, "standard");
  assert.equal(h.ijgExact, false);
  assert.equal(h.signatureParts.thumbnail, "160x120");
  // An IFD pointing at itself is cut, not followed forever.
  const loop = Buffer.from([0x4d, 0x4d, 0, 42, 0, 0, 0, 8, 0, 0, 0, 0, 0, 8]);
  const ll = readExifLayout(loop)!;
  assert.deepEqual(ll.faults, ["ifd1:loop"]);
});

test("the header signature is the same for one camera and differs for an editor's re-save", async () => {
  const a = readHeader(await cameraShot({ seed: 1, captured: "2012:05:06 10:00:00" }));
  const b = readHeader(await cameraShot({ seed: 2, captured: "2012:05:06 10:01:00" }));
  const e = readHeader(await cameraShot({ seed: 2, captured: "2012:05:06 10:01:00", encoder: "editor" }));
  assert.equal(a.signature, b.signature);
  assert.notEqual(a.signature, e.signature);
  assert.equal(e.ijgExact, true);
  assert.equal(e.quality.luma?.quality, 85);
});
