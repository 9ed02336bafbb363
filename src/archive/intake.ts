import { createReadStream } from "node:fs";
import { extname } from "node:path";
import type { Readable } from "node:stream";
import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { newId } from "../core/ids.ts";
import { Invalid } from "../core/errors.ts";
import { custody, type CustodyEvent } from "../ledger/index.ts";
import { secret } from "../ledger/index.ts";
import { openCard, type CardEntry, type CardMedium } from "./media/sources.ts";
import { sniffFormat } from "./media/sniff.ts";
import { extractMetadata, type PhotoMetadata } from "./media/metadata.ts";
import { makeRenditions, MediaRejected, tuneSharpForBulk, type Renditions } from "./media/renditions.ts";
import type { Tx } from "../db/database.ts";
import { english, say, type Said } from "../core/messages.ts";

/**
 * Intake: a memory card in, every original preserved. Each file is read once into memory (or streamed when
 * large), hashed, stored encrypted, described, given renditions, and recorded with its custody event in one
 * transaction. A file that cannot be processed is stored all the same and quarantined with its reason:
 * ingested + duplicates + quarantined = files, always. Re-running an interrupted intake of the same medium
 * resumes it: entries already recorded are skipped, blobs already stored are not written twice.
 */
export interface IngestInput {
  path: string;
  label?: string;
  concurrency?: number;
}

export interface IngestSummary {
  source: string;
  files: number;
  ingested: number;
  duplicates: number;
  quarantined: number;
  bytes: number;
  resumed: boolean;
}

export type IngestProgress = (p: { done: number; total: number; path: string; outcome: Outcome }) => void;

type Outcome = "ingested" | "duplicate" | "quarantined";

/** Renditions are made for these; other valid formats (RAW, video, documents) are preserved and listed. */
const RENDERABLE = new Set(["jpeg", "png", "webp", "gif", "tiff"]);
const IMAGE_EXTENSIONS = new Set([".jpg", ".jpeg", ".png", ".tif", ".tiff", ".webp", ".gif", ".heic", ".bmp"]);
/** Files up to this size are read into memory once (hash, metadata, renditions from one buffer). */
const IN_MEMORY_LIMIT = 48 * 1024 * 1024;

export async function ingestCard(
  ctx: Ctx,
  actor: Actor,
  input: IngestInput,
  onProgress?: IngestProgress,
): Promise<IngestSummary> {
  ctx.policy.require(actor, "archive.ingest");
  // One libvips thread per photo with several photos in flight beats many threads on one photo (measured).
  tuneSharpForBulk(1);
  const medium = await openCard(input.path);
  try {
    const { sourceId, resumed } = await startOrResumeSource(ctx, actor, medium, input.label);
    const done = new Set(
      (await ctx.db.db.selectFrom("sightings").select("entry_no").where("source_id", "=", sourceId).execute()).map(
        (r) => r.entry_no,
      ),
    );
    const entries: CardEntry[] = [];
    for await (const e of medium.entries()) entries.push(e);
    const total = entries.length;
    let finished = done.size;

    const queue = entries.map((entry, i) => ({ entry, no: i })).filter((x) => !done.has(x.no));
    const concurrency = Math.max(1, input.concurrency ?? 3);
    let next = 0;
    const workers = Array.from({ length: Math.min(concurrency, queue.length) }, async () => {
      while (next < queue.length) {
        const item = queue[next++]!;
        const outcome = await ingestEntry(ctx, actor, sourceId, medium, item.entry, item.no);
        finished++;
        onProgress?.({ done: finished, total, path: item.entry.path, outcome });
      }
    });
    await Promise.all(workers);
    const summary = await finishSource(ctx, sourceId, resumed);
    await ctx.tree.checkpoint();
    return summary;
  } finally {
    await medium.close();
  }
}

