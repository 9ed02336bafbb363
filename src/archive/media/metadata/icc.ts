/** ICC colour profiles: the header and the description, nothing more. */
import { Collector, stripNul, type Obj } from "./text.ts";

export function fourcc(b: Buffer, at: number): string {
  return stripNul(b.toString("latin1", at, at + 4)).trim();
}

export function parseIccHeader(icc: Buffer, p: Collector): Obj | undefined {
  if (icc.length < 132) {
    p.add("The ICC profile is shorter than its 128-byte header.");
    return undefined;
  }
  const v = icc[8]!;
  const out: Obj = {
    size: icc.readUInt32BE(0),
    cmm: fourcc(icc, 4),
    version: `${v}.${icc[9]! >> 4}.${icc[9]! & 15}`,
    deviceClass: fourcc(icc, 12),
    colorSpace: fourcc(icc, 16),
    connectionSpace: fourcc(icc, 20),
    platform: fourcc(icc, 40),
    manufacturer: fourcc(icc, 48),
    model: icc.readUInt32BE(52),
    creator: fourcc(icc, 80),
  };
  const [y, mo, d, h, mi, s] = [0, 1, 2, 3, 4, 5].map((k) => icc.readUInt16BE(24 + 2 * k));
  if (y && mo && d) {
    out.created = `${String(y).padStart(4, "0")}-${String(mo).padStart(2, "0")}-${String(d).padStart(2, "0")}T${String(h).padStart(2, "0")}:${String(mi).padStart(2, "0")}:${String(s).padStart(2, "0")}Z`;
  }
  const count = Math.min(icc.readUInt32BE(128), Math.floor((icc.length - 132) / 12));
  for (let i = 0; i < count; i++) {
    const e = 132 + 12 * i;
    if (icc.toString("latin1", e, e + 4) !== "desc") continue;
    const at = icc.readUInt32BE(e + 4);
    const size = icc.readUInt32BE(e + 8);
    if (at + size > icc.length || size < 12) break;
    const type = icc.toString("latin1", at, at + 4);
    if (type === "desc") {
      const n = icc.readUInt32BE(at + 8);
      if (at + 12 + n <= icc.length) out.description = stripNul(icc.toString("latin1", at + 12, at + 12 + n));
    } else if (type === "mluc" && size >= 28) {
      const len = icc.readUInt32BE(at + 20);
      const off = icc.readUInt32BE(at + 24);
      if (at + off + len <= icc.length) {
        const u = Buffer.from(icc.subarray(at + off, at + off + len - (len % 2)));
        out.description = stripNul(u.swap16().toString("utf16le"));
      }
    }
    break;
  }
  return out;
}
