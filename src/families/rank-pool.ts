import { Worker } from "node:worker_threads";
import { availableParallelism } from "node:os";
import { prepareName, type NameSlots } from "../names/index.ts";
import { keysOf, rankBodies, type BodyFeatures, type ReportFeatures, type Scored } from "./scoring.ts";

/**
 * Ranking many reports on every core: each worker thread builds the same index from the same bodies (so the
 * same population and the same numbers) and ranks a share of the reports, chunk by chunk, so that the caller
 * can store each chunk as it comes. Names cross the thread boundary as their slots and are analysed again
 * there; nothing else in the features needs it. Without a usable worker, the ranking runs in this thread.
 */

type WireBody = Omit<BodyFeatures, "name"> & { name: NameSlots | null };
type WireReport = Omit<ReportFeatures, "names" | "nameKeys"> & { names: NameSlots[] };

export const toWireBody = (b: BodyFeatures): WireBody => ({ ...b, name: b.name ? b.name.slots : null });
export const fromWireBody = (b: WireBody): BodyFeatures => ({ ...b, name: b.name ? prepareName(b.name) : null });
function toWireReport(r: ReportFeatures): WireReport {
  const { nameKeys, ...rest } = r;
  void nameKeys; // recomputed on the other side from the names
  return { ...rest, names: r.names.map((n) => n.slots) };
}
export function fromWireReport(r: WireReport): ReportFeatures {
  const names = r.names.map((n) => prepareName(n));
  return { ...r, names, nameKeys: keysOf(names) };
}

// The worker loads this module's sibling through tsx when the process runs under it (the app and the benches do).
const WORKER_SOURCE = `
const { parentPort, workerData } = await import("node:worker_threads");
try { const { register } = await import("tsx/esm/api"); register(); } catch { /* compiled: no loader needed */ }
const { serveRanking } = await import(workerData.module);
serveRanking(parentPort, workerData.bodies);
`;

export interface RankAllOptions {
  top: number;
  /** Worker threads; default one per core, at most 4. 1 ranks in this thread. */
  threads?: number;
  chunk?: number;
  /** Called with each chunk's rankings (chunks may arrive out of order). */
  onChunk: (start: number, ranked: Scored[][]) => Promise<void>;
}

export async function rankAll(bodies: readonly BodyFeatures[], reports: readonly ReportFeatures[], opts: RankAllOptions): Promise<{ threads: number }> {
  const chunk = opts.chunk ?? 250;
  const threads = Math.max(1, Math.min(opts.threads ?? Math.min(4, availableParallelism()), Math.ceil(reports.length / chunk)));
  if (threads <= 1) {
    for (let s = 0; s < reports.length; s += chunk) await opts.onChunk(s, reports.slice(s, s + chunk).map((r) => rankBodies(r, bodies, opts.top)));
    return { threads: 1 };
  }
  let delivered = 0;
  const onChunk = async (start: number, ranked: Scored[][]): Promise<void> => {
    delivered++;
    await opts.onChunk(start, ranked);
  };
  try {
    return await inWorkers(bodies, reports, { ...opts, chunk, threads, onChunk });
  } catch (err) {
    // a worker that cannot start (no loader for the sources) changes nothing but the speed
    if (delivered > 0) throw err;
    return rankAll(bodies, reports, { ...opts, threads: 1 });
  }
}

async function inWorkers(bodies: readonly BodyFeatures[], reports: readonly ReportFeatures[], opts: RankAllOptions & { chunk: number; threads: number }): Promise<{ threads: number }> {
  const { chunk, threads } = opts;
  const wireBodies = bodies.map(toWireBody);
  const starts: number[] = [];
  for (let s = 0; s < reports.length; s += chunk) starts.push(s);
  const workers = Array.from({ length: threads }, () => new Worker(WORKER_SOURCE, { eval: true, workerData: { module: import.meta.url, bodies: wireBodies } }));
  try {
    await Promise.all(
      workers.map(
        (w) =>
          new Promise<void>((resolve, reject) => {
            let pending: Promise<void> = Promise.resolve();
            const next = (): void => {
              const s = starts.shift();
              if (s === undefined) {
                pending.then(resolve, reject);
                return;
              }
              w.postMessage({ start: s, reports: reports.slice(s, s + chunk).map(toWireReport), top: opts.top });
            };
            w.on("message", (m: { start: number; ranked: Scored[][] }) => {
              pending = pending.then(() => opts.onChunk(m.start, m.ranked));
              pending.catch(reject);
              next();
            });
            w.on("error", reject);
            next();
          }),
      ),
    );
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
  return { threads };
}

/** The worker's side: one index for the thread's life, then chunk after chunk. */
export function serveRanking(port: import("node:worker_threads").MessagePort, wire: WireBody[]): void {
  const bodies = wire.map(fromWireBody);
  port.on("message", (m: { start: number; reports: WireReport[]; top: number }) => {
    const ranked = m.reports.map((r) => rankBodies(fromWireReport(r), bodies, m.top));
    port.postMessage({ start: m.start, ranked });
  });
}
