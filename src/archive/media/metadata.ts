/**
 * Metadata of one photo, for the ingest hot path: the metadata blocks exactly as found (so nothing is lost),
 * a parsed JSON-safe view, the camera, the capture time, and which parsed fields could reveal a source.
 *
 * Choice of parsers (figures in docs/decisions/0003-metadata-extractor.md):
 * - EXIF/TIFF IFDs: exifr, on a copy of the EXIF block that guardTiff has first walked and repaired: exifr
 *   trusts value counts and offsets (it allocates arrays from a 32-bit count before checking bounds), so every
 *   entry is bounds-checked, loops are cut, and bad entries are removed from the copy before exifr sees it.
 * - XMP and IPTC: our own small parsers. exifr's XMP parser lets a crafted XMP write onto Object.prototype
 *   (`<__proto__:x>` or any prefix named like an Object.prototype member), turns "0012345" into 12345 (serial
 *   numbers lose their leading zeros) and uses regular expressions that go quadratic on unclosed tags; its
 *   IPTC parser reads every string as Latin-1, which garbles UTF-8 Arabic captions.
 * - Maker notes (where cameras keep serial numbers and shutter counts) are kept raw inside raw.exif; exiftool
 *   decodes them. deepMetadata() runs exiftool for a deliberate, slower re-extraction of one file.
 *
 * extractMetadata never throws: malformed metadata becomes a sentence in `problems`.
 */
import exifr from "exifr";
import { inflateSync } from "node:zlib";
import type { ExifTool } from "exiftool-vendored";

export interface PhotoMetadata {
  raw: {
    /** The TIFF structure of the EXIF block, from its byte-order mark (the APP1 payload after "Exif\0\0"). */
    exif?: Buffer;
    /** The standard XMP packet as text. */
    xmp?: string;
    /** Extended XMP (JPEG multi-segment XMP), reassembled; kept, not parsed. */
    xmpExtended?: string;
    /** The IPTC-IIM records (Photoshop resource 0x0404), byte for byte. */
    iptc?: Buffer;
    /** An ICC colour profile is embedded. */
    icc?: boolean;
  };
  /** JSON-safe: dates as ISO strings, binary as short hex or a note; no prototype keys. */
  parsed: Record<string, unknown>;
  camera: { make?: string; model?: string; serial?: string };
  /** DateTimeOriginal as written, in ISO form, with sub-seconds and the UTC offset when the file gives them. */
  captureTime?: string;
  /** Stored pixel size (before orientation) and the EXIF orientation (1..8). */
  width?: number;
  height?: number;
  orientation?: number;
  software?: string;
  /** Dotted paths into `parsed` of fields that could reveal a source (names, serials, places, comments, paths). */
  sensitive: string[];
  /** Sentences about malformed metadata. */
  problems: string[];
}

/** Longest string kept in `parsed`; the full value stays in `raw` and in the original. */
const MAX_PARSED_STRING = 4096;
/** Longest binary value shown as hex in `parsed`. */
const MAX_HEX_BYTES = 64;
const MAX_ARRAY = 1024;
const MAX_XMP_CHARS = 2_000_000;
const MAX_XML_DEPTH = 64;
const MAX_XML_NODES = 50_000;
const RESERVED_KEYS = new Set(["__proto__", "constructor", "prototype"]);

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Obj = Record<string, unknown>;

class Collector {
  readonly problems: string[] = [];
  private readonly seen = new Set<string>();
  add(sentence: string): void {
    if (this.problems.length >= 200 || this.seen.has(sentence)) return;
    this.seen.add(sentence);
    this.problems.push(sentence);
  }
}

// ───────────────────────────── text helpers ─────────────────────────────

const utf8Strict = new TextDecoder("utf-8", { fatal: true });
const utf8Loose = new TextDecoder("utf-8");

function decodeUtf8(bytes: Uint8Array, what: string, p: Collector): string {
  try {
    return utf8Strict.decode(bytes);
  } catch {
    p.add(`${what} is not valid UTF-8; the undecodable bytes were replaced in the parsed view.`);
    return utf8Loose.decode(bytes);
  }
}

function latin1(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");
}

function printable(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/[\u0000-\u001f\u007f-\u009f]/g, "?");
}

function hex(n: number, width = 4): string {
  return `0x${n.toString(16).padStart(width, "0")}`;
}

function stripNul(s: string): string {
  let end = s.length;
  while (end > 0 && s.charCodeAt(end - 1) === 0) end--;
  return s.slice(0, end);
}

// ───────────────────────────── containers ─────────────────────────────

interface Found {
  format: string;
  exif?: Buffer;
  xmp?: Buffer;
  xmpExtended?: Buffer;
  iptcIrb?: Buffer;
  icc?: Buffer;
  iccPresent?: boolean;
  comments: string[];
  segments: string[];
  width?: number;
  height?: number;
  pngText?: Obj;
  jfif?: Obj;
}

const XMP_ID = "http://ns.adobe.com/xap/1.0/\0";
const XMP_EXT_ID = "http://ns.adobe.com/xmp/extension/\0";

function sniff(b: Buffer): string {
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return "jpeg";
  if (b.length >= 8 && b.readUInt32BE(0) === 0x89504e47 && b.readUInt32BE(4) === 0x0d0a1a0a) return "png";
  if (b.length >= 12 && b.toString("latin1", 0, 4) === "RIFF" && b.toString("latin1", 8, 12) === "WEBP") return "webp";
  if (b.length >= 4 && ((b[0] === 0x49 && b[1] === 0x49 && b[2] === 42 && b[3] === 0) || (b[0] === 0x4d && b[1] === 0x4d && b[2] === 0 && b[3] === 42))) {
    return "tiff";
  }
  if (b.length >= 12 && b.toString("latin1", 4, 8) === "ftyp") return "heif";
  return "unknown";
}

