/**
 * An exFAT volume in a raw disk image of a card (every SD card over 32 GB is exFAT): the whole image, or the
 * partition disk.ts found in it. Read-only, with positional reads; the image is never mounted. The same shape
 * and care as fat.ts, and the same interface to the ingest.
 *
 * Believed only after checking: the boot sector's fields and the boot region's checksum (sectors 0–10 against
 * sector 11; when only the main region fails, the backup region, sectors 12–23, is used with a note); each
 * directory entry set's checksum; each file's clusters — inside the cluster heap, inside the image, and, for a
 * file kept as a FAT chain, a chain that neither loops, leaves the heap nor ends early, followed at most
 * cluster-count steps. A file whose stream entry says NoFatChain is contiguous and its FAT entries are not
 * read (they are undefined). The allocation bitmap and the up-case table are not read: extents come from the
 * entries and the FAT alone, and names are not compared (so NameHash is not checked).
 *
 * Deleted entry sets (InUse bit clear) are not listed; they are counted in a note. Bytes of a file past its
 * ValidDataLength read as zeros, as the exFAT specification defines (and as every system shows the file).
 * Times are reported as recorded: the wall-clock time, with its UTC offset when the offset field is valid.
 */
import type { FileHandle } from "node:fs/promises";
import { Invalid, TooLarge } from "../../core/errors.ts";
import { say } from "../../core/messages.ts";
import { comparePaths, dosWallClock, limitsFrom } from "./card-reading.ts";
import { badName, ClusterImage, FileSlices } from "./fat.ts";
import type { Extent, Slice } from "./fat.ts";
import type { Located } from "./disk.ts";
import type { CardEntry, CardMedium, CardOptions } from "./sources.ts";

/** 16M clusters (2 TiB at 128 KiB clusters): the FAT and the owner array, 64 MiB each at most. */
export const MAX_EXFAT_CLUSTERS = 16 * 1024 * 1024;
/** A directory of 16 MiB holds over 150,000 camera files; more is read no further, with a note. */
const MAX_DIR_BYTES = 16 * 1024 * 1024;
const MAX_DEPTH = 256;
const EOC = 0xffffffff;
const BAD = 0xfffffff7;

export interface ExfatBoot {
  bytesPerSector: number;
  clusterBytes: number;
  volumeLength: number;
  fatOffset: number;
  fatLength: number;
  clusterHeapOffset: number;
  clusterCount: number;
  rootCluster: number;
  volumeSerial: string;
  volumeFlags: number;
  fatCount: number;
}

/** A little-endian 64-bit field as a number; Infinity when past 2^53. */
function u64(b: Buffer, at: number): number {
  const v = b.readBigUInt64LE(at);
  return v > BigInt(Number.MAX_SAFE_INTEGER) ? Infinity : Number(v);
}

