/**
 * JPEG marker structure (ITU-T T.81 Annex B), as pure functions over bytes: list a file's segments, and rebuild
 * a file from only the segments a decoder needs to draw the pixels. A clean copy keeps SOI, DQT, SOFn, DHT, DAC,
 * DRI, SOS with its entropy-coded data, and EOI; every APPn (JFIF, EXIF, XMP, ICC, Photoshop/IPTC APP13, Adobe,
 * thumbnails inside them), COM, and anything after EOI is dropped.
 */

export interface Segment {
  /** The marker's second byte (0xD8 SOI, 0xE1 APP1, 0xDA SOS, …). */
  marker: number;
  /** Offset of the 0xFF that starts the marker. */
  offset: number;
  /** Bytes of the segment from its marker up to the next marker (for SOS: its entropy-coded data included). */
  length: number;
}

export interface JpegStructure {
  segments: Segment[];
  /** Bytes after EOI (0 for a clean file). */
  trailing: number;
}

export class JpegStructureError extends Error {}

const SOI = 0xd8;
const EOI = 0xd9;
const SOS = 0xda;
/** Markers that stand alone (no length field): TEM, RST0–7, SOI, EOI. */
const standalone = (m: number): boolean => m === 0x01 || (m >= 0xd0 && m <= 0xd9);

/** Segments of a JPEG in order, SOI to EOI; throws JpegStructureError on a file that is not well formed. */
export function jpegStructure(b: Uint8Array): JpegStructure {
  if (b.length < 4 || b[0] !== 0xff || b[1] !== SOI) throw new JpegStructureError("not a JPEG: no SOI marker at the start");
  const segments: Segment[] = [{ marker: SOI, offset: 0, length: 2 }];
  let i = 2;
  for (;;) {
    if (i + 1 >= b.length) throw new JpegStructureError("the file ends before EOI");
    if (b[i] !== 0xff) throw new JpegStructureError(`expected a marker at byte ${i}`);
    let j = i + 1;
    while (j < b.length && b[j] === 0xff) j++; // fill bytes (B.1.1.2)
    if (j >= b.length) throw new JpegStructureError("the file ends before EOI");
    const m = b[j]!;
    const start = i;
    if (m === EOI) {
      segments.push({ marker: EOI, offset: start, length: j + 1 - start });
      return { segments, trailing: b.length - (j + 1) };
    }
    if (standalone(m)) {
      segments.push({ marker: m, offset: start, length: j + 1 - start });
      i = j + 1;
      continue;
    }
    if (j + 2 >= b.length) throw new JpegStructureError(`segment at byte ${start} is cut short`);
    const len = (b[j + 1]! << 8) | b[j + 2]!;
    if (len < 2 || j + 1 + len > b.length) throw new JpegStructureError(`segment at byte ${start} has a length past the end of the file`);
    let end = j + 1 + len;
    if (m === SOS) {
      // Entropy-coded data runs to the next marker that is neither a stuffed 0xFF00 nor a restart marker.
      while (end < b.length) {
        if (b[end] === 0xff && end + 1 < b.length) {
          const n = b[end + 1]!;
          if (n === 0x00 || (n >= 0xd0 && n <= 0xd7) || n === 0xff) {
            end += n === 0xff ? 1 : 2;
            continue;
          }
          break;
        }
        end++;
      }
      if (end >= b.length) throw new JpegStructureError("the scan data runs to the end of the file without EOI");
    }
    segments.push({ marker: m, offset: start, length: end - start });
    i = end;
  }
}

/** What a decoder needs to draw the pixels: tables, frame, scans. Nothing else is kept by `essentialJpeg`. */
export function isEssential(marker: number): boolean {
  return (
    marker === SOI ||
    marker === EOI ||
    marker === SOS ||
    marker === 0xdb || // DQT
    marker === 0xc4 || // DHT
    marker === 0xcc || // DAC
    marker === 0xdd || // DRI
    (marker >= 0xd0 && marker <= 0xd7) || // RSTn (between scans' data, kept inside SOS above)
    (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) // SOFn
  );
}

/** The JPEG rebuilt from its essential segments only: no APPn, no COM, nothing after EOI. */
export function essentialJpeg(b: Uint8Array): Buffer {
  const { segments } = jpegStructure(b);
  return Buffer.concat(segments.filter((s) => isEssential(s.marker)).map((s) => Buffer.from(b.buffer, b.byteOffset + s.offset, s.length)));
}

/** The markers of a JPEG that are not essential (names for a finding: "APP1", "COM"), and its trailing bytes. */
export function metadataFindings(b: Uint8Array): string[] {
  const { segments, trailing } = jpegStructure(b);
  const out = segments.filter((s) => !isEssential(s.marker)).map((s) => markerName(s.marker));
  if (trailing > 0) out.push(`${trailing} byte(s) after EOI`);
  return out;
}

export function markerName(m: number): string {
  if (m >= 0xe0 && m <= 0xef) return `APP${m - 0xe0}`;
  if (m === 0xfe) return "COM";
  return `0xFF${m.toString(16).toUpperCase().padStart(2, "0")}`;
}
