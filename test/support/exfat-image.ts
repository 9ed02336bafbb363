/**
 * Builds small exFAT volumes and GPT disks for tests, byte by byte after the exFAT and UEFI specifications, so
 * the readers can be tested without mounting anything. What this writes is checked by independent tools in the
 * tests (fsck.exfat -n, sgdisk -v), so the builder is not only checked against the reader it tests.
 */
import { crc32 } from "node:zlib";

export interface Stamp {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  /** 0–199 hundredths of a second added to the even second. */
  centis?: number;
  /** Offset from UTC in minutes (a multiple of 15); absent: the offset field is marked not valid. */
  offset?: number;
}

export interface ExfatNode {
  /** "/"-separated path; parent directories are made as needed. */
  path: string;
  /** Absent for a directory. */
  data?: Buffer;
  /** Clusters laid out out of order and linked through the FAT (else contiguous, NoFatChain). */
  fragmented?: boolean;
  /** ValidDataLength when less than the data (the bytes past it are written as 0xEE, and must read as zeros). */
  validLength?: number;
  modified?: Stamp;
  created?: Stamp;
}

export interface ExfatOptions {
  /** Sectors per cluster as a power of two (default 3: 4 KiB clusters). */
  clusterShift?: number;
  clusterCount?: number;
  label?: string;
  serial?: number;
  /** Subdirectories kept contiguous with NoFatChain (as Linux writes them), else chained in the FAT. */
  contiguousDirs?: boolean;
}

export interface BuiltExfat {
  image: Buffer;
  clusterBytes: number;
  heapOffset: number;
  /** First cluster of each path (files and directories) and of "/" (the root). */
  firstCluster: Map<string, number>;
  /** Byte offset in the image of each path's entry set (its File entry). */
  entrySet: Map<string, number>;
  /** Byte offset of the FAT. */
  fatOffset: number;
}

const SECTOR = 512;
const DEFAULT_STAMP: Stamp = { year: 2024, month: 5, day: 17, hour: 9, minute: 41, second: 30 };

function stamp(s: Stamp): { value: number; centis: number; offset: number } {
  const date = ((s.year - 1980) << 9) | (s.month << 5) | s.day;
  const time = (s.hour << 11) | (s.minute << 5) | (s.second >> 1);
  const centis = (s.centis ?? 0) + (s.second & 1) * 100;
  const offset = s.offset === undefined ? 0 : 0x80 | ((s.offset / 15) & 0x7f);
  return { value: ((date << 16) | time) >>> 0, centis, offset };
}

/** A minimal up-case table: a–z to A–Z, every other character to itself (identity runs compressed). */
function upcaseTable(): Buffer {
  const units: number[] = [];
  for (let c = 0; c < 0x61; c++) units.push(c);
  for (let c = 0x61; c <= 0x7a; c++) units.push(c - 0x20);
  units.push(0xffff, 0x10000 - 0x7b);
  const b = Buffer.alloc(units.length * 2);
  units.forEach((u, i) => b.writeUInt16LE(u, i * 2));
  return b;
}

function tableChecksum(b: Buffer): number {
  let sum = 0;
  for (const byte of b) sum = ((sum & 1 ? 0x80000000 : 0) + (sum >>> 1) + byte) >>> 0;
  return sum;
}

function nameHash(name: string): number {
  let hash = 0;
  for (let i = 0; i < name.length; i++) {
    let u = name.charCodeAt(i);
    if (u >= 0x61 && u <= 0x7a) u -= 0x20;
    for (const byte of [u & 0xff, u >> 8]) hash = ((hash & 1 ? 0x8000 : 0) + (hash >> 1) + byte) & 0xffff;
  }
  return hash;
}

export function setChecksum(set: Buffer): number {
  let sum = 0;
  for (let i = 0; i < set.length; i++) if (i !== 2 && i !== 3) sum = ((sum & 1 ? 0x8000 : 0) + (sum >> 1) + (set[i] as number)) & 0xffff;
  return sum;
}

/** Rewrites sector 11 (the checksum sector) of a boot region at `at` after its sectors 0–10 were edited. */
export function resealBootRegion(image: Buffer, at = 0): void {
  let sum = 0;
  for (let i = 0; i < 11 * SECTOR; i++) {
    if (i === 106 || i === 107 || i === 112) continue;
    sum = ((sum & 1 ? 0x80000000 : 0) + (sum >>> 1) + (image[at + i] as number)) >>> 0;
  }
  for (let i = 11 * SECTOR; i < 12 * SECTOR; i += 4) image.writeUInt32LE(sum, at + i);
}

