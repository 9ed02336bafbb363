// A worker thread of the decrypt pool (store.ts decryptToFile): nothing here but the wiring.
import { serveJobs } from "../../core/worker-pool.ts";
import { decryptToFile } from "./decrypt-file.ts";

serveJobs(decryptToFile);
