import { z } from "zod";
import { JobView } from "../core/contracts.ts";

/**
 * The archive module's contracts: zod schemas of what its use cases answer, the one source of the types the
 * server returns, the OpenAPI document describes and the web app imports (type-only). Route tables name them as
 * `response`, so a handler that answers otherwise does not compile, and test/http/responses.test.ts checks
 * what is served against them. Contracts may import other modules' contracts (and nothing else but zod).
 */

export const OriginalView = z.object({ sha256: z.string(), size: z.number(), format: z.string(), mediaKind: z.string(), status: z.string(), quarantineReason: z.string().nullable(), quarantineKey: z.string().nullable().optional(), quarantineParams: z.record(z.union([z.string(), z.number()])).nullable().optional(), width: z.number().nullable(), height: z.number().nullable(), captureTime: z.string().nullable(), camera: z.object({ make: z.string().nullable(), model: z.string().nullable(), serial: z.string().nullable().optional() }), phash: z.string().nullable(), firstSeenAt: z.string(), renditions: z.array(z.object({ kind: z.string(), sha256: z.string(), width: z.number(), height: z.number() })) });
export type OriginalView = z.infer<typeof OriginalView>;

export const GetOriginalsAnswer = z.object({ items: z.array(OriginalView), next: z.string().nullable() });
export type GetOriginalsAnswer = z.infer<typeof GetOriginalsAnswer>;

export const GetOriginalsBySha256Answer = OriginalView.merge(z.object({ sightings: z.array(z.object({ source: z.string(), path: z.string().optional(), outcome: z.string() })) }));
export type GetOriginalsBySha256Answer = z.infer<typeof GetOriginalsBySha256Answer>;

export const GetSourcesAnswer = z.array(z.object({ status: z.string(), id: z.string(), quarantined: z.number(), label: z.string(), kind: z.string(), medium_sha256: z.string().nullable(), started_at: z.string(), finished_at: z.string().nullable(), files: z.number(), ingested: z.number(), duplicates: z.number(), bytes: z.number() }));
export type GetSourcesAnswer = z.infer<typeof GetSourcesAnswer>;

export const GetJobsAnswer = z.array(JobView);
export type GetJobsAnswer = z.infer<typeof GetJobsAnswer>;

export const GalleryItem = z.object({ sha256: z.string(), status: z.string(), format: z.string(), mediaKind: z.string(), captureTime: z.string().nullable(), width: z.number().nullable(), height: z.number().nullable(), blurred: z.boolean() });
export type GalleryItem = z.infer<typeof GalleryItem>;

export const GalleryPage = z.object({ total: z.number(), offset: z.number(), items: z.array(GalleryItem) });
export type GalleryPage = z.infer<typeof GalleryPage>;

export const MetadataView = z.object({ sha256: z.string(), parsed: z.record(z.unknown()), problems: z.array(z.string()), software: z.string().nullable(), orientation: z.number().nullable(), hidden: z.boolean() });
export type MetadataView = z.infer<typeof MetadataView>;

export const HistoryEvent = z.object({ seq: z.number(), id: z.string(), type: z.string(), at: z.string(), actor: z.object({ kind: z.string(), id: z.string(), role: z.string() }), outcome: z.string(), detail: z.record(z.unknown()) });
export type HistoryEvent = z.infer<typeof HistoryEvent>;

export const GetOriginalsBySha256EventsAnswer = z.object({ sha256: z.string(), events: z.array(HistoryEvent) });
export type GetOriginalsBySha256EventsAnswer = z.infer<typeof GetOriginalsBySha256EventsAnswer>;

export const SightingView = z.object({ entry: z.number(), path: z.string().optional(), size: z.number(), outcome: z.string(), reason: z.string().nullable(), reasonKey: z.string().nullable().optional(), reasonParams: z.record(z.union([z.string(), z.number()])).nullable().optional(), sha256: z.string().nullable(), seenAt: z.string() });
export type SightingView = z.infer<typeof SightingView>;

export const GetSourcesByIdSightingsAnswer = z.object({ source: z.string(), total: z.number(), offset: z.number(), items: z.array(SightingView) });
export type GetSourcesByIdSightingsAnswer = z.infer<typeof GetSourcesByIdSightingsAnswer>;

export const LogStatus = z.object({ origin: z.string(), verifierKey: z.string(), events: z.number(), checkpoint: z.object({ size: z.number(), rootHash: z.string(), createdAt: z.string(), note: z.string(), timestamped: z.boolean(), authority: z.string().nullable() }).nullable(), lastVerify: z.object({ at: z.string(), outcome: z.string(), checked: z.number().nullable(), failed: z.number().nullable(), seq: z.number() }).nullable() });
export type LogStatus = z.infer<typeof LogStatus>;

export const UploadKind = z.enum(["folder", "container"]);
export type UploadKind = z.infer<typeof UploadKind>;

export const UploadView = z.object({ id: z.string(), kind: UploadKind, label: z.string().nullable(), createdAt: z.string(), job: z.string().nullable() });
export type UploadView = z.infer<typeof UploadView>;

export const ReceivedFile = z.object({ path: z.string(), size: z.number(), sha256: z.string() });
export type ReceivedFile = z.infer<typeof ReceivedFile>;

export const PostUploadsByIdIngestAnswer = z.object({ job: z.string() });
export type PostUploadsByIdIngestAnswer = z.infer<typeof PostUploadsByIdIngestAnswer>;


// What the use cases take (decision 0021): each parses its own input with `parseInput`, and the route names the
// same schema with `usecase(...)`; rules a person needs worded (a label too long, an empty upload) stay in the use case.
const Sha256 = z.string().regex(/^[0-9a-f]{64}$/, "must be a SHA-256 in lowercase hex");
export const RevealInput = z.object({ sha256: Sha256, reason: z.string().max(500), kind: z.enum(["thumbnail", "preview"]).default("preview") }).strict();
export const DownloadInput = z.object({ sha256: Sha256, reason: z.string().max(500) }).strict();
export const NewUploadInput = z.object({ kind: UploadKind, label: z.string().max(1000).optional() }).strict();
export const UploadIngestInput = z.object({ id: z.string().max(64), label: z.string().max(1000).optional() }).strict();
