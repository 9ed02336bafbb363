/**
 * A JPEG's structure, read marker by marker (ITU-T T.81 Annex B), never by scanning the whole file for byte
 * patterns: only the entropy-coded data after an SOS is stepped through, to find the marker that ends it.
 *
 * Pure: bytes in, a description out; never throws. A malformed or hostile file (lengths past the end, a
 * segment too short for its own header, missing EOI) is described as far as it can be and the fault is named in
 * `problems` with its parameters, so the caller words it.
 */

export interface MarkerEntry {
  /** The marker's second byte (0xD8 for SOI, 0xDB for DQT …). */
  code: number;
  offset: number;
  /** The segment's length field (excludes the marker; includes itself); 0 for markers without a segment. */
  length: number;
}

export interface QuantTable {
  id: number;
  precision: 8 | 16;
  /** 64 values in the order the file stores them (zig-zag, T.81 Figure A.6). */
  values: number[];
}

export interface HuffmanTable {
  tableClass: 0 | 1; // 0 DC, 1 AC
  id: number;
  /** Codes of each length 1..16 (T.81 B.2.4.2). */
  counts: number[];
  symbols: number[];
}

export interface FrameComponent {
  id: number;
  h: number;
  v: number;
  tq: number;
}

export interface Frame {
  sof: number;
  kind: "baseline" | "extended" | "progressive" | "lossless" | "arithmetic" | "hierarchical";
  precision: number;
  width: number;
  height: number;
  components: FrameComponent[];
}

export interface AppSegment {
  n: number;
  /** The NUL-terminated identifier at the segment's start ("Exif", "JFIF", "http://ns.adobe.com/xap/1.0/", "Photoshop 3.0", "ICC_PROFILE", "Adobe" …), printable ASCII only. */
  identifier: string;
  offset: number;
  length: number;
}

export type ProblemCode =
  | "notJpeg"
  | "truncatedSegment"
  | "badSegmentLength"
  | "badTable"
  | "strayBytes"
  | "noEoi"
  | "noFrame"
  | "tooManySegments";

export interface StructureProblem {
  code: ProblemCode;
  params: Record<string, string | number>;
}

export interface JpegStructure {
  markers: MarkerEntry[];
  quantTables: QuantTable[];
  huffmanTables: HuffmanTable[];
  frame: Frame | null;
  /** "4:4:4", "4:2:2", "4:2:0", "4:4:0", "4:1:1", "gray" or "h×v,…" when unusual. */
  subsampling: string | null;
  restartInterval: number | null;
  /** Restart markers met in the entropy-coded data. */
  restartMarkers: number;
  scans: number;
  apps: AppSegment[];
  comments: string[];
  /** The TIFF structure of the first EXIF APP1 (after "Exif\0\0"). */
  exif: Uint8Array | null;
  /** The Photoshop image resources of APP13 (after "Photoshop 3.0\0"), segments joined. */
  photoshop: Uint8Array | null;
  /** Offset just past EOI, or null when the file ends without one. */
  end: number | null;
  /** Bytes after EOI (another image, a zip, padding …). */
  trailing: number;
  /** The first bytes after EOI are another JPEG (FF D8 FF). */
  trailingIsJpeg: boolean;
  problems: StructureProblem[];
}

/** A file may declare at most this many segments before we stop reading: a guard against crafted loops of tiny segments. */
const MAX_SEGMENTS = 4096;

const SOF_KIND: Record<number, Frame["kind"]> = {
  0xc0: "baseline",
  0xc1: "extended",
  0xc2: "progressive",
  0xc3: "lossless",
  0xc5: "hierarchical",
  0xc6: "hierarchical",
  0xc7: "hierarchical",
  0xc9: "arithmetic",
  0xca: "arithmetic",
  0xcb: "arithmetic",
  0xcd: "arithmetic",
  0xce: "arithmetic",
  0xcf: "arithmetic",
};

const NAMES: Record<number, string> = {
  0xd8: "SOI",
  0xd9: "EOI",
  0xda: "SOS",
  0xdb: "DQT",
  0xc4: "DHT",
  0xdd: "DRI",
  0xfe: "COM",
  0xcc: "DAC",
  0xdc: "DNL",
};

export function markerName(code: number): string {
  if (NAMES[code]) return NAMES[code]!;
  if (code >= 0xe0 && code <= 0xef) return `APP${code - 0xe0}`;
  if (code >= 0xd0 && code <= 0xd7) return `RST${code - 0xd0}`;
  if (SOF_KIND[code]) return `SOF${code - 0xc0}`;
  return `0x${code.toString(16).toUpperCase()}`;
}

function u16(b: Uint8Array, o: number): number {
  return (b[o]! << 8) | b[o + 1]!;
}

