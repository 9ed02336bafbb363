import { z } from "zod";
import type { RegisterRoute } from "../http/app.ts";
import { createDossier, EVIDENCE_KINDS, EXHIBIT_KINDS, freezeDossier, listDossiers, listVersions, showDossier } from "./dossiers.ts";
import { addExhibit, reviseReasoning, withdrawExhibit } from "./exhibits.ts";
import { markRegion, regionsOf, withdrawRegion, REGION_LABELS } from "./redaction.ts";
import { enqueueDossierPackage } from "./dossier-package.ts";
import { CLEARANCES } from "./package.ts";
import { downloadPackage, PACKAGE_FORMATS } from "./package-download.ts";
import { exhibitLabels } from "./labels.ts";

/** Dossiers over HTTP: cases, exhibits, versions, redaction regions and packages. Thin shells over the use cases. */
const Id = z.object({ id: z.string().min(1).max(64) });
const IdNumber = z.object({ id: z.string().min(1).max(64), number: z.string().regex(/^E-\d{4,}$/i, "an exhibit number such as E-0001") });
const Sha = z.object({ sha256: z.string().regex(/^[0-9a-f]{64}$/, "must be a SHA-256 in lowercase hex") });
const Evidence = z.array(z.object({ kind: z.enum(EVIDENCE_KINDS), ref: z.string().min(1).max(500), note: z.string().max(2000).optional() }).strict()).max(100);
const Pixels = z.number().int().min(0).max(100_000);

export function registerDossierRoutes(route: RegisterRoute): void {
  route({ method: "GET", url: "/api/dossiers", action: "dossier.read", summary: "dossiers, newest first", handler: (_req, ctx, actor) => listDossiers(ctx, actor) });
  route({
    method: "POST",
    url: "/api/dossiers",
    action: "dossier.edit",
    summary: "create a dossier (a named case)",
    handler: (req, ctx, actor) => createDossier(ctx, actor, z.object({ name: z.string().min(1).max(300), description: z.string().max(8000).nullable().optional() }).strict().parse(req.body)),
  });
  route({
    method: "GET",
    url: "/api/dossiers/:id",
    action: "dossier.read",
    query: z.object({ version: z.coerce.number().int().min(1).optional() }).strict(),
    summary: "a dossier's draft, or one frozen version exactly as frozen (?version=N)",
    handler: async (req, ctx, actor, q) => {
      const d = await showDossier(ctx, actor, Id.parse(req.params).id, q.version);
      return { ...d, labels: await exhibitLabels(ctx, actor, d.exhibits) };
    },
  });
  route({
    method: "GET",
    url: "/api/dossiers/:id/versions",
    action: "dossier.read",
    summary: "the frozen versions of a dossier with their SHA-256 and log entries",
    handler: (req, ctx, actor) => listVersions(ctx, actor, Id.parse(req.params).id),
  });
  route({
    method: "POST",
    url: "/api/dossiers/:id/exhibits",
    action: "dossier.edit",
    summary: "select a body, photo, review, facility, unit or person as an exhibit, with the reasoning for it",
    handler: (req, ctx, actor) => {
      const b = z.object({ kind: z.enum(EXHIBIT_KINDS), ref: z.string().min(1).max(200), reasoning: z.string().max(8000), evidence: Evidence.optional() }).strict().parse(req.body);
      return addExhibit(ctx, actor, { dossierId: Id.parse(req.params).id, ...b });
    },
  });
  route({
    method: "PUT",
    url: "/api/dossiers/:id/exhibits/:number",
    action: "dossier.edit",
    summary: "replace an exhibit's reasoning (and evidence); frozen versions keep theirs",
    handler: (req, ctx, actor) => {
      const p = IdNumber.parse(req.params);
      const b = z.object({ reasoning: z.string().max(8000), evidence: Evidence.optional() }).strict().parse(req.body);
      return reviseReasoning(ctx, actor, { dossierId: p.id, number: p.number, ...b });
    },
  });
  route({
    method: "POST",
    url: "/api/dossiers/:id/exhibits/:number/withdraw",
    action: "dossier.edit",
    summary: "withdraw an exhibit with a reason (its number is kept and never reused)",
    handler: (req, ctx, actor) => {
      const p = IdNumber.parse(req.params);
      const b = z.object({ reason: z.string().max(2000) }).strict().parse(req.body);
      return withdrawExhibit(ctx, actor, { dossierId: p.id, number: p.number, reason: b.reason });
    },
  });
  route({
    method: "POST",
    url: "/api/dossiers/:id/freeze",
    action: "dossier.edit",
    summary: "freeze the draft as the next immutable version (its SHA-256 goes into the custody log)",
    handler: (req, ctx, actor) => freezeDossier(ctx, actor, { id: Id.parse(req.params).id, ...z.object({ note: z.string().max(2000).nullable().optional() }).strict().parse(req.body ?? {}) }),
  });
  route({
    method: "POST",
    url: "/api/dossiers/:id/packages",
    action: "package.export",
    summary: "queue an evidence package of a frozen version for a recipient (a job; the handover is logged)",
    handler: (req, ctx, actor) => {
      const b = z
        .object({
          version: z.number().int().min(1),
          recipient: z.string().min(1).max(300),
          clearance: z.enum(CLEARANCES as [string, ...string[]]).transform((c) => c as (typeof CLEARANCES)[number]),
          purpose: z.string().min(1).max(2000),
          lang: z.enum(["ar", "en"]).optional(),
          report: z.boolean().optional(),
        })
        .strict()
        .parse(req.body);
      return enqueueDossierPackage(ctx, actor, { dossierId: Id.parse(req.params).id, ...b });
    },
  });
  route({
    method: "GET",
    url: "/api/packages/:job/download",
    action: "package.export",
    query: z.object({ format: z.enum(PACKAGE_FORMATS).default("tar") }).strict(),
    summary: "download the finished package of a package job as one streamed .tar or .zip (extract it and run dalil package verify)",
    handler: async (req, ctx, actor, q, reply) => {
      const d = await downloadPackage(ctx, actor, z.object({ job: z.string().min(1).max(64) }).parse(req.params).job, q.format);
      return reply.header("content-type", d.contentType).header("content-disposition", `attachment; filename="${d.filename}"`).header("cache-control", "no-store").send(d.body);
    },
  });
  route({
    method: "GET",
    url: "/api/photos/:sha256/regions",
    action: "original.view",
    summary: "the regions a redacted copy of this photo hides",
    handler: (req, ctx, actor) => regionsOf(ctx, actor, Sha.parse(req.params).sha256),
  });
  route({
    method: "POST",
    url: "/api/photos/:sha256/regions",
    action: "redaction.mark",
    summary: "mark a region (face, tattoo, document …) to hide in redacted copies; a custody event",
    handler: (req, ctx, actor) => {
      const b = z.object({ x: Pixels, y: Pixels, w: Pixels, h: Pixels, label: z.enum(REGION_LABELS).optional() }).strict().parse(req.body);
      return markRegion(ctx, actor, { sha256: Sha.parse(req.params).sha256, ...b });
    },
  });
  route({
    method: "POST",
    url: "/api/regions/:id/withdraw",
    action: "redaction.mark",
    summary: "withdraw a region marked in error (kept on record; a custody event)",
    handler: (req, ctx, actor) => withdrawRegion(ctx, actor, Id.parse(req.params).id),
  });
}
