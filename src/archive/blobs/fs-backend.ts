import { randomBytes } from "node:crypto";
import { chmod, link, mkdir, open, readdir, readFile, rename, stat, unlink } from "node:fs/promises";
import type { FileHandle } from "node:fs/promises";
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

async function fsyncDir(dir: string): Promise<void> {
  const h = await open(dir, "r");
  try {
    await h.sync();
  } finally {
    await h.close();
  }
}

async function writeAll(h: FileHandle, data: Buffer): Promise<void> {
  let off = 0;
  while (off < data.length) {
    const { bytesWritten } = await h.write(data, off, data.length - off);
    off += bytesWritten;
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
    const h = await open(path, "wx", 0o600);
    let closed = false;
    // Flushing as we go overlaps the disk with encryption; one flush at the end would wait for all of it.
    let unsynced = 0;
    let syncing: Promise<void> = Promise.resolve();
    return {
      id,
      async write(data) {
        await writeAll(h, data);
        unsynced += data.length;
        if (unsynced >= SYNC_EVERY) {
          unsynced = 0;
          await syncing;
          syncing = h.datasync();
          syncing.catch(() => {});
        }
      },
      async finish() {
        await syncing;
        await h.sync();
        closed = true;
        await h.close();
      },
      async abort() {
        await syncing.catch(() => {});
        if (!closed) await h.close().catch(() => {});
        closed = true;
        await unlink(path).catch(() => {});
      },
    };
  }

  /** Places tmp at key without ever replacing an existing file; returns whether it was placed. */
  private async place(tmp: string, key: string): Promise<boolean> {
    const dest = this.path(key);
    await mkdir(dirname(dest), { recursive: true, mode: 0o700 });
    try {
      await link(tmp, dest);
    } catch (err) {
      const c = code(err);
      if (c === "EEXIST") return false;
      if (!c || !NO_LINKS.has(c)) throw err;
      if ((await this.size(key)) !== null) return false;
      await rename(tmp, dest);
    }
    await fsyncDir(dirname(dest));
    return true;
  }

  async commitTemp(tempId: string, key: string, size: number): Promise<boolean> {
    const tmp = this.tempPath(tempId);
    const actual = (await stat(tmp)).size;
    if (actual !== size) {
      throw new IntegrityError(say("blob.tempSizeDisk", { bytes: actual, expected: size }));
    }
    // Blobs are never modified: make that visible to anyone browsing the directory too.
    await chmod(tmp, 0o444);
    const placed = await this.place(tmp, key);
    await unlink(tmp).catch((err: unknown) => {
      if (code(err) !== "ENOENT") throw err;
    });
    return placed;
  }

  async discardTemp(tempId: string): Promise<void> {
    await unlink(this.tempPath(tempId)).catch((err: unknown) => {
      if (code(err) !== "ENOENT") throw err;
    });
  }

  async size(key: string): Promise<number | null> {
    try {
      const s = await stat(this.path(key));
      return s.isFile() ? s.size : null;
    } catch (err) {
      if (code(err) === "ENOENT") return null;
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
    const h = await open(tmp, "wx", 0o600);
    try {
      await writeAll(h, data);
      await h.sync();
    } finally {
      await h.close();
    }
    try {
      if (mode === "create") return await this.place(tmp, key);
      const dest = this.path(key);
      await mkdir(dirname(dest), { recursive: true, mode: 0o700 });
      await rename(tmp, dest);
      await fsyncDir(dirname(dest));
      return true;
    } finally {
      await unlink(tmp).catch(() => {});
    }
  }

  async remove(key: string): Promise<void> {
    await unlink(this.path(key)).catch((err: unknown) => {
      if (code(err) !== "ENOENT") throw err;
    });
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
