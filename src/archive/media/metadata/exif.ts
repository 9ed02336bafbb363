/** EXIF/TIFF: guardTiff walks and repairs a copy of the IFDs before exifr reads it; dates to ISO with their offsets. */
import exifr from "exifr";
import { appIdent } from "./containers.ts";
import { Collector, decodeUtf8, hex, latin1, printable, stripNul, type Obj } from "./text.ts";

export const TYPE_SIZE = [0, 1, 1, 2, 4, 8, 1, 1, 2, 4, 8, 4, 8, 4];
export const TAG_EXIF_IFD = 0x8769;
export const TAG_GPS_IFD = 0x8825;
export const TAG_INTEROP_IFD = 0xa005;
export const TAG_XMP = 0x02bc;
export const TAG_IPTC = 0x83bb;
export const TAG_ICC = 0x8773;
export const MAX_IFDS = 16;

export function tagName(block: string, tag: number): string {
  const keys = exifr.tagKeys.get(block === "ifd1" ? "ifd0" : block);
  return keys?.get(tag) ?? hex(tag);
}

export interface TiffExtras {
  xmp?: Buffer;
  iptc?: Buffer;
  icc?: Buffer;
}

/**
 * Walks the TIFF structure of an EXIF block and returns a repaired copy that is safe to hand to exifr: every
 * entry's type, count and value range is checked against the block's length, IFD pointers that leave the
 * block or point back at an IFD already read (a loop) are cut, and bad entries are removed by compacting the
 * IFD in the copy. Each repair is a sentence in `p`. Work is bounded by the block's length.
 */
export function guardTiff(src: Buffer, p: Collector, extras: TiffExtras): Buffer | undefined {
  if (src.length < 8) {
    p.add("The EXIF block is shorter than a TIFF header; it was not parsed.");
    return undefined;
  }
  const t = Buffer.from(src);
  const le = t[0] === 0x49 && t[1] === 0x49;
  if (!le && !(t[0] === 0x4d && t[1] === 0x4d)) {
    p.add("The EXIF block does not start with a TIFF byte-order mark (II or MM); it was not parsed.");
    return undefined;
  }
  const u16 = (o: number) => (le ? t.readUInt16LE(o) : t.readUInt16BE(o));
  const u32 = (o: number) => (le ? t.readUInt32LE(o) : t.readUInt32BE(o));
  const w16 = (o: number, v: number) => (le ? t.writeUInt16LE(v, o) : t.writeUInt16BE(v, o));
  const w32 = (o: number, v: number) => (le ? t.writeUInt32LE(v, o) : t.writeUInt32BE(v, o));
  if (u16(2) !== 42) {
    p.add(`The EXIF block has TIFF version ${u16(2)}, not 42; it was not parsed.`);
    return undefined;
  }
  const len = t.length;
  const names: Record<number, string> = { [TAG_EXIF_IFD]: "exif", [TAG_GPS_IFD]: "gps", [TAG_INTEROP_IFD]: "interop" };
  const label: Record<string, string> = { ifd0: "IFD0", ifd1: "IFD1", exif: "the Exif IFD", gps: "the GPS IFD", interop: "the Interop IFD" };
  const claimed = new Set<number>();
  const queue: { block: string; off: number }[] = [];
  const ifd0 = u32(4);
  if (ifd0 < 8 || ifd0 + 2 > len) {
    p.add(`The EXIF IFD0 offset ${ifd0} is outside the ${len}-byte EXIF block; it was not parsed.`);
    return undefined;
  }
  claimed.add(ifd0);
  queue.push({ block: "ifd0", off: ifd0 });
  let walked = 0;
  while (queue.length > 0 && walked < MAX_IFDS) {
    walked++;
    const { block, off } = queue.shift()!;
    const where = label[block] ?? block;
    const declared = u16(off);
    const room = Math.floor((len - off - 2) / 12);
    const n = Math.min(declared, room);
    if (declared > room) {
      p.add(`EXIF ${where} declares ${declared} entries but the block only has room for ${room}; the rest were ignored.`);
    }
    const keep: number[] = [];
    for (let i = 0; i < n; i++) {
      const e = off + 2 + 12 * i;
      const tag = u16(e);
      const type = u16(e + 2);
      const count = u32(e + 4);
      const name = `${hex(tag)} (${tagName(block, tag)})`;
      let bad: string | undefined;
      const unit = TYPE_SIZE[type];
      if (unit === undefined || unit === 0) {
        bad = `has unknown value type ${type}`;
      } else {
        const size = unit * count;
        const at = size <= 4 ? e + 8 : u32(e + 8);
        if (at + size > len) {
          bad = `claims ${count} values (${size} bytes) at offset ${at}, beyond the ${len}-byte EXIF block`;
        } else if (block === "ifd0" && (tag === TAG_XMP || tag === TAG_IPTC || tag === TAG_ICC)) {
          const bytes = Buffer.from(t.subarray(at, at + size));
          if (tag === TAG_XMP) extras.xmp ??= bytes;
          else if (tag === TAG_IPTC) extras.iptc ??= bytes;
          else extras.icc ??= bytes;
        }
      }
      const child = names[tag];
      const pointerHere = child !== undefined && (block === "ifd0" || (block === "exif" && tag === TAG_INTEROP_IFD));
      if (bad === undefined && pointerHere) {
        const target = u32(e + 8);
        if (count !== 1 || (type !== 4 && type !== 13)) bad = "is a pointer of the wrong type or count";
        else if (target < 8 || target + 2 > len) bad = `points to offset ${target}, outside the ${len}-byte EXIF block`;
        else if (claimed.has(target)) bad = "points to an IFD that is already read (a loop)";
        else {
          claimed.add(target);
          queue.push({ block: child, off: target });
        }
      }
      if (bad !== undefined) p.add(`EXIF ${where} entry ${name} ${bad}; it was ignored.`);
      else keep.push(e);
    }
    const nextAt = off + 2 + 12 * declared;
    let next = declared <= room && nextAt + 4 <= len ? u32(nextAt) : 0;
    if (block === "ifd0" && next !== 0) {
      if (next < 8 || next + 2 > len) {
        p.add(`EXIF IFD0 links to a next IFD at offset ${next}, outside the EXIF block; it was ignored.`);
        next = 0;
      } else if (claimed.has(next)) {
        p.add("EXIF IFD0 links to an IFD that is already read (a loop); the link was ignored.");
        next = 0;
      } else {
        claimed.add(next);
        queue.push({ block: "ifd1", off: next });
      }
    } else {
      next = 0; // exifr reads no further than IFD1; stop it following anything else
    }
    if (keep.length !== declared) {
      for (let j = 0; j < keep.length; j++) t.copy(t, off + 2 + 12 * j, keep[j]!, keep[j]! + 12);
      w16(off, keep.length);
    }
    const newNextAt = off + 2 + 12 * keep.length;
    if (newNextAt + 4 <= len) w32(newNextAt, next);
  }
  if (queue.length > 0) p.add(`The EXIF block links more than ${MAX_IFDS} IFDs; the rest were ignored.`);
  return t;
}

