import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, writeSync } from "node:fs";
import { dirname, join } from "node:path";
import { syncDir } from "./key-file.ts";

/**
 * Durable writes (a mirror's folder, the witness policy): a file is written aside, synced, renamed into place and its folder
 * synced, so after a crash (or kill -9) it is the old file or the new one, never half of either.
 */
export function writeDurably(path: string, bytes: Buffer | string, mode = 0o600): void {
  const tmp = writeAside(path, bytes, mode, true);
  renameSync(tmp, path);
  syncDir(dirname(path));
}

/** The bytes in a new file beside `path` (its name returned), synced to disk only when asked. */
function writeAside(path: string, bytes: Buffer | string, mode: number, sync: boolean): string {
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const tmp = join(dir, `.${randomBytes(6).toString("hex")}.tmp`);
  const fd = openSync(tmp, "wx", mode);
  try {
    const b = typeof bytes === "string" ? Buffer.from(bytes, "utf8") : bytes;
    for (let off = 0; off < b.length; ) off += writeSync(fd, b, off, b.length - off);
    if (sync) fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return tmp;
}

/**
 * Many files made durable together: each is written aside (not yet synced), then one `syncfs` of the file
 * system (coreutils `sync -f`) makes all their bytes durable, then each is renamed into place, then a second
 * `syncfs` makes the renames durable. Two flushes for a whole follow instead of two per file; after a crash
 * every file is the old one or the whole new one (the asides are removed on the next start).
 */
export class DurableBatch {
  private readonly staged: { tmp: string; path: string; mode: number }[] = [];

  constructor(private readonly root: string) {}

  stage(path: string, bytes: Buffer | string, mode = 0o600): void {
    // not synced one by one: commit's syncfs makes every staged file durable at once
    this.staged.push({ tmp: writeAside(path, bytes, mode, false), path, mode });
  }

  commit(): void {
    if (this.staged.length === 0) return;
    this.flush();
    for (const s of this.staged) renameSync(s.tmp, s.path);
    this.flush();
    this.staged.length = 0;
  }

  private flush(): void {
    const r = spawnSync("sync", ["-f", this.root], { stdio: "ignore" });
    if (r.status === 0) return;
    // no syncfs here: every file and folder, one by one
    for (const s of this.staged) {
      for (const p of [s.tmp, s.path, dirname(s.path)]) {
        try {
          const fd = openSync(p, "r");
          try {
            fsyncSync(fd);
          } finally {
            closeSync(fd);
          }
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
        }
      }
    }
  }
}
