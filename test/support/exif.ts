/**
 * Test helpers for building and patching the metadata of sharp-made JPEGs: locate segments and EXIF entries,
 * write small TIFF/EXIF blocks (with a Nikon-style maker note), and splice segments into a JPEG.
 */
import sharp from "sharp";
import type { Exif } from "sharp";

export interface Segment {
  marker: number;
  /** Offset of the 0xFF of the marker. */
  start: number;
  /** Offset of the payload (after the 2-byte length). */
  payloadAt: number;
  /** Offset just after the segment. */
  end: number;
}

/** Marker segments up to and including SOS. */
export function segments(jpeg: Buffer): Segment[] {
  const out: Segment[] = [];
  let off = 2;
  while (off + 4 <= jpeg.length) {
    const marker = jpeg[off + 1]!;
    const len = jpeg.readUInt16BE(off + 2);
    out.push({ marker, start: off, payloadAt: off + 4, end: off + 2 + len });
    if (marker === 0xda) break;
    off += 2 + len;
  }
  return out;
}

/** Offset in the JPEG where the TIFF structure of the first EXIF segment starts. */
export function tiffStart(jpeg: Buffer): number {
  const s = segments(jpeg).find(
    (x) => x.marker === 0xe1 && jpeg.toString("latin1", x.payloadAt, x.payloadAt + 6) === "Exif\0\0",
  );
  if (!s) throw new Error("no EXIF segment");
  return s.payloadAt + 6;
}

export function segmentBytes(marker: number, payload: Buffer): Buffer {
  if (payload.length + 2 > 0xffff) throw new Error("segment too long");
  const h = Buffer.from([0xff, marker, 0, 0]);
  h.writeUInt16BE(payload.length + 2, 2);
  return Buffer.concat([h, payload]);
}

/** Inserts segments right after SOI. */
export function insertAfterSoi(jpeg: Buffer, ...segs: Buffer[]): Buffer {
  return Buffer.concat([jpeg.subarray(0, 2), ...segs, jpeg.subarray(2)]);
}

/** Replaces the EXIF segment's TIFF block (or adds one). */
export function withTiff(jpeg: Buffer, tiff: Buffer): Buffer {
  const seg = segmentBytes(0xe1, Buffer.concat([Buffer.from("Exif\0\0", "latin1"), tiff]));
  const s = segments(jpeg).find(
    (x) => x.marker === 0xe1 && jpeg.toString("latin1", x.payloadAt, x.payloadAt + 6) === "Exif\0\0",
  );
  if (!s) return insertAfterSoi(jpeg, seg);
  return Buffer.concat([jpeg.subarray(0, s.start), seg, jpeg.subarray(s.end)]);
}

/** Reads and writes numbers in a JPEG's EXIF block in the block's own byte order, at TIFF-relative offsets. */
export interface TiffPatch {
  tiff: Buffer;
  r16(o: number): number;
  r32(o: number): number;
  w16(o: number, v: number): void;
  w32(o: number, v: number): void;
}

export function tiffPatch(jpeg: Buffer): TiffPatch {
  const at = tiffStart(jpeg);
  const tiff = jpeg.subarray(at);
  const le = tiff[0] === 0x49;
  return {
    tiff,
    r16: (o) => (le ? tiff.readUInt16LE(o) : tiff.readUInt16BE(o)),
    r32: (o) => (le ? tiff.readUInt32LE(o) : tiff.readUInt32BE(o)),
    w16: (o, v) => void (le ? tiff.writeUInt16LE(v, o) : tiff.writeUInt16BE(v, o)),
    w32: (o, v) => void (le ? tiff.writeUInt32LE(v, o) : tiff.writeUInt32BE(v, o)),
  };
}

export interface EntryLocation {
  block: "ifd0" | "exif" | "gps" | "ifd1";
  tag: number;
  type: number;
  count: number;
  /** Offsets relative to the start of the TIFF structure. */
  entryAt: number;
  valueAt: number;
  ifdAt: number;
}

