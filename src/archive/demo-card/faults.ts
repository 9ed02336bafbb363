import { constants, crc32, createDeflate } from "node:zlib";
import { ASCII, buildTiff, BYTE, LONG, RATIONAL, SHORT } from "./tiff.ts";

/**
 * The broken and unusual files of `--with-faults`, each with what an ingest should do with it. Every byte on
 * a card is evidence, so "quarantine" means hashed, stored and set aside with its reason, never dropped;
 * "preserve" means kept as a valid item (an image, or a file of another kind listed without a rendition).
 */
export interface FaultFile {
  fault: string;
  ext: string;
  /** DSC_ prefix and the next camera number, or a fixed path elsewhere on the card. */
  bytes: Buffer;
  format: string;
  expect: "quarantine" | "preserve";
  reason: string;
}

export const BOMB_SIDE = 30000;

export function truncatedJpeg(jpeg: Buffer): FaultFile {
  const cut = Math.floor(jpeg.length * 0.45);
  return {
    fault: "truncated-jpeg",
    ext: "JPG",
    bytes: jpeg.subarray(0, cut),
    format: "jpeg",
    expect: "quarantine",
    reason: `JPEG cut off at byte ${cut} of ${jpeg.length} (power lost while writing): no end-of-image marker, the scan data stops part-way.`,
  };
}

export function zeroBytes(): FaultFile {
  return {
    fault: "zero-bytes",
    ext: "JPG",
    bytes: Buffer.alloc(0),
    format: "empty",
    expect: "quarantine",
    reason: "An empty file named as a JPEG: nothing to decode.",
  };
}

export function jpegNamedPng(jpeg: Buffer): FaultFile {
  return {
    fault: "jpeg-named-png",
    ext: "PNG",
    bytes: jpeg,
    format: "jpeg",
    expect: "preserve",
    reason: "A valid JPEG with a .PNG name: the format must be read from the bytes, not the name.",
  };
}

export function pngNamedJpg(png: Buffer): FaultFile {
  return {
    fault: "png-named-jpg",
    ext: "JPG",
    bytes: png,
    format: "png",
    expect: "preserve",
    reason: "A valid PNG with a .JPG name: the format must be read from the bytes, not the name.",
  };
}

export function textNamedJpg(): FaultFile {
  const text =
    "[HDR]\r\nGEN REV = 01.10\r\nGEN CRT = \"NIKON D90\"\r\nGEN DTM = 2012:05:06:08:00:00\r\n" +
    "This is a text file, not a photograph. It was given a .JPG name by mistake.\r\n";
  return {
    fault: "not-an-image",
    ext: "JPG",
    bytes: Buffer.from(text, "latin1"),
    format: "text",
    expect: "quarantine",
    reason: "Plain text with a .JPG name: not an image in any format.",
  };
}

function pngChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, "latin1");
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}

/**
 * A complete, valid PNG of 30000 × 30000 one-bit grey pixels (900 megapixels) that compresses to about
 * 110 KB: decoded naïvely to 8-bit RGBA it would need 3.6 GB.
 */
export async function pngBomb(): Promise<FaultFile> {
  // The same bytes every time, and half a second of deflate to make: made once per process.
  bombBytes ??= deflatedBomb();
  const png = await bombBytes;
  return {
    fault: "decompression-bomb-png",
    ext: "PNG",
    bytes: png,
    format: "png",
    expect: "quarantine",
    reason: `A valid PNG declaring ${BOMB_SIDE}×${BOMB_SIDE} pixels (900 megapixels) in ${png.length} bytes: a decompression bomb; refuse by pixel count before decoding.`,
  };
}

let bombBytes: Promise<Buffer> | undefined;

async function deflatedBomb(): Promise<Buffer> {
  const side = BOMB_SIDE;
  const rowBytes = 1 + Math.ceil(side / 8);
  const row = Buffer.alloc(rowBytes);
  const deflate = createDeflate({ level: constants.Z_BEST_COMPRESSION });
  const parts: Buffer[] = [];
  deflate.on("data", (c: Buffer) => parts.push(c));
  const done = new Promise<void>((resolve, reject) => {
    deflate.on("end", () => resolve());
    deflate.on("error", reject);
  });
  // Rows in batches keep the stream's buffering small.
  const batch = Buffer.concat(Array.from({ length: 200 }, () => row));
  for (let y = 0; y < side; y += 200) {
    if (!deflate.write(batch)) await new Promise((r) => deflate.once("drain", r));
  }
  deflate.end();
  await done;
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(side, 0);
  ihdr.writeUInt32BE(side, 4);
  ihdr.writeUInt8(1, 8); // bit depth 1
  ihdr.writeUInt8(0, 9); // greyscale
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk("IHDR", ihdr),
    pngChunk("IDAT", Buffer.concat(parts)),
    pngChunk("IEND", Buffer.alloc(0)),
  ]);
}

