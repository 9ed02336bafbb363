/**
 * A card handed over as a .zip. The central directory (the zip's own table of contents) is read once at open
 * with yauzl; entries are judged one by one and a hostile entry is refused without costing the others:
 *
 * - yauzl's own name check and `validateEntrySizes` are turned off at the ZipFile level because yauzl makes
 *   either failure fatal for the whole archive (one entry named "../x" would hide every honest file). The same
 *   checks are made here per entry — the name rules below, and a stored entry whose sizes disagree is refused —
 *   and every stream is held to the declared size and CRC-32 by SizeGuard, which aborts the moment inflation
 *   produces one byte more than declared.
 * - Zip bombs are refused from the metadata: a declared size over the per-entry limit, a compression ratio over
 *   the limit on a large entry, entries whose data overlap (the construction of non-recursive bombs), and
 *   entries past the total limit. Since streams enforce the declared sizes, declared totals are real bounds.
 * - Nested zips are files like any other; they are not opened.
 * - Entry data is read here, not through yauzl's streams: yauzl serialises every read of an archive through one
 *   queue of 16 KiB reads, which held a 500 KB-photo card to ~80 MB/s (160 photos/s) with four readers on this
 *   machine. Each entry's local header is read at open (it fixes where the data starts and lets overlaps be
 *   measured exactly); streams then use positional reads on a shared handle and node:zlib.
 */
import { crc32, createInflateRaw } from "node:zlib";
import { open as openFile } from "node:fs/promises";
import type { FileHandle } from "node:fs/promises";
import { Transform } from "node:stream";
import type { Readable, TransformCallback } from "node:stream";
import type { EventEmitter } from "node:events";
import yauzl from "yauzl";
import { DalilError, IntegrityError, Invalid, TooLarge } from "../../core/errors.ts";
import { comparePaths, dosWallClock, limitsFrom } from "./card-reading.ts";
import { FileSlices } from "./fat.ts";
import type { CardLimits } from "./card-reading.ts";
import type { CardEntry, CardMedium, CardOptions } from "./sources.ts";
import { say } from "../../core/messages.ts";

/** The parts of yauzl 3 used here (the published typings describe yauzl 2). */
interface ZipEntry {
  versionMadeBy: number;
  generalPurposeBitFlag: number;
  compressionMethod: number;
  lastModFileTime: number;
  lastModFileDate: number;
  crc32: number;
  compressedSize: number;
  uncompressedSize: number;
  fileNameLength: number;
  externalFileAttributes: number;
  relativeOffsetOfLocalHeader: number;
  fileNameRaw: Buffer;
  extraFields: Array<{ id: number; data: Buffer }>;
  isEncrypted(): boolean;
  getLastModDate(options?: { timezone?: "UTC" | "local"; forceDosFormat?: boolean }): Date;
}
interface ZipFile extends EventEmitter {
  entryCount: number;
  readEntry(): void;
  close(): void;
}
interface Yauzl {
  open(
    path: string,
    options: { lazyEntries: boolean; autoClose: boolean; decodeStrings: boolean; validateEntrySizes: boolean; strictFileNames: boolean },
    callback: (err: Error | null, zip?: ZipFile) => void,
  ): void;
  getFileNameLowLevel(flags: number, raw: Buffer, extraFields: Array<{ id: number; data: Buffer }>, strictFileNames: boolean): string;
}
const yz = yauzl as unknown as Yauzl;

/** A local file header, an empty archive's end record, or a spanned archive's marker. */
export function looksLikeZip(head: Buffer): boolean {
  if (head.length < 4 || head[0] !== 0x50 || head[1] !== 0x4b) return false;
  const sig = head.readUInt32LE(0);
  return sig === 0x04034b50 || sig === 0x06054b50 || sig === 0x08074b50;
}

interface Judged {
  entry: ZipEntry;
  path: string;
  /** Where the entry's data starts in the file, from its local header; undefined when that header is unusable. */
  dataStart?: number;
  refused?: string;
}

const S_IFMT = 0o170000;
const UNIX_TYPES: Record<number, string> = {
  0o010000: "a named pipe (FIFO)",
  0o020000: "a character device",
  0o060000: "a block device",
  0o140000: "a socket",
};

