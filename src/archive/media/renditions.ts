/**
 * Renditions of one photo for people to look at: a thumbnail, a preview and a heavily blurred preview, plus
 * the perceptual hash, all from a single decode of the original.
 *
 * Cost model (measured, see the report in docs/decisions/0003-metadata-extractor.md): decoding a 1600×1200
 * camera JPEG is most of the work and is bound by entropy decoding, so the original is decoded once, to a raw
 * working image no larger than the preview, and everything else is derived from that buffer. Each derived
 * image is a small sharp pipeline (or plain arithmetic for the tiny ones), so nothing is decoded twice.
 *
 * Renditions carry no metadata at all: they are built from raw pixels, so no EXIF, XMP, IPTC, ICC profile or
 * comment of the original can reach them (those can name the camera, its owner or a place).
 */
import sharp from "sharp";
import { say, type Said } from "../../core/messages.ts";
import { Invalid } from "../../core/errors.ts";
import { phashFromPixels, resampleArea, type Pixels } from "./phash.ts";

export const DEFAULT_MAX_PIXELS = 100_000_000;
/** Long edges in pixels; images are never enlarged. */
export const RENDITION_SIZES = { preview: 1280, blurred: 640, thumbnail: 320 } as const;
/**
 * The blurred preview keeps this many cells along the long edge and nothing finer. Even a face filling the
 * frame then spans only 4–5 cells: both eyes fall into one smudge and nothing recognisable is left (12 cells
 * still showed two eye blobs and a mouth on a test face; see test/archive/media/renditions.test.ts).
 */
export const BLUR_CELLS = 8;
const DEFAULT_TIMEOUT_SECONDS = 60;
/** Progressive JPEGs use about ten scans; thousands make a decoder re-run its whole pass thousands of times. */
const MAX_JPEG_SCANS = 400;
/** Raster formats a camera or scanner produces; sharp can also render SVG/PDF documents, which we refuse. */
const RASTER_FORMATS = new Set(["jpeg", "png", "webp", "tiff", "gif", "heif", "avif", "jp2"]);
const JPEG_OPTIONS = { quality: 80, mozjpeg: false, optimiseCoding: false, chromaSubsampling: "4:2:0" } as const;

export type RejectionReason = "decompression-bomb" | "truncated" | "corrupt" | "unsupported";

/** The bytes cannot be turned into renditions; `reason` says why in one word, the message in a sentence. */
export class MediaRejected extends Invalid {
  readonly reason: RejectionReason;
  constructor(reason: RejectionReason, message: string | Said) {
    super(message);
    this.name = "MediaRejected";
    this.reason = reason;
  }
}

export interface RenditionLimits {
  /** Refuse images declaring more pixels than this (default 100 megapixels). */
  maxPixels?: number;
  /** Give up decoding after this long (default 60 s); counted as a decompression bomb. */
  timeoutSeconds?: number;
}

export interface Renditions {
  thumbnail: Buffer;
  preview: Buffer;
  blurred: Buffer;
  /** The original's size as displayed, i.e. after its EXIF orientation is applied. */
  width: number;
  height: number;
  phash: string;
  /** The format sharp found in the bytes ("jpeg", "png", …). */
  format: string;
  /**
   * What the decoder objected to when the image is damaged but still decodable (e.g. "VipsJpeg: Corrupt JPEG
   * data: premature end of data segment"): the renditions show it, grey where data is lost. Worth recording.
   */
  warnings: string[];
}

interface Header {
  format: string;
  width: number;
  height: number;
  /** The embedded ICC profile describes sRGB, so converting through it would change nothing. */
  srgbProfile: boolean;
}

/** sRGB's red, green and blue colorants (D50-adapted XYZ) as ICC profiles record them. */
const SRGB_COLORANTS: Record<string, [number, number, number]> = {
  rXYZ: [0.4361, 0.2225, 0.0139],
  gXYZ: [0.3851, 0.7169, 0.0971],
  bXYZ: [0.1431, 0.0606, 0.7141],
};

