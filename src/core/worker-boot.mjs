// The entry of every worker thread that runs a TypeScript module. The CLI registers tsx in-process (bin/dalil.js),
// and a worker inherits no such registration, so the worker registers it itself before importing its module.
// Plain JS on purpose: this file must load before any TypeScript can.
import { workerData } from "node:worker_threads";

if (workerData.entry.endsWith(".ts")) {
  // Only a TypeScript entry needs the loader; a compiled one must not require tsx to be installed.
  const { register } = await import("tsx/esm/api");
  register();
}
// Dynamic by nature: the entry is named by the pool at run time, and must load after the loader above.
await import(workerData.entry);
