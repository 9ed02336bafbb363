import { z } from "zod";
import { bytes, route, usecase, withPath, type RouteSpec } from "../http/route-spec.ts";
import { editBody, getBody, mergeBodies, readBodies, setPhotoRole, splitBody } from "./bodies.ts";
import { addNumber, checkNumber, retireNumber } from "./numbers.ts";
import { acceptProposal, acceptProposals, getProposal, listProposals, mergeProposals, proposeGroupings, readingsOf, rejectProposal, splitProposal } from "./proposals.ts";
import { createEntity, getEntity, listEntities, updateEntity } from "./entities.ts";
import { createLink, linksOf, retractLink, updateLink } from "./links.ts";
import { addVocabularyTerm, listVocabulary, updateVocabularyTerm } from "./vocabularies.ts";
import { recordHistory } from "./history.ts";
import { searchBodies } from "./search.ts";
import { GALLERY_BODY_FILTERS, GALLERY_NUMBER_FILTERS, photoBodies, photoGallery } from "./gallery.ts";
import { GalleryPage } from "../archive/contracts.ts";
import { exportBodiesCsv, importBodiesCsv } from "./csv-import.ts";
import { importBodyDocuments } from "./documents.ts";
import { ENTITY_KINDS } from "./records.ts";
import * as contracts from "./contracts.ts";

/**
 * The catalogue over HTTP: thin shells over the use cases, which ask the policy themselves. Reads of bodies
 * carry no image bytes; photos are SHA-256 references, served (blurred or revealed) by the archive routes.
 */
const Id = z.object({ id: z.string().min(1).max(64) });
const Sha = z.string().regex(/^[0-9a-f]{64}$/, "must be a SHA-256 in lowercase hex");



const Day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "must be a date as YYYY-MM-DD");
const GalleryQuery = z.object({
  offset: z.coerce.number().int().min(0).max(100_000_000).default(0),
  limit: z.coerce.number().int().min(1).max(500).default(200),
  status: z.enum(["preserved", "quarantined"]).optional(),
  source: z.string().min(1).max(64).optional(),
  intakeFrom: Day.optional(),
  intakeTo: Day.optional(),
  body: z.enum(GALLERY_BODY_FILTERS).optional(),
  numbers: z.enum(GALLERY_NUMBER_FILTERS).optional(),
});

