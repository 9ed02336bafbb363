/**
 * A FAT12/16/32 volume in a raw disk image of a card: the whole image, or the partition disk.ts found in it.
 * Parsed here, read-only, from the image file with positional reads; the image is never mounted.
 *
 * The image may be damaged or hostile, so every structure is checked before it is believed: a cluster chain
 * that loops, leaves the volume, runs into a free or bad cluster, or ends before the file's size is covered
 * makes that file refused with the reason; a directory whose clusters were already read as another directory
 * (a directory loop) is refused and not descended. Every walk is bounded by the number of clusters, so no
 * image can make listing hang.
 *
 * Deleted directory entries (first byte 0xE5) are not files of the card any more and are not extracted; they
 * are counted and listed (deletedEntries) with the best name that can be reconstructed, for the examiner.
 */
import type { FileHandle } from "node:fs/promises";
import { Readable } from "node:stream";
import { IntegrityError, Invalid, TooLarge } from "../../core/errors.ts";
import { comparePaths, dosWallClock, limitsFrom } from "./card-reading.ts";
import type { CardEntry, CardMedium, CardOptions, DeletedCardEntry } from "./sources.ts";
import type { Located } from "./disk.ts";
import { say } from "../../core/messages.ts";

type FsType = "FAT12" | "FAT16" | "FAT32";

/** 8M clusters (a 256 GiB volume at 32 KiB clusters); with the two per-cluster bookkeeping arrays, ~96 MiB at most. */
/** Partition tables count in 512-byte sectors. */
const SECTOR = 512;
const MAX_FAT_BYTES = 32 * 1024 * 1024;
const MAX_DIR_BYTES = 65536 * 32;
const MAX_DEPTH = 256;
const STREAM_CHUNK = 256 * 1024;

export interface Bpb {
  bytesPerSector: number;
  sectorsPerCluster: number;
  reservedSectors: number;
  fatCount: number;
  rootEntries: number;
  totalSectors: number;
  sectorsPerFat: number;
  fsType: FsType;
  rootCluster: number;
  activeFat: number;
  clusterCount: number;
  firstDataSector: number;
  rootDirSector: number;
  volumeSerial?: string;
  bpbLabel?: string;
}

