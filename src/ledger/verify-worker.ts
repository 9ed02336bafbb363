// A worker thread of `dalil verify`'s event checks (verify-events.ts): nothing here but the wiring.
import { serveJobs } from "../core/worker-pool.ts";
import { checkEventRangeJob } from "./verify-events.ts";

serveJobs(checkEventRangeJob);
