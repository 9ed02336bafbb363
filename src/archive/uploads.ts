import { createHash, randomBytes } from "node:crypto";
import { createWriteStream } from "node:fs";
import { lstat, mkdir, readFile, readdir, realpath, rename, rm, statfs, utimes, writeFile } from "node:fs/promises";
import { join, relative, resolve, sep } from "node:path";
import { Transform, type Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { Conflict, Invalid, NotFound, TooLarge } from "../core/errors.ts";
import { newId } from "../core/ids.ts";
import { containedPath } from "../core/contained.ts";
import { custody } from "../ledger/index.ts";
import { JOB_INGEST, type IngestJobPayload } from "./jobs.ts";
import * as contracts from "./contracts.ts";
import { parseInput } from "../core/input.ts";
import type { z } from "zod";
import { say } from "../core/messages.ts";

/**
 * Intake through the browser: an upload area on the server that receives a card's files one by one (a folder
 * dropped on the page, or a single .zip or disk image), then one ingest job over it.
 *
 *   DATA/uploads/<upl_id>/upload.json      who opened it, when, what kind, its label
 *   DATA/uploads/<upl_id>/files/…          the card as received: the folder's tree, or the one container file
 *   DATA/uploads/<upl_id>/partial/…        files while they stream in (renamed into files/ when complete)
 *   DATA/uploads/<upl_id>/ingest.json      written once the ingest job is queued: no more files after that
 *
 * A file's path comes from the browser (`webkitRelativePath`) and is never trusted: it is split into segments,
 * each checked (no "..", no ".", no empty segment, no control characters, no backslash, at most 255 bytes), and
 * the joined path must resolve inside files/ with no symbolic link on the way. Sizes are limited per file, and
 * the disk must keep a margin free. The area belongs to the account that opened it; another account's id
 * answers "not found".
 */
export const UPLOAD_LIMITS = {
  fileBytes: 4 * 1024 * 1024 * 1024,
  pathChars: 1024,
  segmentBytes: 255,
  depth: 32,
  /** Refuse a file that would leave less than this free on the data disk. */
  freeMarginBytes: 512 * 1024 * 1024,
  labelChars: 200,
};

export type UploadKind = "folder" | "container";

export type UploadView = contracts.UploadView;

interface Manifest {
  id: string;
  actor: string;
  kind: UploadKind;
  label: string | null;
  createdAt: string;
}

const ID_RE = /^upl_[a-z2-7]{26}$/;

export function uploadsRoot(ctx: Pick<Ctx, "config">): string {
  return join(ctx.config.dataDir, "uploads");
}

function areaOf(ctx: Pick<Ctx, "config">, id: string): string {
  // The id is checked against its exact form first, so it can only name a directory directly under uploads/.
  if (!ID_RE.test(id)) throw new NotFound(say("upload.notFound"));
  return join(uploadsRoot(ctx), id);
}

function checkLabel(label: string | undefined): string | null {
  const l = label?.trim() ?? "";
  if (l.length === 0) return null;
  if (l.length > UPLOAD_LIMITS.labelChars) throw new Invalid(say("upload.labelTooLong", { max: UPLOAD_LIMITS.labelChars }), "label");
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(l)) throw new Invalid(say("upload.labelOneLine"), "label");
  return l;
}

export async function createUpload(ctx: Ctx, actor: Actor, sent: z.input<typeof contracts.NewUploadInput>): Promise<UploadView> {
  ctx.policy.require(actor, "archive.ingest");
  const input = parseInput(contracts.NewUploadInput, sent);
  const label = checkLabel(input.label);
  const id = newId("upl");
  const area = areaOf(ctx, id);
  await mkdir(join(area, "files"), { recursive: true, mode: 0o700 });
  await mkdir(join(area, "partial"), { recursive: true, mode: 0o700 });
  const manifest: Manifest = { id, actor: actor.id, kind: input.kind, label, createdAt: ctx.clock.now().toISOString() };
  await writeFile(join(area, "upload.json"), JSON.stringify(manifest), { mode: 0o600, flag: "wx" });
  return { id, kind: manifest.kind, label, createdAt: manifest.createdAt, job: null };
}