/** Reads a boot sector's BIOS parameter block; a string says why the sector is not one. */
export function parseBpb(s: Buffer): Bpb | string {
  if (s.length < 512) return "its first sector is incomplete";
  const fsName = s.toString("latin1", 3, 11);
  if (fsName === "EXFAT   ") return "it is an exFAT volume, not a FAT one";
  if (fsName === "NTFS    ") return "it is an NTFS volume, not a FAT one";
  if (!(s[0] === 0xeb || s[0] === 0xe9)) return "its first sector holds no boot-sector jump";
  const bytesPerSector = s.readUInt16LE(11);
  const sectorsPerCluster = s[13] as number;
  const reservedSectors = s.readUInt16LE(14);
  const fatCount = s[16] as number;
  const rootEntries = s.readUInt16LE(17);
  const media = s[21] as number;
  const sectorsPerFat16 = s.readUInt16LE(22);
  const totalSectors = s.readUInt16LE(19) || s.readUInt32LE(32);
  if (![512, 1024, 2048, 4096].includes(bytesPerSector)) return "its boot sector gives an impossible sector size";
  if (sectorsPerCluster === 0 || (sectorsPerCluster & (sectorsPerCluster - 1)) !== 0) return "its boot sector gives an impossible cluster size";
  if (reservedSectors === 0 || fatCount === 0 || fatCount > 16 || totalSectors === 0) return "its boot sector's layout fields are impossible";
  if (!(media === 0xf0 || media >= 0xf8)) return "its boot sector gives an unknown media type";
  const fat32Layout = sectorsPerFat16 === 0;
  const sectorsPerFat = fat32Layout ? s.readUInt32LE(36) : sectorsPerFat16;
  if (sectorsPerFat === 0) return "its boot sector gives no FAT size";
  if (fat32Layout && rootEntries !== 0) return "its boot sector mixes FAT32 and FAT16 layouts";
  const rootDirSectors = Math.ceil((rootEntries * 32) / bytesPerSector);
  const rootDirSector = reservedSectors + fatCount * sectorsPerFat;
  const firstDataSector = rootDirSector + rootDirSectors;
  if (firstDataSector >= totalSectors) return "its boot sector leaves no room for data";
  let clusterCount = Math.floor((totalSectors - firstDataSector) / sectorsPerCluster);
  // As Linux and mtools do: the layout decides FAT32; the cluster count decides between FAT12 and FAT16.
  const fsType: FsType = fat32Layout ? "FAT32" : clusterCount < 4085 ? "FAT12" : "FAT16";
  const entryBits = fsType === "FAT12" ? 12 : fsType === "FAT16" ? 16 : 32;
  const addressable = Math.floor((sectorsPerFat * bytesPerSector * 8) / entryBits) - 2;
  clusterCount = Math.min(clusterCount, addressable, fsType === "FAT32" ? 0x0ffffff5 : fsType === "FAT16" ? 0xfff5 : 0xff5);
  if (clusterCount < 1) return "its boot sector describes a volume with no clusters";
  const ext = fsType === "FAT32" ? 64 : 36;
  const hasExt = s[ext + 2] === 0x29;
  const volumeSerial = hasExt ? s.readUInt32LE(ext + 3).toString(16).toUpperCase().padStart(8, "0").replace(/^(.{4})/, "$1-") : undefined;
  const bpbLabel = hasExt ? cleanLabel(s.subarray(ext + 7, ext + 18)) : undefined;
  const extFlags = fsType === "FAT32" ? s.readUInt16LE(40) : 0;
  const activeFat = extFlags & 0x80 ? Math.min(extFlags & 0x0f, fatCount - 1) : 0;
  const rootCluster = fsType === "FAT32" ? s.readUInt32LE(44) : 0;
  return {
    bytesPerSector,
    sectorsPerCluster,
    reservedSectors,
    fatCount,
    rootEntries,
    totalSectors,
    sectorsPerFat,
    fsType,
    rootCluster,
    activeFat,
    clusterCount,
    firstDataSector,
    rootDirSector,
    volumeSerial,
    bpbLabel,
  };
}

// --- the image --------------------------------------------------------------------------------------------

export interface Extent {
  cluster: number;
  count: number;
}

interface Listed {
  path: string;
  size: number;
  modified?: string;
  created?: string;
  extents: Extent[];
  refused?: string;
}

interface DirEntry {
  name: string;
  nameProblem?: string;
  attr: number;
  firstCluster: number;
  size: number;
  modified?: string;
  created?: string;
}

/** What the FAT and exFAT readers share: an image's clusters, who first claimed each, and bounded reads. */
export abstract class ClusterImage {
  /** Which listed file or directory (id + 1) first claimed each cluster. */
  protected readonly owner: Uint32Array;
  readonly ownerPaths: string[] = [];

  constructor(
    readonly fh: FileHandle,
    readonly imageSize: number,
    readonly offset: number,
    readonly clusterBytes: number,
    readonly maxCluster: number,
  ) {
    this.owner = new Uint32Array(maxCluster + 1);
  }

  abstract clusterOffset(c: number): number;

  ownerOf(c: number): string | undefined {
    const owner = this.owner[c] ?? 0;
    return owner === 0 ? undefined : this.ownerPaths[owner - 1];
  }

  claim(path: string): number {
    this.ownerPaths.push(path);
    return this.ownerPaths.length;
  }