interface Dir {
  path: string;
  children: Array<Dir | ExfatNode>;
  node?: ExfatNode;
}

function isDir(x: Dir | ExfatNode): x is Dir {
  return "children" in x;
}

/** An exFAT volume holding `nodes`, as a formatter and a camera would leave it. */
export function buildExfat(nodes: ExfatNode[], options: ExfatOptions = {}): BuiltExfat {
  const clusterShift = options.clusterShift ?? 3;
  const spc = 2 ** clusterShift;
  const clusterBytes = spc * SECTOR;
  const clusterCount = options.clusterCount ?? 1024;
  const fatOffset = 32;
  const fatLength = Math.ceil(((clusterCount + 2) * 4) / SECTOR);
  const heapOffset = Math.ceil((fatOffset + fatLength) / spc) * spc;
  const volumeLength = heapOffset + clusterCount * spc;
  const image = Buffer.alloc(volumeLength * SECTOR);
  const fat = (c: number, v: number) => image.writeUInt32LE(v >>> 0, fatOffset * SECTOR + c * 4);
  fat(0, 0xfffffff8);
  fat(1, 0xffffffff);
  const used = new Set<number>();
  let nextFree = 2;
  const at = (c: number) => (heapOffset + (c - 2) * spc) * SECTOR;
  /** Contiguous clusters, chained in the FAT when `chain`. */
  const allocate = (n: number, chain: boolean): number[] => {
    const cs: number[] = [];
    for (let i = 0; i < n; i++) cs.push(nextFree++);
    return link(cs, chain);
  };
  const link = (cs: number[], chain: boolean): number[] => {
    for (const c of cs) used.add(c);
    if (chain) cs.forEach((c, i) => fat(c, i + 1 < cs.length ? (cs[i + 1] as number) : 0xffffffff));
    return cs;
  };
  /** Every other cluster, in reverse order: a chain no contiguous reading could follow. */
  const scatter = (n: number): number[] => {
    const cs: number[] = [];
    for (let i = 0; i < n; i++) cs.push(nextFree + 2 * i);
    nextFree += 2 * n;
    return link(cs.reverse(), true);
  };
  const writeAt = (cs: number[], data: Buffer) => {
    cs.forEach((c, i) => data.copy(image, at(c), i * clusterBytes, Math.min(data.length, (i + 1) * clusterBytes)));
  };

  const bitmapBytes = Math.ceil(clusterCount / 8);
  const bitmap = allocate(Math.ceil(bitmapBytes / clusterBytes), true);
  const upcase = upcaseTable();
  const upcaseClusters = allocate(Math.ceil(upcase.length / clusterBytes), true);
  writeAt(upcaseClusters, upcase);

  // The tree, then directories' sizes: each entry set is 32 bytes × (2 + name entries).
  const root: Dir = { path: "", children: [] };
  const dirs = new Map<string, Dir>([["", root]]);
  const dirOf = (path: string): Dir => {
    const found = dirs.get(path);
    if (found) return found;
    const parent = dirOf(path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : "");
    const d: Dir = { path, children: [] };
    parent.children.push(d);
    dirs.set(path, d);
    return d;
  };
  for (const n of nodes) {
    if (n.data === undefined) dirOf(n.path).node = n;
    else dirOf(n.path.includes("/") ? n.path.slice(0, n.path.lastIndexOf("/")) : "").children.push(n);
  }
  const nameOf = (p: string) => p.slice(p.lastIndexOf("/") + 1);
  const setBytes = (p: string) => 64 + 32 * Math.ceil(nameOf(p).length / 15);
  const dirBytes = (d: Dir) => d.children.reduce((sum, c) => sum + setBytes(c.path), d === root ? 32 * (options.label ? 3 : 2) : 0);

  const firstCluster = new Map<string, number>();
  const entrySet = new Map<string, number>();
  const place = (d: Dir): number[] => {
    const cs = allocate(Math.max(1, Math.ceil(dirBytes(d) / clusterBytes)), d === root || !options.contiguousDirs);
    firstCluster.set(d === root ? "/" : d.path, cs[0] as number);
    return cs;
  };
  const fill = (d: Dir, cs: number[]) => {
    const buf = Buffer.alloc(cs.length * clusterBytes);
    let off = 0;
    if (d === root) {
      if (options.label) {
        buf[off] = 0x83;
        buf[off + 1] = options.label.length;
        for (let i = 0; i < options.label.length; i++) buf.writeUInt16LE(options.label.charCodeAt(i), off + 2 + i * 2);
        off += 32;
      }
      buf[off] = 0x81;
      buf.writeUInt32LE(bitmap[0] as number, off + 20);
      buf.writeBigUInt64LE(BigInt(bitmapBytes), off + 24);
      off += 32;
      buf[off] = 0x82;
      buf.writeUInt32LE(tableChecksum(upcase), off + 4);
      buf.writeUInt32LE(upcaseClusters[0] as number, off + 20);
      buf.writeBigUInt64LE(BigInt(upcase.length), off + 24);
      off += 32;
    }
    for (const c of d.children) {
      const node = isDir(c) ? c.node : c;
      let first = 0;
      let length = 0;
      let valid = 0;
      let flags = 0x01;
      if (isDir(c)) {
        const sub = place(c);
        fill(c, sub);
        first = sub[0] as number;
        length = valid = sub.length * clusterBytes;
        if (options.contiguousDirs) flags |= 0x02;
      } else {
        const data = c.data as Buffer;
        length = data.length;
        valid = c.validLength ?? length;
        if (length > 0) {
          const n = Math.ceil(length / clusterBytes);
          const cs = c.fragmented ? scatter(n) : allocate(n, false);
          if (!c.fragmented) flags |= 0x02;
          const written = Buffer.from(data);
          written.fill(0xee, valid);
          writeAt(cs, written);
          first = cs[0] as number;
          firstCluster.set(c.path, first);
        } else flags = 0;
      }
      const name = nameOf(c.path);
      const nameEntries = Math.ceil(name.length / 15);
      const set = Buffer.alloc(64 + 32 * nameEntries);
      const m = stamp(node?.modified ?? DEFAULT_STAMP);
      const cr = stamp(node?.created ?? node?.modified ?? DEFAULT_STAMP);
      set[0] = 0x85;
      set[1] = 1 + nameEntries;
      set.writeUInt16LE(isDir(c) ? 0x10 : 0x20, 4);
      set.writeUInt32LE(cr.value, 8);
      set.writeUInt32LE(m.value, 12);
      set.writeUInt32LE(m.value, 16);
      set[20] = cr.centis;
      set[21] = m.centis;
      set[22] = cr.offset;
      set[23] = m.offset;
      set[24] = m.offset;
      set[32] = 0xc0;
      set[33] = flags;
      set[35] = name.length;
      set.writeUInt16LE(nameHash(name), 36);
      set.writeBigUInt64LE(BigInt(valid), 40);
      set.writeUInt32LE(first, 52);
      set.writeBigUInt64LE(BigInt(length), 56);
      for (let i = 0; i < nameEntries; i++) {
        set[64 + i * 32] = 0xc1;
        for (let k = 0; k < 15 && i * 15 + k < name.length; k++) set.writeUInt16LE(name.charCodeAt(i * 15 + k), 64 + i * 32 + 2 + k * 2);
      }
      set.writeUInt16LE(setChecksum(set), 2);
      set.copy(buf, off);
      entrySet.set(c.path, at(cs[Math.floor(off / clusterBytes)] as number) + (off % clusterBytes));
      off += set.length;
    }
    writeAt(cs, buf);
  };
  const rootClusters = place(root);
  fill(root, rootClusters);

  const bits = Buffer.alloc(bitmapBytes);
  for (const c of used) bits[(c - 2) >> 3] = (bits[(c - 2) >> 3] as number) | (1 << ((c - 2) & 7));
  writeAt(bitmap, bits);

  const boot = image.subarray(0, SECTOR);
  boot.set([0xeb, 0x76, 0x90], 0);
  boot.write("EXFAT   ", 3, "latin1");
  boot.writeBigUInt64LE(BigInt(volumeLength), 72);
  boot.writeUInt32LE(fatOffset, 80);
  boot.writeUInt32LE(fatLength, 84);
  boot.writeUInt32LE(heapOffset, 88);
  boot.writeUInt32LE(clusterCount, 92);
  boot.writeUInt32LE(rootClusters[0] as number, 96);
  boot.writeUInt32LE(options.serial ?? 0x1234abcd, 100);
  boot.writeUInt16LE(0x0100, 104);
  boot[108] = 9;
  boot[109] = clusterShift;
  boot[110] = 1;
  boot[111] = 0x80;
  boot[112] = Math.floor((used.size * 100) / clusterCount);
  boot[510] = 0x55;
  boot[511] = 0xaa;
  for (let s = 1; s <= 8; s++) image.writeUInt32LE(0xaa550000, s * SECTOR + SECTOR - 4);
  resealBootRegion(image, 0);
  image.copy(image, 12 * SECTOR, 0, 12 * SECTOR);
  return { image, clusterBytes, heapOffset: heapOffset * SECTOR, firstCluster, entrySet, fatOffset: fatOffset * SECTOR };
}