async function openArea(ctx: Ctx, actor: Actor, id: string): Promise<{ area: string; manifest: Manifest; job: string | null }> {
  ctx.policy.require(actor, "archive.ingest");
  const area = areaOf(ctx, id);
  let manifest: Manifest;
  try {
    manifest = JSON.parse(await readFile(join(area, "upload.json"), "utf8")) as Manifest;
  } catch {
    throw new NotFound(say("upload.notFound"));
  }
  // Someone else's upload area is as good as absent: its id says nothing about whether it exists.
  if (manifest.actor !== actor.id) throw new NotFound(say("upload.notFound"));
  let job: string | null = null;
  try {
    job = (JSON.parse(await readFile(join(area, "ingest.json"), "utf8")) as { job: string }).job;
  } catch {
    job = null;
  }
  return { area, manifest, job };
}

export async function getUpload(ctx: Ctx, actor: Actor, id: string): Promise<UploadView> {
  const { manifest, job } = await openArea(ctx, actor, id);
  return { id, kind: manifest.kind, label: manifest.label, createdAt: manifest.createdAt, job };
}

/**
 * The segments of a relative path sent by a browser, each one safe to use as a file name, or Invalid with the
 * reason. Never returns ".", "..", an empty segment, or a segment with a separator or control character.
 */
export function safeRelativePath(raw: string): string[] {
  const bad = (why: string) => new Invalid(say("upload.badPath", { path: JSON.stringify(raw.slice(0, 120)), why }), "path");
  if (raw.length === 0) throw bad("it is empty");
  if (raw.length > UPLOAD_LIMITS.pathChars) throw bad(`it is longer than ${UPLOAD_LIMITS.pathChars} characters`);
  if (raw.includes("\\")) throw bad("it contains a backslash");
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(raw)) throw bad("it contains a control character");
  if (raw.startsWith("/")) throw bad("it is absolute");
  const segments = raw.split("/");
  if (segments.length > UPLOAD_LIMITS.depth) throw bad(`it is nested deeper than ${UPLOAD_LIMITS.depth} folders`);
  for (const s of segments) {
    if (s === "" || s === "." || s === "..") throw bad("it has an empty, '.' or '..' part");
    if (Buffer.byteLength(s, "utf8") > UPLOAD_LIMITS.segmentBytes) throw bad(`a name in it is longer than ${UPLOAD_LIMITS.segmentBytes} bytes`);
    if (/\p{Surrogate}/u.test(s)) throw bad("it is not valid Unicode");
  }
  return segments;
}

/** The target inside `base`, checked to stay inside it, with no symbolic link among the directories on the way. */
async function containedTarget(base: string, segments: string[]): Promise<string> {
  const root = await realpath(base);
  const target = resolve(root, ...segments);
  if (!target.startsWith(root + sep)) throw new Invalid(say("upload.pathOutside"), "path");
  let dir = root;
  for (const s of segments.slice(0, -1)) {
    dir = join(dir, s);
    // Several files of one folder arrive at once: whoever creates the folder first wins, the others use it.
    await mkdir(dir, { mode: 0o700 }).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== "EEXIST") throw e;
    });
    const st = await lstat(dir);
    if (!st.isDirectory() || st.isSymbolicLink()) throw new Conflict(say("upload.fileWhereFolder", { folder: JSON.stringify(s) }));
  }
  const existing = await lstat(target).catch(() => null);
  if (existing && !existing.isFile()) throw new Conflict(say("upload.folderWhereFile"));
  return target;
}

export type ReceivedFile = contracts.ReceivedFile;

/**
 * Streams one file's bytes to disk (never held in memory), hashing them on the way; the file appears in the
 * upload only once complete. Sending the same path again replaces it (a retried upload).
 */