  /** Byte ranges of the image covering `size` bytes of these clusters, or why they cannot be read. */
  segments(extents: Extent[], size: number): { segments: Slice[]; problem?: string } {
    const segments: Slice[] = [];
    let left = size;
    for (const e of extents) {
      if (left <= 0) break;
      const len = Math.min(left, e.count * this.clusterBytes);
      const pos = this.clusterOffset(e.cluster);
      if (pos + len > this.imageSize) return { segments, problem: "its clusters lie beyond the end of the image file (the image is truncated)" };
      segments.push({ pos, len });
      left -= len;
    }
    return { segments };
  }

  async read(pos: number, len: number): Promise<Buffer> {
    const buf = Buffer.alloc(len);
    if (pos >= this.imageSize) return buf.subarray(0, 0);
    const { bytesRead } = await this.fh.read(buf, 0, Math.min(len, this.imageSize - pos), pos);
    return buf.subarray(0, bytesRead);
  }
}

class Volume extends ClusterImage {
  private readonly eoc: number;
  private readonly bad: number;
  /** Generation stamps for loop detection within one walk. */
  private readonly seen: Uint32Array;
  private generation = 0;

  constructor(
    fh: FileHandle,
    imageSize: number,
    offset: number,
    readonly bpb: Bpb,
    private readonly fat: Buffer,
  ) {
    super(fh, imageSize, offset, bpb.bytesPerSector * bpb.sectorsPerCluster, bpb.clusterCount + 1);
    this.eoc = bpb.fsType === "FAT12" ? 0xff8 : bpb.fsType === "FAT16" ? 0xfff8 : 0x0ffffff8;
    this.bad = this.eoc - 1;
    this.seen = new Uint32Array(this.maxCluster + 1);
  }

  next(c: number): number {
    if (this.bpb.fsType === "FAT32") return this.fat.readUInt32LE(c * 4) & 0x0fffffff;
    if (this.bpb.fsType === "FAT16") return this.fat.readUInt16LE(c * 2);
    const v = this.fat.readUInt16LE(c + (c >> 1));
    return c & 1 ? v >> 4 : v & 0xfff;
  }

  clusterOffset(c: number): number {
    return this.offset + (this.bpb.firstDataSector + (c - 2) * this.bpb.sectorsPerCluster) * this.bpb.bytesPerSector;
  }

  /**
   * Follows a chain from `start`: exactly `needed` clusters for a file, to the end mark for a directory.
   * Returns the clusters as runs, and the first problem met (the runs then hold what was valid before it).
   */
  follow(start: number, needed: number | undefined, id: number): { extents: Extent[]; problem?: string; crossLinked?: string; overrun?: boolean } {
    const gen = ++this.generation;
    const extents: Extent[] = [];
    let crossLinked: string | undefined;
    const limit = needed ?? this.maxCluster;
    let c = start;
    for (let k = 0; k < limit; k++) {
      if (c < 2 || c > this.maxCluster) {
        return { extents, crossLinked, problem: k === 0 ? `it starts at cluster ${c}, outside the volume (clusters 2–${this.maxCluster})` : `its cluster chain leaves the volume (cluster ${c} after ${k} clusters)` };
      }
      if (this.seen[c] === gen) return { extents, crossLinked, problem: `its cluster chain loops back to cluster ${c} after ${k} clusters` };
      this.seen[c] = gen;
      const owner = this.owner[c] as number;
      if (owner === 0) this.owner[c] = id;
      else if (owner !== id && crossLinked === undefined) crossLinked = this.ownerPaths[owner - 1];
      const last = extents[extents.length - 1];
      if (last && last.cluster + last.count === c) last.count++;
      else extents.push({ cluster: c, count: 1 });
      const n = this.next(c);
      if (n >= this.eoc) {
        if (needed !== undefined && k + 1 < needed) return { extents, crossLinked, problem: `its cluster chain ends after ${k + 1} clusters but its size needs ${needed}` };
        return { extents, crossLinked };
      }
      if (needed !== undefined && k + 1 === needed) return { extents, crossLinked, overrun: true };
      if (n === this.bad) return { extents, crossLinked, problem: `its cluster chain reaches a cluster marked bad after ${k + 1} clusters` };
      if (n === 0) return { extents, crossLinked, problem: `its cluster chain runs into a free cluster after ${k + 1} clusters` };
      c = n;
    }
    return { extents, crossLinked, problem: "its cluster chain is longer than the volume (a loop)" };
  }
}