/**
 * A JPEG whose frame header claims 30000 × 30000 pixels, followed by a little scan data: a tiny file that a
 * decoder would allocate gigabytes for.
 */
export function jpegBomb(smallJpeg: Buffer): FaultFile {
  const out = Buffer.from(smallJpeg);
  let p = 2;
  while (p + 4 < out.length && out[p] === 0xff) {
    const marker = out[p + 1] as number;
    const len = out.readUInt16BE(p + 2);
    if (marker >= 0xc0 && marker <= 0xc3) {
      out.writeUInt16BE(BOMB_SIDE, p + 5);
      out.writeUInt16BE(BOMB_SIDE, p + 7);
      break;
    }
    p += 2 + len;
  }
  return {
    fault: "decompression-bomb-jpeg",
    ext: "JPG",
    bytes: out,
    format: "jpeg",
    expect: "quarantine",
    reason: `A JPEG whose frame header declares ${BOMB_SIDE}×${BOMB_SIDE} pixels in ${out.length} bytes: refuse by pixel count before decoding.`,
  };
}

/**
 * A valid small JPEG with an EXIF block built to hurt parsers: a value whose count and offset run far past
 * the end, a 60,000-character string, an EXIF IFD pointer back to IFD0 (a loop), a GPS pointer out of
 * bounds, and IFD1 declaring 65,535 entries where there is room for none. The pixels are fine.
 */
export function hostileExifJpeg(cleanJpeg: Buffer): FaultFile {
  const huge = Buffer.alloc(60000, "A");
  huge.write("NIKON ", 0, "latin1");
  const make = Buffer.from("NIKON CORPORATION\0", "latin1");
  const model = Buffer.from("NIKON D90\0", "latin1");
  const entries = 6;
  const ifd0 = 8;
  const ifd0Size = 2 + 12 * entries + 4;
  const makeAt = ifd0 + ifd0Size;
  const modelAt = makeAt + make.length;
  const hugeAt = modelAt + model.length;
  const ifd1At = hugeAt + huge.length;
  const tiff = Buffer.alloc(ifd1At + 8);
  tiff.write("II", 0, "latin1");
  tiff.writeUInt16LE(42, 2);
  tiff.writeUInt32LE(ifd0, 4);
  tiff.writeUInt16LE(entries, ifd0);
  const entry = (i: number, tag: number, type: number, count: number, value: number): void => {
    const p = ifd0 + 2 + 12 * i;
    tiff.writeUInt16LE(tag, p);
    tiff.writeUInt16LE(type, p + 2);
    tiff.writeUInt32LE(count >>> 0, p + 4);
    tiff.writeUInt32LE(value >>> 0, p + 8);
  };
  entry(0, 0x010e, ASCII, 0x7ffffff0, 0xffffff00); // ImageDescription: 2 GB at an offset past the end
  entry(1, 0x010f, ASCII, make.length, makeAt);
  entry(2, 0x0110, ASCII, model.length, modelAt);
  entry(3, 0x013b, ASCII, huge.length, hugeAt); // Artist: a 60,000-byte string
  entry(4, 0x8769, LONG, 1, ifd0); // EXIF IFD pointer back to IFD0: a loop
  entry(5, 0x8825, LONG, 1, 0xfffffff0); // GPS IFD pointer far out of bounds
  tiff.writeUInt32LE(ifd1At, ifd0 + 2 + 12 * entries); // next IFD
  make.copy(tiff, makeAt);
  model.copy(tiff, modelAt);
  huge.copy(tiff, hugeAt);
  tiff.writeUInt16LE(0xffff, ifd1At); // IFD1 claims 65,535 entries; the block ends 6 bytes later
  tiff.writeUInt32LE(ifd0, ifd1At + 2);
  const payload = Buffer.concat([Buffer.from("Exif\0\0", "latin1"), tiff]);
  const app1 = Buffer.alloc(4);
  app1.writeUInt16BE(0xffe1, 0);
  app1.writeUInt16BE(payload.length + 2, 2);
  // Drop any APP1 the clean JPEG has, then put the hostile one straight after SOI.
  const rest = stripApp1(cleanJpeg);
  const bytes = Buffer.concat([rest.subarray(0, 2), app1, payload, rest.subarray(2)]);
  return {
    fault: "hostile-exif",
    ext: "JPG",
    bytes,
    format: "jpeg",
    expect: "preserve",
    reason:
      "Valid pixels under a hostile EXIF block (offsets and counts past the end, an IFD loop, a 60,000-byte string, an IFD claiming 65,535 entries): metadata extraction must end quickly with an error noted, and the image is kept.",
  };
}

