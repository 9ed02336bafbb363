/**
 * BagIt 1.0 (RFC 8493): writing a bag while hashing its payload in one pass, and validating one. Manifests are
 * `<hex>  <path>` (two spaces) so `sha256sum -c manifest-sha256.txt` run in the bag's directory checks them too.
 * Payload bytes are streamed, never held whole: a bag of thousands of photos costs the memory of one chunk.
 *
 * Speed (docs/packages.md, "Speed"): a payload file is written first, in writes of about 1 MiB, and then hashed
 * from what lies on disk by a worker thread that feeds SHA-256 and SHA-512 from one read; so the manifests state
 * the bytes in the bag, and hashing runs on the other cores while the main thread decrypts and writes the next
 * file. Files under 64 KiB (events, proofs, metadata) are hashed in place, where a worker's round trip would cost
 * more than the hash. Nothing is fsynced, as before: a bag is a copy made from the archive, which stays the
 * durable record; an interrupted bag has no tag files and does not validate.
 */
import { createHash } from "node:crypto";
import { chmodSync, constants, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync, lstatSync } from "node:fs";
import { chmod, copyFile, mkdir, open, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { Readable } from "node:stream";
import { Conflict, IntegrityError, Invalid } from "../core/errors.ts";
import { say } from "../core/messages.ts";
import { digestFile, hashConcurrency } from "./hash-pool.ts";
import { writevAll } from "../core/writev-all.ts";

/** A bag on the server is private to the archive's account: directories 0700, files 0600. */
export const DIR_MODE = 0o700;
export const FILE_MODE = 0o600;

export const BAGIT_TXT = "BagIt-Version: 1.0\nTag-File-Character-Encoding: UTF-8\n";
export const PAYLOAD_ALGORITHMS = ["sha256", "sha512"] as const;
export type BagAlgorithm = (typeof PAYLOAD_ALGORITHMS)[number];

/**
 * A bag-relative path made safe for a manifest line: RFC 8493 §2.1.3 percent-encodes CR, LF and "%"; a path that
 * climbs out of the bag, starts at the root or at a home directory is refused outright.
 */
export function encodeBagPath(path: string): string {
  assertSafePath(path);
  return path.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

export function decodeBagPath(encoded: string): string {
  const path = encoded.replace(/%0[Dd]/g, "\r").replace(/%0[Aa]/g, "\n").replace(/%25/g, "%");
  assertSafePath(path);
  return path;
}

function assertSafePath(path: string): void {
  if (path === "" || path.startsWith("/") || path.startsWith("~") || path.includes("\\") || /^[A-Za-z]:/.test(path)) {
    throw new Invalid(`The bag path ${JSON.stringify(path)} is not a relative "/"-separated path inside the bag.`);
  }
  if (path.split("/").some((seg) => seg === ".." || seg === "." || seg === "")) {
    throw new Invalid(`The bag path ${JSON.stringify(path)} has an empty, "." or ".." segment; bag paths stay inside the bag.`);
  }
}

export interface BagInfo {
  sourceOrganization: string;
  externalIdentifier: string;
  externalDescription: string;
  /** Defaults to today (YYYY-MM-DD). */
  baggingDate?: string;
  /** Further `Label: value` lines, in order. */
  extra?: [string, string][];
}

export interface BagEntry {
  path: string;
  size: number;
  sha256: string;
  sha512: string;
}

/** Below this, hashing on the calling thread is cheaper than a worker's round trip. */
const INLINE_HASH_LIMIT = 64 * 1024;
/** Stream chunks (64 KiB from the blob store) are gathered into writes of about this much. */
const WRITE_BATCH = 1 << 20;

function hashHere(path: string, parts: readonly Uint8Array[]): BagEntry {
  const h256 = createHash("sha256");
  const h512 = createHash("sha512");
  let size = 0;
  for (const p of parts) {
    h256.update(p);
    h512.update(p);
    size += p.length;
  }
  return { path, size, sha256: h256.digest("hex"), sha512: h512.digest("hex") };
}

async function hashWritten(path: string, file: string): Promise<BagEntry> {
  const { size, digests } = await digestFile(file, PAYLOAD_ALGORITHMS);
  return { path, size, sha256: digests[0]!, sha512: digests[1]! };
}

/**
 * Writes a stream to a new file in batched writes. Returns its size, and its chunks when the whole stream was
 * small enough to hash in place (those chunks are then still in hand, so the file need not be read back).
 */
async function writeStream(target: string, source: Readable | AsyncIterable<Uint8Array>): Promise<{ size: number; small: Uint8Array[] | null }> {
  const fh = await open(target, "wx", FILE_MODE);
  let size = 0;
  let batch: Uint8Array[] = [];
  let batched = 0;
  let flushed = false;
  const flush = async (): Promise<void> => {
    const parts = batch;
    batch = [];
    batched = 0;
    flushed = true;
    await writevAll(fh, parts, target);
  };
  try {
    for await (const chunk of source) {
      const c = chunk as Uint8Array;
      if (c.length === 0) continue;
      batch.push(c);
      batched += c.length;
      size += c.length;
      if (batched >= WRITE_BATCH) await flush();
    }
    const small = !flushed && size < INLINE_HASH_LIMIT ? batch : null;
    if (batch.length) await flush();
    return { size, small };
  } finally {
    await fh.close();
  }
}

/** Writes a bag into an empty (or new) directory: payload files first, then `finish()` writes the tag files. */
export class BagWriter {
  private readonly entries = new Map<string, BagEntry>();
  private readonly tagFiles = new Map<string, Buffer>();
  private finished = false;
  private readonly dirs = new Map<string, Promise<void>>();

  constructor(readonly dir: string) {
    if (existsSync(dir) && readdirSync(dir).length > 0) {
      throw new Conflict(say("package.dirNotEmpty", { dir }));
    }
    // Private: a bag holds originals in the clear, so only the archive's own account may enter it.
    mkdirSync(join(dir, "data"), { recursive: true, mode: DIR_MODE });
    chmodSync(dir, DIR_MODE);
  }

  /** Adds a payload file at `data/<relPath>` from bytes or a stream, hashing as it writes. */
  async addPayload(relPath: string, source: Buffer | string | Readable | AsyncIterable<Uint8Array>): Promise<BagEntry> {
    const { path, target } = await this.claim(relPath);
    let entry: BagEntry;
    if (typeof source === "string" || Buffer.isBuffer(source)) {
      const buf = typeof source === "string" ? Buffer.from(source, "utf8") : source;
      // Asynchronous: creating thousands of small files costs the kernel far more than hashing them, and on
      // libuv's pool those creations overlap each other and the main thread's work (measured: docs/packages.md).
      await writeFile(target, buf, { flag: "wx", mode: FILE_MODE });
      entry = buf.length < INLINE_HASH_LIMIT ? hashHere(path, [buf]) : await hashWritten(path, target);
    } else {
      const written = await writeStream(target, source);
      entry = written.small ? hashHere(path, written.small) : await hashWritten(path, target);
      if (entry.size !== written.size) {
        throw new IntegrityError(`${path} read back as ${entry.size} bytes after ${written.size} were written: the disk or another process changed it.`);
      }
    }
    this.entries.set(path, entry);
    return entry;
  }

  /**
   * Adds a payload file at `data/<relPath>` as a copy of a plain file on disk (copy_file_range or a reflink where
   * the filesystem offers one; the bytes never pass through JS), then hashes the copy.
   */
  async addPayloadFile(relPath: string, sourceFile: string): Promise<BagEntry> {
    const { path, target } = await this.claim(relPath);
    await copyFile(sourceFile, target, constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE);
    await chmod(target, FILE_MODE);
    const entry = await hashWritten(path, target);
    this.entries.set(path, entry);
    return entry;
  }

  /**
   * Adds a payload file at `data/<relPath>` that write(target) creates and hashes itself (a photo decrypted
   * straight into the bag by the blob store's worker threads); its digests go into the manifests as reported.
   */
  async addPayloadWritten(relPath: string, write: (target: string) => Promise<Omit<BagEntry, "path">>): Promise<BagEntry> {
    const { path, target } = await this.claim(relPath);
    const got = await write(target);
    await chmod(target, FILE_MODE);
    const entry: BagEntry = { path, size: got.size, sha256: got.sha256, sha512: got.sha512 };
    this.entries.set(path, entry);
    return entry;
  }

  /** The bag path and file for a new payload file, its directory made. */
  private async claim(relPath: string): Promise<{ path: string; target: string }> {
    if (this.finished) throw new Conflict("The bag is already finished.");
    const path = `data/${relPath}`;
    assertSafePath(path);
    if (this.entries.has(path)) throw new Conflict(`The bag already has a payload file ${path}.`);
    const target = join(this.dir, ...path.split("/"));
    const parent = dirname(target);
    let made = this.dirs.get(parent);
    if (!made) {
      made = mkdir(parent, { recursive: true, mode: DIR_MODE }).then(() => undefined);
      this.dirs.set(parent, made);
    }
    await made;
    return { path, target };
  }

  /** An extra tag file at the bag's top level (e.g. VERIFY.txt); it is listed in the tag manifest. */
  addTagFile(name: string, bytes: Buffer | string): void {
    if (name.includes("/") || /^(bagit\.txt|bag-info\.txt|(tag)?manifest-.*\.txt)$/.test(name)) {
      throw new Invalid(`${name} cannot be an extra tag file: it must be a plain file name that is not a BagIt tag file.`);
    }
    this.tagFiles.set(name, typeof bytes === "string" ? Buffer.from(bytes, "utf8") : bytes);
  }

  payload(): BagEntry[] {
    return [...this.entries.values()];
  }

  finish(info: BagInfo): { octets: number; count: number } {
    this.finished = true;
    const entries = [...this.entries.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    const octets = entries.reduce((s, e) => s + e.size, 0);
    const tags = new Map<string, Buffer>();
    tags.set("bagit.txt", Buffer.from(BAGIT_TXT, "utf8"));
    for (const alg of PAYLOAD_ALGORITHMS) {
      tags.set(`manifest-${alg}.txt`, Buffer.from(entries.map((e) => `${e[alg]}  ${encodeBagPath(e.path)}\n`).join(""), "utf8"));
    }
    const lines: [string, string][] = [
      ["Source-Organization", info.sourceOrganization],
      ["Bagging-Date", info.baggingDate ?? new Date().toISOString().slice(0, 10)],
      ["External-Identifier", info.externalIdentifier],
      ["Bag-Size", humanSize(octets)],
      ["Payload-Oxum", `${octets}.${entries.length}`],
      ["External-Description", info.externalDescription],
      ...(info.extra ?? []),
    ];
    tags.set("bag-info.txt", Buffer.from(lines.map(([k, v]) => `${k}: ${oneLine(v)}\n`).join(""), "utf8"));
    for (const [name, bytes] of this.tagFiles) tags.set(name, bytes);
    for (const [name, bytes] of tags) writeFileSync(join(this.dir, name), bytes, { mode: FILE_MODE });
    const tagLines = [...tags.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, bytes]) => `${createHash("sha256").update(bytes).digest("hex")}  ${encodeBagPath(name)}\n`);
    writeFileSync(join(this.dir, "tagmanifest-sha256.txt"), tagLines.join(""), { mode: FILE_MODE });
    return { octets, count: entries.length };
  }
}

/** Tag values are one line each (RFC 8493 allows continuation lines; none are needed here). */
function oneLine(v: string): string {
  return v.replace(/\s*[\r\n]+\s*/g, " ").trim();
}

function humanSize(octets: number): string {
  const units = ["bytes", "KB", "MB", "GB", "TB"];
  let v = octets;
  let i = 0;
  while (v >= 1000 && i < units.length - 1) {
    v /= 1000;
    i++;
  }
  return i === 0 ? `${octets} bytes` : `${v.toFixed(1)} ${units[i]}`;
}

export interface BagValidation {
  ok: boolean;
  problems: string[];
  /** Payload paths (bag-relative, decoded) with their SHA-256, as checked. */
  payload: Map<string, string>;
  info: Map<string, string[]>;
}

/** Reads a manifest file into path → hex digest, noting malformed and repeated lines. */
function readManifest(dir: string, name: string, problems: string[]): Map<string, string> {
  const out = new Map<string, string>();
  const text = readFileSync(join(dir, name), "utf8");
  const hexLen = name.includes("sha512") ? 128 : 64;
  let n = 0;
  for (const line of text.split("\n")) {
    n++;
    if (line === "") continue;
    const m = /^([0-9a-fA-F]+)[ \t]+\*?(.+)$/.exec(line.replace(/\r$/, ""));
    if (!m || m[1]!.length !== hexLen) {
      problems.push(`${name} line ${n} is not "<${hexLen} hex digits>  <path>".`);
      continue;
    }
    let path: string;
    try {
      path = decodeBagPath(m[2]!);
    } catch (e) {
      problems.push(`${name} line ${n}: ${(e as Error).message}`);
      continue;
    }
    if (out.has(path)) problems.push(`${name} lists ${path} twice.`);
    out.set(path, m[1]!.toLowerCase());
  }
  return out;
}

/** Every regular file under dir, as "/"-separated paths relative to root. */
function walk(root: string, rel: string, out: string[], problems: string[]): void {
  for (const name of readdirSync(join(root, ...rel.split("/"))).sort()) {
    const p = `${rel}/${name}`;
    const st = lstatSync(join(root, ...p.split("/")));
    if (st.isDirectory()) walk(root, p, out, problems);
    else if (st.isFile()) out.push(p);
    else problems.push(`${p} is not a regular file (a link or device); a bag holds only files.`);
  }
}

async function digestMap(path: string, algs: readonly string[]): Promise<Map<string, string>> {
  const { digests } = await digestFile(path, algs);
  return new Map(algs.map((a, i) => [a, digests[i]!]));
}

/** fn over items, a few at a time (so the hashing pool stays fed), results in the items' order. */
async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  const run = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, run));
  return out;
}

