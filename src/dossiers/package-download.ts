/**
 * Downloading a finished dossier package: the job that built it names its directory, which must lie directly under
 * <data>/packages/ (the job's result is data, so it is contained before any file is opened). The archive is
 * streamed from the bag as it stands; `dalil package verify` on the extracted folder checks it end to end.
 */
import { existsSync, realpathSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { Readable } from "node:stream";
import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { Invalid, NotFound } from "../core/errors.ts";
import { listTree, tarStream, zipStream } from "./archive-stream.ts";
import { JOB_DOSSIER_PACKAGE } from "./dossier-package.ts";

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
  if (!job || job.kind !== JOB_DOSSIER_PACKAGE) throw new NotFound(`No package job ${jobId}.`);
  if (job.status !== "done") throw new Invalid(`The package of job ${jobId} is not finished (${job.status}); download it when the job is done.`, "job");
  const dir = (job.result as { dir?: unknown } | null)?.dir;
  const root = resolve(ctx.config.dataDir, "packages");
  if (typeof dir !== "string" || !existsSync(root)) throw new NotFound(`The package of job ${jobId} is no longer on the server.`);
  const at = resolve(dir);
  // One segment under packages/, checked on the real paths too, so neither ".." nor a symlink leads out.
  if (dirname(at) !== root || !/^out_[A-Za-z0-9_-]+$/.test(basename(at)) || !existsSync(at)) throw new NotFound(`The package of job ${jobId} is no longer on the server.`);
  if (dirname(realpathSync(at)) !== realpathSync(root)) throw new NotFound(`The package of job ${jobId} is not in the packages directory.`);
  // The tag manifest is written last: without it the bag was cut short.
  if (!existsSync(join(at, "tagmanifest-sha256.txt"))) throw new Invalid(`The package of job ${jobId} is incomplete (no tag manifest); build it again.`, "job");
  return at;
}

export async function downloadPackage(ctx: Ctx, actor: Actor, jobId: string, format: PackageFormat): Promise<PackageDownload> {
  ctx.policy.require(actor, "package.export");
  const dir = await finishedPackageDir(ctx, jobId);
  const entries = listTree(dir);
  const name = basename(dir);
  return format === "zip"
    ? { filename: `${name}.zip`, contentType: "application/zip", body: Readable.from(zipStream(entries)) }
    : { filename: `${name}.tar`, contentType: "application/x-tar", body: Readable.from(tarStream(entries)) };
}