export async function openZipCard(path: string, options: CardOptions, container: { sha256?: string; size: number }): Promise<CardMedium> {
  const limits = limitsFrom(options);
  const zip = await new Promise<ZipFile>((resolvePromise, reject) => {
    yz.open(path, { lazyEntries: true, autoClose: false, decodeStrings: false, validateEntrySizes: false, strictFileNames: true }, (err, z) => {
      if (err || !z) reject(new Invalid(say("zip.unreadable", { path, message: err?.message ?? "unknown error" }), "path"));
      else resolvePromise(z);
    });
  });
  const notes: string[] = [];
  let judged: Judged[];
  let fh: FileHandle | undefined;
  try {
    fh = await openFile(path, "r");
    if (zip.entryCount > limits.maxEntries) {
      throw new TooLarge(say("zip.tooManyEntries", { path, entries: zip.entryCount, max: limits.maxEntries }));
    }
    const { entries, error } = await readCentralDirectory(zip);
    if (error) {
      notes.push(
        `The zip's table of contents could not be read past entry ${entries.length} of the ${zip.entryCount} it declares (${error.message}); ` +
          `the remaining ${zip.entryCount - entries.length} entries are not listed. The archive is damaged or deliberately malformed.`,
      );
    }
    judged = await judge(fh, entries, limits, container.size, notes);
  } catch (err) {
    await fh?.close();
    throw err;
  } finally {
    zip.close();
  }
  const handle = fh;
  const listed: CardEntry[] = judged.map((j) => toCardEntry(handle, j));
  let closed = false;
  return {
    kind: "zip",
    path,
    sha256: container.sha256,
    size: container.size,
    notes,
    async *entries() {
      yield* listed;
    },
    async close() {
      if (!closed) await handle.close();
      closed = true;
    },
  };
}

function readCentralDirectory(zip: ZipFile): Promise<{ entries: ZipEntry[]; error?: Error }> {
  return new Promise((resolvePromise) => {
    const entries: ZipEntry[] = [];
    zip.on("entry", (e: ZipEntry) => {
      entries.push(e);
      zip.readEntry();
    });
    zip.on("end", () => resolvePromise({ entries }));
    zip.on("error", (err: Error) => resolvePromise({ entries, error: err }));
    zip.readEntry();
  });
}

const HEADER_BATCH = 64;

async function judge(fh: FileHandle, entries: ZipEntry[], limits: CardLimits, fileSize: number, notes: string[]): Promise<Judged[]> {
  const out: Judged[] = [];
  const withData: Array<{ j: Judged; start: number; end: number }> = [];
  const locals: Array<LocalHeader | string> = [];
  for (let i = 0; i < entries.length; i += HEADER_BATCH) {
    locals.push(...(await Promise.all(entries.slice(i, i + HEADER_BATCH).map((e) => readLocalHeader(fh, e, fileSize)))));
  }
  let renamed = 0;
  for (const [index, entry] of entries.entries()) {
    const local = locals[index] as LocalHeader | string;
    const recorded = yz.getFileNameLowLevel(entry.generalPurposeBitFlag, entry.fileNameRaw, entry.extraFields, true);
    const printable = recorded.replace(/\0/g, "\u2400");
    const unixMode = isUnixHost(entry) ? entry.externalFileAttributes >>> 16 : 0;
    const unixType = unixMode & S_IFMT;
    const isDir = /[/\\]$/.test(recorded) || unixType === 0o040000;
    const nameProblem = unsafeName(recorded);
    const j: Judged = { entry, path: nameProblem ? printable : printable.replace(/\\/g, "/") };
    if (typeof local !== "string") {
      j.dataStart = local.dataStart;
      withData.push({ j, start: entry.relativeOffsetOfLocalHeader, end: local.dataStart + entry.compressedSize });
      if (!local.name.equals(entry.fileNameRaw)) renamed++;
    }
    if (isDir && !nameProblem && entry.uncompressedSize === 0 && entry.compressedSize <= 2) continue;
    j.path = j.path.replace(/\/$/, "");
    if (nameProblem) j.refused = `Its name ${JSON.stringify(printable)} ${nameProblem}; it was not extracted.`;
    else if (typeof local === "string") j.refused = `${local}; it was not extracted.`;
    else j.refused = await refusal(fh, j, unixType, isDir, limits);
    out.push(j);
  }
  if (renamed > 0) {
    notes.push(`${renamed} entr${renamed === 1 ? "y is" : "ies are"} named differently in the zip's local headers than in its table of contents (a trick that shows different names to different tools); the table-of-contents names are used.`);
  }
  markOverlaps(withData);
  out.sort((a, b) => comparePaths(a.path, b.path));
  let total = 0;
  for (const j of out) {
    if (j.refused) continue;
    if (total + j.entry.uncompressedSize > limits.maxTotalBytes) {
      j.refused = `Extracting it would take the archive's declared total past the limit of ${bytes(limits.maxTotalBytes)}; it was not extracted (raise the limit if the card is genuinely that large).`;
    } else total += j.entry.uncompressedSize;
  }
  return out;
}