function stripApp1(jpeg: Buffer): Buffer {
  const keep: Buffer[] = [jpeg.subarray(0, 2)];
  let p = 2;
  while (p + 4 <= jpeg.length && jpeg[p] === 0xff) {
    const marker = jpeg[p + 1] as number;
    if (marker === 0xda) break;
    const len = jpeg.readUInt16BE(p + 2);
    if (marker !== 0xe1) keep.push(jpeg.subarray(p, p + 2 + len));
    p += 2 + len;
  }
  keep.push(jpeg.subarray(p));
  return Buffer.concat(keep);
}

/**
 * A NEF-shaped raw file: a TIFF whose IFD0 holds a 160 × 120 RGB thumbnail, a SubIFD with 64 × 48 16-bit
 * Bayer (CFA) data, and an EXIF IFD with the capture time. Valid TIFF structure; a raw file a camera writes
 * beside its JPEGs. No rendition is required.
 */
export function rawNef(thumbRgb: Buffer, camera: { make: string; model: string; software: string }, exifTime: string): FaultFile {
  const tw = 160;
  const th = 120;
  if (thumbRgb.length !== tw * th * 3) throw new RangeError("the NEF thumbnail must be 160 × 120 RGB");
  const cw = 64;
  const ch = 48;
  const cfa = Buffer.alloc(cw * ch * 2);
  for (let y = 0; y < ch; y++) {
    for (let x = 0; x < cw; x++) {
      // RGGB: the thumbnail's red, green or blue under each photosite, as 12-bit values.
      const t = (Math.floor((y * th) / ch) * tw + Math.floor((x * tw) / cw)) * 3 + (x & 1) + (y & 1);
      cfa.writeUInt16LE((thumbRgb[t] as number) * 16, (y * cw + x) * 2);
    }
  }
  const bytes = buildTiff(
    [
      {
        name: "ifd0",
        entries: [
          { tag: 0x00fe, type: LONG, value: [1] },
          { tag: 0x0100, type: LONG, value: [tw] },
          { tag: 0x0101, type: LONG, value: [th] },
          { tag: 0x0102, type: SHORT, value: [8, 8, 8] },
          { tag: 0x0103, type: SHORT, value: [1] },
          { tag: 0x0106, type: SHORT, value: [2] },
          { tag: 0x010f, type: ASCII, value: camera.make },
          { tag: 0x0110, type: ASCII, value: camera.model },
          { tag: 0x0111, type: LONG, value: (o) => [o.get("thumb") ?? 0] },
          { tag: 0x0112, type: SHORT, value: [1] },
          { tag: 0x0115, type: SHORT, value: [3] },
          { tag: 0x0116, type: LONG, value: [th] },
          { tag: 0x0117, type: LONG, value: [tw * th * 3] },
          { tag: 0x011a, type: RATIONAL, value: [300, 1] },
          { tag: 0x011b, type: RATIONAL, value: [300, 1] },
          { tag: 0x011c, type: SHORT, value: [1] },
          { tag: 0x0128, type: SHORT, value: [2] },
          { tag: 0x0131, type: ASCII, value: camera.software },
          { tag: 0x0132, type: ASCII, value: exifTime },
          { tag: 0x014a, type: LONG, value: (o) => [o.get("raw") ?? 0] },
          { tag: 0x8769, type: LONG, value: (o) => [o.get("exif") ?? 0] },
        ],
      },
      {
        name: "raw",
        entries: [
          { tag: 0x00fe, type: LONG, value: [0] },
          { tag: 0x0100, type: LONG, value: [cw] },
          { tag: 0x0101, type: LONG, value: [ch] },
          { tag: 0x0102, type: SHORT, value: [16] },
          { tag: 0x0103, type: SHORT, value: [1] },
          { tag: 0x0106, type: SHORT, value: [32803] },
          { tag: 0x0111, type: LONG, value: (o) => [o.get("cfa") ?? 0] },
          { tag: 0x0115, type: SHORT, value: [1] },
          { tag: 0x0116, type: LONG, value: [ch] },
          { tag: 0x0117, type: LONG, value: [cfa.length] },
          { tag: 0x011c, type: SHORT, value: [1] },
          { tag: 0x828d, type: SHORT, value: [2, 2] },
          { tag: 0x828e, type: BYTE, value: [0, 1, 1, 2] },
        ],
      },
      {
        name: "exif",
        entries: [
          { tag: 0x9003, type: ASCII, value: exifTime },
          { tag: 0x9004, type: ASCII, value: exifTime },
        ],
      },
    ],
    [
      { name: "thumb", data: thumbRgb },
      { name: "cfa", data: cfa },
    ],
  );
  return {
    fault: "raw-nef",
    ext: "NEF",
    bytes,
    format: "tiff",
    expect: "preserve",
    reason: "A raw file (NEF: TIFF structure with a thumbnail, CFA sensor data and EXIF): a valid file of another kind, kept and listed even without a rendition.",
  };
}

