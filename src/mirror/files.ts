import { randomBytes } from "node:crypto";
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, writeSync } from "node:fs";
import { dirname, join } from "node:path";
import { syncDir } from "../core/key-file.ts";

/**
 * Durable writes for the follower's folder: a file is written aside, synced, renamed into place and its folder
 * synced, so after a crash (or kill -9) it is the old file or the new one, never half of either.
 */
export function writeDurably(path: string, bytes: Buffer | string, mode = 0o600): void {
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const tmp = join(dir, `.${randomBytes(6).toString("hex")}.tmp`);
  const fd = openSync(tmp, "wx", mode);
  try {
    const b = typeof bytes === "string" ? Buffer.from(bytes, "utf8") : bytes;
    for (let off = 0; off < b.length; ) off += writeSync(fd, b, off, b.length - off);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
  syncDir(dir);
}
