import { z } from "zod";
import type { FastifyReply } from "fastify";
import { bytes, route, usecase, withPath, type RouteSpec } from "../http/route-spec.ts";
import { getOriginal, listOriginals } from "./originals.ts";
import { getJob, listJobs } from "./job-views.ts";
import { listSources } from "./sources.ts";
import type { RevealGrant } from "./reveals.ts";
import { sealIdentity } from "./sealing.ts";
import { createUpload, getUpload, receiveUploadFile, startUploadIngest, UPLOAD_LIMITS } from "./uploads.ts";
import { blurredRendition, downloadOriginalFile, logStatus, originalHistory, originalMetadata, revealRendition, sourceSightings, type RenditionStream } from "./viewing.ts";
import * as contracts from "./contracts.ts";
import * as coreContracts from "../core/contracts.ts";
import * as accessContracts from "../access/contracts.ts";

const ListQuery = z.object({
  status: z.enum(["preserved", "quarantined"]).optional(),
  after: z.string().regex(/^[0-9a-f]{64}$/, "after must be a SHA-256 in lowercase hex").optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});

const Sha = z.object({ sha256: z.string().regex(/^[0-9a-f]{64}$/, "must be a SHA-256 in lowercase hex") });


// ── What the web app needs beyond the above (the gallery is the catalogue's: it filters by body): renditions and reveals, intake by upload. ──
const RenditionParams = Sha.extend({ kind: z.string().max(20) });
const SightingsQuery = z.object({
  outcome: z.enum(["ingested", "duplicate", "quarantined"]).optional(),
  offset: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});
const SourceParams = z.object({ id: z.string().min(1).max(64) });
const UploadParams = z.object({ id: z.string().max(64) });
const FileQuery = z.object({
  path: z.string().min(1).max(UPLOAD_LIMITS.pathChars * 4),
  modified: z.coerce.number().int().min(0).optional(),
});

/** Bytes sent under a reveal or download grant, with the custody event that recorded it. */
function sendGranted(reply: FastifyReply, r: RenditionStream & { grant: RevealGrant }): FastifyReply {
  reply
    .header("content-type", r.mime)
    .header("content-length", String(r.size))
    .header("x-dalil-event", r.grant.event)
    .header("x-dalil-event-seq", String(r.grant.seq));
  return reply.send(r.stream);
}

