/**
 * The layout of an EXIF block (TIFF 6.0 §2, EXIF 2.32 §4.6): which IFDs exist, which tags each holds in which
 * order, where IFD1's thumbnail lies, whether a maker note is there — the part of a camera's signature that
 * survives in the header (Kee, Johnson & Farid 2011) — and the few values the checks read (make, model, times,
 * software, serial, orientation). Every offset and count is bounds-checked; a loop of IFDs is cut. Never throws.
 */

export interface IfdLayout {
  /** Tag numbers in file order. */
  tags: number[];
}

export interface ExifLayout {
  byteOrder: "II" | "MM";
  ifd0: IfdLayout | null;
  exif: IfdLayout | null;
  gps: IfdLayout | null;
  ifd1: IfdLayout | null;
  /** The IFD1 thumbnail (JPEGInterchangeFormat/-Length), as bytes within the TIFF block. */
  thumbnail: Uint8Array | null;
  makerNote: { size: number; header: string } | null;
  values: {
    make?: string;
    model?: string;
    software?: string;
    modified?: string;
    captured?: string;
    subSec?: string;
    serial?: string;
    orientation?: number;
    pixelWidth?: number;
    pixelHeight?: number;
  };
  /** What could not be read, as short codes with the IFD they concern. */
  faults: string[];
}

const TAG = {
  make: 0x010f,
  model: 0x0110,
  orientation: 0x0112,
  software: 0x0131,
  dateTime: 0x0132,
  exifIfd: 0x8769,
  gpsIfd: 0x8825,
  thumbOffset: 0x0201,
  thumbLength: 0x0202,
  dateTimeOriginal: 0x9003,
  subSecOriginal: 0x9291,
  makerNote: 0x927c,
  pixelX: 0xa002,
  pixelY: 0xa003,
  bodySerial: 0xa431,
  nikonSerialLegacy: 0xfde9,
} as const;

const TYPE_SIZE: Record<number, number> = { 1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 11: 4, 12: 8 };
const MAX_ENTRIES = 1000;

interface Entry {
  tag: number;
  type: number;
  count: number;
  /** Offset of the value within the block (inline or pointed to), or -1 when it lies outside. */
  at: number;
  size: number;
}

export function readExifLayout(tiff: Uint8Array): ExifLayout | null {
  if (tiff.length < 8) return null;
  const order = String.fromCharCode(tiff[0]!, tiff[1]!);
  if (order !== "II" && order !== "MM") return null;
  const le = order === "II";
  const u16 = (o: number) => (le ? tiff[o]! | (tiff[o + 1]! << 8) : (tiff[o]! << 8) | tiff[o + 1]!);
  const u32 = (o: number) =>
    (le ? (tiff[o]! | (tiff[o + 1]! << 8) | (tiff[o + 2]! << 16) | (tiff[o + 3]! << 24)) : ((tiff[o]! << 24) | (tiff[o + 1]! << 16) | (tiff[o + 2]! << 8) | tiff[o + 3]!)) >>> 0;
  if (u16(2) !== 42) return null;
  const out: ExifLayout = { byteOrder: order, ifd0: null, exif: null, gps: null, ifd1: null, thumbnail: null, makerNote: null, values: {}, faults: [] };
  const visited = new Set<number>();

  const readIfd = (offset: number, name: string): { entries: Entry[]; next: number } | null => {
    if (offset < 8 || offset + 2 > tiff.length || visited.has(offset)) {
      out.faults.push(visited.has(offset) ? `${name}:loop` : `${name}:outside`);
      return null;
    }
    visited.add(offset);
    const count = u16(offset);
    if (count > MAX_ENTRIES || offset + 2 + count * 12 + 4 > tiff.length) {
      out.faults.push(`${name}:truncated`);
      return null;
    }
    const entries: Entry[] = [];
    for (let i = 0; i < count; i++) {
      const e = offset + 2 + i * 12;
      const type = u16(e + 2);
      const n = u32(e + 4);
      const size = (TYPE_SIZE[type] ?? 0) * n;
      let at = size <= 4 ? e + 8 : u32(e + 8);
      if (!TYPE_SIZE[type] || at + size > tiff.length) at = -1;
      entries.push({ tag: u16(e), type, count: n, at, size });
    }
    return { entries, next: u32(offset + 2 + count * 12) };
  };
  const ascii = (e: Entry | undefined): string | undefined => {
    if (!e || e.type !== 2 || e.at < 0) return undefined;
    let s = "";
    for (let i = 0; i < e.size && i < 256; i++) {
      const c = tiff[e.at + i]!;
      if (c === 0) break;
      s += String.fromCharCode(c);
    }
    return s.trim();
  };
  const int = (e: Entry | undefined): number | undefined => {
    if (!e || e.at < 0) return undefined;
    if (e.type === 3) return u16(e.at);
    if (e.type === 4) return u32(e.at);
    return undefined;
  };

  const first = readIfd(u32(4), "ifd0");
  if (!first) return out;
  out.ifd0 = { tags: first.entries.map((e) => e.tag) };
  const by0 = new Map(first.entries.map((e) => [e.tag, e]));
  out.values.make = ascii(by0.get(TAG.make));
  out.values.model = ascii(by0.get(TAG.model));
  out.values.software = ascii(by0.get(TAG.software));
  out.values.modified = ascii(by0.get(TAG.dateTime));
  out.values.orientation = int(by0.get(TAG.orientation));
  const exifPtr = int(by0.get(TAG.exifIfd));
  if (exifPtr !== undefined) {
    const ex = readIfd(exifPtr, "exif");
    if (ex) {
      out.exif = { tags: ex.entries.map((e) => e.tag) };
      const by = new Map(ex.entries.map((e) => [e.tag, e]));
      out.values.captured = ascii(by.get(TAG.dateTimeOriginal));
      out.values.subSec = ascii(by.get(TAG.subSecOriginal));
      out.values.serial = ascii(by.get(TAG.bodySerial)) ?? ascii(by.get(TAG.nikonSerialLegacy));
      out.values.pixelWidth = int(by.get(TAG.pixelX));
      out.values.pixelHeight = int(by.get(TAG.pixelY));
      const mn = by.get(TAG.makerNote);
      if (mn) {
        if (mn.at < 0) out.faults.push("makernote:outside");
        else {
          let header = "";
          for (let i = 0; i < Math.min(mn.size, 10); i++) {
            const c = tiff[mn.at + i]!;
            if (c < 0x20 || c > 0x7e) break;
            header += String.fromCharCode(c);
          }
          out.makerNote = { size: mn.size, header };
        }
      }
    }
  }
  const gpsPtr = int(by0.get(TAG.gpsIfd));
  if (gpsPtr !== undefined) {
    const g = readIfd(gpsPtr, "gps");
    if (g) out.gps = { tags: g.entries.map((e) => e.tag) };
  }
  if (first.next) {
    const one = readIfd(first.next, "ifd1");
    if (one) {
      out.ifd1 = { tags: one.entries.map((e) => e.tag) };
      const by1 = new Map(one.entries.map((e) => [e.tag, e]));
      const off = int(by1.get(TAG.thumbOffset));
      const len = int(by1.get(TAG.thumbLength));
      if (off !== undefined && len !== undefined) {
        if (off + len <= tiff.length && len > 0) out.thumbnail = tiff.subarray(off, off + len);
        else out.faults.push("ifd1:thumbnail-outside");
      }
    }
  }
  return out;
}