function isUnixHost(e: ZipEntry): boolean {
  const host = e.versionMadeBy >> 8;
  return host === 3 || host === 19;
}

function unsafeName(name: string): string | undefined {
  if (name === "") return "is empty";
  if (name.includes("\0")) return "contains a NUL byte, which makes a name read differently to different programs";
  if (/^[A-Za-z]:/.test(name)) return "starts with a drive letter (an absolute Windows path)";
  if (/^[/\\]/.test(name)) return "is an absolute path";
  const segments = name.replace(/[/\\]$/, "").split(/[/\\]/);
  if (segments.includes("..")) return "climbs out of the archive with '..' (path traversal)";
  if (segments.some((s) => s === "" || s === ".")) return "contains empty or '.' path segments, which disguise where it points";
  return undefined;
}

interface LocalHeader {
  dataStart: number;
  name: Buffer;
}

/** The local header in front of an entry's data, or a sentence saying why it cannot be used. */
async function readLocalHeader(fh: FileHandle, e: ZipEntry, fileSize: number): Promise<LocalHeader | string> {
  const at = e.relativeOffsetOfLocalHeader;
  const want = 30 + e.fileNameLength;
  if (at + 30 > fileSize) return "Its local header lies past the end of the zip file (a truncated or forged archive)";
  const buf = Buffer.alloc(want);
  const { bytesRead } = await fh.read(buf, 0, want, at);
  if (bytesRead < 30 || buf.readUInt32LE(0) !== 0x04034b50) return "Its local header is missing or damaged";
  const nameLength = buf.readUInt16LE(26);
  const dataStart = at + 30 + nameLength + buf.readUInt16LE(28);
  if (dataStart + e.compressedSize > fileSize) return "Its data runs past the end of the zip file (a truncated archive)";
  return { dataStart, name: buf.subarray(30, Math.min(bytesRead, 30 + nameLength)) };
}

async function refusal(fh: FileHandle, j: Judged, unixType: number, isDir: boolean, limits: CardLimits): Promise<string | undefined> {
  const e = j.entry;
  if (isDir) return `It is recorded as a folder but carries ${e.uncompressedSize} bytes of data; it was not extracted.`;
  if (unixType === 0o120000) return `${await symlinkTarget(fh, j)} not followed`;
  const special = UNIX_TYPES[unixType];
  if (special) return `It is recorded as ${special}, which holds no stored content; it was not extracted.`;
  if ((e.generalPurposeBitFlag & 0x1) !== 0) return "It is encrypted and this archive holds no password for it; it was not extracted (the zip itself is kept, hashed).";
  if (e.compressionMethod !== 0 && e.compressionMethod !== 8) {
    return `It is compressed with method ${e.compressionMethod}, which cannot be decoded here (only stored and deflate); it was not extracted (the zip itself is kept, hashed).`;
  }
  if (e.compressionMethod === 0 && e.compressedSize !== e.uncompressedSize) {
    return `It is stored uncompressed yet declares ${e.uncompressedSize} bytes in ${e.compressedSize}: its sizes lie; it was not extracted.`;
  }
  if (e.uncompressedSize > limits.maxEntryBytes) {
    return `It declares ${bytes(e.uncompressedSize)} uncompressed, over the per-file limit of ${bytes(limits.maxEntryBytes)}; it was not extracted (zip bomb?).`;
  }
  const ratio = e.compressedSize === 0 ? Infinity : e.uncompressedSize / e.compressedSize;
  if (ratio > limits.maxRatio && e.uncompressedSize > limits.ratioMinBytes) {
    return `It would expand ${bytes(e.compressedSize)} into ${bytes(e.uncompressedSize)} (ratio ${Number.isFinite(ratio) ? Math.round(ratio) : "unbounded"}, limit ${limits.maxRatio}), the signature of a zip bomb; it was not extracted.`;
  }
  return undefined;
}