/** The identifier at the start of an APPn payload, for the segment list (printable ASCII, ≤ 20 chars). */
function appIdent(payload: Buffer): string {
  let s = "";
  for (let i = 0; i < payload.length && i < 20; i++) {
    const c = payload[i]!;
    if (c === 0) break;
    if (c < 0x20 || c > 0x7e) return s || "?";
    s += String.fromCharCode(c);
  }
  return s || "?";
}

function readJpeg(b: Buffer, p: Collector): Found {
  const f: Found = { format: "jpeg", comments: [], segments: [] };
  const icc: { seq: number; count: number; data: Buffer }[] = [];
  const irb: Buffer[] = [];
  const ext = new Map<string, { total: number; parts: { offset: number; data: Buffer }[] }>();
  let off = 2;
  let guard = 0;
  while (off < b.length) {
    if (++guard > 10_000) {
      p.add("The JPEG has more than 10000 marker segments before its image data; the rest were not read.");
      break;
    }
    if (b[off] !== 0xff) {
      p.add(`The JPEG marker structure is broken at byte ${off}; metadata after it was not read.`);
      break;
    }
    let m = b[off + 1];
    while (m === 0xff && off + 2 < b.length) {
      off++; // fill bytes
      m = b[off + 1];
    }
    if (m === undefined) break;
    if (m === 0xd9) break; // EOI
    if ((m >= 0xd0 && m <= 0xd7) || m === 0x01) {
      off += 2;
      continue;
    }
    if (off + 4 > b.length) {
      p.add("The JPEG ends inside a marker; the file is truncated.");
      break;
    }
    const len = b.readUInt16BE(off + 2);
    if (len < 2 || off + 2 + len > b.length) {
      p.add(`A JPEG segment (marker ${hex(m, 2)}) claims ${len} bytes, more than the file holds; metadata after it was not read.`);
      break;
    }
    const payload = b.subarray(off + 4, off + 2 + len);
    if (m === 0xda) {
      f.segments.push("SOS");
      break; // entropy-coded data follows; cameras write all metadata before the first scan
    }
    if (m >= 0xc0 && m <= 0xcf && m !== 0xc4 && m !== 0xc8 && m !== 0xcc) {
      f.segments.push(`SOF${m - 0xc0}`);
      if (payload.length >= 5 && f.width === undefined) {
        f.height = payload.readUInt16BE(1);
        f.width = payload.readUInt16BE(3);
      }
    } else if (m >= 0xe0 && m <= 0xef) {
      const ident = appIdent(payload);
      f.segments.push(`APP${m - 0xe0}:${ident}`);
      if (m === 0xe0 && ident === "JFIF" && payload.length >= 12) {
        f.jfif = {
          version: `${payload[5]}.${String(payload[6]).padStart(2, "0")}`,
          units: payload[7],
          xDensity: payload.readUInt16BE(8),
          yDensity: payload.readUInt16BE(10),
        };
      } else if (m === 0xe1 && payload.length >= 6 && payload.toString("latin1", 0, 4) === "Exif" && payload[4] === 0) {
        if (f.exif) p.add("The JPEG has more than one EXIF segment; only the first was parsed (all are in the original).");
        else f.exif = Buffer.from(payload.subarray(6));
      } else if (m === 0xe1 && payload.toString("latin1", 0, XMP_ID.length) === XMP_ID) {
        if (f.xmp) p.add("The JPEG has more than one XMP packet; only the first was parsed (all are in the original).");
        else f.xmp = Buffer.from(payload.subarray(XMP_ID.length));
      } else if (m === 0xe1 && payload.toString("latin1", 0, XMP_EXT_ID.length) === XMP_EXT_ID) {
        const h = XMP_EXT_ID.length;
        if (payload.length >= h + 40) {
          const guid = payload.toString("latin1", h, h + 32);
          const total = payload.readUInt32BE(h + 32);
          const offset = payload.readUInt32BE(h + 36);
          const e = ext.get(guid) ?? { total, parts: [] };
          ext.set(guid, e);
          e.parts.push({ offset, data: payload.subarray(h + 40) });
        }
      } else if (m === 0xe2 && payload.length >= 14 && payload.toString("latin1", 0, 12) === "ICC_PROFILE\0") {
        icc.push({ seq: payload[12]!, count: payload[13]!, data: payload.subarray(14) });
      } else if (m === 0xed && payload.toString("latin1", 0, 14) === "Photoshop 3.0\0") {
        irb.push(payload.subarray(14));
      }
    } else if (m === 0xfe) {
      f.segments.push("COM");
      f.comments.push(decodeUtf8(payload, "A JPEG comment", p));
    }
    off += 2 + len;
  }
  if (icc.length > 0) {
    f.iccPresent = true;
    icc.sort((x, y) => x.seq - y.seq);
    const count = icc[0]!.count;
    if (icc.length !== count || icc.some((c, i) => c.seq !== i + 1)) {
      p.add(`The ICC profile is split into ${icc.length} segments but says ${count}; it was joined as found.`);
    }
    f.icc = Buffer.concat(icc.map((c) => c.data));
  }
  if (irb.length > 0) f.iptcIrb = Buffer.concat(irb);
  const first = ext.entries().next();
  if (!first.done) {
    const [, e] = first.value;
    if (ext.size > 1) p.add("The JPEG has extended XMP under more than one GUID; only the first was kept in raw.");
    const limit = Math.min(e.total, b.length);
    if (e.total > b.length) p.add(`Extended XMP claims ${e.total} bytes, more than the file; it was kept in part.`);
    const out = Buffer.alloc(limit);
    for (const part of e.parts) {
      if (part.offset < limit) part.data.copy(out, part.offset, 0, Math.min(part.data.length, limit - part.offset));
    }
    f.xmpExtended = out;
  }
  return f;
}