async function startOrResumeSource(
  ctx: Ctx,
  actor: Actor,
  medium: CardMedium,
  label: string | undefined,
): Promise<{ sourceId: string; resumed: boolean }> {
  const open = await ctx.db.db
    .selectFrom("sources")
    .selectAll()
    .where("intake_path", "=", medium.path)
    .where("kind", "=", medium.kind)
    .where("status", "=", "running")
    .orderBy("started_at", "desc")
    .execute();
  const same = open.find((s) => (s.medium_sha256 ?? null) === (medium.sha256 ?? null));
  if (same) return { sourceId: same.id, resumed: true };

  // The container itself (zip, card image) is evidence too: kept whole, so entries refused for safety and
  // anything outside the files (slack, deleted entries) stay available to an examiner.
  let containerStored = false;
  if (medium.sha256) {
    const put = await ctx.blobs.putStream(createReadStream(medium.path), { expectedSha256: medium.sha256 });
    containerStored = put.created;
  }
  const sourceId = newId("src");
  const now = ctx.clock.now();
  await ctx.db.transaction(async (tx) => {
    await tx
      .insertInto("sources")
      .values({
        id: sourceId,
        label: label ?? defaultLabel(medium),
        kind: medium.kind,
        intake_path: medium.path,
        medium_sha256: medium.sha256 ?? null,
        medium_size: medium.size ?? null,
        volume_label: medium.volumeLabel ?? null,
        volume_serial: medium.volumeSerial ?? null,
        fs_type: medium.fsType ?? null,
        status: "running",
        started_at: now.toISOString(),
        finished_at: null,
        actor: actor.id,
        files: 0,
        ingested: 0,
        duplicates: 0,
        quarantined: 0,
        bytes: 0,
      })
      .execute();
    if (medium.sha256) {
      await tx
        .insertInto("originals")
        .values({
          sha256: medium.sha256,
          size: medium.size ?? 0,
          format: medium.kind === "zip" ? "zip" : "fat-image",
          mime: medium.kind === "zip" ? "application/zip" : "application/octet-stream",
          media_kind: "medium",
          status: "preserved",
          quarantine_reason: null,
          first_seen_at: now.toISOString(),
          first_source_id: sourceId,
          width: null,
          height: null,
          phash: null,
          capture_time: null,
          camera_make: null,
          camera_model: null,
          camera_serial: null,
          metadata_json: JSON.stringify({ volumeLabel: medium.volumeLabel, volumeSerial: medium.volumeSerial, fsType: medium.fsType }),
          exif_raw: null,
          xmp_raw: null,
        })
        .onConflict((oc) => oc.column("sha256").doNothing())
        .execute();
    }
    await ctx.log.append(
      tx,
      custody(
        "accession",
        actor,
        now,
        [{ id: sourceId, role: "source" }, ...(medium.sha256 ? [{ sha256: medium.sha256, role: "medium" }] : [])],
        {
          source: sourceId,
          kind: medium.kind,
          size: medium.size ?? null,
          fsType: medium.fsType ?? null,
          containerNewlyStored: containerStored,
        },
      ),
    );
  });
  return { sourceId, resumed: false };
}

function defaultLabel(m: CardMedium): string {
  return m.volumeLabel ? `${m.kind} ${m.volumeLabel}` : m.kind;
}

interface Examined {
  sha256: string;
  size: number;
  format: string;
  mime: string;
  kind: string;
  problem?: string;
  warning?: string;
  /** The problem or warning as a message key with parameters, for the reader's language (the text is its English). */
  said?: Said;
  metadata?: PhotoMetadata;
  renditions?: Renditions;
}