/** Reads an exFAT boot sector; a string says why the sector is not a usable one. */
export function parseExfatBoot(s: Buffer): ExfatBoot | string {
  if (s.length < 512) return "its exFAT boot sector is incomplete";
  if (s.toString("latin1", 3, 11) !== "EXFAT   ") return "its boot sector does not name exFAT";
  if (s[0] !== 0xeb || s[1] !== 0x76 || s[2] !== 0x90) return "its exFAT boot sector holds no boot jump (EB 76 90)";
  if (s.subarray(11, 64).some((b) => b !== 0)) return "its exFAT boot sector has data where bytes 11–63 must be zero";
  if (s[510] !== 0x55 || s[511] !== 0xaa) return "its exFAT boot sector lacks the boot signature 55 AA";
  const sectorShift = s[108] as number;
  const clusterShift = s[109] as number;
  if (sectorShift < 9 || sectorShift > 12) return "its exFAT boot sector gives an impossible sector size";
  if (clusterShift > 25 - sectorShift) return "its exFAT boot sector gives an impossible cluster size (over 32 MiB)";
  if (s[105] !== 1) return `its exFAT revision is ${s[105]}.${s[104]}, not 1.x`;
  const fatCount = s[110] as number;
  if (fatCount !== 1 && fatCount !== 2) return `its exFAT boot sector gives ${fatCount} FATs (1 or 2 allowed)`;
  const bytesPerSector = 2 ** sectorShift;
  const sectorsPerCluster = 2 ** clusterShift;
  const volumeLength = u64(s, 72);
  const fatOffset = s.readUInt32LE(80);
  const fatLength = s.readUInt32LE(84);
  const clusterHeapOffset = s.readUInt32LE(88);
  const clusterCount = s.readUInt32LE(92);
  const rootCluster = s.readUInt32LE(96);
  if (fatOffset < 24) return "its exFAT boot sector puts the FAT inside the boot regions";
  if (clusterCount < 1 || clusterCount > 0xfffffff5) return `its exFAT boot sector gives an impossible cluster count (${clusterCount})`;
  if (fatLength * bytesPerSector < (clusterCount + 2) * 4) return "its exFAT boot sector gives a FAT too small for its clusters";
  if (clusterHeapOffset < fatOffset + fatLength * fatCount) return "its exFAT boot sector puts the cluster heap over the FAT";
  if (clusterHeapOffset + clusterCount * sectorsPerCluster > volumeLength) return "its exFAT boot sector puts clusters past the volume's declared length";
  if (rootCluster < 2 || rootCluster > clusterCount + 1) return `its exFAT boot sector puts the root directory at cluster ${rootCluster}, outside the cluster heap`;
  const serial = s.readUInt32LE(100).toString(16).toUpperCase().padStart(8, "0");
  return {
    bytesPerSector,
    clusterBytes: bytesPerSector * sectorsPerCluster,
    volumeLength,
    fatOffset,
    fatLength,
    clusterHeapOffset,
    clusterCount,
    rootCluster,
    volumeSerial: `${serial.slice(0, 4)}-${serial.slice(4)}`,
    volumeFlags: s.readUInt16LE(106),
    fatCount,
  };
}

/** The boot region checksum over sectors 0–10, skipping VolumeFlags and PercentInUse (which change in use). */
export function bootChecksum(region: Buffer, bytesPerSector: number): number {
  let sum = 0;
  const n = 11 * bytesPerSector;
  for (let i = 0; i < n; i++) {
    if (i === 106 || i === 107 || i === 112) continue;
    sum = ((sum & 1 ? 0x80000000 : 0) + (sum >>> 1) + (region[i] as number)) >>> 0;
  }
  return sum;
}

/** Whether a 12-sector boot region's sector 11 holds, in every 4 bytes, the checksum of sectors 0–10. */
export function bootRegionHolds(region: Buffer, bytesPerSector: number): boolean {
  if (region.length < 12 * bytesPerSector) return false;
  const want = bootChecksum(region, bytesPerSector);
  for (let i = 11 * bytesPerSector; i < 12 * bytesPerSector; i += 4) if (region.readUInt32LE(i) !== want) return false;
  return true;
}

/** A directory entry set's checksum: every byte of the set but the checksum field (bytes 2–3). */
export function entrySetChecksum(set: Buffer): number {
  let sum = 0;
  for (let i = 0; i < set.length; i++) {
    if (i === 2 || i === 3) continue;
    sum = ((sum & 1 ? 0x8000 : 0) + (sum >> 1) + (set[i] as number)) & 0xffff;
  }
  return sum;
}

/** An exFAT timestamp as recorded: wall-clock ISO 8601, with "+hh:mm" only when the offset field is marked valid. */
export function exfatTime(stamp: number, centis: number, utcOffset: number): string | undefined {
  const t = dosWallClock(stamp >>> 16, stamp & 0xffff, centis);
  if (t === undefined || !(utcOffset & 0x80)) return t;
  const quarters = utcOffset & 0x40 ? (utcOffset & 0x7f) - 0x80 : utcOffset & 0x7f;
  const minutes = Math.abs(quarters) * 15;
  const p = (n: number) => String(n).padStart(2, "0");
  return `${t}${quarters < 0 ? "-" : "+"}${p(Math.floor(minutes / 60))}:${p(minutes % 60)}`;
}

/** One file or directory as its entry set records it. */
interface ExEntry {
  name: string;
  /** Why the entry set is not believed (bad checksum, malformed set, bad name). */
  problem?: string;
  directory: boolean;
  firstCluster: number;
  noFatChain: boolean;
  dataLength: number;
  validLength: number;
  modified?: string;
  created?: string;
}

