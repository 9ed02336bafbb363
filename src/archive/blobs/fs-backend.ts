import { randomBytes } from "node:crypto";
import { chmodSync, closeSync, fdatasync, fsync, linkSync, mkdirSync, openSync, renameSync, statSync, unlinkSync, writeSync } from "node:fs";
import { mkdir, open, readdir, readFile, stat } from "node:fs/promises";
import type { FileHandle } from "node:fs/promises";
import { promisify } from "node:util";
import { dirname, join } from "node:path";
import type { Readable } from "node:stream";
import { IntegrityError } from "../../core/errors.ts";
import type { Backend, TempWriter } from "./backend.ts";
import { say } from "../../core/messages.ts";

/**
 * Files under one root: objects/ab/cd/<name> (fan-out keeps directories small), tmp/ for writes in progress on
 * the same filesystem so that commit is a link(2): atomic, and it refuses to replace an existing blob.
 */
export async function openFsBackend(root: string): Promise<Backend> {
  await mkdir(root, { recursive: true, mode: 0o700 });
  await mkdir(join(root, "objects"), { recursive: true, mode: 0o700 });
  await mkdir(join(root, "tmp"), { recursive: true, mode: 0o700 });
  return new FsBackend(root);
}

function code(err: unknown): string | undefined {
  return typeof err === "object" && err !== null && "code" in err ? String((err as { code: unknown }).code) : undefined;
}

/*
 * Writes take the synchronous calls for everything but the flushes. A blob is about twenty file operations; as
 * promises each is a round trip through libuv's threadpool (two thread wake-ups), which on two cores cost more
 * than the operations themselves, on the pool where sharp makes the renditions (decision 0041). Opening, writing to
 * the page cache, linking and renaming take microseconds on a local disk; fsync waits for the disk, so it alone
 * stays on the threadpool.
 */
const fsyncFd = promisify(fsync);
const fdatasyncFd = promisify(fdatasync);

async function fsyncDir(dir: string): Promise<void> {
  const fd = openSync(dir, "r");
  try {
    await fsyncFd(fd);
  } finally {
    closeSync(fd);
  }
}

function writeAll(fd: number, data: Buffer): void {
  let off = 0;
  while (off < data.length) off += writeSync(fd, data, off, data.length - off);
}

function unlinkIfThere(path: string): void {
  try {
    unlinkSync(path);
  } catch (err) {
    if (code(err) !== "ENOENT") throw err;
  }
}

const SYNC_EVERY = 16 * 1024 * 1024;

/** Hard links are how commit refuses to overwrite; where the filesystem has none, fall back to rename. */
const NO_LINKS = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS", "EXDEV"]);

class FsBackend implements Backend {
  constructor(private readonly root: string) {}

  localPath(key: string): string {
    return this.path(key);
  }

  private path(key: string): string {
    return join(this.root, ...key.split("/"));
  }

  private tempPath(id: string): string {
    return join(this.root, "tmp", id);
  }

  async createTemp(): Promise<TempWriter> {
    const id = `${randomBytes(12).toString("hex")}.tmp`;
    const path = this.tempPath(id);
    const fd = openSync(path, "wx", 0o600);
    let closed = false;
    // Flushing as we go overlaps the disk with encryption; one flush at the end would wait for all of it.
    let unsynced = 0;
    let syncing: Promise<void> = Promise.resolve();
    return {
      id,
      async write(data) {
        writeAll(fd, data);
        unsynced += data.length;
        if (unsynced >= SYNC_EVERY) {
          unsynced = 0;
          await syncing;
          syncing = fdatasyncFd(fd);
          syncing.catch(() => {});
        }
      },
      async finish() {
        await syncing;
        await fsyncFd(fd);
        closed = true;
        closeSync(fd);
      },
      async abort() {
        await syncing.catch(() => {});
        if (!closed) {
          closed = true;
          try {
            closeSync(fd);
          } catch {
            // already unusable; the file is removed below all the same
          }
        }
        try {
          unlinkSync(path);
        } catch {
          // abort never throws: a temporary left behind is removed by cleanup
        }
      },
    };
  }

  /**
   * Runs an operation that creates an entry in key's folder, making the fan-out folders first when they are
   * missing (once per folder in the life of a store, so they are not asked for before every write). A folder
   * made here is flushed into its parent, so the entry made in it survives a power cut.
   */
  private async inFolder<T>(key: string, op: (dest: string) => T): Promise<T> {
    const dest = this.path(key);
    try {
      return op(dest);
    } catch (err) {
      if (code(err) !== "ENOENT") throw err;
    }
    const made = mkdirSync(dirname(dest), { recursive: true, mode: 0o700 });
    if (made !== undefined) {
      // Every folder from the first one made down to the object's needs its entry in its parent flushed.
      for (let dir = dirname(dest); dir.length >= made.length; dir = dirname(dir)) await fsyncDir(dirname(dir));
    }
    return op(dest);
  }

