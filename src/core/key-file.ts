import { randomBytes } from "node:crypto";
import { closeSync, fsyncSync, linkSync, mkdirSync, openSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";

/**
 * The one writer of key files (the log's signing key, the blob store's master and naming keys, the sealed-record
 * and job keys): every key is written the same way, so none is weaker than another after a crash or a race.
 *
 * - The directory is created 0700, the file 0600 from its first byte (never widened, then narrowed).
 * - The file is written aside, synced, and then linked into place ("create": never replaces; two processes
 *   racing agree, the loser reads the winner's) or renamed over the old one ("replace"); the directory is synced
 *   after, so after a crash the key is whole or absent, never half a file.
 *
 * Synchronous on purpose: keys are written a few times in an archive's life, at start or in a rotation that
 * runs alone, and the callers that open an archive are synchronous.
 */
export function writeKeyFile(dir: string, name: string, contents: string | Buffer, mode: "create" | "replace"): boolean {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const tmp = join(dir, `.${name}.${randomBytes(6).toString("hex")}.tmp`);
  const fd = openSync(tmp, "wx", 0o600);
  try {
    const bytes = typeof contents === "string" ? Buffer.from(contents, "utf8") : contents;
    for (let off = 0; off < bytes.length; ) off += writeSync(fd, bytes, off, bytes.length - off);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    if (mode === "create") {
      try {
        linkSync(tmp, join(dir, name));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
        throw err;
      }
    } else {
      renameSync(tmp, join(dir, name));
    }
    syncDir(dir);
    return true;
  } finally {
    removeAside(tmp);
  }
}

/** The copy written aside goes whatever happened (after a link it is a second name of the key). */
function removeAside(tmp: string): void {
  try {
    unlinkSync(tmp);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
}

/** A key as its file holds it: base64 and a newline. */
export function base64KeyText(key: Buffer): string {
  return `${key.toString("base64")}\n`;
}

/** Makes a directory's entries (a link, a rename, an unlink) durable. */
export function syncDir(dir: string): void {
  const fd = openSync(dir, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
