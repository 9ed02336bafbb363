/**
 * Synthetic camera photos for the authenticity tests: pixels from the metadata tests' `photo()`, encoded as a
 * camera would (non-IJG tables, standard Huffman tables) or as an editor would (libjpeg tables, optimised
 * Huffman), with a hand-written EXIF block: IFD0, Exif IFD with serial and maker note, IFD1 with a thumbnail.
 */
import sharp from "sharp";
import { photo } from "../support/exif.ts";

export function segment(marker: number, payload: Buffer): Buffer {
  const head = Buffer.from([0xff, marker, 0, 0]);
  head.writeUInt16BE(payload.length + 2, 2);
  return Buffer.concat([head, payload]);
}

/** Removes every APPn segment sharp wrote (JFIF, EXIF …) and inserts `segs` after SOI. */
export function replaceApps(jpeg: Buffer, ...segs: Buffer[]): Buffer {
  const kept: Buffer[] = [jpeg.subarray(0, 2)];
  let o = 2;
  while (o + 4 <= jpeg.length) {
    const m = jpeg[o + 1]!;
    if (m === 0xda) break;
    const len = jpeg.readUInt16BE(o + 2);
    if (!(m >= 0xe0 && m <= 0xef)) kept.push(jpeg.subarray(o, o + 2 + len));
    o += 2 + len;
  }
  return Buffer.concat([kept[0]!, ...segs, ...kept.slice(1), jpeg.subarray(o)]);
}

interface Tag {
  tag: number;
  type: 2 | 3 | 4 | 7;
  value: Buffer;
  count: number;
}
const asc = (tag: number, s: string): Tag => ({ tag, type: 2, value: Buffer.from(`${s}\0`, "latin1"), count: s.length + 1 });
const lng = (tag: number, v: number): Tag => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(v);
  return { tag, type: 4, value: b, count: 1 };
};
const sht = (tag: number, v: number): Tag => {
  const b = Buffer.alloc(4);
  b.writeUInt16BE(v);
  return { tag, type: 3, value: b, count: 1 };
};
const und = (tag: number, v: Buffer): Tag => ({ tag, type: 7, value: v, count: v.length });

/** A big-endian TIFF with IFD0 → Exif IFD, and IFD1 holding `thumbnail` when given. */
export function tiffBlock(ifd0: Tag[], exif: Tag[], thumbnail: Buffer | null): Buffer {
  const chunks: Buffer[] = [Buffer.from([0x4d, 0x4d, 0, 42, 0, 0, 0, 8])];
  let size = 8;
  const patches: { at: number; value: () => number }[] = [];
  const place = (b: Buffer) => {
    const at = size;
    chunks.push(b);
    size += b.length;
    return at;
  };
  const writeIfd = (tags: Tag[], pointers: Record<number, () => number>): { at: number; nextAt: number } => {
    const sorted = [...tags].sort((a, b) => a.tag - b.tag);
    const dir = Buffer.alloc(2 + 12 * sorted.length + 4);
    const at = place(dir);
    dir.writeUInt16BE(sorted.length, 0);
    sorted.forEach((t, i) => {
      const o = 2 + 12 * i;
      dir.writeUInt16BE(t.tag, o);
      dir.writeUInt16BE(t.type, o + 2);
      dir.writeUInt32BE(t.count, o + 4);
      if (pointers[t.tag]) patches.push({ at: at + o + 8, value: pointers[t.tag]! });
      else if (t.value.length <= 4) t.value.copy(dir, o + 8);
      else {
        const vAt = place(t.value.length % 2 ? Buffer.concat([t.value, Buffer.alloc(1)]) : t.value);
        dir.writeUInt32BE(vAt, o + 8);
      }
    });
    return { at, nextAt: at + 2 + 12 * sorted.length };
  };
  let exifAt = 0;
  let ifd1At = 0;
  let thumbAt = 0;
  const first = writeIfd([...ifd0, lng(0x8769, 0)], { 0x8769: () => exifAt });
  exifAt = writeIfd(exif, {}).at;
  if (thumbnail) {
    const one = writeIfd([sht(0x0103, 6), lng(0x0201, 0), lng(0x0202, thumbnail.length)], { 0x0201: () => thumbAt });
    ifd1At = one.at;
    thumbAt = place(thumbnail);
  }
  const out = Buffer.concat(chunks);
  for (const p of patches) out.writeUInt32BE(p.value(), p.at);
  out.writeUInt32BE(ifd1At, first.nextAt);
  return out;
}

export interface CameraShot {
  seed: number;
  make?: string;
  model?: string;
  serial?: string;
  captured: string;
  modified?: string;
  software?: string;
  /** Pixels of another picture for the thumbnail (a thumbnail that lies). */
  thumbnailSeed?: number;
  thumbnail?: boolean;
  makerNote?: boolean;
  /** "camera": non-IJG tables, standard Huffman; "editor": libjpeg tables at quality 85, optimised Huffman. */
  encoder?: "camera" | "editor";
  width?: number;
  height?: number;
}

const pixelsCache = new Map<string, Buffer>();
async function pixels(seed: number, w: number, h: number): Promise<Buffer> {
  const k = `${seed}:${w}:${h}`;
  if (!pixelsCache.has(k)) pixelsCache.set(k, await photo({ seed, width: w, height: h, quality: 100 }));
  return pixelsCache.get(k)!;
}

export async function cameraShot(o: CameraShot): Promise<Buffer> {
  const w = o.width ?? 480;
  const h = o.height ?? 320;
  const src = await pixels(o.seed, w, h);
  const body =
    (o.encoder ?? "camera") === "camera"
      ? await sharp(src).jpeg({ quality: 92, optimiseCoding: false, quantisationTable: 3 }).toBuffer()
      : await sharp(src).jpeg({ quality: 85 }).toBuffer();
  let thumb: Buffer | null = null;
  if (o.thumbnail !== false) {
    const tsrc = o.thumbnailSeed === undefined ? src : await pixels(o.thumbnailSeed, w, h);
    thumb = await sharp(tsrc).resize(160, 120, { fit: "contain", background: "#000" }).jpeg({ quality: 80, optimiseCoding: false, quantisationTable: 3 }).toBuffer();
  }
  const ifd0 = [asc(0x010f, o.make ?? "NIKON CORPORATION"), asc(0x0110, o.model ?? "NIKON D90"), asc(0x0131, o.software ?? "Ver.1.00"), asc(0x0132, o.modified ?? o.captured), sht(0x0112, 1)];
  const exif = [asc(0x9003, o.captured), asc(0xa431, o.serial ?? "3012345")];
  if (o.makerNote !== false) exif.push(und(0x927c, Buffer.concat([Buffer.from("Nikon\0\x02\x10\0\0", "latin1"), Buffer.alloc(40, 1)])));
  const app1 = segment(0xe1, Buffer.concat([Buffer.from("Exif\0\0", "latin1"), tiffBlock(ifd0, exif, thumb)]));
  return replaceApps(body, app1);
}
