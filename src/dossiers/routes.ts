import { listPackages } from "./packages-list.ts";
import { contentDisposition } from "./file-names.ts";
import { z } from "zod";
import { bytes, route, usecase, withPath, type RouteSpec } from "../http/route-spec.ts";
import { createDossier, freezeDossier, listDossiers, listVersions, showDossier } from "./dossiers.ts";
import { addExhibit, reviseReasoning, withdrawExhibit } from "./exhibits.ts";
import { markRegion, regionsOf, withdrawRegion } from "./redaction.ts";
import { enqueueDossierPackage } from "./dossier-package.ts";
import { downloadPackage, PACKAGE_FORMATS } from "./package-download.ts";
import { exhibitLabels } from "./labels.ts";
import * as contracts from "./contracts.ts";

/** Dossiers over HTTP: cases, exhibits, versions, redaction regions and packages. Thin shells over the use cases. */
const Id = z.object({ id: z.string().min(1).max(64) });
const IdNumber = z.object({ id: z.string().min(1).max(64), number: z.string().regex(/^E-\d{4,}$/i, "an exhibit number such as E-0001") });
const Sha = z.object({ sha256: z.string().regex(/^[0-9a-f]{64}$/, "must be a SHA-256 in lowercase hex") });

export const DOSSIER_ROUTES: readonly RouteSpec[] = [
  route({ method: "GET", url: "/api/dossiers", action: "dossier.read", summary: "dossiers, newest first", response: contracts.GetDossiersAnswer, handler: (_req, ctx, actor) => listDossiers(ctx, actor) }),
  route({
    method: "POST",
    url: "/api/dossiers",
    action: "dossier.edit",
    summary: "create a dossier (a named case)",
    body: usecase(contracts.CreateDossierInput),
    response: contracts.DossierSummary,
    handler: (req, ctx, actor, { body }) => createDossier(ctx, actor, body),
  }),
  route({
    method: "GET",
    url: "/api/dossiers/:id",
    action: "dossier.read",
    query: z.object({ version: z.coerce.number().int().min(1).optional() }).strict(),
    summary: "a dossier's draft, or one frozen version exactly as frozen (?version=N)",
    params: Id,
    response: contracts.GetDossiersByIdAnswer,
    handler: async (req, ctx, actor, { query: q, params }) => {
      const d = await showDossier(ctx, actor, params.id, q.version);
      return { ...d, labels: await exhibitLabels(ctx, actor, d.exhibits) };
    },
  }),
  route({
    method: "GET",
    url: "/api/dossiers/:id/versions",
    action: "dossier.read",
    summary: "the frozen versions of a dossier with their SHA-256 and log entries",
    params: Id,
    response: contracts.GetDossiersByIdVersionsAnswer,
    handler: (req, ctx, actor, { params }) => listVersions(ctx, actor, params.id),
  }),
  route({
    method: "POST",
    url: "/api/dossiers/:id/exhibits",
    action: "dossier.edit",
    summary: "select a body, photo, review, facility, unit or person as an exhibit, with the reasoning for it",
    params: Id,
    body: usecase(contracts.AddExhibitInput, "dossierId"),
    response: contracts.ExhibitView,
    handler: (req, ctx, actor, { params, body }) => addExhibit(ctx, actor, withPath(body, { dossierId: params.id })),
  }),
  route({
    method: "PUT",
    url: "/api/dossiers/:id/exhibits/:number",
    action: "dossier.edit",
    summary: "replace an exhibit's reasoning (and evidence); frozen versions keep theirs",
    params: IdNumber,
    body: usecase(contracts.ReviseReasoningInput, "dossierId", "number"),
    response: contracts.ExhibitView,
    handler: (req, ctx, actor, { params, body }) => reviseReasoning(ctx, actor, withPath(body, { dossierId: params.id, number: params.number })),
  }),
  route({
    method: "POST",
    url: "/api/dossiers/:id/exhibits/:number/withdraw",
    action: "dossier.edit",
    summary: "withdraw an exhibit with a reason (its number is kept and never reused)",
    params: IdNumber,
    body: usecase(contracts.WithdrawExhibitInput, "dossierId", "number"),
    response: contracts.ExhibitView,
    handler: (req, ctx, actor, { params, body }) => withdrawExhibit(ctx, actor, withPath(body, { dossierId: params.id, number: params.number })),
  }),
  route({
    method: "POST",
    url: "/api/dossiers/:id/freeze",
    action: "dossier.edit",
    summary: "freeze the draft as the next immutable version (its SHA-256 goes into the custody log)",
    params: Id,
    body: usecase(contracts.FreezeDossierInput, "id"),
    response: contracts.VersionSummary,
    handler: (req, ctx, actor, { params, body }) => freezeDossier(ctx, actor, withPath(body, { id: params.id })),
  }),
  route({
    method: "POST",
    url: "/api/dossiers/:id/packages",
    action: "package.export",
    summary: "queue an evidence package of a frozen version for a recipient (a job; the handover is logged)",
    params: Id,
    body: usecase(contracts.EnqueuePackageInput, "dossierId"),
    response: contracts.PostDossiersByIdPackagesAnswer,
    handler: (req, ctx, actor, { params, body }) => enqueueDossierPackage(ctx, actor, withPath(body, { dossierId: params.id })),
  }),
  route({
    method: "GET",
    url: "/api/dossiers/:id/packages",
    action: "package.export",
    summary: "the packages built of a dossier, newest first: version, recipient, clearance, who asked and when, status",
    params: Id,
    response: contracts.PackageList,
    handler: (_req, ctx, actor, { params }) => listPackages(ctx, actor, params.id),
  }),
  route({
    method: "GET",
    url: "/api/packages/:job/download",
    action: "package.export",
    query: z.object({ format: z.enum(PACKAGE_FORMATS).default("tar") }).strict(),
    summary: "download the finished package of a package job as one streamed .tar or .zip (extract it and run dalil package verify)",
    params: z.object({ job: z.string().min(1).max(64) }),
    response: bytes("application/octet-stream"),
    handler: async (req, ctx, actor, { query: q, params }, reply) => {
      const d = await downloadPackage(ctx, actor, params.job, q.format);
      return reply.header("content-type", d.contentType).header("content-disposition", contentDisposition(d.filename)).header("cache-control", "no-store").send(d.body);
    },
  }),
  route({
    method: "GET",
    url: "/api/photos/:sha256/regions",
    action: "original.view",
    summary: "the regions a redacted copy of this photo hides",
    params: Sha,
    response: contracts.GetPhotosBySha256RegionsAnswer,
    handler: (req, ctx, actor, { params }) => regionsOf(ctx, actor, params.sha256),
  }),
  route({
    method: "POST",
    url: "/api/photos/:sha256/regions",
    action: "redaction.mark",
    summary: "mark a region (face, tattoo, document …) to hide in redacted copies; a custody event",
    params: Sha,
    body: usecase(contracts.MarkRegionInput, "sha256"),
    response: contracts.RegionView,
    handler: (req, ctx, actor, { params, body }) => markRegion(ctx, actor, withPath(body, { sha256: params.sha256 })),
  }),
  route({
    method: "POST",
    url: "/api/regions/:id/withdraw",
    action: "redaction.mark",
    summary: "withdraw a region marked in error (kept on record; a custody event)",
    params: Id,
    response: contracts.RegionView,
    handler: (req, ctx, actor, { params }) => withdrawRegion(ctx, actor, params.id),
  }),
];