const WEB_APP_ROUTES: readonly RouteSpec[] = [
  route({
    method: "GET",
    url: "/api/originals/:sha256/renditions/:kind",
    action: "original.view",
    summary: "an original's blurred rendition (JPEG); unblurred ones only through a reveal",
    params: RenditionParams,
    response: bytes("application/octet-stream"),
    handler: async (req, ctx, actor, { params }, reply) => {
      const p = params;
      const r = await blurredRendition(ctx, actor, p.sha256, p.kind);
      reply.header("content-type", r.mime).header("content-length", String(r.size)).header("etag", `"${r.sha256}"`);
      return reply.send(r.stream);
    },
  }),
  route({
    method: "POST",
    url: "/api/originals/:sha256/reveal",
    action: "original.reveal",
    summary: "an unblurred rendition, for this view only, with a reason recorded in the custody log",
    params: Sha,
    body: usecase(contracts.RevealInput, "sha256"),
    response: bytes("application/octet-stream"),
    handler: async (req, ctx, actor, { params, body }, reply) => {
      return sendGranted(reply, await revealRendition(ctx, actor, withPath(body, { sha256: params.sha256 })));
    },
  }),
  route({
    method: "POST",
    url: "/api/originals/:sha256/download",
    action: "original.reveal",
    summary: "the original's bytes as a file, with a reason recorded in the custody log as a download",
    params: Sha,
    body: usecase(contracts.DownloadInput, "sha256"),
    response: bytes("application/octet-stream"),
    handler: async (req, ctx, actor, { params, body }, reply) => {
      const r = await downloadOriginalFile(ctx, actor, withPath(body, { sha256: params.sha256 }));
      reply.header("content-disposition", `attachment; filename="${r.filename}"`);
      return sendGranted(reply, r);
    },
  }),
  route({
    method: "GET",
    url: "/api/originals/:sha256/metadata",
    action: "archive.read",
    summary: "an original's metadata, without the fields this role may not see",
    params: Sha,
    response: contracts.MetadataView,
    handler: (req, ctx, actor, { params }) => originalMetadata(ctx, actor, params.sha256),
  }),
  route({
    method: "GET",
    url: "/api/originals/:sha256/events",
    action: "archive.read",
    summary: "the custody history of an original: every event that names it",
    params: Sha,
    response: contracts.GetOriginalsBySha256EventsAnswer,
    handler: (req, ctx, actor, { params }) => originalHistory(ctx, actor, params.sha256),
  }),
  route({
    method: "GET",
    url: "/api/sources/:id/sightings",
    action: "archive.read",
    query: SightingsQuery,
    summary: "what one intake saw, file by file (e.g. ?outcome=quarantined with reasons)",
    params: SourceParams,
    response: contracts.GetSourcesByIdSightingsAnswer,
    handler: (req, ctx, actor, { query: q, params }) => sourceSightings(ctx, actor, { source: params.id, ...q }),
  }),
  route({
    method: "POST",
    url: "/api/sources/:id/seal",
    action: "sealed.write",
    summary: "seal the identity of whoever handed over this source",
    params: SourceParams,
    body: usecase(accessContracts.SealIdentityInput, "sourceId"),
    response: accessContracts.SealedView,
    handler: (_req, ctx, actor, { params, body }) => sealIdentity(ctx, actor, withPath(body, { sourceId: params.id })),
  }),
  route({
    method: "GET",
    url: "/api/log/status",
    action: "log.read",
    summary: "the log's size, latest checkpoint and the last whole-archive verification",
    response: contracts.LogStatus,
    handler: (_req, ctx, actor) => logStatus(ctx, actor),
  }),
  route({
    method: "POST",
    url: "/api/uploads",
    action: "archive.ingest",
    summary: "open an upload area for a card's files (a folder, or one .zip or disk image)",
    body: usecase(contracts.NewUploadInput),
    response: contracts.UploadView,
    handler: (req, ctx, actor, { body }) => createUpload(ctx, actor, body),
  }),
  route({
    method: "GET",
    url: "/api/uploads/:id",
    action: "archive.ingest",
    summary: "one of your upload areas and its ingest job, if started",
    params: UploadParams,
    response: contracts.UploadView,
    handler: (req, ctx, actor, { params }) => getUpload(ctx, actor, params.id),
  }),
  route({
    method: "PUT",
    url: "/api/uploads/:id/files",
    action: "archive.ingest",
    query: FileQuery,
    bodyLimit: UPLOAD_LIMITS.fileBytes,
    raw: true,
    summary: "one file of the card (raw body, application/octet-stream) at ?path=relative/path",
    params: UploadParams,
    response: contracts.ReceivedFile,
    handler: (req, ctx, actor, { query: q, params }) => {
      const length = Number(req.headers["content-length"]);
      return receiveUploadFile(ctx, actor, {
        id: params.id,
        path: q.path,
        body: req.raw,
        ...(Number.isSafeInteger(length) && length >= 0 ? { declaredSize: length } : {}),
        ...(q.modified !== undefined ? { modified: q.modified } : {}),
      });
    },
  }),
  route({
    method: "POST",
    url: "/api/uploads/:id/ingest",
    action: "archive.ingest",
    summary: "take in what was uploaded, as a job; answers the job id to follow at /api/jobs/:id",
    params: UploadParams,
    body: usecase(contracts.UploadIngestInput, "id"),
    response: contracts.PostUploadsByIdIngestAnswer,
    handler: (req, ctx, actor, { params, body }) => startUploadIngest(ctx, actor, withPath(body, { id: params.id })),
  }),
];

export const ARCHIVE_ROUTES: readonly RouteSpec[] = [
  route({
    method: "GET",
    url: "/api/originals",
    action: "archive.read",
    query: ListQuery,
    summary: "originals, paged by SHA-256",
    response: contracts.GetOriginalsAnswer,
    handler: (_req, ctx, actor, { query: q }) => listOriginals(ctx, actor, q),
  }),
  route({
    method: "GET",
    url: "/api/originals/:sha256",
    action: "archive.read",
    summary: "one original with its renditions and sightings",
    params: Sha,
    response: contracts.GetOriginalsBySha256Answer,
    handler: (req, ctx, actor, { params }) => getOriginal(ctx, actor, params.sha256),
  }),
  route({
    method: "GET",
    url: "/api/sources",
    action: "archive.read",
    summary: "source media taken in, with their tallies",
    response: contracts.GetSourcesAnswer,
    handler: (_req, ctx, actor) => listSources(ctx, actor),
  }),
  route({
    method: "GET",
    url: "/api/jobs",
    action: "jobs.read",
    summary: "recent jobs with their progress",
    response: contracts.GetJobsAnswer,
    handler: (_req, ctx, actor) => listJobs(ctx, actor),
  }),
  route({
    method: "GET",
    url: "/api/jobs/:id",
    action: "jobs.read",
    summary: "one job and its progress",
    params: z.object({ id: z.string().max(64) }),
    response: coreContracts.JobView,
    handler: (_req, ctx, actor, { params }) => getJob(ctx, actor, params.id),
  }),
  ...WEB_APP_ROUTES,
];
