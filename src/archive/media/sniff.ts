/**
 * What a file is, from its first bytes only. A card's file names are whatever the camera (or whoever handled
 * the card since) wrote, so the extension is never consulted. Give the first 64 KiB when you have them
 * (SNIFF_BYTES): TIFF-based RAW files are told apart by tags in their first directory, MP3 by a second frame.
 */
export type SniffKind = "image" | "raw" | "video" | "audio" | "document" | "archive" | "text" | "unknown";

export interface Sniffed {
  format: string;
  mime: string;
  kind: SniffKind;
}

export const SNIFF_BYTES = 64 * 1024;

const UNKNOWN: Sniffed = { format: "unknown", mime: "application/octet-stream", kind: "unknown" };

function is(head: Buffer, at: number, bytes: readonly number[] | string): boolean {
  const want = typeof bytes === "string" ? Buffer.from(bytes, "latin1") : Buffer.from(bytes);
  if (head.length < at + want.length) return false;
  return head.subarray(at, at + want.length).equals(want);
}

function ascii(head: Buffer, at: number, n: number): string {
  return head.subarray(at, at + n).toString("latin1");
}

export function sniffFormat(head: Buffer): Sniffed {
  if (head.length === 0) return UNKNOWN;
  if (is(head, 0, [0xff, 0xd8, 0xff])) return { format: "jpeg", mime: "image/jpeg", kind: "image" };
  if (is(head, 0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return { format: "png", mime: "image/png", kind: "image" };
  if (is(head, 0, "GIF87a") || is(head, 0, "GIF89a")) return { format: "gif", mime: "image/gif", kind: "image" };

  const tiffish = sniffTiffFamily(head);
  if (tiffish) return tiffish;
  if (is(head, 0, "FUJIFILMCCD-RAW")) return { format: "raf", mime: "image/x-fuji-raf", kind: "raw" };
  if (is(head, 0, [0x00, 0x4d, 0x52, 0x4d])) return { format: "mrw", mime: "image/x-minolta-mrw", kind: "raw" };

  const bmff = sniffIsoBmff(head);
  if (bmff) return bmff;

  if (is(head, 0, "RIFF") && head.length >= 12) {
    const form = ascii(head, 8, 4);
    if (form === "AVI ") return { format: "avi", mime: "video/x-msvideo", kind: "video" };
    if (form === "WAVE") return { format: "wav", mime: "audio/wav", kind: "audio" };
    if (form === "WEBP") return { format: "webp", mime: "image/webp", kind: "image" };
  }
  if (looksLikeBmp(head)) return { format: "bmp", mime: "image/bmp", kind: "image" };
  if (head.subarray(0, 1024).includes("%PDF-", 0, "latin1")) return { format: "pdf", mime: "application/pdf", kind: "document" };
  if (is(head, 0, [0x50, 0x4b, 0x03, 0x04]) || is(head, 0, [0x50, 0x4b, 0x05, 0x06]) || is(head, 0, [0x50, 0x4b, 0x07, 0x08])) {
    return { format: "zip", mime: "application/zip", kind: "archive" };
  }
  if (is(head, 0, [0x1f, 0x8b])) return { format: "gzip", mime: "application/gzip", kind: "archive" };
  if (is(head, 0, [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c])) return { format: "7z", mime: "application/x-7z-compressed", kind: "archive" };
  if (is(head, 0, "Rar!\x1a\x07")) return { format: "rar", mime: "application/vnd.rar", kind: "archive" };
  if (is(head, 0, [0x00, 0x00, 0x01, 0xba])) return { format: "mpeg-ps", mime: "video/mpeg", kind: "video" };
  if (looksLikeTransportStream(head)) return { format: "mpeg-ts", mime: "video/mp2t", kind: "video" };
  if (is(head, 0, "ID3")) return { format: "mp3", mime: "audio/mpeg", kind: "audio" };
  const audio = sniffMpegAudio(head);
  if (audio) return audio;
  if (looksLikeText(head)) return { format: "text", mime: "text/plain", kind: "text" };
  return UNKNOWN;
}

// --- TIFF and the RAW formats built on it --------------------------------------------------------------------

interface Ifd {
  get(tag: number): { type: number; count: number; valueAt: number } | undefined;
}

function readIfd(head: Buffer, le: boolean, offset: number): Ifd | undefined {
  if (offset < 8 || offset + 2 > head.length) return undefined;
  const u16 = (o: number) => (le ? head.readUInt16LE(o) : head.readUInt16BE(o));
  const u32 = (o: number) => (le ? head.readUInt32LE(o) : head.readUInt32BE(o));
  const n = u16(offset);
  const tags = new Map<number, { type: number; count: number; valueAt: number }>();
  for (let i = 0; i < n && i < 1000; i++) {
    const at = offset + 2 + i * 12;
    if (at + 12 > head.length) break;
    const tag = u16(at);
    const type = u16(at + 2);
    const count = u32(at + 4);
    const size = (TYPE_SIZE[type] ?? 1) * count;
    const valueAt = size <= 4 ? at + 8 : u32(at + 8);
    tags.set(tag, { type, count, valueAt });
  }
  return { get: (t) => tags.get(t) };
}

const TYPE_SIZE: Record<number, number> = { 1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 11: 4, 12: 8, 13: 4 };

const RAW_BY_MAKE: ReadonlyArray<[RegExp, Sniffed]> = [
  [/^NIKON/i, { format: "nef", mime: "image/x-nikon-nef", kind: "raw" }],
  [/^SONY/i, { format: "arw", mime: "image/x-sony-arw", kind: "raw" }],
  [/^Canon/i, { format: "cr2", mime: "image/x-canon-cr2", kind: "raw" }],
  [/^(PENTAX|RICOH)/i, { format: "pef", mime: "image/x-pentax-pef", kind: "raw" }],
  [/^SAMSUNG/i, { format: "srw", mime: "image/x-samsung-srw", kind: "raw" }],
  [/^KODAK|^EASTMAN KODAK/i, { format: "dcr", mime: "image/x-kodak-dcr", kind: "raw" }],
];

function sniffTiffFamily(head: Buffer): Sniffed | undefined {
  if (is(head, 0, "IIRO") || is(head, 0, "IIRS") || is(head, 0, "MMOR")) return { format: "orf", mime: "image/x-olympus-orf", kind: "raw" };
  if (is(head, 0, [0x49, 0x49, 0x55, 0x00])) return { format: "rw2", mime: "image/x-panasonic-rw2", kind: "raw" };
  if (is(head, 0, [0x49, 0x49, 0x1a, 0x00, 0x00, 0x00]) && is(head, 6, "HEAPCCDR")) return { format: "crw", mime: "image/x-canon-crw", kind: "raw" };
  const le = is(head, 0, [0x49, 0x49, 0x2a, 0x00]);
  const be = is(head, 0, [0x4d, 0x4d, 0x00, 0x2a]);
  if (is(head, 0, [0x49, 0x49, 0x2b, 0x00]) || is(head, 0, [0x4d, 0x4d, 0x00, 0x2b])) return { format: "tiff", mime: "image/tiff", kind: "image" };
  if (!le && !be) return undefined;
  if (le && is(head, 8, [0x43, 0x52, 0x02])) return { format: "cr2", mime: "image/x-canon-cr2", kind: "raw" };
  const first = head.length >= 8 ? (le ? head.readUInt32LE(4) : head.readUInt32BE(4)) : 0;
  const ifd = readIfd(head, le, first);
  const plain: Sniffed = { format: "tiff", mime: "image/tiff", kind: "image" };
  if (!ifd) return plain;
  if (ifd.get(0xc612)) return { format: "dng", mime: "image/x-adobe-dng", kind: "raw" };
  // A camera's RAW keeps a preview in its first directory and the sensor data in a sub-directory (or says CFA
  // outright); a TIFF a camera or scanner writes as a finished picture does neither.
  const subfile = ifd.get(0x00fe);
  const photometric = ifd.get(0x0106);
  const readShortOrLong = (e: { type: number; valueAt: number } | undefined): number | undefined => {
    if (!e || e.valueAt + 4 > head.length) return undefined;
    if (e.type === 3) return le ? head.readUInt16LE(e.valueAt) : head.readUInt16BE(e.valueAt);
    if (e.type === 4) return le ? head.readUInt32LE(e.valueAt) : head.readUInt32BE(e.valueAt);
    return undefined;
  };
  const subfileType = readShortOrLong(subfile);
  const photo = readShortOrLong(photometric);
  const rawish = ifd.get(0x014a) !== undefined || (subfileType !== undefined && (subfileType & 1) === 1) || photo === 32803 || photo === 34892;
  if (!rawish) return plain;
  const make = ifd.get(0x010f);
  if (make && make.type === 2 && make.valueAt + make.count <= head.length) {
    const text = head.subarray(make.valueAt, make.valueAt + make.count).toString("latin1").replace(/\0.*$/s, "").trim();
    for (const [re, sniffed] of RAW_BY_MAKE) if (re.test(text)) return sniffed;
  }
  return { format: "raw-tiff", mime: "image/tiff", kind: "raw" };
}

// --- ISO base media file format (MP4, MOV, HEIF, CR3) ---------------------------------------------------------

const BMFF_BRANDS: ReadonlyArray<[ReadonlyArray<string>, Sniffed]> = [
  [["crx "], { format: "cr3", mime: "image/x-canon-cr3", kind: "raw" }],
  [["heic", "heix", "heim", "heis", "hevc", "hevx", "hevm", "hevs"], { format: "heic", mime: "image/heic", kind: "image" }],
  [["avif", "avis"], { format: "avif", mime: "image/avif", kind: "image" }],
  [["mif1", "msf1"], { format: "heif", mime: "image/heif", kind: "image" }],
  [["qt  "], { format: "mov", mime: "video/quicktime", kind: "video" }],
  [["M4A ", "M4B "], { format: "m4a", mime: "audio/mp4", kind: "audio" }],
  [["3gp4", "3gp5", "3gp6", "3gp7", "3gg6", "3g2a", "3g2b", "3g2c"], { format: "3gp", mime: "video/3gpp", kind: "video" }],
];
const MP4: Sniffed = { format: "mp4", mime: "video/mp4", kind: "video" };

function sniffIsoBmff(head: Buffer): Sniffed | undefined {
  if (head.length >= 12 && is(head, 4, "ftyp")) {
    const boxSize = head.readUInt32BE(0);
    const major = ascii(head, 8, 4);
    const compatible: string[] = [];
    for (let at = 16; at + 4 <= Math.min(boxSize, head.length, 256); at += 4) compatible.push(ascii(head, at, 4));
    for (const [brands, sniffed] of BMFF_BRANDS) if (brands.includes(major)) {
      // A generic HEIF major brand with a more specific compatible brand (HEIC, AVIF) is that format.
      if (sniffed.format === "heif") {
        for (const [more, specific] of BMFF_BRANDS) if (specific.format !== "heif" && specific.kind === "image" && compatible.some((c) => more.includes(c))) return specific;
      }
      return sniffed;
    }
    for (const [brands, sniffed] of BMFF_BRANDS) if (sniffed.kind !== "video" && sniffed.kind !== "audio" && compatible.some((c) => brands.includes(c))) return sniffed;
    return MP4;
  }
  // QuickTime files older than the ftyp box begin straight with one of these atoms.
  if (head.length >= 8 && ["moov", "mdat", "wide", "pnot", "skip", "free"].includes(ascii(head, 4, 4))) {
    const size = head.readUInt32BE(0);
    if (size >= 8 || size === 0 || size === 1) return { format: "mov", mime: "video/quicktime", kind: "video" };
  }
  return undefined;
}

// --- the rest -----------------------------------------------------------------------------------------------

function looksLikeBmp(head: Buffer): boolean {
  if (!is(head, 0, "BM") || head.length < 18) return false;
  const dib = head.readUInt32LE(14);
  const reservedZero = head.readUInt32LE(6) === 0;
  return reservedZero && [12, 16, 40, 52, 56, 64, 108, 124].includes(dib);
}

function looksLikeTransportStream(head: Buffer): boolean {
  // 188-byte packets (camcorder .MTS files prefix each with a 4-byte timestamp: 192 bytes).
  for (const [stride, first] of [[188, 0], [192, 4]] as const) {
    if (head.length < first + stride * 3 + 1) continue;
    let ok = true;
    for (let i = 0; i < 4 && first + i * stride < head.length; i++) if (head[first + i * stride] !== 0x47) ok = false;
    if (ok) return true;
  }
  return false;
}

const MP3_BITRATES_V1_L3 = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320];
const MP3_BITRATES_V2_L3 = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160];
const SAMPLE_RATES: Record<number, number[]> = { 3: [44100, 48000, 32000], 2: [22050, 24000, 16000], 0: [11025, 12000, 8000] };