interface Listed {
  path: string;
  size: number;
  modified?: string;
  created?: string;
  segments: Slice[];
  refused?: string;
}

class ExVolume extends ClusterImage {
  constructor(
    fh: FileHandle,
    imageSize: number,
    offset: number,
    readonly boot: ExfatBoot,
    private readonly fat: Buffer,
  ) {
    super(fh, imageSize, offset, boot.clusterBytes, boot.clusterCount + 1);
  }

  clusterOffset(c: number): number {
    return this.offset + this.boot.clusterHeapOffset * this.boot.bytesPerSector + (c - 2) * this.boot.clusterBytes;
  }

  /**
   * The clusters of a file or directory from `start`: `needed` of them (contiguous, or along the FAT), or for the
   * root directory (needed undefined) along the FAT to its end mark. Returns the runs and the first problem met.
   */
  clusters(start: number, needed: number | undefined, contiguous: boolean, id: number): { extents: Extent[]; problem?: string; crossLinked?: string } {
    const extents: Extent[] = [];
    let crossLinked: string | undefined;
    if (needed !== undefined && needed > this.boot.clusterCount) return { extents, problem: `its length needs ${needed} clusters, more than the volume's ${this.boot.clusterCount}` };
    const limit = needed ?? this.boot.clusterCount;
    let c = start;
    for (let k = 0; k < limit; k++) {
      if (c < 2 || c > this.maxCluster) {
        const where = `outside the cluster heap (clusters 2–${this.maxCluster})`;
        return { extents, crossLinked, problem: k === 0 ? `it starts at cluster ${c}, ${where}` : `its clusters run to cluster ${c} after ${k} clusters, ${where}` };
      }
      const owner = this.owner[c] as number;
      if (owner === id) return { extents, crossLinked, problem: `its cluster chain loops back to cluster ${c} after ${k} clusters` };
      if (owner === 0) this.owner[c] = id;
      else crossLinked ??= this.ownerPaths[owner - 1];
      const last = extents[extents.length - 1];
      if (last && last.cluster + last.count === c) last.count++;
      else extents.push({ cluster: c, count: 1 });
      if (contiguous) {
        c++;
        continue;
      }
      const n = this.fat.readUInt32LE(c * 4);
      if (n === EOC) {
        if (needed !== undefined && k + 1 < needed) return { extents, crossLinked, problem: `its cluster chain ends after ${k + 1} clusters but its size needs ${needed}` };
        return { extents, crossLinked };
      }
      if (needed !== undefined && k + 1 === needed) return { extents, crossLinked };
      if (n === BAD) return { extents, crossLinked, problem: `its cluster chain reaches a cluster marked bad after ${k + 1} clusters` };
      if (n === 0) return { extents, crossLinked, problem: `its cluster chain runs into a free cluster after ${k + 1} clusters` };
      c = n;
    }
    if (needed === undefined) return { extents, crossLinked, problem: "its cluster chain is longer than the volume (a loop)" };
    return { extents, crossLinked };
  }
}