/** Reads a symlink entry's target (its data), only when small and plainly encoded; the text goes in the sentence. */
async function symlinkTarget(fh: FileHandle, j: Judged): Promise<string> {
  const e = j.entry;
  const plain = !e.isEncrypted() && (e.compressionMethod === 0 || e.compressionMethod === 8);
  if (!plain || e.uncompressedSize > 4096 || e.compressedSize > 4096) return "symbolic link (target not read)";
  try {
    const stream = openGuarded(fh, j, "symbolic link");
    const parts: Buffer[] = [];
    for await (const chunk of stream) parts.push(chunk as Buffer);
    return `symbolic link to ${Buffer.concat(parts).toString("utf8").replace(/\0/g, "\u2400")}`;
  } catch {
    return "symbolic link (target unreadable)";
  }
}

function markOverlaps(ranges: Array<{ j: Judged; start: number; end: number }>): void {
  const sorted = [...ranges].sort((a, b) => a.start - b.start || a.end - b.end);
  let reach: (typeof sorted)[number] | undefined;
  for (const r of sorted) {
    if (reach && r.start < reach.end) {
      const why = (other: Judged) =>
        `Its data overlaps that of ${JSON.stringify(other.path)} in the zip, the construction of a non-recursive zip bomb; it was not extracted.`;
      r.j.refused ??= why(reach.j);
      reach.j.refused ??= why(r.j);
    }
    if (!reach || r.end > reach.end) reach = r;
  }
}

function toCardEntry(fh: FileHandle, j: Judged): CardEntry {
  const e = j.entry;
  const out: CardEntry = { path: j.path, size: e.uncompressedSize };
  const modified = modifiedOf(e);
  if (modified) out.modified = modified;
  if (j.refused) out.refused = j.refused;
  else out.open = async () => openGuarded(fh, j, j.path);
  return out;
}

function modifiedOf(e: ZipEntry): string | undefined {
  // Info-ZIP's "UT" and the NTFS extra field record an instant; the DOS fields only a wall-clock time.
  const exact = e.extraFields.some((f) => (f.id === 0x5455 && f.data.length >= 5 && ((f.data[0] as number) & 1) === 1) || (f.id === 0x000a && f.data.length >= 32));
  if (exact) {
    const d = e.getLastModDate();
    if (!Number.isNaN(d.getTime())) return d.toISOString();
  }
  return dosWallClock(e.lastModFileDate, e.lastModFileTime);
}

function openGuarded(fh: FileHandle, j: Judged, label: string): Readable {
  const e = j.entry;
  const source = new FileSlices(fh, [{ pos: j.dataStart as number, len: e.compressedSize }], label);
  const inflate = e.compressionMethod === 8 ? createInflateRaw() : undefined;
  const guard = new SizeGuard(e.uncompressedSize, e.crc32, label);
  const fail = (err: Error) => {
    guard.destroy(err instanceof DalilError ? err : new IntegrityError(say("zip.entryUnreadable", { label, message: err.message })));
  };
  source.on("error", fail);
  inflate?.on("error", fail);
  // However the guard ends (finished, refused the data, or abandoned by the reader), reading stops with it.
  guard.on("close", () => {
    source.destroy();
    inflate?.destroy();
  });
  if (inflate) source.pipe(inflate).pipe(guard);
  else source.pipe(guard);
  return guard;
}

/** Holds a zip entry's stream to its declared size and CRC-32; past the size it stops reading at once. */
class SizeGuard extends Transform {
  private seen = 0;
  private crc = 0;
  constructor(
    private readonly declared: number,
    private readonly expectedCrc: number,
    private readonly label: string,
  ) {
    super({ highWaterMark: 256 * 1024 });
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.seen += chunk.length;
    if (this.seen > this.declared) {
      done(new TooLarge(say("zip.bomb", { label: this.label, declared: this.declared })));
      return;
    }
    this.crc = crc32(chunk, this.crc);
    done(null, chunk);
  }
  override _flush(done: TransformCallback): void {
    if (this.seen !== this.declared) {
      done(new IntegrityError(say("zip.sizeMismatch", { label: this.label, seen: this.seen, declared: this.declared })));
    } else if (this.crc >>> 0 !== this.expectedCrc >>> 0) {
      done(new IntegrityError(say("zip.crc", { label: this.label })));
    } else done();
  }
}

function bytes(n: number): string {
  const units = ["bytes", "KiB", "MiB", "GiB", "TiB"];
  let v = n;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return u === 0 ? `${n} bytes` : `${v.toFixed(v < 10 ? 1 : 0)} ${units[u]}`;
}
