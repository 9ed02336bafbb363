import { test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import sharp from "sharp";
import { sniffFormat } from "../../../src/archive/media/sniff.ts";

function format(head: Buffer): string {
  return sniffFormat(head).format;
}

/** A little-endian TIFF whose first directory holds `tags` (SHORT, LONG or ASCII values). */
function tiff(tags: Array<{ tag: number; short?: number; long?: number; ascii?: string }>, be = false): Buffer {
  const sorted = [...tags].sort((a, b) => a.tag - b.tag);
  const ifdAt = 8;
  const dataAt = ifdAt + 2 + sorted.length * 12 + 4;
  const extra: Buffer[] = [];
  let extraLen = 0;
  const buf = Buffer.alloc(dataAt);
  const u16 = (v: number, o: number) => (be ? buf.writeUInt16BE(v, o) : buf.writeUInt16LE(v, o));
  const u32 = (v: number, o: number) => (be ? buf.writeUInt32BE(v, o) : buf.writeUInt32LE(v, o));
  buf.write(be ? "MM" : "II", 0, "latin1");
  u16(42, 2);
  u32(ifdAt, 4);
  u16(sorted.length, ifdAt);
  sorted.forEach((t, i) => {
    const at = ifdAt + 2 + i * 12;
    u16(t.tag, at);
    if (t.ascii !== undefined) {
      const s = Buffer.from(t.ascii + "\0", "latin1");
      u16(2, at + 2);
      u32(s.length, at + 4);
      if (s.length <= 4) s.copy(buf, at + 8);
      else {
        u32(dataAt + extraLen, at + 8);
        extra.push(s);
        extraLen += s.length;
      }
    } else if (t.short !== undefined) {
      u16(3, at + 2);
      u32(1, at + 4);
      u16(t.short, at + 8);
    } else {
      u16(4, at + 2);
      u32(1, at + 4);
      u32(t.long ?? 0, at + 8);
    }
  });
  return Buffer.concat([buf, ...extra, Buffer.alloc(256)]);
}

function bmff(major: string, ...compatible: string[]): Buffer {
  const size = 16 + compatible.length * 4;
  const b = Buffer.alloc(size + 64);
  b.writeUInt32BE(size, 0);
  b.write("ftyp", 4, "latin1");
  b.write(major, 8, "latin1");
  compatible.forEach((c, i) => b.write(c, 16 + i * 4, "latin1"));
  return b;
}

function riff(form: string): Buffer {
  const b = Buffer.alloc(64);
  b.write("RIFF", 0, "latin1");
  b.writeUInt32LE(56, 4);
  b.write(form, 8, "latin1");
  return b;
}

test("images written by a real encoder are recognised from their bytes", async () => {
  const pixels = sharp({ create: { width: 16, height: 16, channels: 3, background: { r: 200, g: 30, b: 30 } } });
  assert.deepEqual(sniffFormat(await pixels.clone().jpeg().toBuffer()), { format: "jpeg", mime: "image/jpeg", kind: "image" });
  assert.equal(format(await pixels.clone().png().toBuffer()), "png");
  assert.equal(format(await pixels.clone().webp().toBuffer()), "webp");
  assert.equal(format(await pixels.clone().gif().toBuffer()), "gif");
  assert.deepEqual(sniffFormat(await pixels.clone().tiff().toBuffer()), { format: "tiff", mime: "image/tiff", kind: "image" });
  assert.equal(format(await pixels.clone().avif({ effort: 0 }).toBuffer()), "avif");
});

test("TIFF-based RAW files are told apart by their first directory, else called raw-tiff", () => {
  const subIfds = { tag: 0x014a, long: 4096 };
  assert.deepEqual(sniffFormat(tiff([{ tag: 0x010f, ascii: "NIKON CORPORATION" }, { tag: 0x00fe, long: 1 }, subIfds])), { format: "nef", mime: "image/x-nikon-nef", kind: "raw" });
  assert.equal(format(tiff([{ tag: 0x010f, ascii: "SONY" }, { tag: 0x00fe, long: 1 }])), "arw");
  assert.equal(format(tiff([{ tag: 0x010f, ascii: "PENTAX" }, subIfds], true)), "pef");
  assert.equal(format(tiff([{ tag: 0x010f, ascii: "Hasselblad" }, subIfds])), "raw-tiff");
  assert.equal(sniffFormat(tiff([{ tag: 0x010f, ascii: "Hasselblad" }, subIfds])).kind, "raw");
  assert.equal(format(tiff([{ tag: 0x010f, ascii: "Canon" }, { tag: 0xc612, long: 0x01040000 }])), "dng");
  assert.equal(format(tiff([{ tag: 0x0106, short: 32803 }])), "raw-tiff", "a colour-filter-array image is sensor data");
  // A finished picture from a Nikon (cameras can save TIFF) is a TIFF, not a NEF.
  assert.equal(format(tiff([{ tag: 0x010f, ascii: "NIKON CORPORATION" }, { tag: 0x0106, short: 2 }])), "tiff");
  const cr2 = tiff([]);
  cr2.write("CR\x02\x00", 8, "latin1");
  assert.equal(format(cr2), "cr2");
  assert.equal(format(Buffer.concat([Buffer.from("IIRO"), Buffer.alloc(60)])), "orf");
  assert.equal(format(Buffer.concat([Buffer.from([0x49, 0x49, 0x55, 0x00]), Buffer.alloc(60)])), "rw2");
  assert.equal(format(Buffer.concat([Buffer.from("FUJIFILMCCD-RAW 0201"), Buffer.alloc(60)])), "raf");
});

test("ISO BMFF brands: CR3, HEIC, MP4, MOV, M4A; RIFF forms; BMP, PDF, ZIP", () => {
  assert.deepEqual(sniffFormat(bmff("crx ", "crx ", "isom")), { format: "cr3", mime: "image/x-canon-cr3", kind: "raw" });
  assert.equal(format(bmff("heic", "mif1", "heic")), "heic");
  assert.equal(format(bmff("mif1", "mif1", "heic")), "heic");
  assert.equal(format(bmff("mif1", "mif1")), "heif");
  assert.deepEqual(sniffFormat(bmff("isom", "isom", "avc1")), { format: "mp4", mime: "video/mp4", kind: "video" });
  assert.equal(format(bmff("mp42", "mp41", "3gp4")), "mp4", "a phone MP4 listing 3GP as compatible is still MP4");
  assert.deepEqual(sniffFormat(bmff("qt  ", "qt  ")), { format: "mov", mime: "video/quicktime", kind: "video" });
  assert.equal(format(bmff("M4A ", "M4A ", "mp42")), "m4a");
  const oldMov = Buffer.alloc(64);
  oldMov.writeUInt32BE(32, 0);
  oldMov.write("moov", 4, "latin1");
  assert.equal(format(oldMov), "mov");
  assert.deepEqual(sniffFormat(riff("AVI ")), { format: "avi", mime: "video/x-msvideo", kind: "video" });
  assert.deepEqual(sniffFormat(riff("WAVE")), { format: "wav", mime: "audio/wav", kind: "audio" });
  assert.equal(format(riff("WEBP")), "webp");
  const bmp = Buffer.alloc(64);
  bmp.write("BM", 0, "latin1");
  bmp.writeUInt32LE(64, 2);
  bmp.writeUInt32LE(40, 14);
  assert.deepEqual(sniffFormat(bmp), { format: "bmp", mime: "image/bmp", kind: "image" });
  assert.deepEqual(sniffFormat(Buffer.from("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n", "latin1")), { format: "pdf", mime: "application/pdf", kind: "document" });
  assert.deepEqual(sniffFormat(Buffer.from([0x50, 0x4b, 0x03, 0x04, 20, 0, 0, 0])), { format: "zip", mime: "application/zip", kind: "archive" });
});

test("audio and camcorder video: MP3 by ID3 or two consecutive frames, MPEG transport streams", () => {
  assert.deepEqual(sniffFormat(Buffer.from("ID3\x04\x00\x00\x00\x00\x00\x00", "latin1")), { format: "mp3", mime: "audio/mpeg", kind: "audio" });
  // MPEG-1 layer III, 128 kbit/s, 44.1 kHz: frames of 417 bytes.
  const frame = Buffer.alloc(417);
  frame.set([0xff, 0xfb, 0x90, 0x00]);
  assert.equal(format(Buffer.concat([frame, frame, frame])), "mp3");
  const lone = Buffer.concat([frame, randomBytes(600)]);
  lone[417] = 0x00;
  assert.notEqual(format(lone), "mp3", "one frame header alone is chance, not MP3");
  const ts = Buffer.alloc(192 * 5);
  for (let i = 0; i < 5; i++) ts[4 + i * 192] = 0x47;
  assert.deepEqual(sniffFormat(ts), { format: "mpeg-ts", mime: "video/mp2t", kind: "video" });
});

test("text by heuristic; binary, empty and random bytes are unknown; the name plays no part", () => {
  assert.deepEqual(sniffFormat(Buffer.from("Rapport du 12 mars\nالمعتقل رقم ١٢٣\n")), { format: "text", mime: "text/plain", kind: "text" });
  assert.equal(format(Buffer.from("\ufeffwith a BOM")), "text");
  assert.equal(format(Buffer.from("abc\0def")), "unknown");
  assert.equal(format(Buffer.alloc(0)), "unknown");
  assert.equal(format(Buffer.from([0x80, 0x81, 0x82, 0x83])), "unknown");
  assert.deepEqual(sniffFormat(Buffer.from([0x00, 0x01, 0x02, 0x03, 0xfe, 0x10])), { format: "unknown", mime: "application/octet-stream", kind: "unknown" });
  // A multi-byte character cut by the end of the sample still counts as text.
  const cut = Buffer.from("نص عربي");
  assert.equal(format(cut.subarray(0, cut.length - 1)), "text");
});
