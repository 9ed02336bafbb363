/**
 * C2SP tlog-tiles: the log published as static files so a monitor or witness can follow it.
 *
 *   tile/<L>/<N>[.p/<W>]        hashes: 256 (or W < 256 for a partial tile) consecutive 32-byte hashes at tree
 *                               level 8·L, i.e. the stored hashes storedHashIndex(8L, 256N + i)
 *   tile/entries/<N>[.p/<W>]    the leaves themselves, each as a big-endian uint16 length and the bytes
 *
 * <N> is written in 3-digit groups, all but the last prefixed with "x": 1234067 → x001/x234/067.
 * For a tree of size s, level L has floor(s / 256^(L+1)) full tiles and one partial tile of width
 * floor(s / 256^L) mod 256 when that is not zero.
 */
import { Invalid, NotFound } from "../core/errors.ts";
import { HASH_SIZE, storedHashIndex, type HashReader } from "./merkle.ts";
import { say } from "../core/messages.ts";

export const TILE_HEIGHT = 8;
export const TILE_WIDTH = 256;
export const MAX_ENTRY_BYTES = 0xffff;

export type TileCoord =
  | { kind: "hash"; level: number; index: number; width: number }
  | { kind: "entries"; index: number; width: number };

/** Reads leaf bytes for leaf indexes [start, end), in order. */
export type EntryReader = (start: number, end: number) => Promise<Buffer[]>;

export interface TileFile {
  path: string;
  bytes: Buffer;
}

function encodeIndex(n: number): string {
  let s = String(n % 1000).padStart(3, "0");
  for (n = Math.floor(n / 1000); n > 0; n = Math.floor(n / 1000)) s = `x${String(n % 1000).padStart(3, "0")}/${s}`;
  return s;
}

export function tilePath(t: TileCoord): string {
  const partial = t.width === TILE_WIDTH ? "" : `.p/${t.width}`;
  const level = t.kind === "entries" ? "entries" : String(t.level);
  return `tile/${level}/${encodeIndex(t.index)}${partial}`;
}

/** Parses a tile path, accepting only the canonical spelling (so one tile has one URL). */
export function parseTilePath(path: string): TileCoord {
  const bad = (): Invalid => new Invalid(say("tile.badPath", { path: JSON.stringify(path.slice(0, 120)) }));
  const parts = path.split("/");
  if (parts.length < 3 || parts[0] !== "tile") throw bad();
  const levelText = parts[1] as string;
  let groups = parts.slice(2);
  let width = TILE_WIDTH;
  const last = groups[groups.length - 1] as string;
  const beforeLast = groups[groups.length - 2];
  if (beforeLast !== undefined && beforeLast.endsWith(".p")) {
    if (!/^[1-9][0-9]{0,2}$/.test(last) || Number(last) >= TILE_WIDTH) throw bad();
    width = Number(last);
    groups = [...groups.slice(0, -2), beforeLast.slice(0, -2)];
  }
  let index = 0;
  groups.forEach((g, i) => {
    const re = i < groups.length - 1 ? /^x[0-9]{3}$/ : /^[0-9]{3}$/;
    if (!re.test(g)) throw bad();
    index = index * 1000 + Number(g.slice(-3));
  });
  if (!Number.isSafeInteger(index)) throw bad();
  let coord: TileCoord;
  if (levelText === "entries") coord = { kind: "entries", index, width };
  else if (/^(?:0|[1-9][0-9]?)$/.test(levelText) && Number(levelText) <= 63) coord = { kind: "hash", level: Number(levelText), index, width };
  else throw bad();
  if (tilePath(coord) !== path) throw bad();
  return coord;
}

/** Number of hashes at tile level `level` for a tree of `size` leaves (tree level 8·level). */
function hashesAtLevel(size: number, level: number): number {
  return Math.floor(size / TILE_WIDTH ** level);
}

/** Every tile (full and partial) and every entry bundle of the tree of `size` leaves. */
export function tilesForSize(size: number): TileCoord[] {
  return tilesBetween(0, size);
}

/**
 * The tiles to publish when the tree grows from `oldSize` to `newSize`: tiles that became full, and the partial
 * tiles of the new size. (Partial tiles of the old size stay valid; they may be deleted once the full tile exists.)
 */
