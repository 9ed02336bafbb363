/**
 * Writing a list of buffers in full with writev: a short write is rare but allowed, so each call carries on from
 * where the kernel stopped. One place for the bookkeeping the bag writer, the blob store and its workers all need.
 */
import { writevSync } from "node:fs";
import type { FileHandle } from "node:fs/promises";

/** What is left of parts after the first n bytes were written. */
function remainder(parts: Uint8Array[], n: number): Uint8Array[] {
  let skip = n;
  let i = 0;
  while (i < parts.length && skip >= parts[i]!.length) skip -= parts[i++]!.length;
  const rest = parts.slice(i);
  if (rest.length && skip > 0) rest[0] = rest[0]!.subarray(skip);
  return rest;
}

function stalled(what: string): Error {
  return new Error(`Writing ${what} made no progress (is the disk full?).`);
}

export async function writevAll(fh: FileHandle, parts: Uint8Array[], what: string): Promise<void> {
  let rest = parts;
  while (rest.length) {
    const { bytesWritten } = await fh.writev(rest);
    if (bytesWritten === 0) throw stalled(what);
    rest = remainder(rest, bytesWritten);
  }
}

export function writevAllSync(fd: number, parts: Uint8Array[], what: string): void {
  let rest = parts;
  while (rest.length) {
    const n = writevSync(fd, rest);
    if (n === 0) throw stalled(what);
    rest = remainder(rest, n);
  }
}