function identifier(b: Uint8Array, start: number, end: number): string {
  let s = "";
  for (let i = start; i < end && i < start + 40; i++) {
    const c = b[i]!;
    if (c === 0) break;
    if (c < 0x20 || c > 0x7e) return s;
    s += String.fromCharCode(c);
  }
  return s;
}

function subsamplingOf(components: FrameComponent[]): string {
  if (components.length === 1) return "gray";
  const [y, ...rest] = components;
  if (!y) return "unknown";
  const same = rest.every((c) => c.h === rest[0]!.h && c.v === rest[0]!.v);
  if (components.length === 3 && same && rest[0]!.h === 1 && rest[0]!.v === 1) {
    const key = `${y.h}x${y.v}`;
    const named: Record<string, string> = { "1x1": "4:4:4", "2x1": "4:2:2", "2x2": "4:2:0", "1x2": "4:4:0", "4x1": "4:1:1" };
    if (named[key]) return named[key]!;
  }
  return components.map((c) => `${c.h}x${c.v}`).join(",");
}

/** Reads the structure of a JPEG file. */
export function parseJpeg(bytes: Uint8Array): JpegStructure {
  const s: JpegStructure = {
    markers: [],
    quantTables: [],
    huffmanTables: [],
    frame: null,
    subsampling: null,
    restartInterval: null,
    restartMarkers: 0,
    scans: 0,
    apps: [],
    comments: [],
    exif: null,
    photoshop: null,
    end: null,
    trailing: 0,
    trailingIsJpeg: false,
    problems: [],
  };
  const n = bytes.length;
  if (n < 4 || bytes[0] !== 0xff || bytes[1] !== 0xd8) {
    s.problems.push({ code: "notJpeg", params: {} });
    return s;
  }
  s.markers.push({ code: 0xd8, offset: 0, length: 0 });
  const photoshopParts: Uint8Array[] = [];
  let p = 2;
  while (p < n) {
    if (s.markers.length > MAX_SEGMENTS) {
      s.problems.push({ code: "tooManySegments", params: { limit: MAX_SEGMENTS } });
      break;
    }
    if (bytes[p] !== 0xff) {
      // Between segments only fill bytes (0xFF) belong; anything else is garbage a writer left.
      const start = p;
      while (p < n && bytes[p] !== 0xff) p++;
      s.problems.push({ code: "strayBytes", params: { offset: start, bytes: p - start } });
      continue;
    }
    while (p < n && bytes[p] === 0xff) p++; // fill bytes
    if (p >= n) break;
    const code = bytes[p]!;
    const at = p - 1;
    p++;
    if (code === 0xd9) {
      s.markers.push({ code, offset: at, length: 0 });
      s.end = p;
      break;
    }
    if ((code >= 0xd0 && code <= 0xd7) || code === 0x01) {
      s.markers.push({ code, offset: at, length: 0 });
      continue;
    }
    if (p + 2 > n) {
      s.problems.push({ code: "truncatedSegment", params: { marker: markerName(code), offset: at, declared: 0, available: n - p } });
      break;
    }
    const length = u16(bytes, p);
    if (length < 2) {
      s.problems.push({ code: "badSegmentLength", params: { marker: markerName(code), offset: at, declared: length } });
      break;
    }
    if (p + length > n) {
      s.problems.push({ code: "truncatedSegment", params: { marker: markerName(code), offset: at, declared: length, available: n - p } });
      s.markers.push({ code, offset: at, length });
      break;
    }
    s.markers.push({ code, offset: at, length });
    const body = bytes.subarray(p + 2, p + length);
    readSegment(s, code, body, at, photoshopParts);
    p += length;
    if (code === 0xda) {
      s.scans++;
      p = skipEntropy(s, bytes, p);
    }
  }
  if (photoshopParts.length) s.photoshop = concat(photoshopParts);
  if (s.end === null) s.problems.push({ code: "noEoi", params: { size: n } });
  else {
    s.trailing = n - s.end;
    s.trailingIsJpeg = s.trailing >= 3 && bytes[s.end] === 0xff && bytes[s.end + 1] === 0xd8 && bytes[s.end + 2] === 0xff;
  }
  if (!s.frame) s.problems.push({ code: "noFrame", params: {} });
  return s;
}

/** Steps over entropy-coded data: a 0xFF followed by 0x00 is a stuffed byte, by RSTn a restart; any other marker ends the scan. */
function skipEntropy(s: JpegStructure, b: Uint8Array, p: number): number {
  const n = b.length;
  for (;;) {
    const i = b.indexOf(0xff, p);
    if (i < 0 || i + 1 >= n) return n;
    const next = b[i + 1]!;
    if (next === 0x00 || next === 0xff) {
      p = next === 0x00 ? i + 2 : i + 1;
      continue;
    }
    if (next >= 0xd0 && next <= 0xd7) {
      s.restartMarkers++;
      p = i + 2;
      continue;
    }
    return i;
  }
}

