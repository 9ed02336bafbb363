/**
 * A raw disk image of a card: a bare volume, or a disk partitioned with an MBR or a GPT. Finds the volume to read
 * (the first FAT or exFAT one) and hands it to fat.ts or exfat.ts. Read-only, with positional reads; never mounted.
 *
 * The partition table may be damaged or hostile: a GPT header or partition entry array whose CRC32 does not
 * match, an array or partition lying past the end of the image, or absurd sizes are refused with a sentence.
 * Nothing here allocates more than MAX_GPT_ARRAY bytes whatever the image says. Sectors are 512 bytes, as on
 * every SD card (GPT on 4096-byte-sector disks is not looked for).
 */
import { open as openFile } from "node:fs/promises";
import type { FileHandle } from "node:fs/promises";
import { crc32 } from "node:zlib";
import { Invalid } from "../../core/errors.ts";
import { say } from "../../core/messages.ts";
import { openFatVolume, parseBpb } from "./fat.ts";
import { openExfatVolume } from "./exfat.ts";
import type { CardMedium, CardOptions } from "./sources.ts";

export const SECTOR = 512;
/** MBR partition types a FAT volume is recorded under; 0x07 may hold exFAT (or NTFS: the boot sector tells). */
const MBR_VOLUME_TYPES = new Set([0x01, 0x04, 0x06, 0x0b, 0x0c, 0x0e, 0x07]);
/** GPT partition type "Microsoft basic data", which FAT and exFAT volumes are recorded under. */
export const BASIC_DATA_GUID = "EBD0A0A2-B9E5-4433-87C0-68B6B72699C7";
/** 8192 entries of 128 bytes; the spec's minimum array is 16 KiB and every tool writes 128 entries. */
const MAX_GPT_ARRAY = 1024 * 1024;

export type VolumeKind = "FAT" | "exFAT";

export interface Partition {
  /** 1-based, as tools number them. */
  index: number;
  scheme: "MBR" | "GPT";
  /** "0x0c" for MBR, the type GUID for GPT. */
  type: string;
  startLba: number;
  sectors: number;
}

/** Where the volume to read lies in the image. */
export interface Located {
  kind: VolumeKind;
  offset: number;
  partition?: Partition;
  notes: string[];
}

/** Which volume a boot sector starts, or why it starts none (a string). */
export function volumeKind(boot: Buffer): VolumeKind | string {
  if (boot.length >= 11 && boot.toString("latin1", 3, 11) === "EXFAT   ") return "exFAT";
  const bpb = parseBpb(boot);
  return typeof bpb === "string" ? bpb : "FAT";
}

function parseMbr(s: Buffer): Partition[] | undefined {
  if (s.length < 512 || s[510] !== 0x55 || s[511] !== 0xaa) return undefined;
  const parts: Partition[] = [];
  for (let i = 0; i < 4; i++) {
    const at = 446 + i * 16;
    const status = s[at] as number;
    if (status !== 0 && status !== 0x80) return undefined;
    const type = s[at + 4] as number;
    if (type === 0) continue;
    parts.push({ index: i + 1, scheme: "MBR", type: `0x${type.toString(16).padStart(2, "0")}`, startLba: s.readUInt32LE(at + 8), sectors: s.readUInt32LE(at + 12) });
  }
  return parts.length > 0 ? parts : undefined;
}

export type DiskProbe = { ok: true; scheme: "volume" | "MBR" | "GPT" } | { ok: false; reason?: string };

/** Decides from the first sector whether this is a FAT or exFAT volume, a partitioned disk that may hold one, or neither. */
export function probeDisk(head: Buffer): DiskProbe {
  const kind = volumeKind(head);
  if (kind === "FAT" || kind === "exFAT") return { ok: true, scheme: "volume" };
  if (kind.startsWith("it is an")) return { ok: false, reason: kind };
  const parts = parseMbr(head);
  if (!parts) return { ok: false };
  // A hybrid MBR lists other partitions beside 0xEE; the GPT is the disk's real table.
  if (parts.some((p) => p.type === "0xee")) return { ok: true, scheme: "GPT" };
  if (!parts.some((p) => MBR_VOLUME_TYPES.has(Number(p.type)))) {
    const types = parts.map((p) => p.type).join(", ");
    return { ok: false, reason: `its partition table holds no FAT or exFAT partition (types ${types})` };
  }
  return { ok: true, scheme: "MBR" };
}