const SIZES = [0, 1, 1, 2, 4, 8, 1, 1, 2, 4, 8, 4, 8, 4];

/** Every entry of IFD0, the Exif and GPS IFDs and IFD1 of a (well-formed) TIFF block. */
export function tiffEntries(tiff: Buffer): EntryLocation[] {
  const le = tiff[0] === 0x49;
  const u16 = (o: number) => (le ? tiff.readUInt16LE(o) : tiff.readUInt16BE(o));
  const u32 = (o: number) => (le ? tiff.readUInt32LE(o) : tiff.readUInt32BE(o));
  const out: EntryLocation[] = [];
  const walk = (block: EntryLocation["block"], at: number): number => {
    const n = u16(at);
    for (let i = 0; i < n; i++) {
      const e = at + 2 + 12 * i;
      const type = u16(e + 2);
      const count = u32(e + 4);
      const size = (SIZES[type] ?? 1) * count;
      out.push({ block, tag: u16(e), type, count, entryAt: e, valueAt: size <= 4 ? e + 8 : u32(e + 8), ifdAt: at });
    }
    return u32(at + 2 + 12 * n);
  };
  const ifd0 = u32(4);
  const next = walk("ifd0", ifd0);
  for (const e of [...out]) {
    if (e.tag === 0x8769) walk("exif", u32(e.entryAt + 8));
    if (e.tag === 0x8825) walk("gps", u32(e.entryAt + 8));
  }
  if (next !== 0) walk("ifd1", next);
  return out;
}

export function entry(tiff: Buffer, block: EntryLocation["block"], tag: number): EntryLocation {
  const e = tiffEntries(tiff).find((x) => x.block === block && x.tag === tag);
  if (!e) throw new Error(`no ${block} entry ${tag.toString(16)}`);
  return e;
}

/** A TIFF entry to write: value bytes in the block's byte order. */
export interface NewEntry {
  tag: number;
  type: number;
  count: number;
  value: Buffer;
}

export const ascii = (tag: number, s: string): NewEntry => {
  const value = Buffer.from(`${s}\0`, "utf8");
  return { tag, type: 2, count: value.length, value };
};
export const undef = (tag: number, value: Buffer): NewEntry => ({ tag, type: 7, count: value.length, value });
export const long = (tag: number, v: number): NewEntry => {
  const value = Buffer.alloc(4);
  value.writeUInt32BE(v);
  return { tag, type: 4, count: 1, value };
};
export const short = (tag: number, v: number): NewEntry => {
  const value = Buffer.alloc(2);
  value.writeUInt16BE(v);
  return { tag, type: 3, count: 1, value };
};

/**
 * Writes a big-endian TIFF block: IFD0 (plus an Exif IFD when `exif` is given), values after each IFD.
 */
export function buildTiff(ifd0: NewEntry[], exif?: NewEntry[]): Buffer {
  const parts: Buffer[] = [];
  let size = 8;
  const header = Buffer.from([0x4d, 0x4d, 0, 42, 0, 0, 0, 8]);
  parts.push(header);
  const writeIfd = (entries: NewEntry[], pointerFixups: Map<number, () => number>): { at: number; buf: Buffer } => {
    const at = size;
    const sorted = [...entries].sort((a, b) => a.tag - b.tag);
    const dirLen = 2 + 12 * sorted.length + 4;
    let dataAt = at + dirLen;
    const dir = Buffer.alloc(dirLen);
    const data: Buffer[] = [];
    dir.writeUInt16BE(sorted.length, 0);
    sorted.forEach((e, i) => {
      const o = 2 + 12 * i;
      dir.writeUInt16BE(e.tag, o);
      dir.writeUInt16BE(e.type, o + 2);
      dir.writeUInt32BE(e.count, o + 4);
      const fix = pointerFixups.get(e.tag);
      if (fix) {
        pointerFixups.set(e.tag, () => o + 8); // remember where to write the pointer
      } else if (e.value.length <= 4) {
        e.value.copy(dir, o + 8);
      } else {
        dir.writeUInt32BE(dataAt, o + 8);
        const padded = e.value.length % 2 ? Buffer.concat([e.value, Buffer.alloc(1)]) : e.value;
        data.push(padded);
        dataAt += padded.length;
      }
    });
    const buf = Buffer.concat([dir, ...data]);
    size += buf.length;
    return { at, buf };
  };
  const fix = new Map<number, () => number>();
  const ifd0Entries = exif ? [...ifd0, long(0x8769, 0)] : ifd0;
  if (exif) fix.set(0x8769, () => 0);
  const first = writeIfd(ifd0Entries, fix);
  parts.push(first.buf);
  if (exif) {
    const second = writeIfd(exif, new Map());
    first.buf.writeUInt32BE(second.at, fix.get(0x8769)!());
    parts.push(second.buf);
  }
  return Buffer.concat(parts);
}

