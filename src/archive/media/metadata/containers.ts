/** Finding the metadata blocks in JPEG, PNG and WebP files (markers, chunks), bounded and never trusting a length. */
import { inflateSync } from "node:zlib";
import { Collector, decodeUtf8, hex, latin1, printable, type Obj } from "./text.ts";

export interface Found {
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

export const XMP_ID = "http://ns.adobe.com/xap/1.0/\0";
export const XMP_EXT_ID = "http://ns.adobe.com/xmp/extension/\0";

export function sniff(b: Buffer): string {
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
export function appIdent(payload: Buffer): string {
  let s = "";
  for (let i = 0; i < payload.length && i < 20; i++) {
    const c = payload[i]!;
    if (c === 0) break;
    if (c < 0x20 || c > 0x7e) return s || "?";
    s += String.fromCharCode(c);
  }
  return s || "?";
}

export function readJpeg(b: Buffer, p: Collector): Found {
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

export function readPng(b: Buffer, p: Collector): Found {
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

export function inflateBounded(data: Buffer, what: string, p: Collector): Buffer | undefined {
  try {
    return inflateSync(data, { maxOutputLength: 4 * 1024 * 1024 });
  } catch {
    p.add(`${what} is compressed and does not inflate within 4 MB; it was not parsed.`);
    return undefined;
  }
}

export function readPngText(type: string, data: Buffer, f: Found, p: Collector): void {
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

export function readWebp(b: Buffer, p: Collector): Found {
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