/** Lists the FAT volume found at `at` (disk.ts) in an open image; the medium closes `fh`. */
export async function openFatVolume(fh: FileHandle, path: string, options: CardOptions, container: { sha256?: string; size: number }, at: Located): Promise<CardMedium> {
  const limits = limitsFrom(options);
  const notes: string[] = [...at.notes];
  const boot = Buffer.alloc(512);
  const { bytesRead } = await fh.read(boot, 0, 512, at.offset);
  const bpb = parseBpb(boot.subarray(0, bytesRead));
  if (typeof bpb === "string") {
    throw new Invalid(say("fat.bootSector", { path, partition: at.partition?.index ?? 1, problem: bpb }), "path");
  }
  const volumeBytes = bpb.totalSectors * bpb.bytesPerSector;
  if (at.partition && at.partition.sectors * SECTOR < volumeBytes) {
    notes.push(`The FAT volume declares ${volumeBytes} bytes, more than its partition's ${at.partition.sectors * SECTOR}.`);
  }
  if (at.offset + volumeBytes > container.size) {
    notes.push(`The image is truncated: the volume declares ${volumeBytes} bytes but the image holds ${Math.max(0, container.size - at.offset)} from its start; files in the missing part are refused.`);
  }
  const fat = await readFat(fh, container.size, at.offset, bpb, notes);
  const volume = new Volume(fh, container.size, at.offset, bpb, fat);
  noteDirtyFlags(volume, notes);
  const scan = await scanVolume(volume, limits.maxEntries, notes);
  scan.files.sort((a, b) => comparePaths(a.path, b.path));
  scan.deleted.sort((a, b) => comparePaths(a.path, b.path));
  const entries = scan.files.map((f) => toCardEntry(volume, f));
  return {
    kind: "fat-image",
    path,
    sha256: container.sha256,
    size: container.size,
    fsType: bpb.fsType,
    volumeSerial: bpb.volumeSerial,
    volumeLabel: scan.label ?? bpb.bpbLabel,
    deletedCount: scan.deleted.length,
    async *deletedEntries() {
      yield* scan.deleted;
    },
    notes,
    async *entries() {
      yield* entries;
    },
    async close() {
      await fh.close();
    },
  };
}

async function readFat(fh: FileHandle, imageSize: number, offset: number, bpb: Bpb, notes: string[]): Promise<Buffer> {
  const entryBytes = bpb.fsType === "FAT12" ? 1.5 : bpb.fsType === "FAT16" ? 2 : 4;
  // FAT12 entries straddle bytes; one spare byte lets the last one be read as 16 bits.
  const need = Math.ceil((bpb.clusterCount + 2) * entryBytes) + 1;
  if (need > MAX_FAT_BYTES) throw new TooLarge(say("fat.tooManyClusters", { clusters: bpb.clusterCount, max: MAX_FAT_BYTES / 4 }));
  const fatBytes = bpb.sectorsPerFat * bpb.bytesPerSector;
  const copyAt = (i: number) => offset + (bpb.reservedSectors + i * bpb.sectorsPerFat) * bpb.bytesPerSector;
  const readCopy = async (i: number) => {
    const buf = Buffer.alloc(need);
    const pos = copyAt(i);
    const want = Math.min(need, fatBytes, Math.max(0, imageSize - pos));
    if (want > 0) await fh.read(buf, 0, want, pos);
    return buf;
  };
  const fat = await readCopy(bpb.activeFat);
  if (copyAt(bpb.activeFat) + Math.min(need, fatBytes) > imageSize) notes.push("The allocation table (FAT) is cut off by the end of the image.");
  if (need <= 64 * 1024 * 1024) {
    for (let i = 0; i < bpb.fatCount; i++) {
      if (i === bpb.activeFat) continue;
      const other = await readCopy(i);
      if (!other.equals(fat)) {
        notes.push(`Copy ${i + 1} of the allocation table differs from copy ${bpb.activeFat + 1}, which was used; the volume was modified without both being updated (an interrupted write, a repair, or tampering).`);
      }
    }
  }
  return fat;
}

