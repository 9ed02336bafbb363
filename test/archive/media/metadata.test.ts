import { test, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { extractMetadata, deepMetadata, endDeepMetadata } from "../../../src/archive/media/metadata.ts";
import {
  ascii,
  buildTiff,
  entry,
  insertAfterSoi,
  nikonMakerNote,
  photo,
  segmentBytes,
  tiffEntries,
  tiffPatch,
  tiffStart,
  type TiffPatch,
  undef,
  withTiff,
} from "../../support/exif.ts";

const dir = mkdtempSync(join(tmpdir(), "dalil-metadata-"));
after(async () => {
  await endDeepMetadata();
  rmSync(dir, { recursive: true, force: true });
});

const EXIF = {
  IFD0: {
    Make: "NIKON CORPORATION",
    Model: "NIKON D90",
    Artist: "Photographer 7",
    Copyright: "Forensic unit",
    Software: "Ver.1.00",
    ImageDescription: "body 112, front",
  },
  IFD2: {
    DateTimeOriginal: "2012:05:03 10:15:02",
    OffsetTimeOriginal: "+03:00",
    SubSecTimeOriginal: "35",
    BodySerialNumber: "0012345",
    CameraOwnerName: "M. Owner",
    LensModel: "AF-S 35mm f/1.8G",
    ExposureTime: "1/125",
    FNumber: "56/10",
    ISOSpeedRatings: "800",
    UserComment: "taken at the hospital",
  },
  IFD3: { GPSLatitudeRef: "N", GPSLatitude: "33/1 30/1 0/1", GPSLongitudeRef: "E", GPSLongitude: "36/1 17/1 0/1" },
};

let richCache: Buffer | undefined;
async function rich(): Promise<Buffer> {
  richCache ??= await photo({ width: 320, height: 240, exif: EXIF, orientation: 6 });
  return richCache;
}

function jsonSafe(v: unknown): void {
  assert.deepEqual(JSON.parse(JSON.stringify(v)), v, "parsed survives a JSON round trip unchanged");
}

test("reads camera, capture time with offset, orientation, GPS and marks sensitive fields", async () => {
  const jpeg = await rich();
  const m = await extractMetadata(jpeg);
  assert.deepEqual(m.problems, []);
  assert.deepEqual(m.camera, { make: "NIKON CORPORATION", model: "NIKON D90", serial: "0012345" });
  assert.equal(m.captureTime, "2012-05-03T10:15:02.35+03:00");
  assert.equal(m.orientation, 6);
  assert.equal(m.width, 320);
  assert.equal(m.height, 240);
  assert.equal(m.software, "Ver.1.00");
  const gps = m.parsed.gps as Record<string, unknown>;
  assert.equal(gps.latitude, 33.5);
  assert.equal((m.parsed.exif as Record<string, unknown>).UserComment, "taken at the hospital");
  for (const f of ["ifd0.Artist", "ifd0.Copyright", "ifd0.ImageDescription", "exif.SerialNumber", "exif.OwnerName", "exif.UserComment", "gps.GPSLatitude", "gps.latitude"]) {
    assert.ok(m.sensitive.includes(f), `${f} is marked sensitive`);
  }
  assert.ok(!m.sensitive.includes("ifd0.Make") && !m.sensitive.includes("exif.ExposureTime"));
  // raw.exif is the APP1 payload after "Exif\0\0", byte for byte, and does not pin the file's buffer
  const at = tiffStart(jpeg);
  assert.ok(m.raw.exif);
  assert.ok(m.raw.exif.equals(jpeg.subarray(at, at + m.raw.exif.length)));
  assert.notEqual(m.raw.exif.buffer, jpeg.buffer);
  jsonSafe(m.parsed);
});

test("XMP values are kept as written (leading zeros survive) and rdf structures are read", async () => {
  const xmp = `<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/" x:xmptk="Test Core 1.0">
 <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
  <rdf:Description rdf:about="" xmlns:aux="http://ns.adobe.com/exif/1.0/aux/" xmlns:dc="http://purl.org/dc/elements/1.1/"
     xmlns:xmp="http://ns.adobe.com/xap/1.0/" aux:SerialNumber="0012345" xmp:CreatorTool="Scanner &amp; Co">
   <dc:creator><rdf:Seq><rdf:li>Photographer &#x41;</rdf:li></rdf:Seq></dc:creator>
   <dc:title><rdf:Alt><rdf:li xml:lang="x-default">Body 112</rdf:li><rdf:li xml:lang="ar">الجثة ١١٢</rdf:li></rdf:Alt></dc:title>
   <dc:subject><rdf:Bag><rdf:li>a</rdf:li><rdf:li>b</rdf:li></rdf:Bag></dc:subject>
  </rdf:Description>
 </rdf:RDF>
</x:xmpmeta>
<?xpacket end="w"?>`;
  const jpeg = await photo({ width: 64, height: 48, xmp });
  const m = await extractMetadata(jpeg);
  assert.deepEqual(m.problems, []);
  assert.equal(m.raw.xmp, xmp);
  const x = m.parsed.xmp as Record<string, Record<string, unknown>>;
  assert.equal(x.aux!.SerialNumber, "0012345");
  assert.deepEqual(x.dc!.creator, ["Photographer A"]);
  assert.deepEqual(x.dc!.title, { "x-default": "Body 112", ar: "الجثة ١١٢" });
  assert.deepEqual(x.dc!.subject, ["a", "b"]);
  assert.equal(x.x!.xmptk, "Test Core 1.0");
  assert.equal(m.camera.serial, "0012345", "the serial comes from XMP when EXIF has none");
  assert.equal(m.software, "Scanner & Co");
  assert.ok(m.sensitive.includes("xmp.aux.SerialNumber"));
  assert.ok(m.sensitive.includes("xmp.dc.creator"));
  jsonSafe(m.parsed);
});

test("IPTC in UTF-8 is decoded (Arabic captions are not garbled) and kept raw", async () => {
  const text = (rec: number, ds: number, s: string | Buffer) => {
    const b = typeof s === "string" ? Buffer.from(s, "utf8") : s;
    return Buffer.concat([Buffer.from([0x1c, rec, ds, b.length >> 8, b.length & 255]), b]);
  };
  const iim = Buffer.concat([
    text(1, 90, Buffer.from([0x1b, 0x25, 0x47])),
    text(2, 120, "صورة رقم ١٢"),
    text(2, 80, "مصور"),
    text(2, 25, "one"),
    text(2, 25, "two"),
  ]);
  const irb = Buffer.concat([Buffer.from("8BIM"), Buffer.from([4, 4, 0, 0]), Buffer.alloc(4), iim, Buffer.alloc(iim.length % 2)]);
  irb.writeUInt32BE(iim.length, 8);
  const jpeg = insertAfterSoi(await photo({ width: 64, height: 48 }), segmentBytes(0xed, Buffer.concat([Buffer.from("Photoshop 3.0\0", "latin1"), irb])));
  const m = await extractMetadata(jpeg);
  assert.deepEqual(m.problems, []);
  assert.ok(m.raw.iptc?.equals(iim));
  const iptc = m.parsed.iptc as Record<string, unknown>;
  assert.equal(iptc.Caption, "صورة رقم ١٢");
  assert.equal(iptc.Byline, "مصور");
  assert.deepEqual(iptc.Keywords, ["one", "two"]);
  assert.ok(m.sensitive.includes("iptc.Byline") && m.sensitive.includes("iptc.Caption"));
});

test("a maker note is kept raw in the fast path and decoded by exiftool in deepMetadata", async () => {
  const tiff = buildTiff(
    [ascii(0x010f, "NIKON CORPORATION"), ascii(0x0110, "NIKON D90")],
    [ascii(0x9003, "2012:05:03 10:15:02"), undef(0x927c, nikonMakerNote("4012345", 12345))],
  );
  const jpeg = withTiff(await photo({ width: 64, height: 48 }), tiff);
  const m = await extractMetadata(jpeg);
  assert.deepEqual(m.problems, []);
  assert.ok(m.raw.exif?.equals(tiff));
  assert.match(String((m.parsed.exif as Record<string, unknown>).MakerNote), /maker note, 68 bytes, starts "Nikon"/);
  assert.ok(m.sensitive.includes("exif.MakerNote"));
  const file = join(dir, "nikon.jpg");
  writeFileSync(file, jpeg);
  const deep = await deepMetadata(file);
  assert.equal(deep.tool, "exiftool");
  assert.match(deep.version, /^\d+\.\d+/);
  assert.equal(String(deep.tags["Nikon:SerialNumber"]), "4012345");
  assert.equal(deep.tags["Nikon:ShutterCount"], 12345);
  assert.equal(deep.tags["IFD0:Make"], "NIKON CORPORATION");
  await endDeepMetadata();
});

// ── hostile EXIF: every case patches bytes of a sharp-made JPEG ──

async function patched(fn: (t: TiffPatch) => void): Promise<Buffer> {
  const jpeg = Buffer.from(await rich());
  fn(tiffPatch(jpeg));
  return jpeg;
}

// A hostile file that made the reader loop would hang here and the test's timeout (60 s) would fail it; no wall-clock
// bound is asserted (a loaded machine is not a slow parser).
async function timed(bytes: Buffer) {
  const m = await extractMetadata(bytes);
  JSON.stringify(m.parsed);
  return m;
}

test("hostile EXIF: a value offset outside the block is dropped with a problem, the rest is read", { timeout: 60_000 }, async () => {
  const jpeg = await patched((t) => t.w32(entry(t.tiff, "ifd0", 0x013b).entryAt + 8, 0x7ffffff0)); // Artist
  const m = await timed(jpeg);
  assert.equal((m.parsed.ifd0 as Record<string, unknown>).Artist, undefined);
  assert.equal(m.camera.make, "NIKON CORPORATION");
  assert.equal(m.captureTime, "2012-05-03T10:15:02.35+03:00");
  assert.ok(m.problems.some((p) => /Artist.*beyond/.test(p)), m.problems.join("\n"));
});

test("hostile EXIF: IFD loops are cut (Exif IFD → IFD0, GPS → Exif IFD, IFD1 → IFD0)", { timeout: 60_000 }, async () => {
  const loops: [string, (t: TiffPatch) => void][] = [
    ["exif→ifd0", (t) => t.w32(entry(t.tiff, "ifd0", 0x8769).entryAt + 8, t.r32(4))],
    ["gps→exif", (t) => t.w32(entry(t.tiff, "ifd0", 0x8825).entryAt + 8, t.r32(entry(t.tiff, "ifd0", 0x8769).entryAt + 8))],
    [
      "ifd1→ifd0",
      (t) => {
        const ifd0 = t.r32(4);
        t.w32(ifd0 + 2 + 12 * t.r16(ifd0), ifd0);
      },
    ],
  ];
  for (const [name, patch] of loops) {
    const m = await timed(await patched(patch));
    assert.ok(m.problems.some((p) => /loop/.test(p)), `${name}: ${m.problems.join("\n")}`);
    assert.equal(m.camera.make, "NIKON CORPORATION", name);
  }
});

test("hostile EXIF: absurd counts and entry counts allocate nothing and hang nothing", { timeout: 60_000 }, async () => {
  const before = process.memoryUsage().arrayBuffers;
  const jpeg = await patched((t) => {
    for (const e of tiffEntries(t.tiff)) {
      if (e.tag === 0x010f || e.tag === 0x8769 || e.tag === 0x8825) continue; // keep Make and the pointers
      t.w32(e.entryAt + 4, 0xfffffff0); // count
    }
    t.w16(t.r32(entry(t.tiff, "ifd0", 0x8825).entryAt + 8), 0xffff); // the GPS IFD claims 65535 entries
  });
  const m = await timed(jpeg);
  assert.ok(process.memoryUsage().arrayBuffers - before < 32 * 1024 * 1024);
  assert.equal(m.camera.make, "NIKON CORPORATION");
  assert.equal(m.captureTime, undefined);
  assert.ok(m.problems.some((p) => /claims 4294967280 values/.test(p)), m.problems.join("\n"));
  assert.ok(m.problems.some((p) => /declares 65535 entries/.test(p)), m.problems.join("\n"));
});

test("hostile EXIF: unknown types, a bad byte-order mark and a bad IFD0 offset", { timeout: 60_000 }, async () => {
  const typeBad = await timed(await patched((t) => t.w16(entry(t.tiff, "ifd0", 0x0110).entryAt + 2, 99)));
  assert.ok(typeBad.problems.some((p) => /unknown value type 99/.test(p)));
  assert.equal(typeBad.camera.model, undefined);
  assert.equal(typeBad.camera.make, "NIKON CORPORATION");
  const bom = await timed(await patched((t) => t.tiff.write("XX", 0, "latin1")));
  assert.ok(bom.problems.some((p) => /byte-order mark/.test(p)));
  assert.ok(bom.raw.exif, "the raw block is still kept");
  const ifd0 = await timed(await patched((t) => t.w32(4, 0xfffffff0)));
  assert.ok(ifd0.problems.some((p) => /IFD0 offset/.test(p)));
});

test("hostile EXIF: invalid UTF-8 is replaced in the parsed view and kept raw", { timeout: 60_000 }, async () => {
  const jpeg = await patched((t) => t.tiff.set([0xc3, 0x28, 0xff, 0xfe, 0xa0], entry(t.tiff, "ifd0", 0x013b).valueAt)); // Artist
  const m = await timed(jpeg);
  const artist = String((m.parsed.ifd0 as Record<string, unknown>).Artist);
  assert.ok(artist.includes("\uFFFD"));
  assert.ok(m.problems.some((p) => /ifd0\.Artist.*not valid text/.test(p)), m.problems.join("\n"));
  assert.ok(m.raw.exif?.includes(Buffer.from([0xc3, 0x28, 0xff, 0xfe, 0xa0])));
});

test("hostile EXIF: a 1 MB string (claimed in a JPEG, present in a PNG eXIf chunk) stays bounded", { timeout: 60_000 }, async () => {
  const claimed = await timed(await patched((t) => t.w32(entry(t.tiff, "ifd0", 0x010e).entryAt + 4, 1024 * 1024)));
  assert.ok(claimed.problems.some((p) => /ImageDescription.*1048576 bytes/.test(p)), claimed.problems.join("\n"));

  const big = "A".repeat(1024 * 1024);
  const tiff = buildTiff([ascii(0x010f, "Canon"), ascii(0x010e, big)]);
  const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: "#123456" } }).png().toBuffer();
  const chunk = Buffer.alloc(12 + tiff.length);
  chunk.writeUInt32BE(tiff.length, 0);
  chunk.write("eXIf", 4, "latin1");
  tiff.copy(chunk, 8);
  const withChunk = Buffer.concat([png.subarray(0, 33), chunk, png.subarray(33)]); // after IHDR
  const m = await timed(withChunk);
  const desc = String((m.parsed.ifd0 as Record<string, unknown>).ImageDescription);
  assert.equal(desc.length, 4097);
  assert.ok(m.problems.some((p) => /ifd0\.ImageDescription is 1048576 characters/.test(p)));
  assert.equal(m.raw.exif?.length, tiff.length, "the full value is in raw");
  assert.equal(m.camera.make, "Canon");
});