/** A little-endian 64-bit field as a number; Infinity when past 2^53 (no card is that large). */
function u64(b: Buffer, at: number): number {
  const v = b.readBigUInt64LE(at);
  return v > BigInt(Number.MAX_SAFE_INTEGER) ? Infinity : Number(v);
}

export function guid(b: Buffer): string {
  const h = (from: number, to: number) => b.subarray(from, to).toString("hex");
  const le = (from: number, to: number) => Buffer.from(b.subarray(from, to)).reverse().toString("hex");
  return `${le(0, 4)}-${le(4, 6)}-${le(6, 8)}-${h(8, 10)}-${h(10, 16)}`.toUpperCase();
}

async function readAt(fh: FileHandle, pos: number, len: number): Promise<Buffer> {
  const buf = Buffer.alloc(len);
  const { bytesRead } = await fh.read(buf, 0, len, pos);
  return buf.subarray(0, bytesRead);
}

/** A GPT header's problem, or undefined when its signature, size, CRC32 and own position check out. */
function gptHeaderProblem(h: Buffer, lba: number): string | undefined {
  if (h.length < 92 || h.toString("latin1", 0, 8) !== "EFI PART") return `sector ${lba} holds no GPT header`;
  const size = h.readUInt32LE(12);
  if (size < 92 || size > SECTOR) return `its GPT header at sector ${lba} gives an impossible header size (${size})`;
  const zeroed = Buffer.from(h.subarray(0, size));
  zeroed.writeUInt32LE(0, 16);
  if (crc32(zeroed) !== h.readUInt32LE(16)) return `its GPT header at sector ${lba} fails its CRC32 check (damaged or altered)`;
  if (u64(h, 24) !== lba) return `its GPT header at sector ${lba} says it lies at sector ${u64(h, 24)}`;
  return undefined;
}

/** Reads and checks a GPT (header at LBA 1, its entry array, the backup header); a string says why it is refused. */
export async function readGpt(fh: FileHandle, imageSize: number): Promise<{ parts: Partition[]; notes: string[] } | string> {
  const notes: string[] = [];
  const h = await readAt(fh, SECTOR, SECTOR);
  const problem = gptHeaderProblem(h, 1);
  if (problem) return `its protective MBR announces a GPT, but ${problem}`;
  const alternate = u64(h, 32);
  const firstUsable = u64(h, 40);
  const lastUsable = u64(h, 48);
  const arrayLba = u64(h, 72);
  const count = h.readUInt32LE(80);
  const entrySize = h.readUInt32LE(84);
  if (entrySize < 128 || entrySize > 4096 || (entrySize & (entrySize - 1)) !== 0) return `its GPT gives an impossible partition entry size (${entrySize} bytes)`;
  if (count === 0 || count * entrySize > MAX_GPT_ARRAY) return `its GPT declares ${count} partition entries of ${entrySize} bytes, more than any disk uses`;
  if (arrayLba < 2 || arrayLba * SECTOR + count * entrySize > imageSize) return "its GPT partition entry array lies past the end of the image";
  const array = await readAt(fh, arrayLba * SECTOR, count * entrySize);
  if (crc32(array) !== h.readUInt32LE(88)) return "its GPT partition entry array fails its CRC32 check (damaged or altered)";
  if (alternate * SECTOR + SECTOR > imageSize) notes.push(`The GPT's backup header (sector ${alternate}) lies past the end of the image: the image is truncated.`);
  else {
    const backup = gptHeaderProblem(await readAt(fh, alternate * SECTOR, SECTOR), alternate);
    if (backup) notes.push(`The GPT's backup header is not intact (${backup}); the primary header, which checks out, was used.`);
  }
  const parts: Partition[] = [];
  for (let i = 0; i < count; i++) {
    const e = array.subarray(i * entrySize, (i + 1) * entrySize);
    if (e.subarray(0, 16).every((b) => b === 0)) continue;
    const first = u64(e, 32);
    const last = u64(e, 40);
    if (first > last || first < firstUsable || last > lastUsable) {
      notes.push(`GPT partition ${i + 1} gives impossible bounds (sectors ${first}–${last}, usable ${firstUsable}–${lastUsable}); it was not read.`);
      continue;
    }
    parts.push({ index: i + 1, scheme: "GPT", type: guid(e.subarray(0, 16)), startLba: first, sectors: last - first + 1 });
  }
  return { parts, notes };
}

