import { chmodSync, mkdirSync, statSync } from "node:fs";
import { paths, type Config } from "../core/config.ts";
import { systemClock, type Clock } from "../core/clock.ts";
import { createLogger, type Logger } from "../core/logger.ts";
import { openDatabase } from "../db/database.ts";
import { JobQueue } from "../db/jobs.ts";
import { CustodyLog } from "../ledger/index.ts";
import { policy } from "../access/index.ts";
import { openBlobStore } from "../archive/index.ts";
import { loadOrCreateBlobKeys } from "../archive/index.ts";
import { registerArchiveJobs } from "../archive/index.ts";
import { registerCatalogueJobs } from "../catalogue/index.ts";
import { registerFamiliesJobs } from "../families/index.ts";
import { registerDossierJobs } from "../dossiers/index.ts";
import { registerPackageExpiry } from "../dossiers/index.ts";
import { registerReviewBlinding } from "../review/index.ts";
import { LogTree, WitnessClient, WitnessPolicyWatch, assertPolicyForLog, loadOrCreateLogKey, loadWitnessPolicy, newOrigin, type WitnessPolicySource } from "../ledger/index.ts";
import { registerAuthenticityJobs } from "../authenticity/index.ts";
import { registerExhibitionJobs } from "../exhibitions/index.ts";
import { registerMirrorJobs } from "../mirror/index.ts";
import { getSetting, setSetting } from "../db/settings.ts";
import { loadKeyFile } from "../access/index.ts";
import type { Archive } from "./context.ts";

/** The composition root: builds the archive from every module. Only shells (CLI, server, tests, benches) import it. */
export const JOB_KEY_FILE = "job-mac.key";

export async function openArchive(config: Config, opts: { clock?: Clock; logger?: Logger } = {}): Promise<Archive> {
  // the data dir holds the database, keys, uploads and packages: only the archive's own account enters it
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  if ((statSync(config.dataDir).mode & 0o077) !== 0) chmodSync(config.dataDir, 0o700);
  const clock = opts.clock ?? systemClock;
  const db = await openDatabase({ url: config.databaseUrl, sqlitePath: paths.sqlite(config) });
  const keys = await loadOrCreateBlobKeys(paths.keys(config));
  const blobs = await openBlobStore(config.blobsUrl ?? paths.blobs(config), keys);
  const log = new CustodyLog(db);
  const origin = (await getSetting(db.db, "log.origin")) ?? config.logOrigin ?? newOrigin();
  const logKeys = loadOrCreateLogKey(paths.keys(config), origin);
  if (!(await getSetting(db.db, "log.origin"))) {
    // Pinned at creation: a log key file swapped later no longer matches, and `dalil verify` says so.
    await setSetting(db.db, "log.origin", logKeys.origin);
    await setSetting(db.db, "log.verifier-keys", JSON.stringify([logKeys.verifierKey]));
  }
  const known = JSON.parse((await getSetting(db.db, "log.verifier-keys")) ?? "[]") as string[];
  const logger = opts.logger ?? createLogger();
  const tree = new LogTree(
    db,
    logKeys,
    clock,
    known.filter((k) => k !== logKeys.verifierKey),
    known.includes(logKeys.verifierKey),
    config.tsaUrl,
    logger,
  );
  tree.attach(log);
  // Witnesses (docs/witnesses.md): a policy file at DALIL_WITNESS_POLICY or <data>/witnesses.policy, read again
  // whenever it changes (WitnessPolicyWatch). A bad file at start stops the archive from opening.
  const forThisLog = (source: WitnessPolicySource): void => assertPolicyForLog(source, known, logKeys.verifierKey);
  try {
    const first = loadWitnessPolicy(config);
    if (first) forThisLog(first);
  } catch (err) {
    await blobs.close();
    await db.close();
    throw err;
  }
  tree.useWitnesses(new WitnessPolicyWatch(config, (source) => new WitnessClient(db, source, clock, logger), forThisLog, logger));
  // the job key authenticates every queued job's payload; kept with the archive's other keys (0600, made once)
  const jobs = new JobQueue(db, clock, loadKeyFile(paths.keys(config), JOB_KEY_FILE, true)!);
  const ctx: Archive = {
    config,
    db,
    blobs,
    log,
    tree,
    jobs,
    policy,
    clock,
    logger,
    async close() {
      await blobs.close();
      await db.close();
    },
  };
  registerArchiveJobs(ctx);
  registerCatalogueJobs(ctx);
  registerFamiliesJobs(ctx);
  registerDossierJobs(ctx);
  registerAuthenticityJobs(ctx);
  registerExhibitionJobs(ctx);
  registerPackageExpiry(ctx);
  registerMirrorJobs(ctx);
  registerReviewBlinding();
  return ctx;
}