async function ingestEntry(
  ctx: Ctx,
  actor: Actor,
  sourceId: string,
  medium: CardMedium,
  entry: CardEntry,
  entryNo: number,
): Promise<Outcome> {
  const now = () => ctx.clock.now();
  if (entry.refused || !entry.open) {
    const reason = entry.refused ?? english("quarantine.cannotOpen");
    await ctx.db.transaction(async (tx) => {
      await recordSighting(tx, sourceId, entry, entryNo, null, "quarantined", reason, now(), entry.refused ? null : say("quarantine.cannotOpen"));
      await ctx.log.append(
        tx,
        custody(
          "quarantine",
          actor,
          now(),
          [{ id: sourceId, role: "source" }, ...(medium.sha256 ? [{ sha256: medium.sha256, role: "medium" }] : [])],
          { source: sourceId, entry: entryNo, reason: secret(reason), bytesKeptIn: medium.sha256 ?? null },
        ),
      );
    });
    return "quarantined";
  }

  const ex = await examine(ctx, entry);
  const rendered: { kind: string; sha256: string; size: number; width: number; height: number }[] = [];
  if (ex.renditions) {
    const r = ex.renditions;
    for (const [kind, buf] of [["thumbnail", r.thumbnail], ["preview", r.preview], ["blurred", r.blurred]] as const) {
      const put = await ctx.blobs.putBuffer(buf);
      const dims = scaled(r.width, r.height, kind);
      rendered.push({ kind, sha256: put.sha256, size: buf.length, ...dims });
    }
  }

  return ctx.db.transaction(async (tx) => {
    const at = now();
    const quarantined = Boolean(ex.problem);
    const inserted = await tx
      .insertInto("originals")
      .values({
        sha256: ex.sha256,
        size: ex.size,
        format: ex.format,
        mime: ex.mime,
        media_kind: ex.kind,
        status: quarantined ? "quarantined" : "preserved",
        quarantine_reason: ex.problem ?? null,
        quarantine_key: ex.problem && ex.said ? ex.said.key : null,
        quarantine_params: ex.problem && ex.said ? JSON.stringify(ex.said.params) : null,
        first_seen_at: at.toISOString(),
        first_source_id: sourceId,
        width: ex.renditions?.width ?? ex.metadata?.width ?? null,
        height: ex.renditions?.height ?? ex.metadata?.height ?? null,
        phash: ex.renditions?.phash ?? null,
        capture_time: ex.metadata?.captureTime ?? null,
        camera_make: ex.metadata?.camera.make ?? null,
        camera_model: ex.metadata?.camera.model ?? null,
        camera_serial: ex.metadata?.camera.serial ?? null,
        metadata_json: ex.metadata
          ? JSON.stringify({ parsed: ex.metadata.parsed, sensitive: ex.metadata.sensitive, problems: ex.metadata.problems, software: ex.metadata.software ?? null, orientation: ex.metadata.orientation ?? null })
          : null,
        exif_raw: ex.metadata?.raw.exif ?? null,
        xmp_raw: ex.metadata?.raw.xmp ?? null,
      })
      .onConflict((oc) => oc.column("sha256").doNothing())
      .executeTakeFirst();
    const isNew = Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0;
    // Bytes the archive already holds are another sighting of them, whatever their state: a quarantined file seen
    // again is a duplicate of the one kept (with its reason), not a second quarantine.
    const outcome: Outcome = !isNew ? "duplicate" : quarantined ? "quarantined" : "ingested";
    await recordSighting(tx, sourceId, entry, entryNo, ex.sha256, outcome, ex.problem ?? ex.warning ?? null, at, ex.said ?? null);

    const events: CustodyEvent[] = [];
    const objects = [
      { sha256: ex.sha256, role: "original" },
      { id: sourceId, role: "source" },
    ];
    // The path on the medium stays in the sightings table (sensitive metadata); the public log names the
    // sighting by source and entry number only, so a proof handed to anyone reveals no folder or file names.
    const detail = {
      source: sourceId,
      entry: entryNo,
      size: ex.size,
      format: ex.format,
      ...(ex.warning ? { warning: secret(ex.warning) } : {}),
    };
    if (outcome === "quarantined") {
      events.push(custody("quarantine", actor, at, objects, { ...detail, reason: secret(ex.problem) }));
    } else {
      events.push(custody("ingestion", actor, at, objects, detail, isNew ? "success" : "duplicate"));
    }
    if (isNew && rendered.length) {
      for (const r of rendered) {
        await tx
          .insertInto("renditions")
          .values({ original_sha256: ex.sha256, kind: r.kind, sha256: r.sha256, size: r.size, width: r.width, height: r.height, created_at: at.toISOString() })
          .onConflict((oc) => oc.columns(["original_sha256", "kind"]).doNothing())
          .execute();
      }
      events.push(
        custody(
          "creation",
          actor,
          at,
          [{ sha256: ex.sha256, role: "original" }, ...rendered.map((r) => ({ sha256: r.sha256, role: `rendition:${r.kind}` }))],
          { renditions: rendered.map((r) => ({ kind: r.kind, sha256: r.sha256, width: r.width, height: r.height })) },
        ),
      );
    }
    await ctx.log.appendMany(tx, events);
    return outcome;
  });
}