const UNIT = [1, 1, 1, 2, 4, 4, 1, 1, 2, 4, 4, 4, 8, 4];

/**
 * Adds an entry to IFD0 or the Exif IFD of a TIFF block of either byte order, by moving that IFD (with the new
 * entry, in tag order) to the end of the block and repointing it. `entry.value` is big-endian, as the helpers
 * above write it; it is converted to the block's byte order.
 */
export function addTiffEntry(tiff: Buffer, block: "ifd0" | "exif", e: NewEntry): Buffer {
  const le = tiff[0] === 0x49;
  const r16 = (b: Buffer, o: number) => (le ? b.readUInt16LE(o) : b.readUInt16BE(o));
  const r32 = (b: Buffer, o: number) => (le ? b.readUInt32LE(o) : b.readUInt32BE(o));
  const w16 = (b: Buffer, o: number, v: number) => (le ? b.writeUInt16LE(v, o) : b.writeUInt16BE(v, o));
  const w32 = (b: Buffer, o: number, v: number) => (le ? b.writeUInt32LE(v, o) : b.writeUInt32BE(v, o));
  const exifPointer = tiffEntries(tiff).find((x) => x.block === "ifd0" && x.tag === 0x8769);
  if (block === "exif" && !exifPointer) throw new Error("no Exif IFD");
  const pointerAt = block === "ifd0" ? 4 : exifPointer!.entryAt + 8;
  const ifdAt = r32(tiff, pointerAt);
  const n = r16(tiff, ifdAt);
  const next = r32(tiff, ifdAt + 2 + 12 * n);
  const unit = UNIT[e.type] ?? 1;
  const value = Buffer.from(e.value);
  if (le && unit > 1) for (let i = 0; i + unit <= value.length; i += unit) value.subarray(i, i + unit).reverse();
  const parts: Buffer[] = [tiff];
  let size = tiff.length + (tiff.length % 2);
  if (tiff.length % 2) parts.push(Buffer.alloc(1));
  let valueAt = -1;
  if (value.length > 4) {
    valueAt = size;
    parts.push(value, Buffer.alloc(value.length % 2));
    size += value.length + (value.length % 2);
  }
  const entries: Buffer[] = [];
  for (let i = 0; i < n; i++) entries.push(Buffer.from(tiff.subarray(ifdAt + 2 + 12 * i, ifdAt + 14 + 12 * i)));
  const mine = Buffer.alloc(12);
  w16(mine, 0, e.tag);
  w16(mine, 2, e.type);
  w32(mine, 4, e.count);
  if (valueAt >= 0) w32(mine, 8, valueAt);
  else value.copy(mine, 8);
  entries.push(mine);
  entries.sort((a, b) => r16(a, 0) - r16(b, 0));
  const dir = Buffer.alloc(2 + 12 * entries.length + 4);
  w16(dir, 0, entries.length);
  entries.forEach((x, i) => x.copy(dir, 2 + 12 * i));
  w32(dir, 2 + 12 * entries.length, next);
  const out = Buffer.concat([...parts, dir]);
  w32(out, pointerAt, size);
  return out;
}

