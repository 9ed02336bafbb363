/**
 * A card copied to (or mounted as) a folder. Walked depth-first, each directory's names sorted, which is the
 * order of comparePaths. Symbolic links are never followed and special files never read: both are listed as
 * refused so the record shows they were there. Hidden files are ordinary entries.
 *
 * Names are handled as raw bytes, so a file whose name is not valid UTF-8 can still be opened; its `path`
 * shows U+FFFD where the bytes do not decode.
 */
import { constants } from "node:fs";
import { lstat, open as openFile, readdir, readlink } from "node:fs/promises";
import type { FileHandle } from "node:fs/promises";
import type { Stats } from "node:fs";
import type { Readable } from "node:stream";
import { Conflict, Invalid } from "../../core/errors.ts";
import type { CardEntry, CardMedium } from "./sources.ts";
import { say } from "../../core/messages.ts";

const SLASH = Buffer.from("/");
const LSTAT_BATCH = 64;
const STREAM_CHUNK = 256 * 1024;

export async function openFolderCard(root: string): Promise<CardMedium> {
  const rootBuf = Buffer.from(root);
  try {
    await readdir(rootBuf, { encoding: "buffer" });
  } catch (err) {
    throw new Invalid(say("folder.cannotList", { root, problem: describe(err) }), "path");
  }
  const notes: string[] = [];
  let undecodable = 0;
  return {
    kind: "folder",
    path: root,
    notes,
    async *entries() {
      undecodable = 0;
      notes.length = 0;
      yield* walk(rootBuf, "", () => undecodable++);
      if (undecodable > 0) {
        notes.push(`${undecodable} name(s) on this folder are not valid UTF-8; their paths show U+FFFD where bytes do not decode, but the files were read by their exact names.`);
      }
    },
    async close() {},
  };
}

interface Child {
  name: string;
  raw: Buffer;
}

async function* walk(dir: Buffer, prefix: string, onUndecodable: () => void): AsyncGenerator<CardEntry> {
  let names: Buffer[];
  try {
    names = await readdir(dir, { encoding: "buffer" });
  } catch (err) {
    yield { path: prefix.replace(/\/$/, ""), size: 0, refused: `This folder could not be listed (${describe(err)}); whatever it holds was not taken in.` };
    return;
  }
  const children: Child[] = names.map((raw) => {
    const name = raw.toString("utf8");
    if (!Buffer.from(name, "utf8").equals(raw)) onUndecodable();
    return { name, raw };
  });
  children.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : Buffer.compare(a.raw, b.raw)));

  for (let i = 0; i < children.length; i += LSTAT_BATCH) {
    const batch = children.slice(i, i + LSTAT_BATCH);
    const stats = await Promise.all(
      batch.map(async (c) => {
        const full = Buffer.concat([dir, SLASH, c.raw]);
        try {
          return { c, full, st: await lstat(full) };
        } catch (err) {
          return { c, full, error: describe(err) };
        }
      }),
    );
    for (const s of stats) {
      const path = prefix + s.c.name;
      if ("error" in s) {
        yield { path, size: 0, refused: `Its metadata could not be read (${s.error}).` };
        continue;
      }
      const st = s.st as Stats;
      if (st.isDirectory()) {
        yield* walk(s.full, path + "/", onUndecodable);
      } else if (st.isFile()) {
        yield { path, size: st.size, modified: st.mtime.toISOString(), open: () => openListed(s.full, path, st) };
      } else if (st.isSymbolicLink()) {
        let target: string;
        try {
          target = (await readlink(s.full, { encoding: "buffer" })).toString("utf8");
        } catch {
          target = "a target that could not be read";
        }
        yield { path, size: st.size, modified: st.mtime.toISOString(), refused: `symbolic link to ${target} not followed` };
      } else {
        yield { path, size: 0, modified: st.mtime.toISOString(), refused: `${specialKind(st)} holds no stored content and was not read.` };
      }
    }
  }
}

function specialKind(st: Stats): string {
  if (st.isFIFO()) return "A named pipe (FIFO)";
  if (st.isBlockDevice()) return "A block device file";
  if (st.isCharacterDevice()) return "A character device file";
  if (st.isSocket()) return "A socket";
  return "A special file";
}

const NOATIME = constants.O_NOATIME ?? 0;

/**
 * Opens exactly the file that was listed: no symlink swapped in since (O_NOFOLLOW), no pipe to block on
 * (O_NONBLOCK, then a type check), same inode and size. O_NOATIME keeps reading from changing the card's access
 * times where the system allows it (owner or CAP_FOWNER).
 */
async function openListed(full: Buffer, path: string, listed: Stats): Promise<Readable> {
  const base = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
  let fh: FileHandle;
  try {
    fh = await openFile(full, base | NOATIME);
  } catch (err) {
    if (NOATIME === 0 || (err as NodeJS.ErrnoException).code !== "EPERM") throw err;
    fh = await openFile(full, base);
  }
  try {
    const st = await fh.stat();
    if (!st.isFile() || st.ino !== listed.ino || st.dev !== listed.dev || st.size !== listed.size) {
      throw new Conflict(say("folder.changed", { path }));
    }
  } catch (err) {
    await fh.close();
    throw err;
  }
  const opts = listed.size > 0 ? { start: 0, end: listed.size - 1, highWaterMark: STREAM_CHUNK } : { highWaterMark: STREAM_CHUNK };
  return fh.createReadStream(opts);
}

function describe(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  return e.code ? `${e.code}: ${e.message.replace(/^[A-Z]+: /, "").replace(/, \w+ '.*'$/, "")}` : String(err);
}