  /** Places tmp at key without ever replacing an existing file; returns whether it was placed. */
  private async place(tmp: string, key: string): Promise<boolean> {
    const placed = await this.inFolder(key, (dest) => {
      try {
        linkSync(tmp, dest);
        return true;
      } catch (err) {
        const c = code(err);
        if (c === "EEXIST") return false;
        if (!c || !NO_LINKS.has(c)) throw err;
        if (statSync(dest, { throwIfNoEntry: false })) return false;
        renameSync(tmp, dest);
        return true;
      }
    });
    if (placed) await fsyncDir(dirname(this.path(key)));
    return placed;
  }

  async commitTemp(tempId: string, key: string, size: number): Promise<boolean> {
    const tmp = this.tempPath(tempId);
    const actual = statSync(tmp).size;
    if (actual !== size) {
      throw new IntegrityError(say("blob.tempSizeDisk", { bytes: actual, expected: size }));
    }
    // Blobs are never modified: make that visible to anyone browsing the directory too.
    chmodSync(tmp, 0o444);
    const placed = await this.place(tmp, key);
    unlinkIfThere(tmp);
    return placed;
  }

  async discardTemp(tempId: string): Promise<void> {
    unlinkIfThere(this.tempPath(tempId));
  }

  async size(key: string): Promise<number | null> {
    try {
      const s = statSync(this.path(key), { throwIfNoEntry: false });
      return s?.isFile() ? s.size : null;
    } catch (err) {
      if (code(err) === "ENOTDIR") return null;
      throw err;
    }
  }

  async modified(key: string): Promise<Date | null> {
    try {
      return (await stat(this.path(key))).mtime;
    } catch (err) {
      if (code(err) === "ENOENT") return null;
      throw err;
    }
  }

  async readHead(key: string, n: number): Promise<{ bytes: Buffer; size: number } | null> {
    let h: FileHandle;
    try {
      h = await open(this.path(key), "r");
    } catch (err) {
      if (code(err) === "ENOENT") return null;
      throw err;
    }
    try {
      const size = (await h.stat()).size;
      const want = Math.min(n, size);
      const bytes = Buffer.alloc(want);
      let off = 0;
      while (off < want) {
        const { bytesRead } = await h.read(bytes, off, want - off, off);
        if (bytesRead === 0) break;
        off += bytesRead;
      }
      return { bytes: bytes.subarray(0, off), size };
    } finally {
      await h.close();
    }
  }

  async readSmall(key: string): Promise<Buffer | null> {
    try {
      return await readFile(this.path(key));
    } catch (err) {
      if (code(err) === "ENOENT") return null;
      throw err;
    }
  }

  async readRange(key: string, start: number, end: number): Promise<Readable | null> {
    let h: FileHandle;
    try {
      h = await open(this.path(key), "r");
    } catch (err) {
      if (code(err) === "ENOENT") return null;
      throw err;
    }
    return h.createReadStream({ start, end, highWaterMark: 1024 * 1024 });
  }

  async writeSmall(key: string, data: Buffer, mode: "create" | "replace"): Promise<boolean> {
    const tmp = this.tempPath(`${randomBytes(12).toString("hex")}.small`);
    let placed = false;
    try {
      const fd = openSync(tmp, "wx", 0o600);
      try {
        writeAll(fd, data);
        await fsyncFd(fd);
      } finally {
        closeSync(fd);
      }
      if (mode === "create") {
        placed = await this.place(tmp, key);
        return placed;
      }
      await this.inFolder(key, (dest) => renameSync(tmp, dest));
      placed = true;
      await fsyncDir(dirname(this.path(key)));
      return true;
    } finally {
      // After a rename the temporary name is gone; after a link (or a failure) it is removed here.
      if (mode === "create" || !placed) unlinkIfThere(tmp);
    }
  }

  async remove(key: string): Promise<void> {
    unlinkIfThere(this.path(key));
  }

  async *list(prefix: string): AsyncIterable<string> {
    // Only the objects/ tree is listed; the two fan-out levels are walked in byte order.
    if (!"objects/".startsWith(prefix) && !prefix.startsWith("objects/")) return;
    const base = join(this.root, "objects");
    for (const a of await sortedDir(base)) {
      for (const b of await sortedDir(join(base, a))) {
        for (const f of await sortedDir(join(base, a, b))) {
          const key = `objects/${a}/${b}/${f}`;
          if (key.startsWith(prefix)) yield key;
        }
      }
    }
  }

  async *listTemp(): AsyncIterable<{ id: string; modified: Date }> {
    for (const id of await sortedDir(join(this.root, "tmp"))) {
      const m = await this.tempModified(id);
      if (m) yield { id, modified: m };
    }
  }

  private async tempModified(id: string): Promise<Date | null> {
    try {
      return (await stat(this.tempPath(id))).mtime;
    } catch (err) {
      if (code(err) === "ENOENT") return null;
      throw err;
    }
  }

  async close(): Promise<void> {}
}

async function sortedDir(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).sort();
  } catch (err) {
    if (code(err) === "ENOENT" || code(err) === "ENOTDIR") return [];
    throw err;
  }
}