/** Finds the volume to read: the image itself, or the first FAT or exFAT partition. A string says why none. */
export async function locateVolume(fh: FileHandle, imageSize: number, head: Buffer): Promise<Located | { problem: string; partition?: number }> {
  const probe = probeDisk(head);
  if (!probe.ok) return { problem: probe.reason ?? "its first sector is neither a FAT or exFAT boot sector nor a partition table" };
  if (probe.scheme === "volume") return { kind: volumeKind(head) as VolumeKind, offset: 0, notes: [] };
  let parts: Partition[];
  let candidates: Partition[];
  const notes: string[] = [];
  if (probe.scheme === "GPT") {
    const gpt = await readGpt(fh, imageSize);
    if (typeof gpt === "string") return { problem: gpt };
    notes.push(...gpt.notes);
    parts = gpt.parts;
    candidates = parts.filter((p) => p.type === BASIC_DATA_GUID);
    if (candidates.length === 0) {
      const types = parts.map((p) => p.type).join(", ") || "none";
      return { problem: `its GPT holds no Microsoft basic data partition, where FAT and exFAT volumes are recorded (types ${types})` };
    }
  } else {
    parts = parseMbr(head) as Partition[];
    candidates = parts.filter((p) => MBR_VOLUME_TYPES.has(Number(p.type)));
  }
  let first: { problem: string; partition: number } | undefined;
  for (const p of candidates) {
    let kind: VolumeKind | string;
    if (p.startLba === 0) kind = "it starts at sector 0, over the partition table itself";
    else if (p.startLba * SECTOR + SECTOR > imageSize) kind = `it starts at sector ${p.startLba}, past the end of the image`;
    else kind = volumeKind(await readAt(fh, p.startLba * SECTOR, SECTOR));
    if (kind === "FAT" || kind === "exFAT") {
      const others = parts.length - 1;
      if (others > 0) notes.push(`The image's partition table (${p.scheme}) lists ${others} other partition(s); only partition ${p.index} (the first FAT or exFAT one) was read.`);
      return { kind, offset: p.startLba * SECTOR, partition: p, notes };
    }
    first ??= { problem: kind, partition: p.index };
  }
  return first as { problem: string; partition: number };
}

/** Opens a disk image of a card: finds its volume and lists it. */
export async function openDiskCard(path: string, options: CardOptions, container: { sha256?: string; size: number }): Promise<CardMedium> {
  const fh = await openFile(path, "r");
  try {
    const head = await readAt(fh, 0, SECTOR);
    const at = await locateVolume(fh, container.size, head);
    if ("problem" in at) {
      if (at.partition === undefined) throw new Invalid(say("fat.notAnImage", { path, reason: at.problem }), "path");
      throw new Invalid(say("fat.bootSector", { path, partition: at.partition, problem: at.problem }), "path");
    }
    if (at.kind === "exFAT") return await openExfatVolume(fh, path, options, container, at);
    return await openFatVolume(fh, path, options, container, at);
  } catch (err) {
    await fh.close();
    throw err;
  }
}
