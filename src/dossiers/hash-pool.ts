/**
 * Hashing files off the main thread: the shared worker pool (src/core/worker-pool.ts), each worker reading a file
 * once in 1 MiB reads and feeding every requested digest from the same buffer. A bag's SHA-256 and SHA-512 thus
 * cost one read and run beside the main thread, on as many cores as the machine has. Where no worker can start,
 * hashing runs on the calling thread with the same results.
 */
import { createHash } from "node:crypto";
import { closeSync, openSync, readSync } from "node:fs";
import { open } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { WorkerPool } from "../core/worker-pool.ts";

export interface FileDigests {
  size: number;
  /** Hex digest per algorithm, in the order asked for. */
  digests: string[];
}

export interface DigestJob {
  path: string;
  algs: readonly string[];
}

const READ_SIZE = 1 << 20;

/** The worker's side: blocking reads, which cost a worker nothing and save a promise per read. */
export function digestFileSync(job: DigestJob): FileDigests {
  const buf = Buffer.allocUnsafe(READ_SIZE);
  const hs = job.algs.map((a) => createHash(a));
  const fd = openSync(job.path, "r");
  let size = 0;
  try {
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      const c = n === buf.length ? buf : buf.subarray(0, n);
      for (const h of hs) h.update(c);
      size += n;
    }
  } finally {
    closeSync(fd);
  }
  return { size, digests: hs.map((h) => h.digest("hex")) };
}

/** The same digests computed on the calling thread without blocking it (small files, and where no worker can start). */
export async function digestFileHere(path: string, algs: readonly string[]): Promise<FileDigests> {
  const hs = algs.map((a) => createHash(a));
  const fh = await open(path, "r");
  const buf = Buffer.allocUnsafe(READ_SIZE);
  let size = 0;
  try {
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, null);
      if (bytesRead === 0) break;
      const c = buf.subarray(0, bytesRead);
      for (const h of hs) h.update(c);
      size += bytesRead;
    }
  } finally {
    await fh.close();
  }
  return { size, digests: hs.map((h) => h.digest("hex")) };
}

let shared: WorkerPool<DigestJob, FileDigests> | null = null;

/** Digests of one file, computed by the shared pool (one worker per core). */
export function digestFile(path: string, algs: readonly string[]): Promise<FileDigests> {
  shared ??= new WorkerPool<DigestJob, FileDigests>(new URL("./hash-worker.ts", import.meta.url), (job) => digestFileHere(job.path, job.algs));
  return shared.run({ path, algs: [...algs] });
}

/** How many files are worth hashing at once: enough to keep every worker fed while the next is read. */
export function hashConcurrency(): number {
  return Math.max(2, availableParallelism() * 2);
}
