import { resolve, join } from "node:path";

/** Everything the archive reads from its environment, resolved once at start. */
export interface Config {
  dataDir: string;
  databaseUrl?: string;
  blobsUrl?: string;
  tsaUrl?: string;
  /** Names this archive's log: a scheme-less URL, also the checkpoint key name (C2SP tlog-checkpoint). */
  logOrigin?: string;
  /** The witnesses and quorum (C2SP tlog-policy): DALIL_WITNESS_POLICY, else <data>/witnesses.policy if present. */
  witnessPolicyFile?: string;
  /** How long a built package's bag stays on the server (DALIL_PACKAGE_TTL: 30m, 48h, 7d …; default 7 days). */
  packageTtlMs: number;
}

const DEFAULT_PACKAGE_TTL_MS = 7 * 86_400_000;
const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A duration like "90s", "30m", "48h" or "7d". */
export function parseDuration(text: string, name: string): number {
  const m = /^\s*(\d+)\s*([smhd])\s*$/.exec(text);
  if (!m || Number(m[1]) <= 0) throw new Error(`${name} must be a duration such as 30m, 48h or 7d, not "${text}".`);
  return Number(m[1]) * UNIT_MS[m[2]!]!;
}

export function loadConfig(opts: { data?: string } = {}, env: NodeJS.ProcessEnv = process.env): Config {
  const dataDir = resolve(opts.data ?? env.DALIL_DATA ?? "./dalil-data");
  return {
    dataDir,
    databaseUrl: env.DALIL_DATABASE_URL || undefined,
    blobsUrl: env.DALIL_BLOBS_URL || undefined,
    tsaUrl: env.DALIL_TSA_URL || undefined,
    logOrigin: env.DALIL_LOG_ORIGIN || undefined,
    witnessPolicyFile: env.DALIL_WITNESS_POLICY || undefined,
    packageTtlMs: env.DALIL_PACKAGE_TTL ? parseDuration(env.DALIL_PACKAGE_TTL, "DALIL_PACKAGE_TTL") : DEFAULT_PACKAGE_TTL_MS,
  };
}

export const paths = {
  sqlite: (c: Config) => join(c.dataDir, "archive.sqlite"),
  blobs: (c: Config) => join(c.dataDir, "blobs"),
  keys: (c: Config) => join(c.dataDir, "keys"),
  quarantine: (c: Config) => join(c.dataDir, "quarantine"),
};
