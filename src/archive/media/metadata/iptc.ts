/** IPTC-IIM: the records in a Photoshop resource block, UTF-8 when the envelope says so. */
import exifr from "exifr";
import { Collector, bytesNote, decodeUtf8, hex, latin1, utf8Strict, type Obj } from "./text.ts";
import { put } from "./xmp.ts";

/** The IPTC-IIM block inside Photoshop image resources (resource 0x0404). */
export function iptcFromIrb(irb: Buffer, p: Collector): Buffer | undefined {
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
export const IPTC_BINARY = new Set([0]);

export function parseIptc(iim: Buffer, p: Collector): Obj {
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