export const EXIFR_OPTIONS = {
  tiff: true,
  ifd0: {},
  ifd1: true,
  exif: true,
  gps: true,
  interop: true,
  makerNote: true,
  userComment: true,
  xmp: false,
  iptc: false,
  icc: false,
  jfif: false,
  ihdr: false,
  translateKeys: true,
  translateValues: false,
  reviveValues: false,
  sanitize: true,
  mergeOutput: false,
  silentErrors: true,
};

/** EXIF "undefined" text with an 8-byte character-code prefix (UserComment, GPSProcessingMethod…). */
export function decodeCodedText(bytes: Uint8Array, le: boolean, what: string, p: Collector): string {
  const code = latin1(bytes.subarray(0, 8));
  const body = bytes.subarray(Math.min(8, bytes.length));
  let s: string;
  if (code.startsWith("UNICODE")) {
    const swapped = Buffer.from(body.subarray(0, body.length - (body.length % 2)));
    if (!le) swapped.swap16();
    s = swapped.toString("utf16le");
  } else if (code.startsWith("ASCII") || code === "\0\0\0\0\0\0\0\0") {
    s = decodeUtf8(body, what, p);
  } else if (code.startsWith("JIS")) {
    p.add(`${what} is in JIS encoding, which is not decoded here; it is shown as Latin-1.`);
    s = latin1(body);
  } else {
    s = decodeUtf8(bytes, what, p);
  }
  return stripNul(s).trim();
}

export function ucs2(bytes: Uint8Array): string {
  const b = Buffer.from(bytes.subarray(0, bytes.length - (bytes.length % 2)));
  return stripNul(b.toString("utf16le"));
}

export const DATE_RE = /^(\d{4})[:-](\d{2})[:-](\d{2})[ T](\d{2}):(\d{2}):(\d{2})$/;

/** "2012:05:03 10:15:02" (+ offset "+03:00", sub-seconds "35") → "2012-05-03T10:15:02.35+03:00". */
export function exifDateToIso(value: unknown, offset: unknown, subsec: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const m = DATE_RE.exec(value.trim());
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s] = m.map(Number) as [number, number, number, number, number, number, number];
  if (y < 1 || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 24 || mi > 59 || s > 60) return undefined;
  let iso = `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}`;
  if (typeof subsec === "string" && /^\d{1,9}$/.test(subsec.trim())) iso += `.${subsec.trim()}`;
  if (typeof offset === "string" && /^[+-]\d{2}:\d{2}$/.test(offset.trim())) iso += offset.trim();
  return iso;
}