test("hostile XMP: no prototype pollution, no quadratic regex, bounded nesting", { timeout: 60_000 }, async () => {
  const wrap = (body: string) =>
    `<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" ${body}</rdf:RDF></x:xmpmeta>`;
  const pollute = wrap(
    `constructor:polluted="1" toString:evil="1" a:__proto__="x"><__proto__:polluted>yes</__proto__:polluted><hasOwnProperty:x>1</hasOwnProperty:x><a:constructor><rdf:Description a:polluted="2"/></a:constructor></rdf:Description>`,
  );
  const m = await timed(await photo({ width: 32, height: 32, xmp: pollute }));
  const probe: Record<string, unknown> = {};
  assert.equal(probe.polluted, undefined);
  assert.equal((Object as unknown as Record<string, unknown>).polluted, undefined);
  assert.equal((Object.prototype.toString as unknown as Record<string, unknown>).evil, undefined);
  assert.ok(m.problems.some((p) => /"__proto__".*dropped/.test(p)), m.problems.join("\n"));
  assert.ok(m.problems.some((p) => /"constructor".*dropped/.test(p)), m.problems.join("\n"));
  jsonSafe(m.parsed);

  const unclosed = `<x:xmpmeta>${"<a:b>".repeat(12_000)}`;
  const xmpSegment = segmentBytes(0xe1, Buffer.from(`http://ns.adobe.com/xap/1.0/\0${unclosed}`, "latin1"));
  const u = await timed(insertAfterSoi(await photo({ width: 32, height: 32 }), xmpSegment));
  assert.ok(u.problems.some((p) => /not well-formed/.test(p)));
  assert.equal(u.raw.xmp, unclosed);

  const deep = `<x:xmpmeta>${"<a:b>".repeat(5000)}${"</a:b>".repeat(5000)}</x:xmpmeta>`;
  const d = await timed(await photo({ width: 32, height: 32, xmp: deep }));
  assert.ok(d.problems.some((p) => /nested more than/.test(p)));

  const dtd = `<!DOCTYPE x [<!ENTITY a "aaaaaaaa">]><x:xmpmeta>&a;</x:xmpmeta>`;
  const t = await timed(await photo({ width: 32, height: 32, xmp: dtd }));
  assert.ok(t.problems.some((p) => /document type declaration/.test(p)));
});

