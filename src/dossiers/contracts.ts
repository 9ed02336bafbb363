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
