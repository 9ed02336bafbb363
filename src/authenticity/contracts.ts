import { z } from "zod";

/**
 * The authenticity module's contracts: zod schemas of what its use cases answer, the one source of the types
 * the server returns, the OpenAPI document describes and the web app imports (type-only). Route tables name
 * them as `response`, so a handler that answers otherwise does not compile, and test/http/contracts.test.ts
 * checks what is served against them. Contracts may import other modules' contracts (and nothing else but zod).
 *
 * A finding's `key` is a plain string here: the analyser narrows it to its message keys (findings.ts), which
 * live with their words in messages.ts, and a contract may not import code.
 */

export const Severity = z.enum(["information", "look", "strong"]);
export type Severity = z.infer<typeof Severity>;

export const Check = z.enum(["structure", "software", "signature", "exif", "sequence", "thumbnail", "compression", "duplicate", "summary"]);
export type Check = z.infer<typeof Check>;

export const Finding = z.object({ photo: z.string().nullable(), check: Check, severity: Severity, key: z.string(), params: z.record(z.string(), z.union([z.string(), z.number()])) });
export type Finding = z.infer<typeof Finding>;

export const SignatureParts = z.object({ tables: z.string(), huffman: z.string(), subsampling: z.string(), frame: z.string(), thumbnail: z.string(), ifds: z.string(), makerNote: z.string(), apps: z.string() });
export type SignatureParts = z.infer<typeof SignatureParts>;

export const CameraView = z.object({
    label: z.string(),
    make: z.string().nullable(),
    model: z.string().nullable(),
    serial: z.string().nullable(),
    photos: z.number(),
    signatures: z.array(z.object({ signature: z.string(), photos: z.number(), parts: SignatureParts, ijgQuality: z.number().nullable() })),
  });
export type CameraView = z.infer<typeof CameraView>;

export const SequencePoint = z.object({ photo: z.string(), camera: z.string(), name: z.string().nullable(), order: z.number(), captured: z.string().nullable() });
export type SequencePoint = z.infer<typeof SequencePoint>;

export const PhotoSummary = z.object({
    sha256: z.string(),
    name: z.string().nullable(),
    camera: z.string(),
    signature: z.string(),
    quality: z.number().nullable(),
    qualityExact: z.boolean(),
    huffman: z.enum(["standard", "optimised", "none"]),
    subsampling: z.string().nullable(),
    width: z.number().nullable(),
    height: z.number().nullable(),
    captured: z.string().nullable(),
    modified: z.string().nullable(),
    software: z.string().nullable(),
    thumbnail: z.string(),
    trailing: z.number(),
    worst: Severity.nullable(),
  });
export type PhotoSummary = z.infer<typeof PhotoSummary>;

export const CardReport = z.object({
    photos: z.array(PhotoSummary),
    cameras: z.array(CameraView),
    sequence: z.array(SequencePoint),
    findings: z.array(Finding),
    counts: z.object({ information: z.number(), look: z.number(), strong: z.number(), photos: z.number(), flagged: z.number() }),
  });
export type CardReport = z.infer<typeof CardReport>;

export const SourceRef = z.object({ id: z.string(), label: z.string() });
export type SourceRef = z.infer<typeof SourceRef>;

export const RunView = z.object({
    run: z.string(),
    source: SourceRef,
    softwareVersion: z.string(),
    parameters: z.object({ content: z.boolean() }),
    inputSha256: z.string(),
    reportSha256: z.string(),
    runBy: z.string(),
    runAt: z.string(),
    eventSeq: z.number(),
    report: CardReport,
  });
export type RunView = z.infer<typeof RunView>;

export const RunSummary = z.object({ run: z.string(), source: SourceRef, photos: z.number(), flagged: z.number(), runAt: z.string(), softwareVersion: z.string() });
export type RunSummary = z.infer<typeof RunSummary>;

export const PhotoAuthenticity = z.object({ sha256: z.string(), run: z.string().nullable(), source: SourceRef.nullable(), runAt: z.string().nullable(), summary: PhotoSummary.nullable(), findings: z.array(Finding) });
export type PhotoAuthenticity = z.infer<typeof PhotoAuthenticity>;

/** What queueing an analysis answers: the job to follow and the source it reads. */
export const QueuedAnalysis = z.object({ job: z.string(), source: z.string() });
export type QueuedAnalysis = z.infer<typeof QueuedAnalysis>;

// What the use cases take (decision 0021): each parses its own input with `parseInput`; the route names the same
// schema with `usecase(...)`. A card is named by its label or id.
const Sha256 = z.string().regex(/^[0-9a-f]{64}$/, "must be a SHA-256 in lowercase hex");
export const RunAnalysisInput = z.object({ source: z.string().min(1).max(200), content: z.boolean().default(true) }).strict();
export const ShowAnalysisInput = z.object({ source: z.string().min(1).max(200), run: z.string().max(64).optional() }).strict();
export const ErrorLevelInput = z.object({ sha256: Sha256, quality: z.coerce.number().int().min(50).max(99).default(90) }).strict();