export const CATALOGUE_ROUTES: readonly RouteSpec[] = [
  route({
    method: "GET",
    url: "/api/gallery",
    action: "archive.read",
    query: GalleryQuery,
    summary: "photographs in capture order, by offset, for the virtualised gallery; filtered by source, day of intake, body and its identification, numbers read and checked",
    response: GalleryPage,
    handler: (_req, ctx, actor, { query }) => photoGallery(ctx, actor, query),
  }),
  route({
    method: "GET",
    url: "/api/photos/:sha256/bodies",
    action: "catalogue.read",
    summary: "the bodies a photograph is filed under, by reference, with their photographs in order",
    params: z.object({ sha256: Sha }),
    response: contracts.PhotoBodies,
    handler: (_req, ctx, actor, { params }) => photoBodies(ctx, actor, params.sha256),
  }),
  route({
    method: "GET",
    url: "/api/search",
    action: "catalogue.read",
    query: usecase(contracts.SearchInput),
    summary: "search bodies: full text (Arabic normalised), facets with counts, keyset pages",
    response: contracts.SearchResult,
    handler: (_req, ctx, actor, { query: q }) => searchBodies(ctx, actor, q),
  }),

  route({
    method: "GET",
    url: "/api/bodies",
    action: "catalogue.read",
    query: z.object({ after: z.coerce.number().int().min(0).optional(), limit: z.coerce.number().int().min(1).max(2000).optional() }).strict(),
    summary: "body records in reference order (keyset pages)",
    response: contracts.GetBodiesAnswer,
    handler: (_req, ctx, actor, { query: q }) => readBodies(ctx, actor, q),
  }),
  route({
    method: "GET",
    url: "/api/bodies/:id",
    action: "catalogue.read",
    summary: "one body (by id or reference B-000123) with its photos (references only) and numbers",
    params: Id,
    response: contracts.BodyDetail,
    handler: (req, ctx, actor, { params }) => getBody(ctx, actor, params.id),
  }),
  route({
    method: "PUT",
    url: "/api/bodies/:id",
    action: "catalogue.edit",
    summary: "change a body's fields (only those given); every change is kept with its old value",
    params: Id,
    body: usecase(contracts.EditBodyInput, "id"),
    response: contracts.BodyView,
    handler: (req, ctx, actor, { params, body }) => editBody(ctx, actor, withPath(body, { id: params.id })),
  }),
  route({
    method: "GET",
    url: "/api/bodies/:id/history",
    action: "catalogue.read",
    summary: "a body's history: every field change with old and new value, who and when",
    params: Id,
    response: contracts.GetBodiesByIdHistoryAnswer,
    handler: async (req, ctx, actor, { params }) => {
      const body = await getBody(ctx, actor, params.id);
      return recordHistory(ctx, actor, body.id);
    },
  }),
  route({
    method: "GET",
    url: "/api/bodies/:id/links",
    action: "catalogue.read",
    query: z.object({ retracted: z.enum(["true", "false"]).optional() }).strict(),
    summary: "links of a body to entities and other bodies, with their evidence",
    params: Id,
    response: contracts.GetBodiesByIdLinksAnswer,
    handler: async (req, ctx, actor, { query: q, params }) => {
      const body = await getBody(ctx, actor, params.id);
      return linksOf(ctx, actor, { recordId: body.id, includeRetracted: q.retracted === "true" });
    },
  }),
  route({
    method: "POST",
    url: "/api/bodies/:id/split",
    action: "catalogue.group",
    summary: "move some of a body's photos (and the numbers read from them) to a new body",
    params: Id,
    body: usecase(contracts.SplitBodyInput, "bodyId"),
    response: contracts.PostBodiesByIdSplitAnswer,
    handler: (req, ctx, actor, { params, body }) => {
      const b = body;
      return splitBody(ctx, actor, withPath(b, { bodyId: params.id }));
    },
  }),
  route({
    method: "POST",
    url: "/api/bodies/merge",
    action: "catalogue.group",
    summary: "merge two body records that show one person (the absorbed record stays, pointing to the kept one)",
    body: usecase(contracts.MergeBodiesInput),
    response: contracts.MergeResult,
    handler: (req, ctx, actor, { body }) =>
      mergeBodies(ctx, actor, body),
  }),
  route({
    method: "PUT",
    url: "/api/bodies/:id/photos/:sha256",
    action: "catalogue.edit",
    summary: "set the role of one of a body's photos (card, face, full, detail, other)",
    params: z.object({ id: z.string().min(1).max(64), sha256: Sha }),
    body: usecase(contracts.SetPhotoRoleInput, "bodyId", "sha256"),
    response: contracts.BodyDetail,
    handler: (req, ctx, actor, { params, body }) => {
      const p = params;
      const b = body;
      return setPhotoRole(ctx, actor, { bodyId: p.id, sha256: p.sha256, role: b.role });
    },
  }),
  route({
    method: "POST",
    url: "/api/bodies/:id/numbers",
    action: "catalogue.edit",
    summary: "type a number read on a body's photo or a document; it awaits a second person's check",
    params: Id,
    body: usecase(contracts.AddNumberInput, "bodyId"),
    response: contracts.BodyNumber,
    handler: (req, ctx, actor, { params, body }) => {
      const b = body;
      return addNumber(ctx, actor, withPath(b, { bodyId: params.id }));
    },
  }),
  route({
    method: "POST",
    url: "/api/numbers/:id/check",
    action: "catalogue.check",
    summary: "second-person check of a number: agree, or give the corrected value",
    params: Id,
    body: usecase(contracts.CheckNumberInput, "numberId"),
    response: contracts.BodyNumber,
    handler: (req, ctx, actor, { params, body }) => {
      const b = body;
      return checkNumber(ctx, actor, withPath(b, { numberId: params.id }));
    },
  }),
  route({
    method: "POST",
    url: "/api/numbers/:id/retire",
    action: "catalogue.edit",
    summary: "withdraw a number entered in error (it stays on record with the reason)",
    params: Id,
    body: usecase(contracts.RetireNumberInput, "numberId"),
    response: contracts.BodyNumber,
    handler: (req, ctx, actor, { params, body }) => retireNumber(ctx, actor, withPath(body, { numberId: params.id })),
  }),
  route({
    method: "GET",
    url: "/api/photos/:sha256/readings",
    action: "catalogue.read",
    summary: "what the card reader read on a photo, per run",
    params: z.object({ sha256: Sha }),
    response: contracts.GetPhotosBySha256ReadingsAnswer,
    handler: (req, ctx, actor, { params }) => readingsOf(ctx, actor, params.sha256),
  }),

  route({
    method: "POST",
    url: "/api/sources/:id/proposals",
    action: "catalogue.group",
    summary: "read the cards of a source's photos and propose bodies (a job; follow it at /api/jobs/:id)",
    params: Id,
    response: contracts.PostSourcesByIdProposalsAnswer,
    handler: (req, ctx, actor, { params }) => proposeGroupings(ctx, actor, { sourceId: params.id }),
  }),
  route({
    method: "GET",
    url: "/api/sources/:id/proposals",
    action: "catalogue.read",
    query: z
      .object({
        status: z.enum(["proposed", "accepted", "split", "merged", "rejected"]).optional(),
        after: z.coerce.number().int().min(0).optional(),
        limit: z.coerce.number().int().min(1).max(500).optional(),
      })
      .strict(),
    summary: "grouping proposals of a source, in capture order",
    params: Id,
    response: contracts.GetSourcesByIdProposalsAnswer,
    handler: (req, ctx, actor, { query: q, params }) => listProposals(ctx, actor, { sourceId: params.id, ...q }),
  }),
  route({ method: "GET", url: "/api/proposals/:id", action: "catalogue.read", summary: "one grouping proposal", params: Id, response: contracts.ProposalView, handler: (req, ctx, actor, { params }) => getProposal(ctx, actor, params.id) }),
  route({
    method: "POST",
    url: "/api/proposals/:id/accept",
    action: "catalogue.group",
    summary: "accept a proposal: a body is created with its photos and numbers",
    params: Id,
    response: contracts.BodyDetail,
    handler: (req, ctx, actor, { params }) => acceptProposal(ctx, actor, { proposalId: params.id }),
  }),
  route({
    method: "POST",
    url: "/api/proposals/accept",
    action: "catalogue.group",
    summary: "accept several proposals at once (all or none)",
    body: usecase(contracts.AcceptProposalsInput),
    response: contracts.PostProposalsAcceptAnswer,
    handler: (req, ctx, actor, { body }) => acceptProposals(ctx, actor, body),
  }),
  route({
    method: "POST",
    url: "/api/proposals/:id/reject",
    action: "catalogue.group",
    summary: "reject a proposal",
    params: Id,
    body: usecase(contracts.RejectProposalInput, "proposalId"),
    response: contracts.ProposalView,
    handler: (req, ctx, actor, { params, body }) => rejectProposal(ctx, actor, withPath(body as { reason?: string }, { proposalId: params.id })),
  }),
  route({
    method: "POST",
    url: "/api/proposals/:id/split",
    action: "catalogue.group",
    summary: "split a proposal into parts (new proposals)",
    params: Id,
    body: usecase(contracts.SplitProposalInput, "proposalId"),
    response: contracts.PostProposalsByIdSplitAnswer,
    handler: (req, ctx, actor, { params, body }) =>
      splitProposal(ctx, actor, withPath(body, { proposalId: params.id })),
  }),
  route({
    method: "POST",
    url: "/api/proposals/merge",
    action: "catalogue.group",
    summary: "merge proposals into one",
    body: usecase(contracts.MergeProposalsInput),
    response: contracts.ProposalView,
    handler: (req, ctx, actor, { body }) => mergeProposals(ctx, actor, body),
  }),

  route({
    method: "GET",
    url: "/api/entities",
    action: "catalogue.read",
    query: z.object({ kind: z.enum(ENTITY_KINDS).optional(), q: z.string().max(200).optional(), after: z.string().max(64).optional(), limit: z.coerce.number().int().min(1).max(500).optional() }).strict(),
    summary: "facilities, units, hospitals and persons of interest",
    response: contracts.GetEntitiesAnswer,
    handler: (_req, ctx, actor, { query: q }) => listEntities(ctx, actor, q),
  }),
  route({
    method: "POST",
    url: "/api/entities",
    action: "catalogue.edit",
    summary: "add a facility, unit, hospital or person of interest",
    body: usecase(contracts.NewEntityInput),
    response: contracts.EntityView,
    handler: (req, ctx, actor, { body }) => createEntity(ctx, actor, body),
  }),
  route({ method: "GET", url: "/api/entities/:id", action: "catalogue.read", summary: "one entity with its chain of command", params: Id, response: contracts.EntityDetail, handler: (req, ctx, actor, { params }) => getEntity(ctx, actor, params.id) }),
  route({
    method: "PUT",
    url: "/api/entities/:id",
    action: "catalogue.edit",
    summary: "change an entity's fields (only those given)",
    params: Id,
    body: usecase(contracts.UpdateEntityInput, "id"),
    response: contracts.EntityView,
    handler: (req, ctx, actor, { params, body }) => updateEntity(ctx, actor, withPath(body, { id: params.id })),
  }),
  route({
    method: "GET",
    url: "/api/entities/:id/links",
    action: "catalogue.read",
    summary: "links of an entity, with their evidence",
    params: Id,
    response: contracts.GetEntitiesByIdLinksAnswer,
    handler: async (req, ctx, actor, { params }) => {
      const e = await getEntity(ctx, actor, params.id);
      return linksOf(ctx, actor, { recordId: e.id });
    },
  }),
  route({
    method: "POST",
    url: "/api/links",
    action: "catalogue.edit",
    summary: "link a body or entity to another, with the evidence and reasoning",
    body: usecase(contracts.NewLinkInput),
    response: contracts.LinkView,
    handler: (req, ctx, actor, { body }) =>
      createLink(
        ctx,
        actor,
        body,
      ),
  }),
  route({
    method: "PUT",
    url: "/api/links/:id",
    action: "catalogue.edit",
    summary: "change a link's evidence, reasoning or confidence",
    params: Id,
    body: usecase(contracts.UpdateLinkInput, "id"),
    response: contracts.LinkView,
    handler: (req, ctx, actor, { params, body }) =>
      updateLink(ctx, actor, withPath(body, { id: params.id })),
  }),
  route({
    method: "POST",
    url: "/api/links/:id/retract",
    action: "catalogue.edit",
    summary: "retract a link (it stays on record with the reason)",
    params: Id,
    body: usecase(contracts.RetractLinkInput, "id"),
    response: contracts.LinkView,
    handler: (req, ctx, actor, { params, body }) => retractLink(ctx, actor, withPath(body, { id: params.id })),
  }),

  route({
    method: "GET",
    url: "/api/vocabularies",
    action: "catalogue.read",
    query: z.object({ vocabulary: z.string().max(40).optional(), retired: z.enum(["true", "false"]).optional() }).strict(),
    summary: "the controlled vocabularies, bilingual",
    response: contracts.GetVocabulariesAnswer,
    handler: (_req, ctx, actor, { query: q }) => listVocabulary(ctx, actor, { vocabulary: q.vocabulary, includeRetired: q.retired === "true" }),
  }),
  route({
    method: "POST",
    url: "/api/vocabularies/:vocabulary",
    action: "vocabulary.manage",
    summary: "add a term to a vocabulary",
    params: z.object({ vocabulary: z.string().max(40) }),
    body: usecase(contracts.AddTermInput, "vocabulary"),
    response: contracts.Term,
    handler: (req, ctx, actor, { params, body }) => {
      const b = body;
      return addVocabularyTerm(ctx, actor, withPath(b, { vocabulary: params.vocabulary }));
    },
  }),
  route({
    method: "PUT",
    url: "/api/vocabularies/:vocabulary/:code",
    action: "vocabulary.manage",
    summary: "correct a term's labels, or retire or restore it",
    params: z.object({ vocabulary: z.string().max(40), code: z.string().max(40) }),
    body: usecase(contracts.UpdateTermInput, "vocabulary", "code"),
    response: contracts.Term,
    handler: (req, ctx, actor, { params, body }) => {
      const p = params;
      const b = body;
      return updateVocabularyTerm(ctx, actor, withPath(b, p));
    },
  }),

  route({
    method: "POST",
    url: "/api/catalogue/import",
    action: "catalogue.import",
    bodyLimit: 64 * 1024 * 1024,
    summary: "import bodies from CSV text (all or nothing; 422 with every rejected row and why)",
    body: usecase(contracts.ImportCsvInput),
    response: contracts.ImportReport,
    handler: async (req, ctx, actor, { body }, reply) => {
      const b = body;
      const report = await importBodiesCsv(ctx, actor, b);
      if (!report.ok) reply.status(422);
      return report;
    },
  }),
  route({
    method: "POST",
    url: "/api/catalogue/documents/import",
    action: "catalogue.import",
    bodyLimit: 64 * 1024 * 1024,
    summary: "attach the numbers and names a document gives (CSV text, with the source's name) to the bodies its rows name (all or nothing; 422 with every refused row and why)",
    body: usecase(contracts.ImportDocumentsInput),
    response: contracts.DocumentsImportReport,
    handler: async (req, ctx, actor, { body }, reply) => {
      const report = await importBodyDocuments(ctx, actor, body);
      if (!report.ok) reply.status(422);
      return report;
    },
  }),
  route({
    method: "GET",
    url: "/api/catalogue/export",
    action: "catalogue.export",
    query: z.object({ bom: z.enum(["true", "false"]).optional() }).strict(),
    summary: "every body as CSV (an export event in the custody log)",
    response: bytes("application/octet-stream"),
    handler: async (_req, ctx, actor, { query: q }, reply) => {
      const { csv, sha256 } = await exportBodiesCsv(ctx, actor, { bom: q.bom !== "false" });
      reply.header("content-type", "text/csv; charset=utf-8");
      reply.header("content-disposition", 'attachment; filename="dalil-bodies.csv"');
      reply.header("x-content-sha256", sha256);
      return csv;
    },
  }),
];