async function recordSighting(
  tx: Tx,
  sourceId: string,
  entry: CardEntry,
  entryNo: number,
  sha256: string | null,
  outcome: Outcome,
  reason: string | null,
  at: Date,
  said: Said | null = null,
): Promise<void> {
  await tx
    .insertInto("sightings")
    .values({
      source_id: sourceId,
      entry_no: entryNo,
      path: entry.path,
      size: entry.size,
      modified: entry.modified ?? null,
      original_sha256: sha256,
      outcome,
      reason,
      reason_key: reason !== null && said ? said.key : null,
      reason_params: reason !== null && said ? JSON.stringify(said.params) : null,
      seen_at: at.toISOString(),
    })
    .execute();
}

/** Reads the entry once: hash, store, identify, describe, render. Problems become a quarantine reason. */
async function examine(ctx: Ctx, entry: CardEntry): Promise<Examined> {
  const open = entry.open!;
  if (entry.size > IN_MEMORY_LIMIT) return examineLarge(ctx, entry, await open());
  let bytes: Buffer;
  try {
    bytes = await readAll(await open(), IN_MEMORY_LIMIT);
  } catch (err) {
    if (err instanceof TooBigForMemory) return examineLarge(ctx, entry, await open());
    throw err;
  }
  const { sha256 } = await ctx.blobs.putBuffer(bytes);
  const sniffed = sniffFormat(bytes.subarray(0, 4096));
  const base: Examined = { sha256, size: bytes.length, format: sniffed.format, mime: sniffed.mime, kind: sniffed.kind };
  const claim = claimProblem(entry.path, bytes.length, sniffed);
  if (claim.problem) return { ...base, ...claim };
  if (claim.warning) Object.assign(base, claim);
  if (!RENDERABLE.has(sniffed.format)) return base;
  try {
    const [metadata, renditions] = await Promise.all([extractMetadata(bytes), makeRenditions(bytes)]);
    return { ...base, metadata, renditions };
  } catch (err) {
    if (err instanceof MediaRejected) {
      const metadata = await extractMetadata(bytes).catch(() => undefined);
      return { ...base, ...(metadata ? { metadata } : {}), problem: err.message, ...(err.key ? { said: { key: err.key, params: err.params ?? {} } } : {}) };
    }
    throw err;
  }
}

async function examineLarge(ctx: Ctx, entry: CardEntry, stream: Readable): Promise<Examined> {
  let head: Buffer = Buffer.alloc(0);
  stream.on("data", (chunk: Buffer) => {
    if (head.length < 4096) head = Buffer.concat([head, chunk.subarray(0, 4096 - head.length)]);
  });
  const put = await ctx.blobs.putStream(stream);
  const sniffed = sniffFormat(head);
  const base: Examined = { sha256: put.sha256, size: put.size, format: sniffed.format, mime: sniffed.mime, kind: sniffed.kind };
  const claim = claimProblem(entry.path, put.size, sniffed);
  if (claim.problem) return { ...base, ...claim };
  if (RENDERABLE.has(sniffed.format)) return { ...base, ...said(undefined, say("intake.tooLargeToRender", { bytes: put.size })) };
  return claim.warning ? { ...base, ...claim } : base;
}