function readSegment(s: JpegStructure, code: number, body: Uint8Array, at: number, photoshop: Uint8Array[]): void {
  if (code === 0xdb) readDqt(s, body, at);
  else if (code === 0xc4) readDht(s, body, at);
  else if (SOF_KIND[code]) {
    if (body.length < 6) return void s.problems.push({ code: "badTable", params: { marker: markerName(code), offset: at } });
    const count = body[5]!;
    if (body.length < 6 + 3 * count) return void s.problems.push({ code: "badTable", params: { marker: markerName(code), offset: at } });
    const components: FrameComponent[] = [];
    for (let i = 0; i < count; i++) {
      const o = 6 + 3 * i;
      components.push({ id: body[o]!, h: body[o + 1]! >> 4, v: body[o + 1]! & 15, tq: body[o + 2]! });
    }
    if (!s.frame) {
      s.frame = { sof: code, kind: SOF_KIND[code]!, precision: body[0]!, height: u16(body, 1), width: u16(body, 3), components };
      s.subsampling = subsamplingOf(components);
    }
  } else if (code === 0xdd) {
    if (body.length < 2) return void s.problems.push({ code: "badTable", params: { marker: "DRI", offset: at } });
    s.restartInterval = u16(body, 0);
  } else if (code === 0xfe) {
    s.comments.push(Buffer.from(body.subarray(0, 4096)).toString("latin1"));
  } else if (code >= 0xe0 && code <= 0xef) {
    const id = identifier(body, 0, body.length);
    s.apps.push({ n: code - 0xe0, identifier: id, offset: at, length: body.length + 2 });
    if (code === 0xe1 && id === "Exif" && !s.exif && body.length > 6) s.exif = body.subarray(6);
    if (code === 0xed && id === "Photoshop 3.0") photoshop.push(body.subarray(14));
  }
}

function readDqt(s: JpegStructure, body: Uint8Array, at: number): void {
  let o = 0;
  while (o < body.length) {
    const pq = body[o]! >> 4;
    const id = body[o]! & 15;
    const size = pq === 0 ? 64 : 128;
    if (pq > 1 || o + 1 + size > body.length) {
      s.problems.push({ code: "badTable", params: { marker: "DQT", offset: at } });
      return;
    }
    const values: number[] = [];
    for (let k = 0; k < 64; k++) values.push(pq === 0 ? body[o + 1 + k]! : u16(body, o + 1 + 2 * k));
    s.quantTables.push({ id, precision: pq === 0 ? 8 : 16, values });
    o += 1 + size;
  }
}

function readDht(s: JpegStructure, body: Uint8Array, at: number): void {
  let o = 0;
  while (o < body.length) {
    if (o + 17 > body.length) return void s.problems.push({ code: "badTable", params: { marker: "DHT", offset: at } });
    const tc = body[o]! >> 4;
    const id = body[o]! & 15;
    const counts = Array.from(body.subarray(o + 1, o + 17));
    const total = counts.reduce((a, b) => a + b, 0);
    if (tc > 1 || total > 256 || o + 17 + total > body.length) {
      return void s.problems.push({ code: "badTable", params: { marker: "DHT", offset: at } });
    }
    s.huffmanTables.push({ tableClass: tc as 0 | 1, id, counts, symbols: Array.from(body.subarray(o + 17, o + 17 + total)) });
    o += 17 + total;
  }
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((a, p) => a + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

export interface PhotoshopResource {
  id: number;
  size: number;
  /** Offset of the data within the resource block. */
  offset: number;
}

/** The image resources of a Photoshop APP13 block (8BIM entries: id, Pascal name padded to even, size, data padded to even). */
export function photoshopResources(block: Uint8Array): { resources: PhotoshopResource[]; broken: boolean } {
  const resources: PhotoshopResource[] = [];
  let o = 0;
  while (o + 12 <= block.length) {
    const sig = String.fromCharCode(block[o]!, block[o + 1]!, block[o + 2]!, block[o + 3]!);
    if (sig !== "8BIM") return { resources, broken: true };
    const id = u16(block, o + 4);
    const nameLen = block[o + 6]!;
    let q = o + 7 + nameLen;
    if ((nameLen + 1) % 2) q++;
    if (q + 4 > block.length) return { resources, broken: true };
    const size = ((block[q]! << 24) >>> 0) + (block[q + 1]! << 16) + (block[q + 2]! << 8) + block[q + 3]!;
    q += 4;
    if (q + size > block.length) return { resources, broken: true };
    resources.push({ id, size, offset: q });
    o = q + size + (size % 2);
  }
  return { resources, broken: o !== block.length && block.length - o > 1 };
}
