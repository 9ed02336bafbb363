/**
 * A small pool of worker threads running one TypeScript module, for work that would otherwise hold the main
 * thread (decrypting and hashing photos). Each request is a message { id, job }; the module answers
 * { id, result } or { id, error }. Workers start when first needed and are unref'd while idle, so a pool with
 * nothing to do never keeps the process alive and callers need no teardown. Where no worker can start, the
 * pool runs the same function on the calling thread, with the same results.
 */
import { availableParallelism } from "node:os";
import { Worker, parentPort } from "node:worker_threads";

const BOOT = new URL("./worker-boot.mjs", import.meta.url);

interface Pending<R> {
  resolve: (r: R) => void;
  reject: (e: Error) => void;
}

interface Slot<R> {
  worker: Worker;
  jobs: Map<number, Pending<R>>;
}

type Reply<R> = { id: number; result: R } | { id: number; error: string; code?: string; key?: string; params?: Record<string, unknown> };

/** What a worker module calls once: answers each job with fn's result (errors keep their message, code and message key). */
export function serveJobs<J, R>(fn: (job: J) => R | Promise<R>): void {
  if (!parentPort) throw new Error("serveJobs runs only inside a worker thread.");
  const port = parentPort;
  port.on("message", async (m: { id: number; job: J }) => {
    try {
      port.postMessage({ id: m.id, result: await fn(m.job) });
    } catch (e) {
      const err = e instanceof Error ? e : new Error(String(e));
      const { code, key, params } = err as { code?: unknown; key?: unknown; params?: unknown };
      port.postMessage({
        id: m.id,
        error: err.message,
        ...(typeof code === "string" ? { code } : {}),
        // the key a screen words the error by (core/messages.ts): without it the reader gets the English sentence
        ...(typeof key === "string" ? { key, params: typeof params === "object" && params ? params : {} } : {}),
      });
    }
  });
}

export class WorkerPool<J, R> {
  private readonly slots: Slot<R>[] = [];
  private nextId = 0;
  private broken = false;

  /**
   * entry: the module's URL (it calls serveJobs); here: the same function for the calling thread; rebuild: turns
   * a worker's error message and code back into the error class the caller expects.
   */
  constructor(
    private readonly entry: URL,
    private readonly here: (job: J) => R | Promise<R>,
    private readonly rebuild: (message: string, code?: string) => Error = (m) => new Error(m),
    private readonly size = Math.max(1, availableParallelism()),
  ) {}

  run(job: J): Promise<R> {
    const slot = this.pick();
    if (!slot) return Promise.resolve().then(() => this.here(job));
    const id = this.nextId++;
    return new Promise<R>((resolve, reject) => {
      if (slot.jobs.size === 0) slot.worker.ref();
      slot.jobs.set(id, { resolve, reject });
      slot.worker.postMessage({ id, job });
    });
  }

  /** The least busy worker, starting another while the pool is below its size and every worker has work. */
  private pick(): Slot<R> | null {
    if (this.broken) return null;
    let best: Slot<R> | null = null;
    for (const s of this.slots) if (!best || s.jobs.size < best.jobs.size) best = s;
    if ((!best || best.jobs.size > 0) && this.slots.length < this.size) best = this.start() ?? best;
    return best;
  }

  private start(): Slot<R> | null {
    let worker: Worker;
    try {
      worker = new Worker(BOOT, { workerData: { entry: this.entry.href } });
    } catch {
      if (this.slots.length === 0) this.broken = true;
      return null;
    }
    worker.unref();
    const slot: Slot<R> = { worker, jobs: new Map() };
    worker.on("message", (m: Reply<R>) => {
      const job = slot.jobs.get(m.id);
      if (!job) return;
      slot.jobs.delete(m.id);
      if (slot.jobs.size === 0) worker.unref();
      if ("error" in m) {
        const err = this.rebuild(m.error, m.code);
        if (m.key) Object.assign(err, { key: m.key, params: m.params ?? {} });
        job.reject(err);
      }
      else job.resolve(m.result);
    });
    const fail = (err: Error): void => {
      const at = this.slots.indexOf(slot);
      if (at >= 0) this.slots.splice(at, 1);
      for (const job of slot.jobs.values()) job.reject(err);
      slot.jobs.clear();
    };
    worker.on("error", fail);
    worker.on("exit", (code) => fail(new Error(`A worker thread stopped (exit code ${code}).`)));
    this.slots.push(slot);
    return slot;
  }
}