export const DATE_FIELDS: [block: string, field: string, offset: string, subsec: string][] = [
  ["ifd0", "ModifyDate", "OffsetTime", "SubSecTime"],
  ["exif", "DateTimeOriginal", "OffsetTimeOriginal", "SubSecTimeOriginal"],
  ["exif", "CreateDate", "OffsetTimeDigitized", "SubSecTimeDigitized"],
  ["ifd1", "ModifyDate", "", ""],
];

export async function parseExif(tiff: Buffer, p: Collector): Promise<Obj> {
  const le = tiff[0] === 0x49;
  let out: unknown;
  try {
    out = await exifr.parse(tiff, EXIFR_OPTIONS);
  } catch (err) {
    p.add(`The EXIF block could not be parsed (${err instanceof Error ? err.message.split("\n")[0] : "error"}).`);
    return {};
  }
  if (typeof out !== "object" || out === null) return {};
  const res = out as Obj;
  const parsed: Obj = {};
  if (Array.isArray(res.errors)) {
    for (const e of res.errors) p.add(`Part of the EXIF block could not be parsed (${String(e).split("\n")[0]}).`);
  }
  for (const block of ["ifd0", "exif", "gps", "interop", "ifd1"]) {
    const b = res[block];
    if (typeof b === "object" && b !== null) parsed[block] = { ...(b as Obj) };
  }
  const exif = (parsed.exif ??= {}) as Obj;
  if (res.makerNote instanceof Uint8Array && res.makerNote.length > 0) {
    const sig = appIdent(Buffer.from(res.makerNote.subarray(0, 12)));
    exif.MakerNote = `[maker note, ${res.makerNote.length} bytes${sig !== "?" ? `, starts "${sig}"` : ""}; kept in raw.exif, decoded by deepMetadata]`;
  }
  if (res.userComment instanceof Uint8Array && res.userComment.length > 0) {
    const s = decodeCodedText(res.userComment, le, "The EXIF UserComment", p);
    if (s) exif.UserComment = s;
  }
  if (Object.keys(exif).length === 0) delete parsed.exif;

  const ifd0 = parsed.ifd0 as Obj | undefined;
  for (const k of ["XPTitle", "XPComment", "XPAuthor", "XPKeywords", "XPSubject"]) {
    const v = ifd0?.[k];
    if (ifd0 && (v instanceof Uint8Array || Array.isArray(v))) ifd0[k] = ucs2(Uint8Array.from(v as ArrayLike<number>));
  }
  for (const [block, key] of [["exif", "ExifVersion"], ["exif", "FlashpixVersion"], ["interop", "InteropVersion"]] as const) {
    const b = parsed[block] as Obj | undefined;
    const v = b?.[key];
    if (b && v instanceof Uint8Array) b[key] = stripNul(latin1(v));
  }
  const gps = parsed.gps as Obj | undefined;
  if (gps) {
    if (gps.GPSVersionID instanceof Uint8Array) gps.GPSVersionID = Array.from(gps.GPSVersionID).join(".");
    for (const k of ["GPSProcessingMethod", "GPSAreaInformation"]) {
      const v = gps[k];
      if (v instanceof Uint8Array) gps[k] = decodeCodedText(v, le, `The EXIF ${k}`, p);
    }
    const ds = gps.GPSDateStamp;
    const ts = gps.GPSTimeStamp;
    if (typeof ds === "string" && Array.isArray(ts) && ts.length === 3 && ts.every((x) => typeof x === "number" && Number.isFinite(x))) {
      const [h, mi, s] = ts as number[];
      const m = /^(\d{4}):(\d{2}):(\d{2})$/.exec(ds.trim());
      if (m && h! < 24 && mi! < 60 && s! < 61) {
        const sec = s!.toFixed(3).padStart(6, "0");
        gps.GPSDateTime = `${m[1]}-${m[2]}-${m[3]}T${String(Math.floor(h!)).padStart(2, "0")}:${String(Math.floor(mi!)).padStart(2, "0")}:${sec}Z`;
      }
    }
  }
  for (const [block, field, offsetKey, subKey] of DATE_FIELDS) {
    const b = parsed[block] as Obj | undefined;
    const v = b?.[field];
    if (!b || v === undefined) continue;
    const iso = exifDateToIso(v, offsetKey ? (parsed.exif as Obj | undefined)?.[offsetKey] : undefined, subKey ? (parsed.exif as Obj | undefined)?.[subKey] : undefined);
    if (iso) b[field] = iso;
    else p.add(`EXIF ${field} is "${printable(String(v)).slice(0, 40)}", not a valid date; it is kept as written.`);
  }
  return parsed;
}