function mp3FrameLength(head: Buffer, at: number): number | undefined {
  if (at + 4 > head.length) return undefined;
  const b1 = head[at + 1] as number;
  const b2 = head[at + 2] as number;
  if (head[at] !== 0xff || (b1 & 0xe0) !== 0xe0) return undefined;
  const version = (b1 >> 3) & 3;
  const layer = (b1 >> 1) & 3;
  if (version === 1 || layer !== 1) return undefined;
  const bitrateIndex = b2 >> 4;
  const rateIndex = (b2 >> 2) & 3;
  if (bitrateIndex === 0 || bitrateIndex === 15 || rateIndex === 3) return undefined;
  const bitrate = ((version === 3 ? MP3_BITRATES_V1_L3 : MP3_BITRATES_V2_L3)[bitrateIndex] as number) * 1000;
  const rate = (SAMPLE_RATES[version] as number[])[rateIndex] as number;
  const padding = (b2 >> 1) & 1;
  return Math.floor(((version === 3 ? 144 : 72) * bitrate) / rate) + padding;
}

function sniffMpegAudio(head: Buffer): Sniffed | undefined {
  const len = mp3FrameLength(head, 0);
  if (len !== undefined) {
    // One frame header is 11 set bits and a few fields: chance alone produces it. Require the next frame
    // where the first says it will be, unless the sample is too short to tell.
    if (len + 4 > head.length || mp3FrameLength(head, len) !== undefined) return { format: "mp3", mime: "audio/mpeg", kind: "audio" };
    return undefined;
  }
  // ADTS AAC (layer bits 00), the audio some voice recorders write.
  if (head.length >= 7 && head[0] === 0xff && ((head[1] as number) & 0xf6) === 0xf0) {
    const frame = (((head[3] as number) & 3) << 11) | ((head[4] as number) << 3) | ((head[5] as number) >> 5);
    if (frame >= 7 && (frame + 2 > head.length || (head[frame] === 0xff && ((head[frame + 1] as number) & 0xf6) === 0xf0))) {
      return { format: "aac", mime: "audio/aac", kind: "audio" };
    }
  }
  return undefined;
}

