/**
 * A finished package directory as one streamed archive (POSIX ustar or a stored ZIP), so a package can leave over
 * HTTP without a temporary copy. No compression: the photos are already compressed, and the bag's manifests hash
 * the files, not the archive. Only regular files and directories are written; a symlink in a package is refused
 * (a bag never holds one, so one there means someone put it there).
 */
import { createReadStream, lstatSync, readdirSync } from "node:fs";
import { basename, join } from "node:path";
import { crc32 } from "node:zlib";
import { Invalid } from "../core/errors.ts";
import { say } from "../core/messages.ts";

interface Entry {
  name: string;
  path: string;
  size: number;
  mtime: Date;
  dir: boolean;
}

/** Every directory and file under root, parents before children, sorted: the same package gives the same listing. */
export function listTree(root: string): Entry[] {
  const out: Entry[] = [];
  const walk = (path: string, name: string): void => {
    const st = lstatSync(path);
    if (st.isSymbolicLink() || !(st.isFile() || st.isDirectory())) throw new Invalid(say("package.notPlainFile", { name }));
    out.push({ name, path, size: st.isFile() ? st.size : 0, mtime: st.mtime, dir: st.isDirectory() });
    if (st.isDirectory()) for (const child of readdirSync(path).sort()) walk(join(path, child), `${name}/${child}`);
  };
  walk(root, basename(root));
  return out;
}

function octal(n: number, width: number): string {
  return `${n.toString(8).padStart(width - 1, "0")}\0`;
}

/** A ustar header; names longer than 100 bytes are split at a "/" into prefix (155) and name (100). */
function tarHeader(e: Entry): Buffer {
  const full = e.dir ? `${e.name}/` : e.name;
  let name = full;
  let prefix = "";
  if (Buffer.byteLength(full) > 100) {
    const cut = full.lastIndexOf("/", full.length - 2);
    prefix = full.slice(0, cut);
    name = full.slice(cut + 1);
    if (cut < 0 || Buffer.byteLength(name) > 100 || Buffer.byteLength(prefix) > 155) throw new Invalid(say("package.tarPathTooLong", { name: e.name }));
  }
  const h = Buffer.alloc(512);
  h.write(name, 0, 100, "utf8");
  h.write(octal(e.dir ? 0o755 : 0o644, 8), 100, "ascii");
  h.write(octal(0, 8), 108, "ascii");
  h.write(octal(0, 8), 116, "ascii");
  h.write(octal(e.size, 12), 124, "ascii");
  h.write(octal(Math.floor(e.mtime.getTime() / 1000), 12), 136, "ascii");
  h.write("        ", 148, "ascii");
  h.write(e.dir ? "5" : "0", 156, "ascii");
  h.write("ustar\x0000", 257, "ascii");
  h.write(prefix, 345, 155, "utf8");
  let sum = 0;
  for (const b of h) sum += b;
  h.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148, "ascii");
  return h;
}

/** The tree as a ustar archive. */
export async function* tarStream(entries: Entry[]): AsyncGenerator<Buffer> {
  for (const e of entries) {
    // 8 GiB is the limit of ustar's 11 octal digits; a package file that size is not a photo.
    if (e.size >= 8 * 1024 ** 3) throw new Invalid(say("package.tarFileTooLarge", { name: e.name }));
    yield tarHeader(e);
    if (e.dir) continue;
    let sent = 0;
    for await (const chunk of createReadStream(e.path)) {
      sent += (chunk as Buffer).length;
      yield chunk as Buffer;
    }
    if (sent !== e.size) throw new Error(`${e.name} changed while it was being sent.`);
    if (e.size % 512) yield Buffer.alloc(512 - (e.size % 512));
  }
  yield Buffer.alloc(1024);
}

/** ZIP without ZIP64 must keep every offset and size under 4 GiB; larger packages go as tar. */
export function zipFits(entries: Entry[]): boolean {
  let total = 0;
  for (const e of entries) total += e.size + 30 + 16 + 46 + 2 * Buffer.byteLength(e.name) + 2;
  return total < 0xffff_ffff && entries.length < 0xffff;
}

function dosTime(d: Date): { time: number; date: number } {
  const y = Math.max(1980, d.getUTCFullYear());
  return { time: (d.getUTCHours() << 11) | (d.getUTCMinutes() << 5) | (d.getUTCSeconds() >> 1), date: ((y - 1980) << 9) | ((d.getUTCMonth() + 1) << 5) | d.getUTCDate() };
}

/** The tree as a stored (uncompressed) ZIP; CRCs are computed while streaming and sent in data descriptors. */
export async function* zipStream(entries: Entry[]): AsyncGenerator<Buffer> {
  if (!zipFits(entries)) throw new Invalid(say("package.zipTooLarge"), "format");
  const central: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.dir ? `${e.name}/` : e.name, "utf8");
    const { time, date } = dosTime(e.mtime);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0808, 6); // data descriptor follows; names are UTF-8
    local.writeUInt16LE(0, 8);
    local.writeUInt16LE(time, 10);
    local.writeUInt16LE(date, 12);
    local.writeUInt16LE(name.length, 26);
    yield local;
    yield name;
    let crc = 0;
    let size = 0;
    if (!e.dir) {
      for await (const chunk of createReadStream(e.path)) {
        crc = crc32(chunk as Buffer, crc);
        size += (chunk as Buffer).length;
        yield chunk as Buffer;
      }
      if (size !== e.size) throw new Error(`${e.name} changed while it was being sent.`);
    }
    const desc = Buffer.alloc(16);
    desc.writeUInt32LE(0x08074b50, 0);
    desc.writeUInt32LE(crc >>> 0, 4);
    desc.writeUInt32LE(size, 8);
    desc.writeUInt32LE(size, 12);
    yield desc;
    const c = Buffer.alloc(46);
    c.writeUInt32LE(0x02014b50, 0);
    c.writeUInt16LE(0x0314, 4); // made by Unix, so the modes below are read
    c.writeUInt16LE(20, 6);
    c.writeUInt16LE(0x0808, 8);
    c.writeUInt16LE(time, 12);
    c.writeUInt16LE(date, 14);
    c.writeUInt32LE(crc >>> 0, 16);
    c.writeUInt32LE(size, 20);
    c.writeUInt32LE(size, 24);
    c.writeUInt16LE(name.length, 28);
    c.writeUInt32LE(((e.dir ? 0o40755 : 0o100644) << 16) >>> 0, 38);
    c.writeUInt32LE(offset, 42);
    central.push(c, name);
    offset += local.length + name.length + size + desc.length;
  }
  const cd = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  yield cd;
  yield end;
}
