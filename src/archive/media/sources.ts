/**
 * The three forms a photographer's memory card reaches us in — a folder copied off the card, a .zip of it, or a
 * raw disk image of the card itself — behind one interface. Everything here is read-only and lazy: listing
 * reads metadata (directory entries, a zip's central directory, FAT tables), never file contents; an entry's
 * bytes are read only when its `open()` is called. Nothing a medium says is used to build a filesystem path.
 *
 * Every byte on a card is evidence, so nothing is skipped silently: what is not extracted is still listed,
 * with `refused` saying why. See docs/formats/card-sources.md.
 */
import { createReadStream } from "node:fs";
import { open as openFile, stat } from "node:fs/promises";
import { createHash } from "node:crypto";
import { resolve } from "node:path";
import type { Readable } from "node:stream";
import { Invalid, NotFound } from "../../core/errors.ts";
import { sniffFormat } from "./sniff.ts";
import { openDiskCard, probeDisk } from "./disk.ts";
import { openFolderCard } from "./folder.ts";
import { looksLikeZip, openZipCard } from "./zip.ts";
import { say } from "../../core/messages.ts";

export interface CardEntry {
  /** Path on the medium, "/"-separated, as recorded; never used to build a filesystem path. */
  path: string;
  /** Size in bytes: actual for a folder, declared (and enforced by the stream) for zip and FAT. */
  size: number;
  /**
   * ISO 8601 time of last modification if the medium records one. With a zone ("…Z") when the medium records
   * an instant (folder, zip extended timestamps); without one when it records a camera's wall-clock time
   * (FAT, zip DOS time), which carries no time zone; exFAT records the wall-clock time and, when its offset
   * field is marked valid, that clock's offset from UTC: then the time as recorded with that offset ("…+03:00").
   */
  modified?: string;
  /** FAT and exFAT only: creation time, same convention as `modified`. */
  created?: string;
  /** Absent when the entry is refused. Each call opens a fresh stream. */
  open?: () => Promise<Readable>;
  /** A sentence saying why this entry was not extracted. */
  refused?: string;
}

/** A directory entry marked deleted (0xE5) on a FAT volume: listed for the record, not extracted. (exFAT: counted in a note.) */
export interface DeletedCardEntry {
  /** Best reconstruction of the path: the long name when its checksum still fits, else the 8.3 name with "?" for the erased first character. */
  path: string;
  size: number;
  modified?: string;
  firstCluster: number;
  directory: boolean;
}

export interface CardMedium {
  /** "fat-image" is any raw disk image of a card (FAT or exFAT; bare, MBR or GPT); fsType says which. */
  kind: "folder" | "zip" | "fat-image";
  /** Absolute path given by the user. */
  path: string;
  /** For zip and fat-image: SHA-256 (hex) of the whole container file, computed by streaming at open. */
  sha256?: string;
  size?: number;
  volumeLabel?: string;
  volumeSerial?: string;
  fsType?: "FAT12" | "FAT16" | "FAT32" | "exFAT";
  /** FAT only: number of directory entries marked deleted (see deletedEntries). */
  deletedCount?: number;
  deletedEntries?(): AsyncIterable<DeletedCardEntry>;
  /**
   * Observations about the medium as a whole that an examiner should see (FAT copies that differ, a damaged
   * zip central directory, a truncated image…). Entry-level problems are in each entry's `refused` instead.
   * Folder notes grow while entries() runs.
   */
  notes: string[];
  /** Sorted by comparePaths; deterministic. May be iterated more than once. */
  entries(): AsyncIterable<CardEntry>;
  close(): Promise<void>;
}

export interface CardOptions {
  /** Zip: an entry declaring more than this many uncompressed bytes is refused. Default 4 GiB. */
  maxEntryBytes?: number;
  /** Zip: entries are refused once the declared total would pass this. Default 1 TiB. */
  maxTotalBytes?: number;
  /** Zip: an entry compressed more than this ratio… Default 200. */
  maxRatio?: number;
  /** …is refused when it also declares more than this many bytes. Default 10 MiB. */
  ratioMinBytes?: number;
  /** Zip and FAT: a medium listing more entries than this is refused as a whole. Default 1,000,000. */
  maxEntries?: number;
  /** Compute the container's SHA-256 at open (zip, fat-image). Default true. */
  hash?: boolean;
}

export { comparePaths, dosWallClock, limitsFrom, DEFAULT_LIMITS, type CardLimits } from "./card-reading.ts";

const HEAD_BYTES = 4096;

/**
 * Opens a card in whichever form it comes, told apart by its bytes, never by its name: a directory is a
 * folder; a file starting with a zip signature is a zip; a file whose first sector is a FAT or exFAT boot
 * sector, an MBR with a FAT or exFAT partition, or a protective MBR (GPT) is a disk image (disk.ts). Anything else is refused with a sentence saying what it looks like.
 */
export async function openCard(path: string, options: CardOptions = {}): Promise<CardMedium> {
  const abs = resolve(path);
  let info;
  try {
    info = await stat(abs);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") throw new NotFound(say("path.missing", { path: abs }));
    if (code === "EACCES" || code === "EPERM") throw new Invalid(say("path.unreadable", { path: abs }), "path");
    throw err;
  }
  if (info.isDirectory()) {
    return openFolderCard(abs);
  }
  if (info.isBlockDevice() || info.isCharacterDevice()) {
    throw new Invalid(say("path.device", { path: abs }), "path");
  }
  if (!info.isFile()) throw new Invalid(say("path.notACard", { path: abs }), "path");

  const head = await readHead(abs, HEAD_BYTES);
  let kind: "zip" | "fat-image";
  if (looksLikeZip(head)) kind = "zip";
  else {
    const probe = probeDisk(head);
    if (probe.ok) kind = "fat-image";
    else {
      const sniffed = sniffFormat(head);
      const looks = probe.reason ?? (sniffed.format === "unknown" ? "its first bytes match no format we know" : `it looks like a ${sniffed.format} file`);
      throw new Invalid(say("path.notACardWhy", { path: abs, why: looks }), "path");
    }
  }
  const container = options.hash === false ? { size: info.size } : await hashFile(abs);
  if (kind === "zip") {
    return openZipCard(abs, options, container);
  }
  return openDiskCard(abs, options, container);
}

async function readHead(path: string, n: number): Promise<Buffer> {
  const fh = await openFile(path, "r");
  try {
    const buf = Buffer.alloc(n);
    const { bytesRead } = await fh.read(buf, 0, n, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

/** SHA-256 and byte count of a whole file, streamed with flat memory. */
export async function hashFile(path: string): Promise<{ sha256: string; size: number }> {
  const h = createHash("sha256");
  let size = 0;
  for await (const chunk of createReadStream(path, { highWaterMark: 1024 * 1024 })) {
    const b = chunk as Buffer;
    size += b.length;
    h.update(b);
  }
  return { sha256: h.digest("hex"), size };
}
