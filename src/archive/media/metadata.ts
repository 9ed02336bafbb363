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
import type { ExifTool } from "exiftool-vendored";
import { sensitiveMetadataPaths } from "../../core/sensitive-fields.ts";
import { readJpeg, readPng, readWebp, sniff, type Found } from "./metadata/containers.ts";
import { guardTiff, parseExif, type TiffExtras } from "./metadata/exif.ts";
import { parseIccHeader } from "./metadata/icc.ts";
import { iptcFromIrb, parseIptc } from "./metadata/iptc.ts";
import { get, str, toJson } from "./metadata/json.ts";
import { Collector, decodeUtf8, stripNul, type Json, type Obj } from "./metadata/text.ts";
import { parseXmp } from "./metadata/xmp.ts";


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
  out.sensitive = sensitiveMetadataPaths(json);

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