function parseBagInfo(text: string): Map<string, string[]> {
  const info = new Map<string, string[]>();
  let last: string | null = null;
  for (const line of text.split(/\r?\n/)) {
    if (line === "") continue;
    if (/^[ \t]/.test(line) && last) {
      const vals = info.get(last)!;
      vals[vals.length - 1] += ` ${line.trim()}`;
      continue;
    }
    const at = line.indexOf(":");
    if (at <= 0) continue;
    last = line.slice(0, at).trim();
    const vals = info.get(last) ?? [];
    vals.push(line.slice(at + 1).trim());
    info.set(last, vals);
  }
  return info;
}

/**
 * Validates a bag per RFC 8493: complete (every manifest entry present, every payload file in every manifest)
 * and valid (every digest matches, Payload-Oxum agrees, the tag manifest covers the tag files). Each problem is
 * one sentence naming the file.
 */
export async function validateBag(dir: string): Promise<BagValidation> {
  const problems: string[] = [];
  const payload = new Map<string, string>();
  let info = new Map<string, string[]>();
  const result = (): BagValidation => ({ ok: problems.length === 0, problems, payload, info });
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    problems.push(`${dir} is not a directory.`);
    return result();
  }
  const bagitPath = join(dir, "bagit.txt");
  if (!existsSync(bagitPath)) problems.push("bagit.txt is missing: this is not a bag.");
  else if (readFileSync(bagitPath, "utf8") !== BAGIT_TXT) problems.push('bagit.txt must read exactly "BagIt-Version: 1.0" and "Tag-File-Character-Encoding: UTF-8".');
  if (!existsSync(join(dir, "data")) || !statSync(join(dir, "data")).isDirectory()) {
    problems.push("The payload directory data/ is missing.");
    return result();
  }
  const top = readdirSync(dir);
  const manifests = top.filter((n) => /^manifest-[a-z0-9]+\.txt$/.test(n));
  const algs = manifests.map((n) => n.slice("manifest-".length, -".txt".length));
  if (!algs.includes("sha256")) problems.push("manifest-sha256.txt is missing.");
  if (!algs.includes("sha512")) problems.push("manifest-sha512.txt is missing.");
  const known = algs.filter((a) => a === "sha256" || a === "sha512");
  const lists = new Map(known.map((a) => [a, readManifest(dir, `manifest-${a}.txt`, problems)]));

  const files: string[] = [];
  walk(dir, "data", files, problems);
  const onDisk = new Set(files);
  for (const [alg, list] of lists) {
    for (const path of list.keys()) {
      if (!path.startsWith("data/")) problems.push(`manifest-${alg}.txt lists ${path}, which is outside data/.`);
      else if (!onDisk.has(path)) problems.push(`${path} is listed in manifest-${alg}.txt but missing from the bag.`);
    }
    for (const path of files) if (!list.has(path)) problems.push(`${path} is in data/ but not in manifest-${alg}.txt.`);
  }

  let octets = 0;
  const checked = await mapLimit(files, hashConcurrency(), async (path) => {
    const want = known.filter((a) => lists.get(a)!.has(path));
    const full = join(dir, ...path.split("/"));
    const size = statSync(full).size;
    return { path, want, size, got: want.length ? await digestMap(full, want) : null };
  });
  for (const { path, want, size, got } of checked) {
    octets += size;
    if (!got) continue;
    for (const a of want) {
      if (got.get(a) !== lists.get(a)!.get(path)) problems.push(`${path} does not match its ${a} in manifest-${a}.txt: its bytes changed.`);
    }
    const s = got.get("sha256");
    if (s) payload.set(path, s);
  }

  const infoPath = join(dir, "bag-info.txt");
  if (!existsSync(infoPath)) problems.push("bag-info.txt is missing.");
  else {
    info = parseBagInfo(readFileSync(infoPath, "utf8"));
    const oxum = info.get("Payload-Oxum")?.[0];
    if (!oxum) problems.push("bag-info.txt has no Payload-Oxum.");
    else if (oxum !== `${octets}.${files.length}`) {
      problems.push(`Payload-Oxum in bag-info.txt says ${oxum}, but data/ holds ${octets} bytes in ${files.length} files.`);
    }
  }

  const tagPath = join(dir, "tagmanifest-sha256.txt");
  if (!existsSync(tagPath)) problems.push("tagmanifest-sha256.txt is missing.");
  else {
    const tags = readManifest(dir, "tagmanifest-sha256.txt", problems);
    for (const [path, hex] of tags) {
      const full = join(dir, ...path.split("/"));
      if (path.startsWith("data/")) problems.push(`tagmanifest-sha256.txt lists ${path}, a payload file.`);
      else if (!existsSync(full)) problems.push(`${path} is listed in tagmanifest-sha256.txt but missing from the bag.`);
      else if ((await digestMap(full, ["sha256"])).get("sha256") !== hex) problems.push(`${path} does not match its sha256 in tagmanifest-sha256.txt: it was changed.`);
    }
    for (const name of top) {
      if (name === "data" || name === "tagmanifest-sha256.txt" || name.startsWith("tagmanifest-")) continue;
      if (!tags.has(name)) problems.push(`${name} is in the bag but not in tagmanifest-sha256.txt.`);
    }
  }
  return result();
}