function noteDirtyFlags(v: Volume, notes: string[]): void {
  if (v.bpb.fsType === "FAT12") return;
  const f1 = v.next(1);
  const [clean, ok] = v.bpb.fsType === "FAT16" ? [0x8000, 0x4000] : [0x08000000, 0x04000000];
  if ((f1 & clean) === 0) notes.push("The volume's 'dirty' flag is set: it was not cleanly unmounted (removed while in use, or imaged from a live device).");
  if ((f1 & ok) === 0) notes.push("The volume's 'hard error' flag is set: a system that used it met a disk I/O error.");
}

interface Scan {
  files: Listed[];
  deleted: DeletedCardEntry[];
  label?: string;
}

async function scanVolume(v: Volume, maxEntries: number, notes: string[]): Promise<Scan> {
  const files: Listed[] = [];
  const deleted: DeletedCardEntry[] = [];
  let label: string | undefined;
  let orphanNames = 0;
  const stack: Array<{ path: string; cluster: number; depth: number }> = [{ path: "", cluster: 0, depth: 0 }];
  const rootId = v.claim("/");
  const count = () => {
    if (files.length + deleted.length > maxEntries) throw new TooLarge(say("fat.tooManyEntries", { max: maxEntries }));
  };
  while (stack.length > 0) {
    const dir = stack.pop() as { path: string; cluster: number; depth: number };
    const isRoot = dir.path === "";
    let raw: Buffer;
    if (isRoot && v.bpb.fsType !== "FAT32") {
      raw = await v.read(v.offset + v.bpb.rootDirSector * v.bpb.bytesPerSector, v.bpb.rootEntries * 32);
    } else {
      // Checked when the directory is reached, not when it is found, so each cluster is read as a directory
      // at most once however many entries point at it.
      const owner = isRoot ? undefined : v.ownerOf(dir.cluster);
      if (owner !== undefined) {
        files.push({ path: dir.path, size: 0, extents: [], refused: `This directory points at clusters already read as ${owner === "/" ? "the root directory" : owner} (a directory loop or cross-link); it was not read again.` });
        continue;
      }
      const id = isRoot ? rootId : v.claim(dir.path);
      const start = isRoot ? v.bpb.rootCluster : dir.cluster;
      const chain = v.follow(start, undefined, id);
      if (chain.problem) notes.push(`${isRoot ? "The root directory" : `Directory ${dir.path}`}: ${chain.problem}; entries past that point could not be read.`);
      if (chain.crossLinked) notes.push(`${isRoot ? "The root directory" : `Directory ${dir.path}`} shares clusters with ${chain.crossLinked} (cross-linked).`);
      const parts: Buffer[] = [];
      let total = 0;
      for (const e of chain.extents) {
        if (total >= MAX_DIR_BYTES) break;
        const part = await v.read(v.clusterOffset(e.cluster), Math.min(e.count * v.clusterBytes, MAX_DIR_BYTES - total));
        parts.push(part);
        total += part.length;
      }
      raw = Buffer.concat(parts);
    }
    const parsed = parseDirectory(raw, v.bpb.fsType === "FAT32");
    orphanNames += parsed.orphans;
    if (isRoot) label = parsed.label;
    const prefix = isRoot ? "" : dir.path + "/";
    for (const d of parsed.deleted) {
      deleted.push({ ...d, path: prefix + d.path });
      count();
    }
    for (const e of parsed.entries) {
      const path = prefix + e.name;
      count();
      if (e.nameProblem) {
        files.push({ path, size: e.size, modified: e.modified, created: e.created, extents: [], refused: `Its directory entry ${e.nameProblem}; it was not extracted.` });
        continue;
      }
      if (e.attr & 0x10) {
        if (dir.depth + 1 > MAX_DEPTH) {
          files.push({ path, size: 0, extents: [], refused: `This directory is nested more than ${MAX_DEPTH} levels deep, which no camera writes; it was not read.` });
        } else if (e.firstCluster < 2 || e.firstCluster > v.maxCluster) {
          files.push({ path, size: 0, extents: [], refused: `This directory's entry points at cluster ${e.firstCluster}, outside the volume; it could not be read.` });
        } else stack.push({ path, cluster: e.firstCluster, depth: dir.depth + 1 });
        continue;
      }
      files.push(listFile(v, path, e, notes));
    }
  }
  if (orphanNames > 0) notes.push(`${orphanNames} long file name(s) did not match the short entry they precede (broken sequence or checksum); those files are listed under their 8.3 names.`);
  return { files, deleted, label };
}

