import { resolve, join } from "node:path";

/** Everything the archive reads from its environment, resolved once at start. */
export interface Config {
  dataDir: string;
  databaseUrl?: string;
  blobsUrl?: string;
  tsaUrl?: string;
  /** Names this archive's log: a scheme-less URL, also the checkpoint key name (C2SP tlog-checkpoint). */
  logOrigin?: string;
}

export function loadConfig(opts: { data?: string } = {}, env: NodeJS.ProcessEnv = process.env): Config {
  const dataDir = resolve(opts.data ?? env.DALIL_DATA ?? "./dalil-data");
  return {
    dataDir,
    databaseUrl: env.DALIL_DATABASE_URL || undefined,
    blobsUrl: env.DALIL_BLOBS_URL || undefined,
    tsaUrl: env.DALIL_TSA_URL || undefined,
    logOrigin: env.DALIL_LOG_ORIGIN || undefined,
  };
}

export const paths = {
  sqlite: (c: Config) => join(c.dataDir, "archive.sqlite"),
  blobs: (c: Config) => join(c.dataDir, "blobs"),
  keys: (c: Config) => join(c.dataDir, "keys"),
  quarantine: (c: Config) => join(c.dataDir, "quarantine"),
};