/** Lists the exFAT volume found at `at` (disk.ts) in an open image; the medium closes `fh`. */
export async function openExfatVolume(fh: FileHandle, path: string, options: CardOptions, container: { sha256?: string; size: number }, at: Located): Promise<CardMedium> {
  const limits = limitsFrom(options);
  const notes: string[] = [...at.notes];
  const partition = at.partition?.index ?? 1;
  const refuse = (problem: string) => new Invalid(say("fat.bootSector", { path, partition, problem }), "path");
  const readAt = async (pos: number, len: number) => {
    const buf = Buffer.alloc(len);
    const { bytesRead } = await fh.read(buf, 0, len, pos);
    return buf.subarray(0, bytesRead);
  };
  let boot = parseExfatBoot(await readAt(at.offset, 512));
  if (typeof boot === "string") throw refuse(boot);
  const regionBytes = 12 * boot.bytesPerSector;
  if (!bootRegionHolds(await readAt(at.offset, regionBytes), boot.bytesPerSector)) {
    const backup = await readAt(at.offset + regionBytes, regionBytes);
    const backupBoot = parseExfatBoot(backup);
    if (typeof backupBoot === "string" || !bootRegionHolds(backup, backupBoot.bytesPerSector)) {
      throw refuse("its boot region fails its checksum (sectors 0–10 against sector 11), and so does the backup boot region");
    }
    notes.push("The main boot region fails its checksum (damaged or altered); the backup boot region, which checks out, was used.");
    boot = backupBoot;
  }
  const volumeBytes = boot.volumeLength * boot.bytesPerSector;
  if (at.partition && at.partition.sectors * 512 < volumeBytes) {
    notes.push(`The exFAT volume declares ${volumeBytes} bytes, more than its partition's ${at.partition.sectors * 512}.`);
  }
  if (at.offset + volumeBytes > container.size) {
    notes.push(`The image is truncated: the volume declares ${volumeBytes} bytes but the image holds ${Math.max(0, container.size - at.offset)} from its start; files in the missing part are refused.`);
  }
  if (boot.volumeFlags & 0x2) notes.push("The volume's 'dirty' flag is set: it was not cleanly unmounted (removed while in use, or imaged from a live device).");
  if (boot.volumeFlags & 0x4) notes.push("The volume's 'media failure' flag is set: a system that used it met a disk I/O error.");
  if (boot.clusterCount > MAX_EXFAT_CLUSTERS) throw new TooLarge(say("fat.tooManyClusters", { clusters: boot.clusterCount, max: MAX_EXFAT_CLUSTERS }));
  const activeFat = boot.fatCount === 2 && boot.volumeFlags & 0x1 ? 1 : 0;
  const fatPos = at.offset + (boot.fatOffset + activeFat * boot.fatLength) * boot.bytesPerSector;
  const fat = Buffer.alloc((boot.clusterCount + 2) * 4);
  const fatRead = await readAt(fatPos, fat.length);
  fatRead.copy(fat);
  if (fatRead.length < fat.length) notes.push("The allocation table (FAT) is cut off by the end of the image.");
  const volume = new ExVolume(fh, container.size, at.offset, boot, fat);
  const scan = await scanVolume(volume, limits.maxEntries, notes);
  scan.files.sort((a, b) => comparePaths(a.path, b.path));
  const entries = scan.files.map(toCardEntry(volume));
  return {
    kind: "fat-image",
    path,
    sha256: container.sha256,
    size: container.size,
    fsType: "exFAT",
    volumeSerial: boot.volumeSerial,
    volumeLabel: scan.label,
    notes,
    async *entries() {
      yield* entries;
    },
    async close() {
      await fh.close();
    },
  };
}

function toCardEntry(v: ExVolume): (f: Listed) => CardEntry {
  return (f) => {
    const out: CardEntry = { path: f.path, size: f.size };
    if (f.modified) out.modified = f.modified;
    if (f.created) out.created = f.created;
    if (f.refused) out.refused = f.refused;
    else out.open = async () => new FileSlices(v.fh, f.segments, f.path);
    return out;
  };
}