function listFile(v: Volume, path: string, e: DirEntry, notes: string[]): Listed {
  const base: Listed = { path, size: e.size, modified: e.modified, created: e.created, extents: [] };
  if (e.size === 0) return base;
  const id = v.claim(path);
  const needed = Math.ceil(e.size / v.clusterBytes);
  if (e.firstCluster === 0) return { ...base, refused: `It declares ${e.size} bytes but records no first cluster; its data cannot be located.` };
  const chain = v.follow(e.firstCluster, needed, id);
  if (chain.problem) return { ...base, refused: `It cannot be read: ${chain.problem}.` };
  if (chain.crossLinked) notes.push(`${path} shares clusters with ${chain.crossLinked} (cross-linked): at least one of them does not hold its original content.`);
  if (chain.overrun) notes.push(`${path}: its cluster chain continues past its size (the extra clusters were not read).`);
  const seg = v.segments(chain.extents, e.size);
  if (seg.problem) return { ...base, refused: `It cannot be read: ${seg.problem}.` };
  return { ...base, extents: chain.extents };
}

function toCardEntry(v: Volume, f: Listed): CardEntry {
  const out: CardEntry = { path: f.path, size: f.size };
  if (f.modified) out.modified = f.modified;
  if (f.created) out.created = f.created;
  if (f.refused) out.refused = f.refused;
  else {
    const { segments } = v.segments(f.extents, f.size);
    out.open = async () => new FileSlices(v.fh, segments, f.path);
  }
  return out;
}

/**
 * The bytes of one file as a list of byte ranges of a container file, read in order with positional reads on
 * a shared handle: flat memory, any number of streams at once. (Also used for zip entry data.)
 */
export interface Slice {
  pos: number;
  len: number;
  /** Bytes that read as zeros without being read (exFAT past a file's valid data length). */
  zeros?: boolean;
}

export class FileSlices extends Readable {
  private index = 0;
  private within = 0;
  private readonly segments: Slice[];
  constructor(
    private readonly fh: FileHandle,
    segments: Slice[],
    private readonly label: string,
  ) {
    super({ highWaterMark: STREAM_CHUNK });
    this.segments = segments.filter((s) => s.len > 0);
  }
  override _read(): void {
    const seg = this.segments[this.index];
    if (!seg) {
      this.push(null);
      return;
    }
    const n = Math.min(STREAM_CHUNK, seg.len - this.within);
    if (seg.zeros) {
      this.advance(n);
      this.push(Buffer.alloc(n));
      return;
    }
    const buf = Buffer.allocUnsafe(n);
    this.fh.read(buf, 0, n, seg.pos + this.within).then(
      ({ bytesRead }) => {
        if (bytesRead !== n) {
          this.destroy(new IntegrityError(say("container.endedEarly", { label: this.label })));
          return;
        }
        this.advance(n);
        this.push(buf);
      },
      (err: Error) => this.destroy(err),
    );
  }
  private advance(n: number): void {
    this.within += n;
    if (this.within === (this.segments[this.index] as Slice).len) {
      this.index++;
      this.within = 0;
    }
  }
}