test("a 1 MB extended XMP is reassembled into raw without being parsed", async () => {
  const body = Buffer.from(`<x:xmpmeta>${"Z".repeat(1024 * 1024)}</x:xmpmeta>`);
  const guid = "0123456789ABCDEF0123456789ABCDEF";
  const segs: Buffer[] = [];
  for (let off = 0; off < body.length; off += 65000) {
    const head = Buffer.alloc(40);
    head.write(guid, 0, "latin1");
    head.writeUInt32BE(body.length, 32);
    head.writeUInt32BE(off, 36);
    segs.push(segmentBytes(0xe1, Buffer.concat([Buffer.from("http://ns.adobe.com/xmp/extension/\0", "latin1"), head, body.subarray(off, off + 65000)])));
  }
  const m = await timed(insertAfterSoi(await photo({ width: 32, height: 32 }), ...segs));
  assert.equal(m.raw.xmpExtended, body.toString());
  assert.equal(m.parsed.xmp, undefined);
});

test("never throws on anything: empty, garbage, truncated, and 300 random mutations of the EXIF block", async () => {
  for (const b of [Buffer.alloc(0), Buffer.from("not an image at all"), Buffer.from([0xff, 0xd8, 0xff]), (await rich()).subarray(0, 40)]) {
    const m = await timed(b);
    assert.ok(Array.isArray(m.problems));
  }
  const base = await rich();
  const at = tiffStart(base);
  const seg = base.readUInt16BE(at - 8) - 8; // EXIF payload length after "Exif\0\0"
  let s = 12345;
  const rnd = () => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return s / 2 ** 32;
  };
  for (let i = 0; i < 300; i++) {
    const j = Buffer.from(base);
    const edits = 1 + Math.floor(rnd() * 8);
    for (let k = 0; k < edits; k++) {
      const o = at + Math.floor(rnd() * seg);
      j[o] = rnd() < 0.5 ? Math.floor(rnd() * 256) : [0, 0xff, 0x7f, 0x80][Math.floor(rnd() * 4)]!;
    }
    await timed(j);
  }
});
