import { z } from "zod";
import type { FastifyReply } from "fastify";
import { MAX_IDENTITY_BYTES } from "../access/index.ts";
import type { RegisterRoute } from "../http/app.ts";
import { getOriginal, listOriginals } from "./originals.ts";
import { getJob, listJobs } from "./job-views.ts";
import { listSources } from "./sources.ts";
import type { RevealGrant } from "./reveals.ts";
import { sealIdentity } from "./sealing.ts";
import { createUpload, getUpload, receiveUploadFile, startUploadIngest, UPLOAD_LIMITS } from "./uploads.ts";
import { blurredRendition, downloadOriginalFile, galleryPage, logStatus, originalHistory, originalMetadata, revealRendition, sourceSightings, type RenditionStream } from "./viewing.ts";

const ListQuery = z.object({
  status: z.enum(["preserved", "quarantined"]).optional(),
  after: z.string().regex(/^[0-9a-f]{64}$/, "after must be a SHA-256 in lowercase hex").optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});

const Sha = z.object({ sha256: z.string().regex(/^[0-9a-f]{64}$/, "must be a SHA-256 in lowercase hex") });

export function registerArchiveRoutes(route: RegisterRoute): void {
  route({
    method: "GET",
    url: "/api/originals",
    action: "archive.read",
    query: ListQuery,
    summary: "originals, paged by SHA-256",
    handler: (_req, ctx, actor, q) => listOriginals(ctx, actor, q),
  });
  route({
    method: "GET",
    url: "/api/originals/:sha256",
    action: "archive.read",
    summary: "one original with its renditions and sightings",
    handler: (req, ctx, actor) => getOriginal(ctx, actor, Sha.parse(req.params).sha256),
  });
  route({
    method: "GET",
    url: "/api/sources",
    action: "archive.read",
    summary: "source media taken in, with their tallies",
    handler: (_req, ctx, actor) => listSources(ctx, actor),
  });
  route({
    method: "GET",
    url: "/api/jobs",
    action: "jobs.read",
    summary: "recent jobs with their progress",
    handler: (_req, ctx, actor) => listJobs(ctx, actor),
  });
  route({
    method: "GET",
    url: "/api/jobs/:id",
    action: "jobs.read",
    summary: "one job and its progress",
    handler: (req, ctx, actor) => getJob(ctx, actor, z.object({ id: z.string().max(64) }).parse(req.params).id),
  });
  registerWebAppRoutes(route);
}

// ── What the web app needs beyond the above: the gallery, renditions and reveals, intake by upload. ──
const GalleryQuery = z.object({
  offset: z.coerce.number().int().min(0).max(100_000_000).default(0),
  limit: z.coerce.number().int().min(1).max(500).default(200),
  status: z.enum(["preserved", "quarantined"]).optional(),
});
const RenditionParams = Sha.extend({ kind: z.string().max(20) });
const RevealBody = z.object({ reason: z.string().max(500), kind: z.enum(["thumbnail", "preview"]).default("preview") }).strict();
const DownloadBody = z.object({ reason: z.string().max(500) }).strict();
const SightingsQuery = z.object({
  outcome: z.enum(["ingested", "duplicate", "quarantined"]).optional(),
  offset: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});
const SourceParams = z.object({ id: z.string().min(1).max(64) });
const Seal = z.object({ identity: z.string().min(1).max(MAX_IDENTITY_BYTES), replace: z.boolean().optional() }).strict();
const UploadParams = z.object({ id: z.string().max(64) });
const NewUpload = z.object({ kind: z.enum(["folder", "container"]), label: z.string().max(1000).optional() }).strict();
const FileQuery = z.object({
  path: z.string().min(1).max(UPLOAD_LIMITS.pathChars * 4),
  modified: z.coerce.number().int().min(0).optional(),
});
const IngestBody = z.object({ label: z.string().max(1000).optional() }).strict();

/** Bytes sent under a reveal or download grant, with the custody event that recorded it. */
function sendGranted(reply: FastifyReply, r: RenditionStream & { grant: RevealGrant }): FastifyReply {
  reply
    .header("content-type", r.mime)
    .header("content-length", String(r.size))
    .header("x-dalil-event", r.grant.event)
    .header("x-dalil-event-seq", String(r.grant.seq));
  return reply.send(r.stream);
}