export async function receiveUploadFile(
  ctx: Ctx,
  actor: Actor,
  input: { id: string; path: string; body: Readable; declaredSize?: number; modified?: number },
): Promise<ReceivedFile> {
  const { area, manifest, job } = await openArea(ctx, actor, input.id);
  if (job) throw new Conflict(say("upload.takingIn"));
  const segments = safeRelativePath(input.path);
  if (manifest.kind === "container") {
    const present = (await readdir(join(area, "files"))).filter((n) => n !== segments[0]);
    if (segments.length !== 1 || present.length > 0) throw new Invalid(say("upload.containerOneFile"), "path");
  }
  if (input.declaredSize !== undefined && input.declaredSize > UPLOAD_LIMITS.fileBytes) {
    throw new TooLarge(say("upload.fileTooLargeCli", { gib: UPLOAD_LIMITS.fileBytes / 1024 ** 3 }));
  }
  const fs = await statfs(area);
  const free = Number(fs.bavail) * Number(fs.bsize);
  if (free - (input.declaredSize ?? 0) < UPLOAD_LIMITS.freeMarginBytes) {
    throw new TooLarge(say("upload.diskFull"));
  }
  const target = await containedTarget(join(area, "files"), segments);
  const partial = join(area, "partial", randomBytes(12).toString("hex"));
  const hash = createHash("sha256");
  let size = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length;
      if (size > UPLOAD_LIMITS.fileBytes) {
        done(new TooLarge(say("upload.fileTooLarge", { gib: UPLOAD_LIMITS.fileBytes / 1024 ** 3 })));
        return;
      }
      hash.update(chunk);
      done(null, chunk);
    },
  });
  try {
    await pipeline(input.body, meter, createWriteStream(partial, { flags: "wx", mode: 0o600 }));
    if (input.declaredSize !== undefined && size !== input.declaredSize) {
      throw new Invalid(say("upload.sizeMismatch", { size, declared: input.declaredSize }), "body");
    }
    if (input.modified !== undefined && Number.isFinite(input.modified) && input.modified > 0) {
      // The card's own modification time is evidence; the browser sends it, we keep it on the copy.
      const t = new Date(input.modified);
      await utimes(partial, t, t);
    }
    if ((await openArea(ctx, actor, input.id)).job) throw new Conflict(say("upload.startedMeanwhile"));
    await rename(partial, target);
  } catch (err) {
    await rm(partial, { force: true });
    throw err;
  }
  return { path: segments.join("/"), size, sha256: hash.digest("hex") };
}

/** Queues the ingest of everything received: once only (asking again returns the same job). */
export async function startUploadIngest(ctx: Ctx, actor: Actor, sent: z.input<typeof contracts.UploadIngestInput>): Promise<{ job: string }> {
  ctx.policy.require(actor, "archive.ingest");
  const input = parseInput(contracts.UploadIngestInput, sent);
  const { area, manifest, job } = await openArea(ctx, actor, input.id);
  if (job) return { job };
  const label = checkLabel(input.label) ?? manifest.label ?? undefined;
  const files = join(area, "files");
  const names = await readdir(files);
  if (names.length === 0) throw new Invalid(say("upload.empty"));
  let path = files;
  if (manifest.kind === "container") {
    if (names.length !== 1) throw new Invalid(say("upload.containerExactlyOne"));
    path = join(files, names[0]!);
  }
  const payload: IngestJobPayload = { path, ...(label ? { label } : {}), actor: { kind: actor.kind, id: actor.id, role: actor.role } };
  const id = await ctx.jobs.enqueue(null, JOB_INGEST, payload as unknown as Record<string, unknown>, { dedupeKey: `upload:${input.id}` });
  await writeFile(join(area, "ingest.json"), JSON.stringify({ job: id }), { mode: 0o600 });
  return { job: id };
}

/**
 * Once an upload is taken in, its files are removed: they are plaintext copies of the card, and every byte is now
 * in the encrypted blob store. Kept (and false returned) when some file's bytes are not stored: an entry that could
 * not be read on a folder card, with no container whose bytes were kept. The removal is a `deletion` custody event
 * (the source and upload ids and the number of files: no path). upload.json and ingest.json stay, so the upload
 * still names its job.
 */
export async function removeIngestedUpload(ctx: Ctx, actor: Actor, cardPath: string, sourceId: string): Promise<boolean> {
  const root = uploadsRoot(ctx);
  const at = await containedPath(root, cardPath, "upload");
  const id = relative(await realpath(root), await realpath(at)).split(sep)[0] ?? "";
  if (!ID_RE.test(id)) return false;
  const area = join(root, id);
  const source = await ctx.db.db.selectFrom("sources").select(["medium_sha256", "status"]).where("id", "=", sourceId).executeTakeFirst();
  if (!source || source.status !== "complete") return false;
  const unstored = await ctx.db.db.selectFrom("sightings").select("entry_no").where("source_id", "=", sourceId).where("original_sha256", "is", null).executeTakeFirst();
  if (unstored && !source.medium_sha256) return false;
  const files = (await readdir(join(area, "files"), { recursive: true, withFileTypes: true })).filter((d) => d.isFile()).length;
  await rm(join(area, "files"), { recursive: true, force: true });
  await rm(join(area, "partial"), { recursive: true, force: true });
  await ctx.db.transaction((tx) =>
    ctx.log.append(tx, custody("deletion", actor, ctx.clock.now(), [{ id: sourceId, role: "source" }], { what: "upload", reason: "ingested", upload: id, source: sourceId, files })),
  );
  return true;
}
