import { z } from "zod";

/**
 * The dossiers module's contracts: zod schemas of what its use cases answer, the one source of the types the
 * server returns, the OpenAPI document describes and the web app imports (type-only). Route tables name them as
 * `response`, so a handler that answers otherwise does not compile, and test/http/responses.test.ts checks
 * what is served against them. Contracts may import other modules' contracts (and nothing else but zod).
 */

export const DossierSummary = z.object({ id: z.string(), name: z.string(), description: z.string().nullable(), frozenVersions: z.number(), draftChanged: z.boolean(), createdAt: z.string(), createdBy: z.string(), updatedAt: z.string() });
export type DossierSummary = z.infer<typeof DossierSummary>;

export const GetDossiersAnswer = z.array(DossierSummary);
export type GetDossiersAnswer = z.infer<typeof GetDossiersAnswer>;

export const ExhibitLabel = z.object({ ar: z.string(), en: z.string() });
export type ExhibitLabel = z.infer<typeof ExhibitLabel>;

export const ExhibitLabels = z.record(ExhibitLabel);
export type ExhibitLabels = z.infer<typeof ExhibitLabels>;

export const EvidenceRef = z.object({ kind: z.enum(["number", "link", "review", "photo", "document", "testimony", "other"]), ref: z.string(), note: z.string().optional() });
export type EvidenceRef = z.infer<typeof EvidenceRef>;

export const ExhibitView = z.object({ number: z.string(), kind: z.enum(["body", "review", "photo", "facility", "unit", "person"]), ref: z.string(), reasoning: z.string(), evidence: z.array(EvidenceRef), status: z.enum(["active", "withdrawn"]), addedAt: z.string(), addedBy: z.string(), withdrawn: z.object({ at: z.string(), by: z.string(), reason: z.string() }).nullable(), photos: z.array(z.string()).optional() });
export type ExhibitView = z.infer<typeof ExhibitView>;

export const GetDossiersByIdAnswer = z.object({ labels: ExhibitLabels, v: z.literal("dalil.dossier-version/1"), dossier: z.object({ id: z.string(), name: z.string(), description: z.string().nullable() }), version: z.number(), frozen: z.object({ at: z.string(), by: z.string(), note: z.string().nullable(), sha256: z.string(), eventSeq: z.number() }).nullable(), exhibits: z.array(ExhibitView), summary: DossierSummary });
export type GetDossiersByIdAnswer = z.infer<typeof GetDossiersByIdAnswer>;

export const VersionSummary = z.object({ version: z.number(), frozenAt: z.string(), frozenBy: z.string(), note: z.string().nullable(), sha256: z.string(), eventSeq: z.number(), exhibits: z.number(), withdrawn: z.number() });
export type VersionSummary = z.infer<typeof VersionSummary>;

export const GetDossiersByIdVersionsAnswer = z.object({ dossier: DossierSummary, versions: z.array(VersionSummary) });
export type GetDossiersByIdVersionsAnswer = z.infer<typeof GetDossiersByIdVersionsAnswer>;

export const PostDossiersByIdPackagesAnswer = z.object({ job: z.string(), out: z.string() });
export type PostDossiersByIdPackagesAnswer = z.infer<typeof PostDossiersByIdPackagesAnswer>;

export const RegionView = z.object({ id: z.string(), sha256: z.string(), label: z.string(), markedBy: z.string(), markedAt: z.string(), eventSeq: z.number(), x: z.number(), y: z.number(), w: z.number(), h: z.number() });
export type RegionView = z.infer<typeof RegionView>;

export const GetPhotosBySha256RegionsAnswer = z.array(RegionView);
export type GetPhotosBySha256RegionsAnswer = z.infer<typeof GetPhotosBySha256RegionsAnswer>;


/** GET /api/dossiers/:id/packages: the packages built of a dossier, newest first. */
export const PackageList = z.object({
  items: z.array(
    z.object({
      job: z.string(),
      version: z.number(),
      recipient: z.string(),
      clearance: z.string(),
      requestedBy: z.string(),
      requestedAt: z.string(),
      status: z.enum(["queued", "running", "done", "failed"]),
      finishedAt: z.string().nullable(),
      packageId: z.string().nullable(),
    }),
  ),
});
export type PackageList = z.infer<typeof PackageList>;

// Inputs of the write use cases (decision 0021): the whole input, including the record the path names.
export const EXHIBIT_KINDS = ["body", "photo", "review", "facility", "unit", "person"] as const;
export const EVIDENCE_KINDS = ["photo", "number", "link", "review", "document", "testimony", "other"] as const;
export const CLEARANCES = ["original", "redacted", "blurred"] as const;
export const REGION_LABELS = ["face", "tattoo", "document", "text", "other"] as const;

const RecordId = z.string().min(1).max(64);
const ExhibitNumber = z.string().regex(/^E-\d{4,}$/i, "an exhibit number such as E-0001");
const EvidenceInput = z.array(z.object({ kind: z.enum(EVIDENCE_KINDS), ref: z.string().min(1).max(500), note: z.string().max(2000).optional() }).strict()).max(100);
const Pixels = z.number().int().min(0).max(100_000);

/** POST /api/dossiers, `dalil dossier create`. */
export const CreateDossierInput = z.object({ name: z.string().min(1).max(300), description: z.string().max(8000).nullable().optional() }).strict();

/** POST /api/dossiers/:id/exhibits, `dalil dossier add`. */
export const AddExhibitInput = z.object({ dossierId: RecordId, kind: z.enum(EXHIBIT_KINDS), ref: z.string().min(1).max(200), reasoning: z.string().max(8000), evidence: EvidenceInput.optional() }).strict();

/** PUT /api/dossiers/:id/exhibits/:number, `dalil dossier reasoning`. */
export const ReviseReasoningInput = z.object({ dossierId: RecordId, number: ExhibitNumber, reasoning: z.string().max(8000), evidence: EvidenceInput.optional() }).strict();

/** POST /api/dossiers/:id/exhibits/:number/withdraw, `dalil dossier withdraw`. */
export const WithdrawExhibitInput = z.object({ dossierId: RecordId, number: ExhibitNumber, reason: z.string().max(2000) }).strict();

/** POST /api/dossiers/:id/freeze, `dalil dossier freeze`. */
export const FreezeDossierInput = z.object({ id: RecordId, note: z.string().max(2000).nullable().optional() }).strict();

/** POST /api/dossiers/:id/packages: a package job of a frozen version for one recipient. */
export const EnqueuePackageInput = z
  .object({
    dossierId: RecordId,
    version: z.number().int().min(1),
    recipient: z.string().min(1).max(300),
    clearance: z.enum(CLEARANCES),
    purpose: z.string().min(1).max(2000),
    lang: z.enum(["ar", "en"]).optional(),
    report: z.boolean().optional(),
  })
  .strict();

/** POST /api/photos/:sha256/regions, `dalil dossier redact`. */
export const MarkRegionInput = z.object({ sha256: z.string().regex(/^[0-9a-f]{64}$/, "must be a SHA-256 in lowercase hex"), x: Pixels, y: Pixels, w: Pixels, h: Pixels, label: z.enum(REGION_LABELS).optional() }).strict();