export function tilesBetween(oldSize: number, newSize: number): TileCoord[] {
  if (!Number.isSafeInteger(oldSize) || !Number.isSafeInteger(newSize) || oldSize < 0 || newSize < oldSize) {
    throw new RangeError(`Cannot list tiles from size ${oldSize} to size ${newSize}.`);
  }
  const out: TileCoord[] = [];
  for (let level = 0; hashesAtLevel(newSize, level) > 0; level++) {
    const oldCount = hashesAtLevel(oldSize, level);
    const newCount = hashesAtLevel(newSize, level);
    const fullFrom = Math.floor(oldCount / TILE_WIDTH);
    const fullTo = Math.floor(newCount / TILE_WIDTH);
    const width = newCount % TILE_WIDTH;
    const partialIsNew = newCount !== oldCount && width > 0;
    for (let n = fullFrom; n < fullTo; n++) {
      out.push({ kind: "hash", level, index: n, width: TILE_WIDTH });
      if (level === 0) out.push({ kind: "entries", index: n, width: TILE_WIDTH });
    }
    if (partialIsNew) {
      out.push({ kind: "hash", level, index: fullTo, width });
      if (level === 0) out.push({ kind: "entries", index: fullTo, width });
    }
  }
  return out;
}

/** Whether the tile exists in the tree of `size` leaves (a partial tile: any width the tree already covers). */
export function tileExists(t: TileCoord, size: number): boolean {
  const level = t.kind === "entries" ? 0 : t.level;
  return t.width >= 1 && t.width <= TILE_WIDTH && t.index * TILE_WIDTH + t.width <= hashesAtLevel(size, level);
}

export async function readHashTile(t: TileCoord & { kind: "hash" }, read: HashReader): Promise<Buffer> {
  const indexes: number[] = [];
  for (let i = 0; i < t.width; i++) indexes.push(storedHashIndex(TILE_HEIGHT * t.level, t.index * TILE_WIDTH + i));
  const hashes = await read(indexes);
  if (hashes.length !== indexes.length || hashes.some((h) => h?.length !== HASH_SIZE)) {
    throw new NotFound(say("tile.hashesMissing", { tile: tilePath(t) }));
  }
  return Buffer.concat(hashes);
}

export function encodeEntryBundle(entries: readonly Uint8Array[]): Buffer {
  const parts: Uint8Array[] = [];
  for (const e of entries) {
    if (e.length > MAX_ENTRY_BYTES) throw new Invalid(say("tile.entryTooLarge", { bytes: e.length }));
    const len = Buffer.alloc(2);
    len.writeUInt16BE(e.length);
    parts.push(len, e);
  }
  return Buffer.concat(parts);
}

export function decodeEntryBundle(bytes: Uint8Array): Buffer[] {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: Buffer[] = [];
  for (let at = 0; at < buf.length; ) {
    if (at + 2 > buf.length) throw new Invalid(say("tile.bundleLengthCut"));
    const len = buf.readUInt16BE(at);
    if (at + 2 + len > buf.length) throw new Invalid(say("tile.bundleEntryCut"));
    out.push(buf.subarray(at + 2, at + 2 + len));
    at += 2 + len;
  }
  return out;
}

export async function readEntryBundle(t: TileCoord & { kind: "entries" }, readEntries: EntryReader): Promise<Buffer> {
  const start = t.index * TILE_WIDTH;
  const entries = await readEntries(start, start + t.width);
  if (entries.length !== t.width) throw new NotFound(say("tile.entriesMissing", { tile: tilePath(t) }));
  return encodeEntryBundle(entries);
}

export async function readTile(t: TileCoord, read: HashReader, readEntries: EntryReader): Promise<Buffer> {
  return t.kind === "hash" ? readHashTile(t, read) : readEntryBundle(t, readEntries);
}

/** One tile of `kind` by its path, for an HTTP handler; NotFound if the tree of `size` leaves does not have it. */
export async function tileForPath(path: string, size: number, kind: TileCoord["kind"], read: HashReader, readEntries: EntryReader): Promise<TileFile> {
  let coord: TileCoord;
  try {
    coord = parseTilePath(path);
  } catch {
    throw new NotFound(say("tile.notFound", { path: JSON.stringify(path.slice(0, 120)) }));
  }
  if (coord.kind !== kind) throw new NotFound(say("tile.notFound", { path: JSON.stringify(path.slice(0, 120)) }));
  if (!tileExists(coord, size)) throw new NotFound(say("tile.beyond", { path, size }));
  return { path, bytes: await readTile(coord, read, readEntries) };
}

/** All tiles to write when the tree grows from `oldSize` to `newSize` (use 0 for a full export), one at a time. */
export async function* tileFiles(oldSize: number, newSize: number, read: HashReader, readEntries: EntryReader): AsyncGenerator<TileFile> {
  for (const t of tilesBetween(oldSize, newSize)) yield { path: tilePath(t), bytes: await readTile(t, read, readEntries) };
}

/** All tiles of a tree as a list (small trees; use tileFiles to stream a large one). */
export async function allTiles(size: number, read: HashReader, readEntries: EntryReader): Promise<TileFile[]> {
  const out: TileFile[] = [];
  for await (const f of tileFiles(0, size, read, readEntries)) out.push(f);
  return out;
}
