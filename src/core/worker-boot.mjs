// The entry of every worker thread that runs a TypeScript module. The CLI registers tsx in-process (bin/dalil.js),
// and a worker inherits no such registration, so the worker registers it itself before importing its module.
// Plain JS on purpose: this file must load before any TypeScript can.
import { workerData } from "node:worker_threads";

if (workerData.entry.endsWith(".ts")) {
  const { register } = await import("tsx/esm/api");
  register();
}
await import(workerData.entry);