function looksLikeText(head: Buffer): boolean {
  const sample = head.subarray(0, 8192);
  if (is(sample, 0, [0xef, 0xbb, 0xbf])) return validUtf8Text(sample.subarray(3));
  if (is(sample, 0, [0xff, 0xfe]) || is(sample, 0, [0xfe, 0xff])) return sample.length >= 4;
  return validUtf8Text(sample);
}

function validUtf8Text(sample: Buffer): boolean {
  if (sample.length === 0) return false;
  let control = 0;
  let i = 0;
  while (i < sample.length) {
    const b = sample[i] as number;
    if (b === 0) return false;
    if (b < 0x80) {
      if (b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d && b !== 0x0c && b !== 0x1b) control++;
      if (b === 0x7f) control++;
      i++;
      continue;
    }
    const need = b >= 0xf0 && b <= 0xf4 ? 3 : b >= 0xe0 ? 2 : b >= 0xc2 && b < 0xe0 ? 1 : -1;
    if (need < 0 || b > 0xf4) return false;
    for (let k = 1; k <= need; k++) {
      // A multi-byte character cut off by the end of the sample is not evidence against text.
      if (i + k >= sample.length) return control * 100 <= sample.length;
      if (((sample[i + k] as number) & 0xc0) !== 0x80) return false;
    }
    i += need + 1;
  }
  return control * 100 <= sample.length;
}