function readPng(b: Buffer, p: Collector): Found {
  const f: Found = { format: "png", comments: [], segments: [] };
  let off = 8;
  let n = 0;
  while (off + 12 <= b.length) {
    if (++n > 100_000) break;
    const len = b.readUInt32BE(off);
    const type = b.toString("latin1", off + 4, off + 8);
    if (off + 12 + len > b.length) {
      p.add(`The PNG chunk ${printable(type)} claims ${len} bytes, more than the file holds; the rest was not read.`);
      break;
    }
    const data = b.subarray(off + 8, off + 8 + len);
    if (type !== "IDAT") f.segments.push(printable(type));
    if (type === "IHDR" && len >= 8) {
      f.width = data.readUInt32BE(0);
      f.height = data.readUInt32BE(4);
    } else if (type === "eXIf") {
      f.exif ??= Buffer.from(data);
    } else if (type === "iCCP") {
      f.iccPresent = true;
    } else if (type === "tEXt" || type === "zTXt" || type === "iTXt") {
      readPngText(type, data, f, p);
    } else if (type === "IEND") {
      break;
    }
    off += 12 + len;
  }
  return f;
}

function inflateBounded(data: Buffer, what: string, p: Collector): Buffer | undefined {
  try {
    return inflateSync(data, { maxOutputLength: 4 * 1024 * 1024 });
  } catch {
    p.add(`${what} is compressed and does not inflate within 4 MB; it was not parsed.`);
    return undefined;
  }
}

function readPngText(type: string, data: Buffer, f: Found, p: Collector): void {
  const z = data.indexOf(0);
  if (z <= 0) return;
  const keyword = latin1(data.subarray(0, z));
  let text: string | undefined;
  if (type === "tEXt") {
    text = latin1(data.subarray(z + 1));
  } else if (type === "zTXt") {
    const raw = inflateBounded(data.subarray(z + 2), `The PNG text "${printable(keyword)}"`, p);
    if (raw) text = latin1(raw);
  } else {
    const compressed = data[z + 1] === 1;
    const langEnd = data.indexOf(0, z + 3);
    const transEnd = langEnd < 0 ? -1 : data.indexOf(0, langEnd + 1);
    if (transEnd < 0) return;
    let body: Buffer | undefined = data.subarray(transEnd + 1);
    if (compressed) body = inflateBounded(body, `The PNG text "${printable(keyword)}"`, p);
    if (!body) return;
    if (keyword === "XML:com.adobe.xmp") {
      f.xmp ??= Buffer.from(body);
      return;
    }
    text = decodeUtf8(body, `The PNG text "${printable(keyword)}"`, p);
  }
  if (text !== undefined) {
    f.pngText ??= Object.create(null) as Obj;
    f.pngText[keyword] = text;
  }
}

function readWebp(b: Buffer, p: Collector): Found {
  const f: Found = { format: "webp", comments: [], segments: [] };
  let off = 12;
  let n = 0;
  while (off + 8 <= b.length) {
    if (++n > 10_000) break;
    const type = b.toString("latin1", off, off + 4);
    const len = b.readUInt32LE(off + 4);
    if (off + 8 + len > b.length) {
      p.add(`The WebP chunk ${printable(type)} claims ${len} bytes, more than the file holds; the rest was not read.`);
      break;
    }
    const data = b.subarray(off + 8, off + 8 + len);
    f.segments.push(printable(type));
    if (type === "VP8X" && len >= 10) {
      f.width = 1 + data.readUIntLE(4, 3);
      f.height = 1 + data.readUIntLE(7, 3);
    } else if (type === "EXIF") {
      const skip = data.toString("latin1", 0, 6) === "Exif\0\0" ? 6 : 0;
      f.exif ??= Buffer.from(data.subarray(skip));
    } else if (type === "XMP ") {
      f.xmp ??= Buffer.from(data);
    } else if (type === "ICCP") {
      f.iccPresent = true;
      f.icc ??= Buffer.from(data);
    }
    off += 8 + len + (len % 2);
  }
  return f;
}

// ───────────────────────────── EXIF / TIFF ─────────────────────────────

const TYPE_SIZE = [0, 1, 1, 2, 4, 8, 1, 1, 2, 4, 8, 4, 8, 4];
const TAG_EXIF_IFD = 0x8769;
const TAG_GPS_IFD = 0x8825;
const TAG_INTEROP_IFD = 0xa005;
const TAG_XMP = 0x02bc;
const TAG_IPTC = 0x83bb;
const TAG_ICC = 0x8773;
const MAX_IFDS = 16;

function tagName(block: string, tag: number): string {
  const keys = exifr.tagKeys.get(block === "ifd1" ? "ifd0" : block);
  return keys?.get(tag) ?? hex(tag);
}