/**
 * A Nikon "type 3" maker note: "Nikon\0" + version, then a TIFF structure of its own whose offsets count from
 * its own header. Carries the camera's serial number and shutter count, which exiftool decodes.
 */
export function nikonMakerNote(serial: string, shutterCount: number): Buffer {
  const tiff = buildTiff([undef(0x0001, Buffer.from("0210", "latin1")), ascii(0x001d, serial), long(0x00a7, shutterCount)]);
  return Buffer.concat([Buffer.from([0x4e, 0x69, 0x6b, 0x6f, 0x6e, 0x00, 0x02, 0x10, 0x00, 0x00]), tiff]);
}

export interface PhotoOptions {
  width?: number;
  height?: number;
  seed?: number;
  exif?: Exif;
  orientation?: number;
  xmp?: string;
  quality?: number;
}

/** A synthetic photo: smooth colour fields, shapes and fine texture, so it compresses like a real one. */
export async function photo(o: PhotoOptions = {}): Promise<Buffer> {
  const w = o.width ?? 640;
  const h = o.height ?? 480;
  const seed = o.seed ?? 1;
  let s = (seed * 2654435761) >>> 0 || 1;
  const rnd = () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 4294967296;
  };
  const shapes: string[] = [];
  for (let i = 0; i < 12; i++) {
    const c = `rgb(${Math.floor(rnd() * 255)},${Math.floor(rnd() * 255)},${Math.floor(rnd() * 255)})`;
    if (rnd() < 0.5) {
      shapes.push(`<circle cx="${rnd() * w}" cy="${rnd() * h}" r="${(0.05 + rnd() * 0.25) * w}" fill="${c}"/>`);
    } else {
      shapes.push(
        `<rect x="${rnd() * w}" y="${rnd() * h}" width="${(0.1 + rnd() * 0.4) * w}" height="${(0.1 + rnd() * 0.4) * h}" fill="${c}" transform="rotate(${rnd() * 90 - 45} ${w / 2} ${h / 2})"/>`,
      );
    }
  }
  const bg = `rgb(${Math.floor(rnd() * 255)},${Math.floor(rnd() * 255)},${Math.floor(rnd() * 255)})`;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}"><rect width="100%" height="100%" fill="${bg}"/>${shapes.join("")}<text x="${w * 0.1}" y="${h * 0.6}" font-size="${h / 8}" fill="#111">No ${Math.floor(rnd() * 9999)}</text></svg>`;
  // Deterministic fine texture (sensor-like noise), so a seed always gives the same photo.
  const noise = Buffer.allocUnsafe(w * h * 3);
  for (let i = 0; i < noise.length; i += 4) {
    const r = (s = (Math.imul(s, 1664525) + 1013904223) >>> 0);
    noise[i] = 116 + (r & 15) + ((r >>> 4) & 7);
    if (i + 1 < noise.length) noise[i + 1] = 116 + ((r >>> 8) & 15) + ((r >>> 12) & 7);
    if (i + 2 < noise.length) noise[i + 2] = 116 + ((r >>> 16) & 15) + ((r >>> 20) & 7);
    if (i + 3 < noise.length) noise[i + 3] = 116 + ((r >>> 24) & 15) + ((r >>> 28) & 7);
  }
  let img = sharp(Buffer.from(svg))
    .resize(w, h)
    .composite([{ input: noise, raw: { width: w, height: h, channels: 3 }, blend: "overlay" }])
    .jpeg({ quality: o.quality ?? 90 });
  if (o.orientation) img = img.withMetadata({ orientation: o.orientation });
  if (o.exif) img = img.withExif(o.exif);
  if (o.xmp) img = img.withXmp(o.xmp);
  return img.toBuffer();
}
