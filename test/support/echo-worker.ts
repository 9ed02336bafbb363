// A worker module for test/core/worker-pool.test.ts: answers with the thread it ran on, or fails with a code.
import { threadId } from "node:worker_threads";
import { serveJobs } from "../../src/core/worker-pool.ts";
import { IntegrityError } from "../../src/core/errors.ts";

export function echo(job: { n: number; fail?: boolean }): { n: number; thread: number } {
  if (job.fail) throw new IntegrityError(`job ${job.n} failed on purpose`);
  return { n: job.n * 2, thread: threadId };
}

if (threadId !== 0) serveJobs(echo);
