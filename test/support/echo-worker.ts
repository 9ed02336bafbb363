// A worker module for test/core/worker-pool.test.ts: answers with the thread it ran on, or fails with a code.
import { threadId } from "node:worker_threads";
import { serveJobs } from "../../src/core/worker-pool.ts";
import { IntegrityError } from "../../src/core/errors.ts";

export function echo(job: { n: number; fail?: boolean }): { n: number; thread: number } {
  // any key the server words; what matters is that it comes back across the thread with its parameters
  if (job.fail) throw new IntegrityError(`job ${job.n} failed on purpose`).says("blob.tempSize", { bytes: job.n, expected: 0 });
  return { n: job.n * 2, thread: threadId };
}

if (threadId !== 0) serveJobs(echo);
