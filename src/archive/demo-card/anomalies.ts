import { createHash } from "node:crypto";
import { readFile, stat, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import sharp from "sharp";
import type { Rng } from "./prng.ts";
import type { DemoCardTruth, TruthAnomaly } from "./truth.ts";

/**
 * Planted anomalies, for the authenticity analysis to find: six of the camera's own photos changed afterwards as
 * a forger or a careless editor would, each recorded in the truth with the finding it must raise (a message key
 * of src/authenticity/messages.ts). The files keep their names and times on the card; the truth's SHA-256 and
 * size follow the new bytes. Photos with copies on the card are never chosen (a copy would keep the old bytes).
 */
export const ANOMALIES = [
  { anomaly: "editor-resave", expect: "editorSoftware" },
  { anomaly: "other-camera", expect: "signatureOutlier" },
  { anomaly: "time-shifted", expect: "timeBackwards" },
  { anomaly: "thumbnail-swapped", expect: "thumbnailDiffers" },
  { anomaly: "bytes-appended", expect: "trailingBytes" },
  { anomaly: "cropped-reencoded", expect: "dimensionsUnusual" },
] as const;

/** How many photos a card needs for every anomaly to have a place away from both ends of the sequence. */
export const MIN_PHOTOS_FOR_ANOMALIES = 24;

function exifTime(s: string, addSeconds: number): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})/.exec(s)!;
  const d = new Date(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!) + addSeconds * 1000);
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getUTCFullYear()}:${p(d.getUTCMonth() + 1)}:${p(d.getUTCDate())} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())}`;
}

export async function plantAnomalies(outDir: string, truth: DemoCardTruth, rng: Rng): Promise<TruthAnomaly[]> {
  const copied = new Set(truth.photos.filter((p) => p.duplicate_of).map((p) => p.duplicate_of!));
  const originals = truth.photos.filter((p) => p.kind === "original");
  // Away from both ends of the sequence, so a changed time has neighbours on both sides.
  const candidates = originals.slice(Math.ceil(originals.length * 0.1), Math.floor(originals.length * 0.9)).filter((p) => !copied.has(p.path));
  if (candidates.length < ANOMALIES.length + 1) return [];
  const chosen: typeof candidates = [];
  while (chosen.length < ANOMALIES.length) {
    const c = rng.pick(candidates);
    if (!chosen.includes(c)) chosen.push(c);
  }
  const donor = originals.find((p) => !chosen.includes(p) && p.body !== chosen[3]!.body)!;
  const out: TruthAnomaly[] = [];
  for (let i = 0; i < ANOMALIES.length; i++) {
    const { anomaly, expect } = ANOMALIES[i]!;
    const photo = chosen[i]!;
    const full = join(outDir, ...photo.path.split("/"));
    const before = await stat(full);
    const bytes = await readFile(full);
    // Re-encodes keep the camera's EXIF and density, as an editor that "keeps metadata" does.
    const keep = (img: sharp.Sharp) => img.withMetadata({ density: 300 });
    let next: Buffer;
    let detail = "";
    switch (anomaly) {
      case "editor-resave":
        next = await keep(sharp(bytes).modulate({ brightness: 1.05 }))
          .jpeg({ quality: 85 })
          .withExifMerge({ IFD0: { Software: "Adobe Photoshop CS6 (Windows)", DateTime: exifTime(photo.capture_time, 86400 * 40) } })
          .toBuffer();
        detail = "re-saved at quality 85 by an editor that names itself";
        break;
      case "other-camera":
        next = await keep(sharp(bytes)).jpeg({ quality: 92, optimiseCoding: false, quantisationTable: 3, chromaSubsampling: "4:4:4" }).toBuffer();
        detail = "another encoder's tables and subsampling under the card's make, model and serial";
        break;
      case "time-shifted": {
        const shifted = exifTime(photo.capture_time, 3 * 3600);
        next = await keep(sharp(bytes)).jpeg({ quality: 90, chromaSubsampling: "4:2:0" }).withExifMerge({ IFD0: { DateTime: shifted }, IFD2: { DateTimeOriginal: shifted, DateTimeDigitized: shifted } }).toBuffer();
        detail = "capture time moved three hours later";
        break;
      }
      case "thumbnail-swapped": {
        const other = await readFile(join(outDir, ...donor.path.split("/")));
        const thumb = await sharp(other).resize(160, 120, { fit: "contain", background: "#000" }).jpeg({ quality: 80 }).toBuffer();
        next = withThumbnail(bytes, thumb);
        detail = `an EXIF thumbnail of ${donor.path} added`;
        break;
      }
      case "bytes-appended": {
        const tail = await sharp({ create: { width: 32, height: 32, channels: 3, background: "#808080" } }).jpeg().toBuffer();
        next = Buffer.concat([bytes, tail]);
        detail = `${tail.length} bytes (another JPEG) after the end of the image`;
        break;
      }
      case "cropped-reencoded": {
        const m = await sharp(bytes).metadata();
        const w = Math.round((m.width ?? 0) * 0.8);
        const h = Math.round((m.height ?? 0) * 0.8);
        next = await keep(sharp(bytes).extract({ left: Math.round(((m.width ?? 0) - w) / 2), top: Math.round(((m.height ?? 0) - h) / 2), width: w, height: h }))
          .jpeg({ quality: 90, chromaSubsampling: "4:2:0" })
          .toBuffer();
        detail = "cropped to 80 % and re-encoded";
        break;
      }
    }
    await writeFile(full, next);
    await utimes(full, before.atime, before.mtime);
    photo.sha256 = createHash("sha256").update(next).digest("hex");
    photo.bytes = next.length;
    out.push({ path: photo.path, anomaly, expect, detail, sha256: photo.sha256 });
  }
  return out;
}

/**
 * Adds an IFD1 with a JPEG thumbnail to the EXIF block of `jpeg`: the TIFF structure grows at its end by the new
 * IFD and the thumbnail, IFD0's next-IFD pointer names the new IFD (TIFF 6.0 §2; EXIF 2.32 §4.5.5).
 */
export function withThumbnail(jpeg: Buffer, thumb: Buffer): Buffer {
  let o = 2;
  while (o + 4 <= jpeg.length) {
    const marker = jpeg[o + 1]!;
    const len = jpeg.readUInt16BE(o + 2);
    if (marker === 0xe1 && jpeg.toString("latin1", o + 4, o + 10) === "Exif\0\0") {
      const tiff = Buffer.from(jpeg.subarray(o + 10, o + 2 + len));
      const le = tiff[0] === 0x49;
      const r16 = (b: Buffer, at: number) => (le ? b.readUInt16LE(at) : b.readUInt16BE(at));
      const w16 = (b: Buffer, at: number, v: number) => (le ? b.writeUInt16LE(v, at) : b.writeUInt16BE(v, at));
      const w32 = (b: Buffer, at: number, v: number) => (le ? b.writeUInt32LE(v, at) : b.writeUInt32BE(v, at));
      const ifd0 = le ? tiff.readUInt32LE(4) : tiff.readUInt32BE(4);
      const n = r16(tiff, ifd0);
      const start = tiff.length + (tiff.length % 2);
      const ifd1 = Buffer.alloc(2 + 3 * 12 + 4);
      w16(ifd1, 0, 3);
      const entry = (i: number, tag: number, type: number, value: number) => {
        w16(ifd1, 2 + 12 * i, tag);
        w16(ifd1, 4 + 12 * i, type);
        w32(ifd1, 6 + 12 * i, 1);
        if (type === 3) w16(ifd1, 10 + 12 * i, value);
        else w32(ifd1, 10 + 12 * i, value);
      };
      entry(0, 0x0103, 3, 6); // Compression: JPEG
      entry(1, 0x0201, 4, start + ifd1.length); // JPEGInterchangeFormat
      entry(2, 0x0202, 4, thumb.length); // JPEGInterchangeFormatLength
      w32(tiff, ifd0 + 2 + 12 * n, start);
      const grown = Buffer.concat([tiff, Buffer.alloc(start - tiff.length), ifd1, thumb]);
      const head = Buffer.from([0xff, 0xe1, 0, 0]);
      head.writeUInt16BE(grown.length + 8, 2);
      return Buffer.concat([jpeg.subarray(0, o), head, Buffer.from("Exif\0\0", "latin1"), grown, jpeg.subarray(o + 2 + len)]);
    }
    if (marker === 0xda) break;
    o += 2 + len;
  }
  throw new Error("the photo has no EXIF block to add a thumbnail to");
}