// --- directory entries ----------------------------------------------------------------------------------------

const CP437_HIGH =
  "ÇüéâäàåçêëèïîìÄÅÉæÆôöòûùÿÖÜ¢£¥₧ƒáíóúñÑªº¿⌐¬½¼¡«»░▒▓│┤╡╢╖╕╣║╗╝╜╛┐└┴┬├─┼╞╟╚╔╩╦╠═╬╧╨╤╥╙╘╒╓╫╪┘┌█▄▌▐▀αßΓπΣσµτΦΘΩδ∞φε∩≡±≥≤⌠⌡÷≈°∙·√ⁿ²■\u00a0";

function cp437(bytes: Buffer): string {
  let s = "";
  for (const b of bytes) s += b < 0x80 ? String.fromCharCode(b) : CP437_HIGH[b - 0x80];
  return s;
}

function cleanLabel(raw: Buffer): string | undefined {
  const s = cp437(raw).replace(/[\s\0]+$/, "");
  return s === "" || s === "NO NAME" ? undefined : s;
}

export function shortNameChecksum(name11: Buffer): number {
  let sum = 0;
  for (let i = 0; i < 11; i++) sum = (((sum & 1) << 7) + (sum >> 1) + (name11[i] as number)) & 0xff;
  return sum;
}

function shortName(slot: Buffer): string {
  const raw = Buffer.from(slot.subarray(0, 11));
  if (raw[0] === 0x05) raw[0] = 0xe5;
  let base = cp437(raw.subarray(0, 8)).replace(/ +$/, "");
  let ext = cp437(raw.subarray(8, 11)).replace(/ +$/, "");
  const caseBits = slot[12] as number;
  if (caseBits & 0x08) base = base.toLowerCase();
  if (caseBits & 0x10) ext = ext.toLowerCase();
  return ext ? `${base}.${ext}` : base;
}

function lfnUnits(slot: Buffer): number[] {
  const units: number[] = [];
  for (const [at, n] of [[1, 5], [14, 6], [28, 2]] as const) for (let i = 0; i < n; i++) units.push(slot.readUInt16LE(at + i * 2));
  return units;
}

function joinLfn(parts: number[][]): string {
  const units: number[] = [];
  for (const p of parts) for (const u of p) units.push(u);
  const end = units.indexOf(0);
  const used = end >= 0 ? units.slice(0, end) : units.filter((u) => u !== 0xffff);
  return String.fromCharCode(...used);
}

export function badName(name: string): string | undefined {
  if (name === "") return "has an empty name";
  if (name === "." || name === "..") return `is named ${JSON.stringify(name)} outside the place such entries belong`;
  if (name.includes("/") || name.includes("\0")) return "has a name containing '/' or NUL, which no FAT volume can legitimately hold";
  return undefined;
}

