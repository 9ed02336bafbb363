// A worker thread of the hashing pool (hash-pool.ts digestFile): nothing here but the wiring.
import { serveJobs } from "../core/worker-pool.ts";
import { digestFileSync } from "./hash-pool.ts";

serveJobs(digestFileSync);