function registerWebAppRoutes(route: RegisterRoute): void {
  route({
    method: "GET",
    url: "/api/gallery",
    action: "archive.read",
    query: GalleryQuery,
    summary: "originals in capture order, by offset, for the virtualised gallery",
    handler: (_req, ctx, actor, q) => galleryPage(ctx, actor, q),
  });
  route({
    method: "GET",
    url: "/api/originals/:sha256/renditions/:kind",
    action: "original.view",
    summary: "an original's blurred rendition (JPEG); unblurred ones only through a reveal",
    handler: async (req, ctx, actor, _q, reply) => {
      const p = RenditionParams.parse(req.params);
      const r = await blurredRendition(ctx, actor, p.sha256, p.kind);
      reply.header("content-type", r.mime).header("content-length", String(r.size)).header("etag", `"${r.sha256}"`);
      return reply.send(r.stream);
    },
  });
  route({
    method: "POST",
    url: "/api/originals/:sha256/reveal",
    action: "original.reveal",
    summary: "an unblurred rendition, for this view only, with a reason recorded in the custody log",
    handler: async (req, ctx, actor, _q, reply) => {
      const { sha256 } = Sha.parse(req.params);
      const body = RevealBody.parse(req.body ?? {});
      return sendGranted(reply, await revealRendition(ctx, actor, { sha256, kind: body.kind, reason: body.reason }));
    },
  });
  route({
    method: "POST",
    url: "/api/originals/:sha256/download",
    action: "original.reveal",
    summary: "the original's bytes as a file, with a reason recorded in the custody log as a download",
    handler: async (req, ctx, actor, _q, reply) => {
      const { sha256 } = Sha.parse(req.params);
      const body = DownloadBody.parse(req.body ?? {});
      const r = await downloadOriginalFile(ctx, actor, { sha256, reason: body.reason });
      reply.header("content-disposition", `attachment; filename="${r.filename}"`);
      return sendGranted(reply, r);
    },
  });
  route({
    method: "GET",
    url: "/api/originals/:sha256/metadata",
    action: "archive.read",
    summary: "an original's metadata, without the fields this role may not see",
    handler: (req, ctx, actor) => originalMetadata(ctx, actor, Sha.parse(req.params).sha256),
  });
  route({
    method: "GET",
    url: "/api/originals/:sha256/events",
    action: "archive.read",
    summary: "the custody history of an original: every event that names it",
    handler: (req, ctx, actor) => originalHistory(ctx, actor, Sha.parse(req.params).sha256),
  });
  route({
    method: "GET",
    url: "/api/sources/:id/sightings",
    action: "archive.read",
    query: SightingsQuery,
    summary: "what one intake saw, file by file (e.g. ?outcome=quarantined with reasons)",
    handler: (req, ctx, actor, q) => sourceSightings(ctx, actor, { source: SourceParams.parse(req.params).id, ...q }),
  });
  route({
    method: "POST",
    url: "/api/sources/:id/seal",
    action: "sealed.write",
    summary: "seal the identity of whoever handed over this source",
    handler: (req, ctx, actor) => {
      const body = Seal.parse(req.body);
      return sealIdentity(ctx, actor, { sourceId: SourceParams.parse(req.params).id, identity: body.identity, replace: body.replace ?? false });
    },
  });
  route({
    method: "GET",
    url: "/api/log/status",
    action: "log.read",
    summary: "the log's size, latest checkpoint and the last whole-archive verification",
    handler: (_req, ctx, actor) => logStatus(ctx, actor),
  });
  route({
    method: "POST",
    url: "/api/uploads",
    action: "archive.ingest",
    summary: "open an upload area for a card's files (a folder, or one .zip or disk image)",
    handler: (req, ctx, actor) => createUpload(ctx, actor, NewUpload.parse(req.body)),
  });
  route({
    method: "GET",
    url: "/api/uploads/:id",
    action: "archive.ingest",
    summary: "one of your upload areas and its ingest job, if started",
    handler: (req, ctx, actor) => getUpload(ctx, actor, UploadParams.parse(req.params).id),
  });
  route({
    method: "PUT",
    url: "/api/uploads/:id/files",
    action: "archive.ingest",
    query: FileQuery,
    bodyLimit: UPLOAD_LIMITS.fileBytes,
    raw: true,
    summary: "one file of the card (raw body, application/octet-stream) at ?path=relative/path",
    handler: (req, ctx, actor, q) => {
      const length = Number(req.headers["content-length"]);
      return receiveUploadFile(ctx, actor, {
        id: UploadParams.parse(req.params).id,
        path: q.path,
        body: req.raw,
        ...(Number.isSafeInteger(length) && length >= 0 ? { declaredSize: length } : {}),
        ...(q.modified !== undefined ? { modified: q.modified } : {}),
      });
    },
  });
  route({
    method: "POST",
    url: "/api/uploads/:id/ingest",
    action: "archive.ingest",
    summary: "take in what was uploaded, as a job; answers the job id to follow at /api/jobs/:id",
    handler: (req, ctx, actor) => startUploadIngest(ctx, actor, { id: UploadParams.parse(req.params).id, ...IngestBody.parse(req.body ?? {}) }),
  });
}
