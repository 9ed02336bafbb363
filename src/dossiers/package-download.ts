/**
 * Downloading a finished dossier package: the job that built it names its directory, which must lie directly under
 * <data>/packages/ (the job's result is data, so it is contained before any file is opened). The archive is
 * streamed from the bag as it stands; `dalil package verify` on the extracted folder checks it end to end.
 */
import { existsSync, realpathSync } from "node:fs";
import { rm } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { Readable } from "node:stream";
import type { Ctx } from "../app/context.ts";
import { systemActor, type Actor } from "../core/actor.ts";
import { Invalid, NotFound } from "../core/errors.ts";
import { say } from "../core/messages.ts";
import { containedPath } from "../core/contained.ts";
import { listTree, tarStream, zipStream } from "./archive-stream.ts";
import { JOB_DOSSIER_PACKAGE, JOB_PACKAGE_EXPIRY, requirePackager } from "./dossier-package.ts";
import { custody } from "../ledger/index.ts";
import { ddb } from "./tables.ts";
import { safeFileName } from "./file-names.ts";

export const PACKAGE_FORMATS = ["tar", "zip"] as const;
export type PackageFormat = (typeof PACKAGE_FORMATS)[number];

export interface PackageDownload {
  filename: string;
  contentType: string;
  body: Readable;
}

/** The package directory of a finished job, or why there is none; never a path outside <data>/packages/. */
export async function finishedPackageDir(ctx: Ctx, jobId: string): Promise<string> {
  const job = await ctx.jobs.get(jobId).catch(() => null);
  if (!job || job.kind !== JOB_DOSSIER_PACKAGE) throw new NotFound(say("record.notFound", { kind: "package" }));
  if (job.status !== "done") throw new Invalid(say("package.notFinished", { status: job.status }), "job");
  const dir = (job.result as { dir?: unknown } | null)?.dir;
  const root = resolve(ctx.config.dataDir, "packages");
  if (typeof dir !== "string" || !existsSync(root)) throw new NotFound(say("package.gone"));
  const at = resolve(dir);
  // One segment under packages/, checked on the real paths too, so neither ".." nor a symlink leads out.
  if (dirname(at) !== root || !/^out_[A-Za-z0-9_-]+$/.test(basename(at)) || !existsSync(at)) throw new NotFound(say("package.gone"));
  if (dirname(realpathSync(at)) !== realpathSync(root)) throw new NotFound(say("package.outsideDir"));
  // The tag manifest is written last: without it the bag was cut short.
  if (!existsSync(join(at, "tagmanifest-sha256.txt"))) throw new Invalid(say("package.incomplete"), "job");
  return at;
}

/**
 * A download is a handover of the bag's bytes: only someone who may build packages and read the dossier gets it,
 * and each one is a `transfer` custody event (package, dossier, format: ids and an enum, no typed words), logged
 * before the first byte is sent.
 */
export async function downloadPackage(ctx: Ctx, actor: Actor, jobId: string, format: PackageFormat): Promise<PackageDownload> {
  requirePackager(ctx, actor);
  if (!(PACKAGE_FORMATS as readonly string[]).includes(format)) throw new Invalid(say("package.format", { formats: PACKAGE_FORMATS.join(", ") }), "format");
  const dir = await finishedPackageDir(ctx, jobId);
  // the dossier the transfer event names comes from the payload: only the archive's own
  const job = await ctx.jobs.authentic(jobId);
  const packageId = String((job.result as { id?: unknown }).id ?? "");
  const dossierId = String((job.payload as { dossierId?: unknown }).dossierId ?? "");
  await ctx.db.transaction((tx) =>
    ctx.log.append(tx, custody("transfer", actor, ctx.clock.now(), [{ id: packageId, role: "package" }, { id: dossierId, role: "dossier" }], { package: packageId, dossier: dossierId, job: jobId, format })),
  );
  const entries = listTree(dir);
  // The file is named after the dossier (its title, safe for file systems, Arabic kept) and the version packaged.
  const version = Number((job.payload as { version?: unknown }).version ?? 0);
  const dossier = await ddb(ctx.db.db).selectFrom("dossiers").select("name").where("id", "=", dossierId).executeTakeFirst();
  const name = `${safeFileName(dossier?.name ?? "", "dossier")} - v${version}`;
  return format === "zip"
    ? { filename: `${name}.zip`, contentType: "application/zip", body: Readable.from(zipStream(entries)) }
    : { filename: `${name}.tar`, contentType: "application/x-tar", body: Readable.from(tarStream(entries)) };
}

/** The expiry job: queued when a package is built, to run once its TTL has passed; removes every expired bag. */
export function registerPackageExpiry(ctx: Ctx): void {
  ctx.jobs.register(JOB_PACKAGE_EXPIRY, async () => {
    const { removed } = await removeExpiredPackages(ctx, systemActor);
    return { removed: removed.length };
  });
}

/**
 * Removes the bags of package jobs finished (or failed) longer ago than the archive's package TTL (DALIL_PACKAGE_TTL,
 * or `olderThanMs`): a bag holds originals in the clear and must not lie on the server after its handover. Each
 * removal is a `deletion` custody event (the package and job ids, the TTL: nothing typed). Only folders under
 * DATA/packages/ are removed; the originals stay in the encrypted blob store.
 */
export async function removeExpiredPackages(ctx: Ctx, actor: Actor, opts: { olderThanMs?: number } = {}): Promise<{ removed: { package: string | null; job: string }[] }> {
  ctx.policy.require(actor, "package.export");
  const ttl = opts.olderThanMs ?? ctx.config.packageTtlMs;
  const cutoff = new Date(ctx.clock.now().getTime() - ttl).toISOString();
  const root = resolve(ctx.config.dataDir, "packages");
  const jobs = await ctx.db.db
    .selectFrom("jobs")
    .select(["id", "payload", "result"])
    .where("kind", "=", JOB_DOSSIER_PACKAGE)
    .where("status", "in", ["done", "failed"])
    .where("updated_at", "<=", cutoff)
    .execute();
  const removed: { package: string | null; job: string }[] = [];
  for (const j of jobs) {
    const out = (JSON.parse(j.payload) as { out?: unknown }).out;
    const dir = await containedPath(root, out, "package folder").catch(() => null);
    if (!dir || dir === root || !existsSync(dir)) continue;
    const pkg = j.result ? ((JSON.parse(j.result) as { id?: unknown } | null)?.id ?? null) : null;
    const packageId = typeof pkg === "string" ? pkg : null;
    await rm(dir, { recursive: true, force: true });
    await ctx.db.transaction((tx) =>
      ctx.log.append(
        tx,
        custody("deletion", actor, ctx.clock.now(), [...(packageId ? [{ id: packageId, role: "package" }] : []), { id: j.id, role: "job" }], {
          what: "package bag",
          reason: "expired",
          ...(packageId ? { package: packageId } : {}),
          job: j.id,
          ttlSeconds: Math.round(ttl / 1000),
        }),
      ),
    );
    removed.push({ package: packageId, job: j.id });
  }
  return { removed };
}