async function scanVolume(v: ExVolume, maxEntries: number, notes: string[]): Promise<{ files: Listed[]; label?: string }> {
  const files: Listed[] = [];
  let label: string | undefined;
  const tally = { deleted: 0, broken: 0, strays: 0 };
  const stack: Array<{ path: string; entry?: ExEntry; depth: number }> = [{ path: "", depth: 0 }];
  while (stack.length > 0) {
    const dir = stack.pop() as { path: string; entry?: ExEntry; depth: number };
    const e = dir.entry;
    const name = e ? `Directory ${dir.path}` : "The root directory";
    const start = e ? e.firstCluster : v.boot.rootCluster;
    // Checked when the directory is reached, so each cluster is read as a directory at most once.
    const owner = v.ownerOf(start);
    if (e && owner !== undefined) {
      files.push({ path: dir.path, size: 0, segments: [], refused: `This directory points at clusters already read as ${owner === "/" ? "the root directory" : owner} (a directory loop or cross-link); it was not read again.` });
      continue;
    }
    const id = v.claim(e ? dir.path : "/");
    const needed = e ? Math.ceil(e.dataLength / v.boot.clusterBytes) : undefined;
    const chain = v.clusters(start, needed, e?.noFatChain ?? false, id);
    if (chain.problem) notes.push(`${name}: ${chain.problem}; entries past that point could not be read.`);
    if (chain.crossLinked) notes.push(`${name} shares clusters with ${chain.crossLinked} (cross-linked).`);
    const parts: Buffer[] = [];
    let total = 0;
    for (const x of chain.extents) {
      if (total >= MAX_DIR_BYTES) {
        notes.push(`${name} is longer than ${MAX_DIR_BYTES} bytes; entries past that point were not read.`);
        break;
      }
      const part = await v.read(v.clusterOffset(x.cluster), Math.min(x.count * v.boot.clusterBytes, MAX_DIR_BYTES - total));
      parts.push(part);
      total += part.length;
    }
    const parsed = parseDirectory(Buffer.concat(parts), e?.validLength ?? total);
    tally.deleted += parsed.deleted;
    tally.broken += parsed.broken;
    tally.strays += parsed.strays;
    if (!e) label = parsed.label;
    const prefix = e ? dir.path + "/" : "";
    for (const x of parsed.entries) {
      const path = prefix + x.name;
      if (files.length >= maxEntries) throw new TooLarge(say("fat.tooManyEntries", { max: maxEntries }));
      if (x.problem) {
        files.push({ path, size: x.dataLength, modified: x.modified, created: x.created, segments: [], refused: `Its directory entry set ${x.problem}; it was not extracted.` });
      } else if (!x.directory) files.push(listFile(v, path, x, notes));
      else if (dir.depth + 1 > MAX_DEPTH) {
        files.push({ path, size: 0, segments: [], refused: `This directory is nested more than ${MAX_DEPTH} levels deep, which no camera writes; it was not read.` });
      } else if (x.dataLength === 0) continue;
      else stack.push({ path, entry: x, depth: dir.depth + 1 });
    }
  }
  if (tally.deleted > 0) notes.push(`${tally.deleted} deleted file entry set(s) (InUse bit clear) are on the volume; deleted files are not listed for exFAT, and the image itself is kept whole.`);
  if (tally.broken > 0) notes.push(`${tally.broken} file entry set(s) could not be delimited (impossible secondary count, or cut off by the end of the directory) and are not listed.`);
  if (tally.strays > 0) notes.push(`${tally.strays} directory entr(ies) of unknown or misplaced type were passed over.`);
  return { files, label };
}

function listFile(v: ExVolume, path: string, e: ExEntry, notes: string[]): Listed {
  const base: Listed = { path, size: e.dataLength, modified: e.modified, created: e.created, segments: [] };
  if (e.dataLength === 0) return base;
  const id = v.claim(path);
  const needed = Math.ceil(e.dataLength / v.boot.clusterBytes);
  const chain = v.clusters(e.firstCluster, needed, e.noFatChain, id);
  if (chain.problem) return { ...base, refused: `It cannot be read: ${chain.problem}.` };
  if (chain.crossLinked) notes.push(`${path} shares clusters with ${chain.crossLinked} (cross-linked): at least one of them does not hold its original content.`);
  const read = v.segments(chain.extents, e.validLength);
  if (read.problem) return { ...base, refused: `It cannot be read: ${read.problem}.` };
  if (e.validLength < e.dataLength) {
    notes.push(`${path}: only its first ${e.validLength} of ${e.dataLength} bytes were written (ValidDataLength); the rest reads as zeros, as exFAT defines, and was extracted as zeros.`);
    read.segments.push({ pos: 0, len: e.dataLength - e.validLength, zeros: true });
  }
  return { ...base, segments: read.segments };
}

function utf16(b: Buffer, at: number, units: number): string {
  const codes: number[] = [];
  for (let i = 0; i < units; i++) codes.push(b.readUInt16LE(at + i * 2));
  return String.fromCharCode(...codes);
}

/**
 * The entries of one directory's bytes, up to `length` (a directory's valid data). Entry sets with a wrong
 * checksum or a malformed shape are listed with the problem, so nothing on the card is passed over silently.
 */