interface TiffExtras {
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
function guardTiff(src: Buffer, p: Collector, extras: TiffExtras): Buffer | undefined {
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

const EXIFR_OPTIONS = {
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
function decodeCodedText(bytes: Uint8Array, le: boolean, what: string, p: Collector): string {
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

function ucs2(bytes: Uint8Array): string {
  const b = Buffer.from(bytes.subarray(0, bytes.length - (bytes.length % 2)));
  return stripNul(b.toString("utf16le"));
}

function bytesNote(bytes: Uint8Array, where: string): string {
  if (bytes.length <= MAX_HEX_BYTES) return Buffer.from(bytes).toString("hex");
  return `[${bytes.length} bytes of binary data; kept in ${where}]`;
}

const DATE_RE = /^(\d{4})[:-](\d{2})[:-](\d{2})[ T](\d{2}):(\d{2}):(\d{2})$/;

/** "2012:05:03 10:15:02" (+ offset "+03:00", sub-seconds "35") → "2012-05-03T10:15:02.35+03:00". */
function exifDateToIso(value: unknown, offset: unknown, subsec: unknown): string | undefined {
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

const DATE_FIELDS: [block: string, field: string, offset: string, subsec: string][] = [
  ["ifd0", "ModifyDate", "OffsetTime", "SubSecTime"],
  ["exif", "DateTimeOriginal", "OffsetTimeOriginal", "SubSecTimeOriginal"],
  ["exif", "CreateDate", "OffsetTimeDigitized", "SubSecTimeDigitized"],
  ["ifd1", "ModifyDate", "", ""],
];

async function parseExif(tiff: Buffer, p: Collector): Promise<Obj> {
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

// ───────────────────────────── XMP ─────────────────────────────

interface XmlNode {
  name: string;
  attrs: [string, string][];
  children: XmlNode[];
  text: string;
}

const ENTITIES: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" };

function decodeEntities(s: string): string {
  if (!s.includes("&")) return s;
  return s.replace(/&(#x[0-9a-fA-F]{1,6}|#[0-9]{1,7}|[a-zA-Z]{2,4});/g, (all, e: string) => {
    if (e[0] === "#") {
      const cp = e[1] === "x" ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
      return cp > 0 && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff) ? String.fromCodePoint(cp) : "\uFFFD";
    }
    return ENTITIES[e] ?? all;
  });
}

/**
 * A small XML reader for XMP packets: linear time (every index only moves forward), bounded depth and node
 * count, no DTDs or external entities. Returns the root's children, or a reason it refused.
 */
function parseXml(s: string): XmlNode[] | string {
  const root: XmlNode = { name: "#root", attrs: [], children: [], text: "" };
  const stack: XmlNode[] = [root];
  let i = 0;
  let nodes = 0;
  while (i < s.length) {
    const lt = s.indexOf("<", i);
    const top = stack[stack.length - 1]!;
    if (lt < 0) {
      top.text += decodeEntities(s.slice(i));
      break;
    }
    if (lt > i) top.text += decodeEntities(s.slice(i, lt));
    if (s.startsWith("<!--", lt)) {
      const end = s.indexOf("-->", lt + 4);
      if (end < 0) return "an unclosed comment";
      i = end + 3;
      continue;
    }
    if (s.startsWith("<?", lt)) {
      const end = s.indexOf("?>", lt + 2);
      if (end < 0) return "an unclosed processing instruction";
      i = end + 2;
      continue;
    }
    if (s.startsWith("<![CDATA[", lt)) {
      const end = s.indexOf("]]>", lt + 9);
      if (end < 0) return "an unclosed CDATA section";
      top.text += s.slice(lt + 9, end);
      i = end + 3;
      continue;
    }
    if (s.startsWith("<!", lt)) return "a document type declaration, which XMP does not allow";
    // A tag: find its closing '>' outside quoted attribute values.
    let j = lt + 1;
    let quote = "";
    for (; j < s.length; j++) {
      const c = s[j]!;
      if (quote) {
        if (c === quote) quote = "";
      } else if (c === '"' || c === "'") quote = c;
      else if (c === ">") break;
      else if (c === "<") return `a "<" inside a tag at character ${j}`;
    }
    if (j >= s.length) return "a tag that never closes";
    const body = s.slice(lt + 1, j);
    i = j + 1;
    if (body[0] === "/") {
      const name = body.slice(1).trim();
      if (stack.length === 1 || top.name !== name) return `a closing </${name.slice(0, 40)}> that does not match its opening tag`;
      stack.pop();
      continue;
    }
    const selfClosing = body.endsWith("/");
    const inner = selfClosing ? body.slice(0, -1) : body;
    const nm = /^[^\s/>]+/.exec(inner);
    if (!nm) return `an empty tag at character ${lt}`;
    const node: XmlNode = { name: nm[0], attrs: [], children: [], text: "" };
    const attrRe = /\s*([^\s=]+)\s*=\s*("([^"]*)"|'([^']*)')/y;
    let k = nm[0].length;
    while (k < inner.length) {
      attrRe.lastIndex = k;
      const a = attrRe.exec(inner);
      if (!a) {
        if (inner.slice(k).trim() === "") break;
        return `a malformed attribute in <${node.name.slice(0, 40)}>`;
      }
      node.attrs.push([a[1]!, decodeEntities(a[3] ?? a[4] ?? "")]);
      k = attrRe.lastIndex;
    }
    if (++nodes > MAX_XML_NODES) return `more than ${MAX_XML_NODES} elements`;
    top.children.push(node);
    if (!selfClosing) {
      stack.push(node);
      if (stack.length > MAX_XML_DEPTH) return `elements nested more than ${MAX_XML_DEPTH} deep`;
    }
  }
  if (stack.length > 1) return `an unclosed <${stack[stack.length - 1]!.name.slice(0, 40)}>`;
  return root.children;
}

function splitName(qname: string): [prefix: string, local: string] {
  const c = qname.indexOf(":");
  return c < 0 ? ["", qname] : [qname.slice(0, c), qname.slice(c + 1)];
}

function isRdf(n: XmlNode, local: string): boolean {
  return n.name === `rdf:${local}`;
}

function attr(n: XmlNode, name: string): string | undefined {
  return n.attrs.find(([k]) => k === name)?.[1];
}

/** Attributes that are properties (not rdf:, xml:, xmlns). */
function propertyAttrs(n: XmlNode): [string, string][] {
  return n.attrs.filter(([k]) => !k.startsWith("rdf:") && !k.startsWith("xml:") && k !== "xmlns" && !k.startsWith("xmlns:"));
}

function elementChildren(n: XmlNode): XmlNode[] {
  return n.children;
}

/** Sets a key on a null-prototype object; the first value for a name wins. */
function put(o: Obj, key: string, value: unknown): void {
  if (!Object.prototype.hasOwnProperty.call(o, key)) Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
}

function structOf(n: XmlNode): Obj {
  const o = Object.create(null) as Obj;
  for (const [k, v] of propertyAttrs(n)) put(o, k, v);
  for (const c of elementChildren(n)) {
    if (isRdf(c, "Description")) {
      const inner = structOf(c);
      for (const k of Object.keys(inner)) put(o, k, inner[k]);
    } else put(o, c.name, xmpValue(c, 0));
  }
  return o;
}

function xmpValue(n: XmlNode, depth: number): unknown {
  if (depth > MAX_XML_DEPTH) return undefined;
  const resource = attr(n, "rdf:resource");
  if (resource !== undefined) return resource;
  if (attr(n, "rdf:parseType") === "Resource") return structOf(n);
  const kids = elementChildren(n);
  if (kids.length === 1 && (isRdf(kids[0]!, "Seq") || isRdf(kids[0]!, "Bag") || isRdf(kids[0]!, "Alt"))) {
    const list = kids[0]!;
    const items = elementChildren(list).filter((c) => isRdf(c, "li"));
    if (isRdf(list, "Alt") && items.length > 0 && items.every((li) => attr(li, "xml:lang") !== undefined)) {
      const o = Object.create(null) as Obj;
      for (const li of items) put(o, attr(li, "xml:lang")!, xmpValue(li, depth + 1));
      return o;
    }
    return items.map((li) => xmpValue(li, depth + 1));
  }
  if (kids.length > 0 || propertyAttrs(n).length > 0) {
    const value = attr(n, "rdf:value");
    const o = structOf(n);
    if (value !== undefined) put(o, "value", value);
    return o;
  }
  return n.text;
}

function findAll(nodes: XmlNode[], pred: (n: XmlNode) => boolean, out: XmlNode[] = [], depth = 0): XmlNode[] {
  if (depth > MAX_XML_DEPTH) return out;
  for (const n of nodes) {
    if (pred(n)) out.push(n);
    else findAll(n.children, pred, out, depth + 1);
  }
  return out;
}

/** XMP as { prefix: { name: value } } with values as written (strings stay strings), plus the namespaces. */
function parseXmp(text: string, p: Collector): { xmp?: Obj; namespaces?: Obj } {
  if (text.length > MAX_XMP_CHARS) {
    p.add(`The XMP packet is ${text.length} characters long; only packets up to ${MAX_XMP_CHARS} are parsed (it is kept raw).`);
    return {};
  }
  const tree = parseXml(text);
  if (typeof tree === "string") {
    p.add(`The XMP packet is not well-formed XML (${tree}); it is kept raw, not parsed.`);
    return {};
  }
  const namespaces = Object.create(null) as Obj;
  const visit = (ns: XmlNode[], depth: number) => {
    if (depth > MAX_XML_DEPTH) return;
    for (const n of ns) {
      for (const [k, v] of n.attrs) if (k.startsWith("xmlns:")) put(namespaces, k.slice(6), v);
      visit(n.children, depth + 1);
    }
  };
  visit(tree, 0);
  const rdf = findAll(tree, (n) => isRdf(n, "RDF"));
  if (rdf.length === 0) {
    p.add("The XMP packet has no rdf:RDF element; it is kept raw, not parsed.");
    return { namespaces };
  }
  const xmp = Object.create(null) as Obj;
  const add = (qname: string, value: unknown) => {
    if (value === undefined) return;
    const [prefix, local] = splitName(qname);
    const bucketKey = prefix || "_";
    let bucket = Object.prototype.hasOwnProperty.call(xmp, bucketKey) ? (xmp[bucketKey] as Obj) : undefined;
    if (!bucket) {
      bucket = Object.create(null) as Obj;
      put(xmp, bucketKey, bucket);
    }
    put(bucket, local, value);
  };
  const meta = findAll(tree, (n) => n.name === "x:xmpmeta" || n.name === "x:xapmeta")[0];
  const toolkit = meta ? attr(meta, "x:xmptk") ?? attr(meta, "x:xaptk") : undefined;
  if (toolkit !== undefined) add("x:xmptk", toolkit);
  for (const r of rdf) {
    for (const d of r.children.filter((c) => isRdf(c, "Description"))) {
      for (const [k, v] of propertyAttrs(d)) add(k, v);
      for (const c of d.children) add(c.name, xmpValue(c, 0));
    }
  }
  return { xmp, namespaces };
}

// ───────────────────────────── IPTC ─────────────────────────────

/** The IPTC-IIM block inside Photoshop image resources (resource 0x0404). */
function iptcFromIrb(irb: Buffer, p: Collector): Buffer | undefined {
  let off = 0;
  let n = 0;
  while (off + 12 <= irb.length && n++ < 10_000) {
    if (irb.toString("latin1", off, off + 4) !== "8BIM") {
      p.add(`The Photoshop resource block is malformed at byte ${off}; IPTC after it was not read.`);
      return undefined;
    }
    const id = irb.readUInt16BE(off + 4);
    const nameLen = irb[off + 6]!;
    const nameField = nameLen + 1 + ((nameLen + 1) % 2);
    const sizeAt = off + 6 + nameField;
    if (sizeAt + 4 > irb.length) break;
    const size = irb.readUInt32BE(sizeAt);
    const dataAt = sizeAt + 4;
    if (dataAt + size > irb.length) {
      p.add(`A Photoshop resource (${hex(id)}) claims ${size} bytes, more than the segment holds; it was ignored.`);
      return undefined;
    }
    if (id === 0x0404) return Buffer.from(irb.subarray(dataAt, dataAt + size));
    off = dataAt + size + (size % 2);
  }
  return undefined;
}

/** Record-2 datasets stored as binary numbers rather than text. */
const IPTC_BINARY = new Set([0]);

function parseIptc(iim: Buffer, p: Collector): Obj {
  const names = exifr.tagKeys.get("iptc");
  const out = Object.create(null) as Obj;
  const values: { rec: number; ds: number; data: Buffer }[] = [];
  let utf8 = false;
  let off = 0;
  while (off < iim.length && values.length < 10_000) {
    if (iim[off] !== 0x1c) {
      if (iim.subarray(off).some((x) => x !== 0)) p.add(`The IPTC data has unexpected bytes at offset ${off}; the rest was not read.`);
      break;
    }
    if (off + 5 > iim.length) {
      p.add("The IPTC data ends inside a record header.");
      break;
    }
    const rec = iim[off + 1]!;
    const ds = iim[off + 2]!;
    let size = iim.readUInt16BE(off + 3);
    off += 5;
    if (size & 0x8000) {
      const n = size & 0x7fff;
      if (n > 4 || off + n > iim.length) {
        p.add(`The IPTC dataset ${rec}:${ds} has a malformed extended length; the rest was not read.`);
        break;
      }
      size = iim.readUIntBE(off, n);
      off += n;
    }
    if (off + size > iim.length) {
      p.add(`The IPTC dataset ${rec}:${ds} claims ${size} bytes, beyond the end of the IPTC data; it was ignored.`);
      break;
    }
    const data = iim.subarray(off, off + size);
    off += size;
    if (rec === 1 && ds === 90) utf8 = data.equals(Buffer.from([0x1b, 0x25, 0x47]));
    values.push({ rec, ds, data });
  }
  let guessed = false;
  for (const { rec, ds, data } of values) {
    const key = rec === 2 ? names?.get(ds) ?? `2:${ds}` : rec === 1 && ds === 90 ? "CodedCharacterSet" : `${rec}:${ds}`;
    let value: unknown;
    if (rec === 1 && ds === 90) value = utf8 ? "UTF-8" : bytesNote(data, "raw.iptc");
    else if (rec === 2 && IPTC_BINARY.has(ds) && data.length <= 4) value = data.length === 0 ? 0 : data.readUIntBE(0, data.length);
    else if (utf8) value = decodeUtf8(data, `The IPTC ${key}`, p);
    else if (data.every((x) => x < 0x80)) value = data.toString("latin1");
    else {
      try {
        value = utf8Strict.decode(data);
      } catch {
        guessed = true;
        value = latin1(data);
      }
    }
    const prev = Object.prototype.hasOwnProperty.call(out, key) ? out[key] : undefined;
    if (prev === undefined) put(out, key, value);
    else if (Array.isArray(prev)) prev.push(value);
    else out[key] = [prev, value];
  }
  if (guessed) p.add("IPTC text without a declared character set is not UTF-8; it was read as Latin-1.");
  return out;
}

// ───────────────────────────── ICC ─────────────────────────────

function fourcc(b: Buffer, at: number): string {
  return stripNul(b.toString("latin1", at, at + 4)).trim();
}

function parseIccHeader(icc: Buffer, p: Collector): Obj | undefined {
  if (icc.length < 132) {
    p.add("The ICC profile is shorter than its 128-byte header.");
    return undefined;
  }
  const v = icc[8]!;
  const out: Obj = {
    size: icc.readUInt32BE(0),
    cmm: fourcc(icc, 4),
    version: `${v}.${icc[9]! >> 4}.${icc[9]! & 15}`,
    deviceClass: fourcc(icc, 12),
    colorSpace: fourcc(icc, 16),
    connectionSpace: fourcc(icc, 20),
    platform: fourcc(icc, 40),
    manufacturer: fourcc(icc, 48),
    model: icc.readUInt32BE(52),
    creator: fourcc(icc, 80),
  };
  const [y, mo, d, h, mi, s] = [0, 1, 2, 3, 4, 5].map((k) => icc.readUInt16BE(24 + 2 * k));
  if (y && mo && d) {
    out.created = `${String(y).padStart(4, "0")}-${String(mo).padStart(2, "0")}-${String(d).padStart(2, "0")}T${String(h).padStart(2, "0")}:${String(mi).padStart(2, "0")}:${String(s).padStart(2, "0")}Z`;
  }
  const count = Math.min(icc.readUInt32BE(128), Math.floor((icc.length - 132) / 12));
  for (let i = 0; i < count; i++) {
    const e = 132 + 12 * i;
    if (icc.toString("latin1", e, e + 4) !== "desc") continue;
    const at = icc.readUInt32BE(e + 4);
    const size = icc.readUInt32BE(e + 8);
    if (at + size > icc.length || size < 12) break;
    const type = icc.toString("latin1", at, at + 4);
    if (type === "desc") {
      const n = icc.readUInt32BE(at + 8);
      if (at + 12 + n <= icc.length) out.description = stripNul(icc.toString("latin1", at + 12, at + 12 + n));
    } else if (type === "mluc" && size >= 28) {
      const len = icc.readUInt32BE(at + 20);
      const off = icc.readUInt32BE(at + 24);
      if (at + off + len <= icc.length) {
        const u = Buffer.from(icc.subarray(at + off, at + off + len - (len % 2)));
        out.description = stripNul(u.swap16().toString("utf16le"));
      }
    }
    break;
  }
  return out;
}

// ───────────────────────────── JSON safety & sensitivity ─────────────────────────────

function toJson(v: unknown, path: string, p: Collector, depth = 0): Json | undefined {
  if (depth > 16) {
    p.add(`The metadata at ${path} is nested too deeply; it was cut.`);
    return undefined;
  }
  if (v === null || v === undefined) return v === null ? null : undefined;
  if (typeof v === "string") {
    if (v.includes("\uFFFD")) p.add(`The metadata field ${path} holds bytes that are not valid text; they were replaced.`);
    if (v.length > MAX_PARSED_STRING) {
      p.add(`The metadata field ${path} is ${v.length} characters long; the parsed view keeps the first ${MAX_PARSED_STRING}.`);
      return `${v.slice(0, MAX_PARSED_STRING)}…`;
    }
    return v;
  }
  if (typeof v === "number") {
    if (Number.isFinite(v)) return v;
    p.add(`The metadata field ${path} is not a finite number (a zero denominator?); it is shown as null.`);
    return null;
  }
  if (typeof v === "boolean") return v;
  if (typeof v === "bigint") return v.toString();
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? null : v.toISOString();
  if (v instanceof Uint8Array) return bytesNote(v, "raw");
  if (ArrayBuffer.isView(v) || Array.isArray(v)) {
    const arr = Array.from(v as ArrayLike<unknown>);
    if (arr.length > MAX_ARRAY) {
      p.add(`The metadata field ${path} has ${arr.length} values; the parsed view keeps the first ${MAX_ARRAY}.`);
    }
    const out: Json[] = [];
    for (let i = 0; i < Math.min(arr.length, MAX_ARRAY); i++) {
      const x = toJson(arr[i], `${path}[${i}]`, p, depth + 1);
      out.push(x === undefined ? null : x);
    }
    return out;
  }
  if (typeof v === "object") {
    const out: { [k: string]: Json } = {};
    for (const k of Object.keys(v)) {
      if (RESERVED_KEYS.has(k)) {
        p.add(`A metadata field named "${k}" at ${path} was dropped (the name is reserved).`);
        continue;
      }
      const x = toJson((v as Obj)[k], path ? `${path}.${k}` : k, p, depth + 1);
      if (x !== undefined) out[k] = x;
    }
    return out;
  }
  return String(v);
}

/** Field names that can identify a person, a camera, a place or a computer. */
const SENSITIVE_NAME =
  /serial|owner|artist|author|creator(?!tool)|copyright|rights|by-?line|credit|^source$|contact|writer|comment|hostcomputer|documentname|uniqueid|documentid|instanceid|derivedfrom|history|path|filename|city|country|province|state$|sub-?location|^location|locationcreated|locationshown|email|phone|address|description|caption|title|headline|keywords|subject$|instructions|person|gps|latitude|longitude|altitude|makernote|nickname/i;
/** Whole XMP namespaces about rights, provenance, owner and place. */
const SENSITIVE_XMP_NS = new Set(["xmpRights", "xmpMM", "aux", "Iptc4xmpCore", "Iptc4xmpExt", "plus", "photoshop"]);

function sensitivePaths(parsed: { [k: string]: Json }): string[] {
  const out: string[] = [];
  const fields = (block: string, all: boolean) => {
    const b = parsed[block];
    if (typeof b !== "object" || b === null || Array.isArray(b)) return;
    for (const k of Object.keys(b)) if (all || SENSITIVE_NAME.test(k)) out.push(`${block}.${k}`);
  };
  for (const block of ["ifd0", "exif", "interop", "ifd1", "iptc"]) fields(block, false);
  fields("gps", true);
  fields("png", true);
  if (parsed.comment !== undefined) out.push("comment");
  const xmp = parsed.xmp;
  if (typeof xmp === "object" && xmp !== null && !Array.isArray(xmp)) {
    for (const ns of Object.keys(xmp)) {
      const b = xmp[ns];
      if (typeof b !== "object" || b === null || Array.isArray(b)) continue;
      for (const k of Object.keys(b)) if (SENSITIVE_XMP_NS.has(ns) || SENSITIVE_NAME.test(k)) out.push(`xmp.${ns}.${k}`);
    }
  }
  return out.sort();
}

function str(v: Json | undefined): string | undefined {
  if (typeof v === "number") return String(v);
  if (typeof v !== "string") return undefined;
  const s = v.trim();
  return s === "" ? undefined : s;
}

function get(o: Json | undefined, ...path: string[]): Json | undefined {
  let cur: Json | undefined = o;
  for (const k of path) {
    if (typeof cur !== "object" || cur === null || Array.isArray(cur)) return undefined;
    cur = Object.prototype.hasOwnProperty.call(cur, k) ? cur[k] : undefined;
  }
  return cur;
}

// ───────────────────────────── entry points ─────────────────────────────

async function extract(bytes: Buffer, out: PhotoMetadata, p: Collector): Promise<void> {
  const format = sniff(bytes);
  let found: Found;
  if (format === "jpeg") found = readJpeg(bytes, p);
  else if (format === "png") found = readPng(bytes, p);
  else if (format === "webp") found = readWebp(bytes, p);
  else if (format === "tiff") found = { format, comments: [], segments: [] };
  else {
    p.add(
      format === "heif"
        ? "HEIF/AVIF metadata is not read on the fast path; run deepMetadata on this file."
        : "The file is not a JPEG, PNG, WebP or TIFF; no metadata was read from it.",
    );
    out.parsed = { file: { format } };
    return;
  }
  const parsed: Obj = {};
  const file: Obj = { format: found.format };
  if (found.segments.length > 0) file.segments = found.segments;
  parsed.file = file;
  if (found.jfif) parsed.jfif = found.jfif;

  const extras: TiffExtras = {};
  const tiffSource = format === "tiff" ? bytes : found.exif;
  if (found.exif) out.raw.exif = found.exif;
  if (tiffSource) {
    const safe = guardTiff(tiffSource, p, extras);
    if (safe) Object.assign(parsed, await parseExif(safe, p));
  }

  const xmpBytes = found.xmp ?? extras.xmp;
  if (xmpBytes) {
    const text = stripNul(decodeUtf8(xmpBytes, "The XMP packet", p));
    out.raw.xmp = text;
    const { xmp, namespaces } = parseXmp(text, p);
    if (xmp && Object.keys(xmp).length > 0) parsed.xmp = xmp;
    if (namespaces && Object.keys(namespaces).length > 0) parsed.xmpNamespaces = namespaces;
  }
  if (found.xmpExtended) out.raw.xmpExtended = stripNul(decodeUtf8(found.xmpExtended, "The extended XMP", p));

  const iim = extras.iptc ?? (found.iptcIrb ? iptcFromIrb(found.iptcIrb, p) : undefined);
  if (iim) {
    out.raw.iptc = iim;
    const iptc = parseIptc(iim, p);
    if (Object.keys(iptc).length > 0) parsed.iptc = iptc;
  }

  const icc = found.icc ?? extras.icc;
  if (icc || found.iccPresent) {
    out.raw.icc = true;
    const header = icc ? parseIccHeader(icc, p) : undefined;
    if (header) parsed.icc = header;
  }
  if (found.comments.length > 0) parsed.comment = found.comments.length === 1 ? found.comments[0] : found.comments;
  if (found.pngText) parsed.png = found.pngText;

  const json = (toJson(parsed, "", p) ?? {}) as { [k: string]: Json };
  out.parsed = json;
  out.sensitive = sensitivePaths(json);

  const make = str(get(json, "ifd0", "Make"));
  const model = str(get(json, "ifd0", "Model"));
  const serial =
    str(get(json, "exif", "SerialNumber")) ??
    str(get(json, "ifd0", "CameraSerialNumber")) ??
    str(get(json, "xmp", "aux", "SerialNumber")) ??
    str(get(json, "xmp", "exifEX", "BodySerialNumber"));
  if (make) out.camera.make = make;
  if (model) out.camera.model = model;
  if (serial) out.camera.serial = serial;

  const original = get(json, "exif", "DateTimeOriginal");
  const xmpOriginal = get(json, "xmp", "exif", "DateTimeOriginal");
  if (typeof original === "string" && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/.test(original)) {
    out.captureTime = original;
  } else if (typeof xmpOriginal === "string" && /^\d{4}-\d{2}-\d{2}(T|$)/.test(xmpOriginal)) {
    out.captureTime = xmpOriginal;
  }
  const w = found.width ?? get(json, "exif", "ExifImageWidth") ?? get(json, "ifd0", "ImageWidth");
  const h = found.height ?? get(json, "exif", "ExifImageHeight") ?? get(json, "ifd0", "ImageHeight");
  if (typeof w === "number" && w > 0) out.width = w;
  if (typeof h === "number" && h > 0) out.height = h;
  const orientation = get(json, "ifd0", "Orientation");
  if (typeof orientation === "number") {
    if (Number.isInteger(orientation) && orientation >= 1 && orientation <= 8) out.orientation = orientation;
    else p.add(`EXIF Orientation is ${orientation}, outside 1..8; it was ignored.`);
  }
  const software = str(get(json, "ifd0", "Software")) ?? str(get(json, "xmp", "xmp", "CreatorTool"));
  if (software) out.software = software;
}

/**
 * Reads the metadata of one photo held in memory. Never throws: anything malformed, however hostile, ends up
 * as a sentence in `problems`, and the work done is bounded by the size of the metadata blocks.
 */
export async function extractMetadata(bytes: Buffer): Promise<PhotoMetadata> {
  const p = new Collector();
  const out: PhotoMetadata = { raw: {}, parsed: {}, camera: {}, sensitive: [], problems: p.problems };
  try {
    await extract(bytes, out, p);
  } catch (err) {
    p.add(`Metadata extraction stopped early (${err instanceof Error ? err.message.split("\n")[0] : String(err)}).`);
  }
  return out;
}

// ───────────────────────────── exiftool (deep re-extraction) ─────────────────────────────

export interface DeepMetadata {
  tool: "exiftool";
  version: string;
  /** Every tag exiftool finds, keyed "Group:Tag" (family-1 groups, duplicates and unknown tags included). */
  tags: Record<string, unknown>;
}

let exiftool: ExifTool | undefined;
let exiftoolVersion: Promise<string> | undefined;

/**
 * The forensic reference: runs exiftool (maker notes decoded, every group, duplicates and unknown tags) on a
 * file. Slower than extractMetadata by two orders of magnitude and needs a path, so it is meant for a
 * background job or an examiner's request, not the ingest loop. One exiftool process is kept running between
 * calls; call endDeepMetadata() when done so the process (and the Node process) can exit.
 */
export async function deepMetadata(filePath: string): Promise<DeepMetadata> {
  if (!exiftool) {
    // Loaded on first use: exiftool-vendored starts a Perl process and is heavy; only deep reads need it.
    const { ExifTool: Tool } = await import("exiftool-vendored");
    exiftool = new Tool({ maxProcs: 1, taskTimeoutMillis: 60_000 });
    exiftoolVersion = exiftool.version();
  }
  const tool = exiftool;
  const [version, tags] = await Promise.all([
    exiftoolVersion ?? tool.version(),
    tool.readRaw(filePath, { readArgs: ["-G1", "-a", "-u"], useMWG: false }),
  ]);
  const p = new Collector();
  const json = (toJson(tags, "", p) ?? {}) as Record<string, unknown>;
  delete json.SourceFile;
  return { tool: "exiftool", version, tags: json };
}

/** Stops the exiftool process deepMetadata started, if any. */
export async function endDeepMetadata(): Promise<void> {
  const tool = exiftool;
  exiftool = undefined;
  exiftoolVersion = undefined;
  if (tool) await tool.end();
}