/**
 * Whether an ICC profile is (a copy of) sRGB, judged by its primaries and its tone curve. Many files carry an
 * embedded sRGB profile; honouring it makes libvips run a full colour transform that doubles the cost of
 * decoding and changes no pixel, so such profiles are skipped. Any other profile (Adobe RGB, Display P3, a
 * linear or otherwise re-curved sRGB, CMYK) is applied.
 */
export function isSrgbProfile(icc: Buffer | undefined): boolean {
  if (!icc || icc.length < 132 || icc.toString("latin1", 16, 20) !== "RGB ") return false;
  const count = Math.min(icc.readUInt32BE(128), Math.floor((icc.length - 132) / 12));
  let matched = 0;
  for (let i = 0; i < count; i++) {
    const e = 132 + 12 * i;
    const sig = icc.toString("latin1", e, e + 4);
    const at = icc.readUInt32BE(e + 4);
    if (at + 20 > icc.length) return false;
    const want = SRGB_COLORANTS[sig];
    if (want) {
      if (icc.toString("latin1", at, at + 4) !== "XYZ ") return false;
      for (let k = 0; k < 3; k++) {
        if (Math.abs(icc.readInt32BE(at + 8 + 4 * k) / 65536 - want[k]!) > 0.003) return false;
      }
      matched++;
    } else if (sig === "rTRC" || sig === "gTRC" || sig === "bTRC") {
      // sRGB's curve is close to gamma 2.2 (a 2.4 power with a linear toe). A single gamma or a parametric
      // curve far from that is another encoding; a sampled curve (the usual sRGB form) is accepted.
      const type = icc.toString("latin1", at, at + 4);
      const points = type === "curv" ? icc.readUInt32BE(at + 8) : -1;
      let gamma: number | undefined;
      if (type === "curv" && points === 0) gamma = 1;
      else if (type === "curv" && points === 1) gamma = icc.readUInt16BE(at + 12) / 256;
      else if (type === "para") gamma = icc.readInt32BE(at + 12) / 65536;
      else if (type !== "curv") return false;
      if (gamma !== undefined && (gamma < 2 || gamma > 2.6)) return false;
    }
  }
  return matched === 3;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Turns a sharp/libvips failure into a MediaRejected with a sentence a custodian can act on. */
function rejection(err: unknown, timeoutSeconds: number): MediaRejected {
  if (err instanceof MediaRejected) return err;
  const m = messageOf(err);
  if (/pixel limit/i.test(m)) {
    return new MediaRejected("decompression-bomb", say("media.tooManyPixels"));
  }
  if (/timeout/i.test(m)) {
    return new MediaRejected("decompression-bomb", say("media.timeout", { seconds: timeoutSeconds }));
  }
  if (/unsupported image format|empty/i.test(m)) {
    return new MediaRejected("unsupported", say("media.notImage"));
  }
  if (/unsupported|not supported|no decoding plugin|codec/i.test(m)) {
    return new MediaRejected("unsupported", say("media.coding", { problem: firstLine(m) }));
  }
  if (/premature end|truncat|unexpected end|end of (file|stream|data)|not enough data|short read|read error/i.test(m)) {
    return new MediaRejected("truncated", say("media.truncated"));
  }
  return new MediaRejected("corrupt", say("media.damaged", { problem: firstLine(m) }));
}

function firstLine(m: string): string {
  const line = m.split("\n", 1)[0] ?? "";
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

/** Start-of-scan markers in a JPEG; 0xFF is byte-stuffed inside entropy data, so each FF DA is a real marker. */
function countJpegScans(bytes: Buffer, stopAt: number): number {
  let n = 0;
  let at = bytes.indexOf(SOS);
  while (at !== -1 && n < stopAt) {
    n++;
    at = bytes.indexOf(SOS, at + 2);
  }
  return n;
}
const SOS = Buffer.from([0xff, 0xda]);

/** Reads only the header: format and declared size, refused before any pixel is allocated. */
async function probe(bytes: Buffer, maxPixels: number, timeoutSeconds: number): Promise<Header> {
  if (bytes.length === 0) throw new MediaRejected("unsupported", say("media.empty"));
  let meta: sharp.Metadata;
  try {
    meta = await sharp(bytes, { limitInputPixels: false, failOn: "none" }).metadata();
  } catch (err) {
    throw rejection(err, timeoutSeconds);
  }
  const format = meta.format ?? "unknown";
  if (!RASTER_FORMATS.has(format)) {
    throw new MediaRejected("unsupported", say("media.notPhotoFormat", { format }));
  }
  const w = meta.width ?? 0;
  const h = meta.height ?? 0;
  if (!(w > 0 && h > 0)) throw new MediaRejected("corrupt", say("media.noSize"));
  if (w * h > maxPixels) {
    throw new MediaRejected("decompression-bomb", say("media.megapixels", { width: w, height: h, megapixels: ((w * h) / 1e6).toFixed(0), max: (maxPixels / 1e6).toFixed(0) }));
  }
  if (format === "jpeg" && countJpegScans(bytes, MAX_JPEG_SCANS + 1) > MAX_JPEG_SCANS) {
    throw new MediaRejected("decompression-bomb", say("media.jpegScans", { max: MAX_JPEG_SCANS }));
  }
  const turned = (meta.orientation ?? 1) >= 5;
  return { format, width: turned ? h : w, height: turned ? w : h, srgbProfile: isSrgbProfile(meta.icc) };
}

interface DecodeOptions {
  maxPixels: number;
  timeoutSeconds: number;
  ignoreIcc: boolean;
}

function decodeOnce(bytes: Buffer, o: DecodeOptions, failOn: "warning" | "truncated") {
  return sharp(bytes, { limitInputPixels: o.maxPixels, failOn, sequentialRead: true, ignoreIcc: o.ignoreIcc })
    .timeout({ seconds: o.timeoutSeconds })
    .autoOrient()
    .resize({ width: RENDITION_SIZES.preview, height: RENDITION_SIZES.preview, fit: "inside", withoutEnlargement: true })
    .flatten({ background: "#ffffff" })
    .toColourspace("srgb")
    .raw({ depth: "uchar" })
    .toBuffer({ resolveWithObject: true });
}

/**
 * Decodes once into 8-bit sRGB pixels no larger than the preview, orientation applied, alpha flattened onto
 * white. For JPEGs at least twice the preview size libvips decodes at 1/2, 1/4 or 1/8 scale directly.
 *
 * The decoder first runs strict. If it objects to damaged data (a corrupt entropy segment, say), the image is
 * decoded again tolerating everything short of truncation, so a damaged photo still gets renditions (grey
 * where data is lost) and the objection is returned in `warnings`. Healthy files are decoded once.
 */
async function decodeWorking(bytes: Buffer, o: DecodeOptions, warnings: string[]): Promise<Pixels> {
  let result: { data: Buffer; info: sharp.OutputInfo };
  try {
    result = await decodeOnce(bytes, o, "warning");
  } catch (strict) {
    const first = rejection(strict, o.timeoutSeconds);
    if (first.reason === "decompression-bomb" || first.reason === "unsupported") throw first;
    try {
      result = await decodeOnce(bytes, o, "truncated");
    } catch (lenient) {
      throw rejection(lenient, o.timeoutSeconds);
    }
    warnings.push(firstLine(messageOf(strict)));
  }
  const { data, info } = result;
  return { data, width: info.width, height: info.height, channels: info.channels };
}

function rawInput(px: Pixels): sharp.SharpOptions {
  return { raw: { width: px.width, height: px.height, channels: px.channels as 1 | 2 | 3 | 4 } };
}

function encodeJpeg(px: Pixels): Promise<Buffer> {
  return sharp(px.data, rawInput(px)).jpeg(JPEG_OPTIONS).toBuffer();
}

async function shrink(px: Pixels, longEdge: number): Promise<Pixels> {
  const { data, info } = await sharp(px.data, rawInput(px))
    .resize({ width: longEdge, height: longEdge, fit: "inside", withoutEnlargement: true })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: info.channels };
}

function fitInside(w: number, h: number, longEdge: number): [number, number] {
  const s = Math.min(1, longEdge / Math.max(w, h));
  return [Math.max(1, Math.round(w * s)), Math.max(1, Math.round(h * s))];
}

/**
 * Cubic B-spline weights for enlarging `src` samples to `dst`: 4 taps per target, clamped at the edges.
 * The B-spline (unlike Catmull-Rom or Lanczos) never overshoots and is twice differentiable, so the enlarged
 * grid shows no cell edges: what is left looks like a strong Gaussian blur.
 */
function bsplineTaps(src: number, dst: number): { idx: Int32Array; w: Float64Array } {
  const idx = new Int32Array(dst * 4);
  const w = new Float64Array(dst * 4);
  for (let x = 0; x < dst; x++) {
    const u = ((x + 0.5) * src) / dst - 0.5;
    const i = Math.floor(u);
    const t = u - i;
    const t2 = t * t;
    const t3 = t2 * t;
    const ws = [(1 - t) ** 3 / 6, (3 * t3 - 6 * t2 + 4) / 6, (-3 * t3 + 3 * t2 + 3 * t + 1) / 6, t3 / 6];
    for (let k = 0; k < 4; k++) {
      idx[x * 4 + k] = Math.min(src - 1, Math.max(0, i - 1 + k));
      w[x * 4 + k] = ws[k]!;
    }
  }
  return { idx, w };
}

/**
 * The blurred preview: the picture averaged down to BLUR_CELLS cells on its long edge, then enlarged back with
 * a cubic B-spline. Detail finer than a cell is gone from the pixels, not hidden under a filter that could be
 * undone. Done in plain arithmetic, as libvips' upsampling is several times slower for this shape of job:
 * each output row is first interpolated vertically on the few grid columns, then swept horizontally by
 * forward differences of the spline's cubic in each cell (three additions per value).
 */
function blurPixels(px: Pixels, outW: number, outH: number): Pixels {
  const [gw, gh] = fitInside(px.width, px.height, BLUR_CELLS);
  const grid = resampleArea(px, gw, gh, 3);
  const V = bsplineTaps(gh, outH);
  const rowLen = outW * 3;
  const out = Buffer.allocUnsafe(outH * rowLen);
  const col = new Float64Array(gw * 3);
  const h = gw / outW; // spline parameter step per output pixel
  const h2 = h * h;
  const h3 = h2 * h;
  const at = (i: number, ch: number) => col[Math.min(gw - 1, Math.max(0, i)) * 3 + ch]!;
  for (let y = 0; y < outH; y++) {
    for (let k = 0; k < gw * 3; k++) {
      let s = 0;
      for (let j = 0; j < 4; j++) s += V.w[y * 4 + j]! * grid[V.idx[y * 4 + j]! * gw * 3 + k]!;
      col[k] = s;
    }
    let x = 0;
    while (x < outW) {
      const u = ((x + 0.5) * gw) / outW - 0.5;
      const i = Math.floor(u);
      const t = u - i;
      let end = Math.ceil(((i + 1.5) * outW) / gw - 0.5); // first pixel of the next cell
      if (end <= x) end = x + 1;
      if (end > outW) end = outW;
      for (let ch = 0; ch < 3; ch++) {
        const p0 = at(i - 1, ch);
        const p1 = at(i, ch);
        const p2 = at(i + 1, ch);
        const p3 = at(i + 2, ch);
        const a = (-p0 + 3 * p1 - 3 * p2 + p3) / 6;
        const b = (3 * p0 - 6 * p1 + 3 * p2) / 6;
        const c = (-3 * p0 + 3 * p2) / 6;
        const d = (p0 + 4 * p1 + p2) / 6;
        let f = ((a * t + b) * t + c) * t + d;
        let d1 = a * (3 * t * t * h + 3 * t * h2 + h3) + b * (2 * t * h + h2) + c * h;
        let d2 = a * (6 * t * h2 + 6 * h3) + 2 * b * h2;
        const d3 = 6 * a * h3;
        let q = y * rowLen + x * 3 + ch;
        for (let xx = x; xx < end; xx++) {
          // A B-spline value is a convex combination of 0..255 inputs, so f + 0.5 stays within 0.5..255.5
          // (float64 drift over one cell is ~1e-12); storing into bytes truncates, which rounds.
          out[q] = f + 0.5;
          q += 3;
          f += d1;
          d1 += d2;
          d2 += d3;
        }
      }
      x = end;
    }
  }
  return { data: out, width: outW, height: outH, channels: 3 };
}

/**
 * The pixels the perceptual hash is computed from (the thumbnail-sized working image). perceptualHash(bytes)
 * uses this so its result equals makeRenditions(bytes).phash.
 */
export async function hashPixels(bytes: Buffer, limits: RenditionLimits = {}): Promise<Pixels> {
  const maxPixels = limits.maxPixels ?? DEFAULT_MAX_PIXELS;
  const timeout = limits.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS;
  const header = await probe(bytes, maxPixels, timeout);
  const work = await decodeWorking(bytes, { maxPixels, timeoutSeconds: timeout, ignoreIcc: header.srgbProfile }, []);
  return shrink(work, RENDITION_SIZES.thumbnail);
}

/**
 * Thumbnail (≈320 px long edge), preview (≈1280 px) and blurred preview (≈640 px), all JPEG without metadata
 * and with EXIF orientation applied, plus the perceptual hash, from one decode.
 * Throws MediaRejected for a decompression bomb (refused from the header alone, before any pixel is
 * allocated), a truncated or corrupt image, or bytes that are not a supported raster image.
 */
export async function makeRenditions(bytes: Buffer, limits: RenditionLimits = {}): Promise<Renditions> {
  const maxPixels = limits.maxPixels ?? DEFAULT_MAX_PIXELS;
  const timeout = limits.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS;
  const header = await probe(bytes, maxPixels, timeout);
  const warnings: string[] = [];
  const work = await decodeWorking(bytes, { maxPixels, timeoutSeconds: timeout, ignoreIcc: header.srgbProfile }, warnings);
  const [preview, small] = await Promise.all([encodeJpeg(work), shrink(work, RENDITION_SIZES.thumbnail)]);
  // The thumbnail encodes on the threadpool while the hash and the blur are computed here.
  const thumbnailP = encodeJpeg(small);
  thumbnailP.catch(() => undefined); // awaited below; this only keeps an early failure from counting as unhandled
  const phash = phashFromPixels(small);
  const [bw, bh] = fitInside(header.width, header.height, RENDITION_SIZES.blurred);
  const [thumbnail, blurred] = await Promise.all([thumbnailP, encodeJpeg(blurPixels(small, bw, bh))]);
  return {
    thumbnail,
    preview,
    blurred,
    width: header.width,
    height: header.height,
    phash,
    format: header.format,
    warnings,
  };
}

/**
 * Settings for a process that makes renditions in bulk. sharp runs each pipeline on libuv's threadpool and
 * may add libvips worker threads per image (`sharp.concurrency`). Ingest runs several photos at once, so one
 * libvips thread per pipeline avoids oversubscribing the cores; the operation cache only holds memory, as
 * every input is new. Returns the previous values.
 */
export function tuneSharpForBulk(concurrency = 1): { concurrency: number } {
  const before = sharp.concurrency();
  sharp.concurrency(concurrency);
  sharp.cache(false);
  return { concurrency: before };
}