export function parseDirectory(raw: Buffer, length: number): { entries: ExEntry[]; label?: string; deleted: number; broken: number; strays: number } {
  const entries: ExEntry[] = [];
  let label: string | undefined;
  let deleted = 0;
  let broken = 0;
  let strays = 0;
  const end = Math.min(raw.length, length) - (Math.min(raw.length, length) % 32);
  for (let at = 0; at < end; ) {
    const type = raw[at] as number;
    if (type === 0x00) break;
    if (!(type & 0x80)) {
      if (type === 0x05) deleted++;
      at += 32;
      continue;
    }
    if (type === 0x85) {
      const count = raw[at + 1] as number;
      if (count < 2 || count > 18 || at + 32 * (count + 1) > end) {
        broken++;
        at += 32;
        continue;
      }
      entries.push(parseEntrySet(raw.subarray(at, at + 32 * (count + 1)), at));
      at += 32 * (count + 1);
      continue;
    }
    if (type === 0x83) {
      const n = Math.min(raw[at + 1] as number, 11);
      label = n > 0 ? utf16(raw, at + 2, n) : undefined;
    } else if (type >= 0xa0 && type <= 0xbf) {
      // A benign primary entry (volume GUID, TexFAT padding, vendor): passed over with its secondaries.
      at += 32 * (raw[at + 1] as number);
    } else if (type !== 0x81 && type !== 0x82) strays++;
    at += 32;
  }
  return { entries, label, deleted, broken, strays };
}

function parseEntrySet(set: Buffer, at: number): ExEntry {
  const file = set.subarray(0, 32);
  const stream = set.subarray(32, 64);
  const out: ExEntry = {
    name: `(entry set at byte ${at} of this directory)`,
    directory: (file.readUInt16LE(4) & 0x10) !== 0,
    firstCluster: stream.readUInt32LE(20),
    noFatChain: ((stream[1] as number) & 0x2) !== 0,
    dataLength: u64(stream, 24),
    validLength: u64(stream, 8),
    created: exfatTime(file.readUInt32LE(8), file[20] as number, file[22] as number),
    modified: exfatTime(file.readUInt32LE(12), file[21] as number, file[23] as number),
  };
  if (stream[0] !== 0xc0) return { ...out, problem: "does not begin with a stream extension entry" };
  const nameLength = stream[3] as number;
  const nameEntries = Math.ceil(nameLength / 15);
  const secondaries = set.length / 32 - 1;
  if (nameLength === 0 || 1 + nameEntries > secondaries) return { ...out, problem: `gives a name of ${nameLength} characters that its entries cannot hold` };
  const units: string[] = [];
  for (let i = 0; i < nameEntries; i++) {
    const e = set.subarray(64 + i * 32, 96 + i * 32);
    if (e[0] !== 0xc1) return { ...out, problem: "lacks a file name entry where one belongs" };
    units.push(utf16(e, 2, 15));
  }
  const name = units.join("").slice(0, nameLength);
  const named = { ...out, name: name.replace(/\//g, "\u2215").replace(/\0/g, "\u2400") };
  if (entrySetChecksum(set) !== file.readUInt16LE(2)) return { ...named, problem: "fails its checksum (damaged or altered), so its size and clusters cannot be trusted" };
  for (let i = 1 + nameEntries; i < secondaries; i++) {
    const t = set[32 + i * 32] as number;
    if (!(t & 0x80)) return { ...named, problem: "holds an entry not in use inside the set" };
    if (!(t & 0x20)) return { ...named, problem: `holds a critical entry of unknown type 0x${t.toString(16)}` };
  }
  const nameProblem = badName(name);
  if (nameProblem) return { ...named, problem: nameProblem.replace("FAT volume", "exFAT volume") };
  if (((stream[1] as number) & 0x1) === 0 && (out.firstCluster !== 0 || out.dataLength !== 0)) return { ...named, problem: "says no clusters are allocated yet gives a first cluster or a length" };
  if (out.validLength > out.dataLength) return { ...named, problem: `gives a valid data length (${out.validLength}) past its data length (${out.dataLength})` };
  if (out.dataLength === Infinity) return { ...named, problem: "gives an absurd data length" };
  if (out.dataLength > 0 && out.firstCluster === 0) return { ...named, problem: `declares ${out.dataLength} bytes but records no first cluster` };
  return named;
}