/**
 * A one-frame Motion-JPEG AVI, the kind of movie file a D90 writes: RIFF header, stream list, one frame,
 * index. Valid container; no rendition is required.
 */
export function movieAvi(frameJpeg: Buffer, width: number, height: number): FaultFile {
  const chunk = (id: string, data: Buffer): Buffer => {
    const head = Buffer.alloc(8);
    head.write(id, 0, "latin1");
    head.writeUInt32LE(data.length, 4);
    return Buffer.concat([head, data, data.length % 2 ? Buffer.alloc(1) : Buffer.alloc(0)]);
  };
  const list = (type: string, data: Buffer): Buffer => chunk("LIST", Buffer.concat([Buffer.from(type, "latin1"), data]));
  const avih = Buffer.alloc(56);
  avih.writeUInt32LE(41667, 0); // µs per frame: 24 fps
  avih.writeUInt32LE(frameJpeg.length * 24, 4);
  avih.writeUInt32LE(0x10, 12); // AVIF_HASINDEX
  avih.writeUInt32LE(1, 16); // frames
  avih.writeUInt32LE(1, 24); // streams
  avih.writeUInt32LE(frameJpeg.length, 28);
  avih.writeUInt32LE(width, 32);
  avih.writeUInt32LE(height, 36);
  const strh = Buffer.alloc(56);
  strh.write("vids", 0, "latin1");
  strh.write("MJPG", 4, "latin1");
  strh.writeUInt32LE(1, 20); // scale
  strh.writeUInt32LE(24, 24); // rate
  strh.writeUInt32LE(1, 32); // length
  strh.writeUInt32LE(frameJpeg.length, 36);
  strh.writeInt32LE(-1, 40); // quality
  strh.writeUInt16LE(width, 52);
  strh.writeUInt16LE(height, 54);
  const strf = Buffer.alloc(40);
  strf.writeUInt32LE(40, 0);
  strf.writeInt32LE(width, 4);
  strf.writeInt32LE(height, 8);
  strf.writeUInt16LE(1, 12);
  strf.writeUInt16LE(24, 14);
  strf.write("MJPG", 16, "latin1");
  strf.writeUInt32LE(width * height * 3, 20);
  const movi = list("movi", chunk("00dc", frameJpeg));
  const idx = Buffer.alloc(16);
  idx.write("00dc", 0, "latin1");
  idx.writeUInt32LE(0x10, 4); // key frame
  idx.writeUInt32LE(4, 8); // offset from the 'movi' type field
  idx.writeUInt32LE(frameJpeg.length, 12);
  const hdrl = list("hdrl", Buffer.concat([chunk("avih", avih), list("strl", Buffer.concat([chunk("strh", strh), chunk("strf", strf)]))]));
  const body = Buffer.concat([Buffer.from("AVI ", "latin1"), hdrl, movi, chunk("idx1", idx)]);
  return {
    fault: "movie-avi",
    ext: "AVI",
    bytes: chunk("RIFF", body),
    format: "avi",
    expect: "preserve",
    reason: "A movie (Motion-JPEG AVI, one frame) as the camera records them: a valid file of another kind, kept and listed even without a rendition.",
  };
}