function parseDirectory(raw: Buffer, fat32: boolean): { entries: DirEntry[]; deleted: DeletedCardEntry[]; label?: string; orphans: number } {
  const entries: DirEntry[] = [];
  const deleted: DeletedCardEntry[] = [];
  let label: string | undefined;
  let orphans = 0;
  let lfn: { parts: number[][]; expected: number; checksum: number } | undefined;
  let deletedLfn: Array<{ units: number[]; checksum: number }> = [];
  for (let at = 0; at + 32 <= raw.length; at += 32) {
    const slot = raw.subarray(at, at + 32);
    const first = slot[0] as number;
    const attr = slot[11] as number;
    const isLfn = (attr & 0x3f) === 0x0f;
    if (first === 0x00) break;
    if (first === 0xe5) {
      if (isLfn) deletedLfn.push({ units: lfnUnits(slot), checksum: slot[13] as number });
      else if (!(attr & 0x08) || attr & 0x10) {
        deleted.push(deletedRecord(slot, deletedLfn, fat32));
        deletedLfn = [];
      } else deletedLfn = [];
      if (lfn) orphans++;
      lfn = undefined;
      continue;
    }
    deletedLfn = [];
    if (isLfn) {
      const ord = first & 0x1f;
      if (first & 0x40) {
        if (lfn) orphans++;
        lfn = ord >= 1 && ord <= 20 ? { parts: [lfnUnits(slot)], expected: ord - 1, checksum: slot[13] as number } : undefined;
        if (!lfn) orphans++;
      } else if (lfn && ord === lfn.expected && ord >= 1 && slot[13] === lfn.checksum) {
        lfn.parts.unshift(lfnUnits(slot));
        lfn.expected--;
      } else {
        if (lfn) orphans++;
        lfn = undefined;
      }
      continue;
    }
    let long: string | undefined;
    if (lfn) {
      if (lfn.expected === 0 && shortNameChecksum(slot.subarray(0, 11)) === lfn.checksum) long = joinLfn(lfn.parts);
      else orphans++;
      lfn = undefined;
    }
    if (attr & 0x08 && !(attr & 0x10)) {
      const size = slot.readUInt32LE(28);
      const cluster = firstCluster(slot, fat32);
      if (size === 0 && cluster === 0) {
        label ??= cleanLabel(slot.subarray(0, 11));
        continue;
      }
      entries.push({ ...common(slot, fat32), name: shortName(slot), nameProblem: "is marked as a volume label yet points at data (a way to hide a file)" });
      continue;
    }
    const short = shortName(slot);
    if (short === "." || short === "..") continue;
    const name = long ?? short;
    const problem = badName(name);
    entries.push({ ...common(slot, fat32), name: problem ? name.replace(/\//g, "\u2215").replace(/\0/g, "\u2400") : name, nameProblem: problem });
  }
  if (lfn) orphans++;
  return { entries, deleted, label, orphans };
}

function firstCluster(slot: Buffer, fat32: boolean): number {
  // FAT12/16 leave the high word to other uses (OS/2 extended attributes); only FAT32 addresses with it.
  return ((fat32 ? slot.readUInt16LE(20) : 0) * 0x10000) + slot.readUInt16LE(26);
}

function common(slot: Buffer, fat32: boolean): Omit<DirEntry, "name"> {
  return {
    attr: slot[11] as number,
    firstCluster: firstCluster(slot, fat32),
    size: slot.readUInt32LE(28),
    modified: dosWallClock(slot.readUInt16LE(24), slot.readUInt16LE(22)),
    created: dosWallClock(slot.readUInt16LE(16), slot.readUInt16LE(14), slot[13] as number),
  };
}

function deletedRecord(slot: Buffer, lfnSlots: Array<{ units: number[]; checksum: number }>, fat32: boolean): DeletedCardEntry {
  const c = common(slot, fat32);
  let name = "?" + shortName(slot).slice(1);
  if (lfnSlots.length > 0 && lfnSlots.every((s) => s.checksum === lfnSlots[0]?.checksum)) {
    // The erased first byte was part of what the checksum covers: the long name is believed if some byte fits.
    const probe = Buffer.from(slot.subarray(0, 11));
    for (let b = 0x20; b < 0x100; b++) {
      probe[0] = b;
      if (shortNameChecksum(probe) === lfnSlots[0]?.checksum) {
        name = joinLfn([...lfnSlots].reverse().map((s) => s.units));
        break;
      }
    }
  }
  const out: DeletedCardEntry = { path: name, size: c.size, firstCluster: c.firstCluster, directory: (c.attr & 0x10) !== 0 };
  if (c.modified) out.modified = c.modified;
  return out;
}