/** What the bytes say against what the name claims: a decision a custodian would agree with. */
function claimProblem(
  path: string,
  size: number,
  sniffed: { format: string; kind: string },
): { problem?: string; warning?: string; said?: Said } {
  const ext = extname(path).toLowerCase();
  if (size === 0) return said(say("quarantine.empty"));
  const claimsImage = IMAGE_EXTENSIONS.has(ext);
  if (claimsImage && sniffed.kind !== "image" && sniffed.kind !== "raw") {
    return said(sniffed.kind === "unknown" ? say("quarantine.namedLikeImageUnknown", { ext }) : say("quarantine.namedLikeImage", { ext, format: sniffed.format, mediaKind: sniffed.kind }));
  }
  if (sniffed.kind === "unknown") return said(say("quarantine.unidentified"));
  if (claimsImage && !extensionMatches(ext, sniffed.format)) {
    return said(undefined, say("intake.namedOtherFormat", { ext, format: sniffed.format }));
  }
  return {};
}

function extensionMatches(ext: string, format: string): boolean {
  const map: Record<string, string[]> = {
    ".jpg": ["jpeg"],
    ".jpeg": ["jpeg"],
    ".png": ["png"],
    ".tif": ["tiff"],
    ".tiff": ["tiff"],
    ".webp": ["webp"],
    ".gif": ["gif"],
    ".heic": ["heic"],
    ".bmp": ["bmp"],
  };
  return map[ext]?.includes(format) ?? true;
}

/** A problem (quarantine) or a warning, as its English text and its message key. */
function said(problem: Said | undefined, warning?: Said): { problem?: string; warning?: string; said: Said } {
  const m = (problem ?? warning)!;
  return problem ? { problem: english(m.key, m.params), said: m } : { warning: english(m.key, m.params), said: m };
}

function scaled(w: number, h: number, kind: "thumbnail" | "preview" | "blurred"): { width: number; height: number } {
  const edge = kind === "thumbnail" ? 320 : kind === "preview" ? 1280 : 640;
  const s = Math.min(1, edge / Math.max(w, h));
  return { width: Math.round(w * s), height: Math.round(h * s) };
}

class TooBigForMemory extends Error {}

async function readAll(stream: Readable, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let n = 0;
  for await (const chunk of stream) {
    const b = chunk as Buffer;
    n += b.length;
    if (n > limit) {
      stream.destroy();
      throw new TooBigForMemory();
    }
    chunks.push(b);
  }
  return Buffer.concat(chunks, n);
}

async function finishSource(ctx: Ctx, sourceId: string, resumed: boolean): Promise<IngestSummary> {
  const rows = await ctx.db.db
    .selectFrom("sightings")
    .select(["outcome", (eb) => eb.fn.countAll<number>().as("n"), (eb) => eb.fn.sum<number>("size").as("bytes")])
    .where("source_id", "=", sourceId)
    .groupBy("outcome")
    .execute();
  const count = (o: Outcome) => Number(rows.find((r) => r.outcome === o)?.n ?? 0);
  const bytes = rows.reduce((s, r) => s + Number(r.bytes ?? 0), 0);
  const summary = {
    files: count("ingested") + count("duplicate") + count("quarantined"),
    ingested: count("ingested"),
    duplicates: count("duplicate"),
    quarantined: count("quarantined"),
    bytes,
  };
  await ctx.db.db
    .updateTable("sources")
    .set({ ...summary, status: "complete", finished_at: ctx.clock.now().toISOString() })
    .where("id", "=", sourceId)
    .execute();
  return { source: sourceId, ...summary, resumed };
}

export function assertIngestable(path: string): void {
  if (!path) throw new Invalid(say("intake.pathNeeded"), "path");
}
