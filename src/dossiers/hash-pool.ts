/**
 * Hashing files off the main thread: a small pool of worker threads, each reading a file once in 1 MiB reads and
 * feeding every requested digest from the same buffer. A bag's SHA-256 and SHA-512 thus cost one read and run
 * beside the main thread's decryption and writing, on as many cores as the machine has.
 *
 * The workers are idle-unref'd: a pool with nothing to do never keeps the process alive, so callers need no
 * teardown. Where workers cannot start, hashing falls back to the calling thread with the same results.
 */
import { createHash } from "node:crypto";
import { open } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";

export interface FileDigests {
  size: number;
  /** Hex digest per algorithm, in the order asked for. */
  digests: string[];
}

const READ_SIZE = 1 << 20;

// Plain CommonJS evaluated in the worker: no loader, no build step, the same under tsx and compiled JS.
const WORKER_SOURCE = `
const { parentPort } = require("node:worker_threads");
const { createHash } = require("node:crypto");
const { openSync, readSync, closeSync } = require("node:fs");
const buf = Buffer.allocUnsafe(${READ_SIZE});
parentPort.on("message", (m) => {
  let fd = -1;
  try {
    fd = openSync(m.path, "r");
    const hs = m.algs.map((a) => createHash(a));
    let size = 0;
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      const c = n === buf.length ? buf : buf.subarray(0, n);
      for (const h of hs) h.update(c);
      size += n;
    }
    parentPort.postMessage({ id: m.id, size, digests: hs.map((h) => h.digest("hex")) });
  } catch (e) {
    parentPort.postMessage({ id: m.id, error: String((e && e.message) || e) });
  } finally {
    if (fd >= 0) closeSync(fd);
  }
});
`;

interface Job {
  resolve: (d: FileDigests) => void;
  reject: (e: Error) => void;
}

interface Slot {
  worker: Worker;
  jobs: Map<number, Job>;
}

type Reply = { id: number; size: number; digests: string[] } | { id: number; error: string };

class HashPool {
  private readonly slots: Slot[] = [];
  private nextId = 0;
  private broken = false;

  constructor(private readonly size: number) {}

  async digestFile(path: string, algs: readonly string[]): Promise<FileDigests> {
    const slot = this.pick();
    if (!slot) return digestFileHere(path, algs);
    const id = this.nextId++;
    return new Promise<FileDigests>((resolve, reject) => {
      if (slot.jobs.size === 0) slot.worker.ref();
      slot.jobs.set(id, { resolve, reject });
      slot.worker.postMessage({ id, path, algs });
    });
  }

  /** The least busy worker, starting another while the pool is below its size and every worker has work. */
  private pick(): Slot | null {
    if (this.broken) return null;
    let best: Slot | null = null;
    for (const s of this.slots) if (!best || s.jobs.size < best.jobs.size) best = s;
    if ((!best || best.jobs.size > 0) && this.slots.length < this.size) best = this.start() ?? best;
    return best;
  }

  private start(): Slot | null {
    let worker: Worker;
    try {
      worker = new Worker(WORKER_SOURCE, { eval: true });
    } catch {
      if (this.slots.length === 0) this.broken = true;
      return null;
    }
    worker.unref();
    const slot: Slot = { worker, jobs: new Map() };
    worker.on("message", (m: Reply) => {
      const job = slot.jobs.get(m.id);
      if (!job) return;
      slot.jobs.delete(m.id);
      if (slot.jobs.size === 0) worker.unref();
      if ("error" in m) job.reject(new Error(m.error));
      else job.resolve({ size: m.size, digests: m.digests });
    });
    const fail = (err: Error): void => {
      const at = this.slots.indexOf(slot);
      if (at >= 0) this.slots.splice(at, 1);
      for (const job of slot.jobs.values()) job.reject(err);
      slot.jobs.clear();
    };
    worker.on("error", fail);
    worker.on("exit", (code) => fail(new Error(`A hashing worker stopped (exit code ${code}).`)));
    this.slots.push(slot);
    return slot;
  }
}

/** The same digests computed on the calling thread (small files, and where no worker can start). */
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

let shared: HashPool | null = null;

/** Digests of one file, computed by the shared pool (one worker per core). */
export function digestFile(path: string, algs: readonly string[]): Promise<FileDigests> {
  shared ??= new HashPool(Math.max(1, availableParallelism()));
  return shared.digestFile(path, algs);
}

/** How many files are worth hashing at once: enough to keep every worker fed while the next is read. */
export function hashConcurrency(): number {
  return Math.max(2, availableParallelism() * 2);
}