export const BASIC_DATA = "EBD0A0A2-B9E5-4433-87C0-68B6B72699C7";
export const LINUX_DATA = "0FC63DAF-8483-4772-8E79-3D69D8477DE4";

function guidBytes(g: string): Buffer {
  const h = g.replace(/-/g, "");
  const b = Buffer.from(h, "hex");
  b.subarray(0, 4).reverse();
  b.subarray(4, 6).reverse();
  b.subarray(6, 8).reverse();
  return b;
}

export interface GptDisk {
  image: Buffer;
  /** Byte offset of each partition. */
  starts: number[];
}

/** A GPT disk (protective MBR, primary and backup headers and arrays) holding these volumes, 1 MiB-aligned. */
export function wrapGpt(parts: Array<{ volume: Buffer; type?: string }>): GptDisk {
  const entries = 128;
  const arraySectors = (entries * 128) / SECTOR;
  const starts: number[] = [];
  let lba = 2048;
  for (const p of parts) {
    starts.push(lba);
    lba += Math.ceil(p.volume.length / (1024 * 1024)) * 2048;
  }
  const total = lba + arraySectors + 1;
  const disk = Buffer.alloc(total * SECTOR);
  const array = Buffer.alloc(entries * 128);
  parts.forEach((p, i) => {
    const e = array.subarray(i * 128, (i + 1) * 128);
    guidBytes(p.type ?? BASIC_DATA).copy(e, 0);
    guidBytes(`0000000${i + 1}-0000-4000-8000-00000000CAFE`).copy(e, 16);
    e.writeBigUInt64LE(BigInt(starts[i] as number), 32);
    e.writeBigUInt64LE(BigInt((starts[i] as number) + p.volume.length / SECTOR - 1), 40);
    e.write("card", 56, "utf16le");
    p.volume.copy(disk, (starts[i] as number) * SECTOR);
  });
  const header = (my: number, alternate: number, arrayLba: number): Buffer => {
    const h = Buffer.alloc(SECTOR);
    h.write("EFI PART", 0, "latin1");
    h.writeUInt32LE(0x00010000, 8);
    h.writeUInt32LE(92, 12);
    h.writeBigUInt64LE(BigInt(my), 24);
    h.writeBigUInt64LE(BigInt(alternate), 32);
    h.writeBigUInt64LE(BigInt(2 + arraySectors), 40);
    h.writeBigUInt64LE(BigInt(total - 2 - arraySectors), 48);
    guidBytes("D1A11D1A-0000-4000-8000-000000000001").copy(h, 56);
    h.writeBigUInt64LE(BigInt(arrayLba), 72);
    h.writeUInt32LE(entries, 80);
    h.writeUInt32LE(128, 84);
    h.writeUInt32LE(crc32(array), 88);
    h.writeUInt32LE(crc32(h.subarray(0, 92)), 16);
    return h;
  };
  const mbr = disk.subarray(0, SECTOR);
  mbr.set([0x00, 0x00, 0x02, 0x00, 0xee, 0xff, 0xff, 0xff], 446);
  mbr.writeUInt32LE(1, 454);
  mbr.writeUInt32LE(Math.min(total - 1, 0xffffffff), 458);
  mbr[510] = 0x55;
  mbr[511] = 0xaa;
  header(1, total - 1, 2).copy(disk, SECTOR);
  array.copy(disk, 2 * SECTOR);
  array.copy(disk, (total - 1 - arraySectors) * SECTOR);
  header(total - 1, 1, total - 1 - arraySectors).copy(disk, (total - 1) * SECTOR);
  return { image: disk, starts: starts.map((s) => s * SECTOR) };
}

/** Recomputes the primary GPT header's CRC32 after an edit (to test what lies behind a valid CRC). */
export function resealGptHeader(disk: Buffer): void {
  const h = disk.subarray(SECTOR, 2 * SECTOR);
  h.writeUInt32LE(0, 16);
  h.writeUInt32LE(crc32(h.subarray(0, h.readUInt32LE(12))), 16);
}

/** An MBR disk with one partition of `type` (0x07 for exFAT) at sector 2048. */
export function wrapMbr(volume: Buffer, type = 0x07): Buffer {
  const mbr = Buffer.alloc(2048 * SECTOR);
  mbr[446 + 4] = type;
  mbr.writeUInt32LE(2048, 446 + 8);
  mbr.writeUInt32LE(volume.length / SECTOR, 446 + 12);
  mbr[510] = 0x55;
  mbr[511] = 0xaa;
  return Buffer.concat([mbr, volume]);
}
