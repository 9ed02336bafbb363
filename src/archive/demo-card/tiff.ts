/**
 * A minimal little-endian TIFF writer: enough to build a NEF-shaped raw file (IFD0 with a thumbnail strip,
 * a SubIFD with CFA data, an EXIF IFD). Values of four bytes or less sit in the entry; longer ones follow.
 */
export const ASCII = 2;
export const SHORT = 3;
export const LONG = 4;
export const RATIONAL = 5;
export const BYTE = 1;

const TYPE_SIZE: Record<number, number> = { [BYTE]: 1, [ASCII]: 1, [SHORT]: 2, [LONG]: 4, [RATIONAL]: 8 };

export interface TiffEntry {
  tag: number;
  type: number;
  /** Numbers (RATIONAL: pairs flattened), a string (ASCII, NUL added), or a function of layout offsets. */
  value: number[] | string | ((offsets: Map<string, number>) => number[]);
}

export interface TiffIfd {
  name: string;
  entries: TiffEntry[];
}

function encodeValue(type: number, values: number[] | string): Buffer {
  if (typeof values === "string") return Buffer.from(`${values}\0`, "latin1");
  const size = TYPE_SIZE[type] ?? 1;
  const n = type === RATIONAL ? values.length / 2 : values.length;
  const b = Buffer.alloc(n * size);
  values.forEach((v, i) => {
    if (type === BYTE) b.writeUInt8(v, i);
    else if (type === SHORT) b.writeUInt16LE(v, i * 2);
    else b.writeUInt32LE(v >>> 0, i * 4);
  });
  return b;
}

function count(type: number, values: number[] | string): number {
  if (typeof values === "string") return Buffer.byteLength(values, "latin1") + 1;
  return type === RATIONAL ? values.length / 2 : values.length;
}

/**
 * Lays out the IFDs in order, then the named data blocks; entries may refer to offsets of IFDs (by name) and
 * blocks (by name). The first IFD is IFD0; IFDs are not chained (SubIFD/EXIF pointers reach the others).
 */
export function buildTiff(ifds: TiffIfd[], blocks: { name: string; data: Buffer }[]): Buffer {
  const offsets = new Map<string, number>();
  // Pass 1: sizes. Each IFD: 2 + 12n + 4, then its out-of-line values.
  const resolved = (e: TiffEntry): number[] | string =>
    typeof e.value === "function" ? e.value(offsets) : e.value;
  const layout = (): number => {
    let pos = 8;
    for (const ifd of ifds) {
      offsets.set(ifd.name, pos);
      pos += 2 + 12 * ifd.entries.length + 4;
      for (const e of ifd.entries) {
        const v = resolved(e);
        const len = (TYPE_SIZE[e.type] ?? 1) * count(e.type, v);
        if (len > 4) pos += len + (len % 2);
      }
    }
    for (const b of blocks) {
      offsets.set(b.name, pos);
      pos += b.data.length + (b.data.length % 2);
    }
    return pos;
  };
  // Offsets that entries depend on do not change their own sizes, so two passes settle the layout.
  layout();
  const total = layout();
  const out = Buffer.alloc(total);
  out.write("II", 0, "latin1");
  out.writeUInt16LE(42, 2);
  out.writeUInt32LE(8, 4);
  for (const ifd of ifds) {
    let p = offsets.get(ifd.name) as number;
    const sorted = [...ifd.entries].sort((a, b) => a.tag - b.tag);
    let extra = p + 2 + 12 * sorted.length + 4;
    out.writeUInt16LE(sorted.length, p);
    p += 2;
    for (const e of sorted) {
      const v = resolved(e);
      const data = encodeValue(e.type, v);
      out.writeUInt16LE(e.tag, p);
      out.writeUInt16LE(e.type, p + 2);
      out.writeUInt32LE(count(e.type, v), p + 4);
      if (data.length <= 4) {
        data.copy(out, p + 8);
      } else {
        out.writeUInt32LE(extra, p + 8);
        data.copy(out, extra);
        extra += data.length + (data.length % 2);
      }
      p += 12;
    }
    out.writeUInt32LE(0, p);
  }
  for (const b of blocks) b.data.copy(out, offsets.get(b.name) as number);
  return out;
}
