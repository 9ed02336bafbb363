import type { Config } from "../core/config.ts";
import type { Clock } from "../core/clock.ts";
import type { Logger } from "../core/logger.ts";
import type { DatabaseHandle } from "../db/database.ts";
import type { JobQueue } from "../db/jobs.ts";
import type { CustodyLog } from "../ledger/index.ts";
import type { LogTree } from "../ledger/index.ts";
import type { Policy } from "../access/index.ts";
import type { BlobStore } from "../archive/index.ts";

// Types only: every use case imports this, so it must import no module's code (the archive is built in open-archive.ts).

/**
 * Everything a use case needs, built once at start. Tests build it against SQLite in a temp dir or PostgreSQL in
 * a fresh schema, with filesystem or S3 blobs; the use cases are the same.
 */
export interface Ctx {
  config: Config;
  db: DatabaseHandle;
  blobs: BlobStore;
  log: CustodyLog;
  tree: LogTree;
  jobs: JobQueue;
  policy: Policy;
  clock: Clock;
  logger: Logger;
}

export interface Archive extends Ctx {
  close(): Promise<void>;
}
