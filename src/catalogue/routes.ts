import { z } from "zod";
import type { RegisterRoute } from "../http/app.ts";
import { editBody, getBody, mergeBodies, readBodies, setPhotoRole, splitBody, EDITABLE_FIELDS } from "./bodies.ts";
import { addNumber, checkNumber, retireNumber, NUMBER_ROLES } from "./numbers.ts";
import { acceptProposal, acceptProposals, getProposal, listProposals, mergeProposals, proposeGroupings, readingsOf, rejectProposal, splitProposal } from "./proposals.ts";
import { createEntity, getEntity, listEntities, updateEntity } from "./entities.ts";
import { createLink, linksOf, retractLink, updateLink } from "./links.ts";
import { addVocabularyTerm, listVocabulary, updateVocabularyTerm } from "./vocabularies.ts";
import { recordHistory } from "./history.ts";
import { searchBodies, SORTS } from "./search.ts";
import { exportBodiesCsv, importBodiesCsv } from "./csv-import.ts";
import { ENTITY_KINDS, EVIDENCE_KINDS, IDENTIFICATION_STATUSES, LINK_CONFIDENCES, SEXES } from "./records.ts";
import type { Sensitivity } from "../access/index.ts";

/**
 * The catalogue over HTTP: thin shells over the use cases, which ask the policy themselves. Reads of bodies
 * carry no image bytes; photos are SHA-256 references, served (blurred or revealed) by the archive routes.
 */
const SENSITIVITY = ["public", "internal", "restricted", "confidential"] as const satisfies readonly Sensitivity[];
const Id = z.object({ id: z.string().min(1).max(64) });
const Sha = z.string().regex(/^[0-9a-f]{64}$/, "must be a SHA-256 in lowercase hex");

/** A facet filter: repeated parameters (?branch=215&branch=227) or one comma-separated value. */
const many = z
  .union([z.string().max(2000), z.array(z.string().max(200)).max(50)])
  .optional()
  .transform((v) => (v === undefined ? undefined : (Array.isArray(v) ? v : [v]).flatMap((s) => s.split(",")).map((s) => s.trim()).filter(Boolean)));

export const SearchParams = z
  .object({
    q: z.string().max(1000).optional(),
    branch: many,
    hospital: many,
    period: many,
    finding: many,
    review: many,
    identification: many,
    sex: many,
    sort: z.enum(SORTS).optional(),
    after: z.string().max(500).optional(),
    limit: z.coerce.number().int().min(1).max(200).optional(),
    facets: z
      .enum(["true", "false", "1", "0"])
      .optional()
      .transform((v) => (v === undefined ? undefined : v === "true" || v === "1")),
  })
  .strict();

const nullableText = (max: number) => z.string().max(max).nullable().optional();
const MarkInput = z
  .object({ type: z.string().max(40), region: z.string().max(40).nullable().optional(), description: z.string().max(500) })
  .strict()
  .transform((m) => ({ type: m.type, region: m.region ?? null, description: m.description }));

const BodyEdit = z
  .object({
    version: z.number().int().optional(),
    externalRef: nullableText(100),
    hospital: nullableText(200),
    photoDate: nullableText(40),
    deathDate: nullableText(80),
    sex: z.enum(SEXES).nullable().optional(),
    ageMin: z.number().int().nullable().optional(),
    ageMax: z.number().int().nullable().optional(),
    marks: z.array(MarkInput).max(50).optional(),
    clothing: nullableText(4000),
    injuries: z.array(z.string().max(100)).max(50).optional(),
    identificationStatus: z.enum(IDENTIFICATION_STATUSES).optional(),
    nameAr: nullableText(300),
    nameLat: nullableText(300),
    notes: nullableText(4000),
    sensitivity: z.enum(SENSITIVITY).optional(),
  })
  .strict();
// Keep the schema and the use case's list of editable fields in step.
void (EDITABLE_FIELDS satisfies readonly (keyof z.infer<typeof BodyEdit>)[]);

const End = z.object({ kind: z.enum(["body", "entity"]), id: z.string().min(1).max(64) }).strict();
const EvidenceInput = z.object({ kind: z.enum(EVIDENCE_KINDS), ref: z.string().min(1).max(500), note: z.string().max(2000).optional() }).strict();

const EntityFields = {
  number: nullableText(40),
  nameAr: nullableText(300),
  nameEn: nullableText(300),
  title: nullableText(300),
  governorate: nullableText(100),
  parentId: z.string().max(64).nullable().optional(),
  commanderId: z.string().max(64).nullable().optional(),
  vocabularyCode: nullableText(100),
  description: nullableText(4000),
  sensitivity: z.enum(SENSITIVITY).optional(),
};

export function registerCatalogueRoutes(route: RegisterRoute): void {
  route({
    method: "GET",
    url: "/api/search",
    action: "catalogue.read",
    query: SearchParams,
    summary: "search bodies: full text (Arabic normalised), facets with counts, keyset pages",
    handler: (_req, ctx, actor, q) => searchBodies(ctx, actor, q),
  });

  route({
    method: "GET",
    url: "/api/bodies",
    action: "catalogue.read",
    query: z.object({ after: z.coerce.number().int().min(0).optional(), limit: z.coerce.number().int().min(1).max(2000).optional() }).strict(),
    summary: "body records in reference order (keyset pages)",
    handler: (_req, ctx, actor, q) => readBodies(ctx, actor, q),
  });
  route({
    method: "GET",
    url: "/api/bodies/:id",
    action: "catalogue.read",
    summary: "one body (by id or reference B-000123) with its photos (references only) and numbers",
    handler: (req, ctx, actor) => getBody(ctx, actor, Id.parse(req.params).id),
  });
  route({
    method: "PUT",
    url: "/api/bodies/:id",
    action: "catalogue.edit",
    summary: "change a body's fields (only those given); every change is kept with its old value",
    handler: (req, ctx, actor) => editBody(ctx, actor, { ...BodyEdit.parse(req.body), id: Id.parse(req.params).id }),
  });
  route({
    method: "GET",
    url: "/api/bodies/:id/history",
    action: "catalogue.read",
    summary: "a body's history: every field change with old and new value, who and when",
    handler: async (req, ctx, actor) => {
      const body = await getBody(ctx, actor, Id.parse(req.params).id);
      return recordHistory(ctx, actor, body.id);
    },
  });
  route({
    method: "GET",
    url: "/api/bodies/:id/links",
    action: "catalogue.read",
    query: z.object({ retracted: z.enum(["true", "false"]).optional() }).strict(),
    summary: "links of a body to entities and other bodies, with their evidence",
    handler: async (req, ctx, actor, q) => {
      const body = await getBody(ctx, actor, Id.parse(req.params).id);
      return linksOf(ctx, actor, { recordId: body.id, includeRetracted: q.retracted === "true" });
    },
  });
  route({
    method: "POST",
    url: "/api/bodies/:id/split",
    action: "catalogue.group",
    summary: "move some of a body's photos (and the numbers read from them) to a new body",
    handler: (req, ctx, actor) => {
      const b = z.object({ photos: z.array(Sha).min(1).max(500), reason: z.string().max(500).optional() }).strict().parse(req.body);
      return splitBody(ctx, actor, { bodyId: Id.parse(req.params).id, ...b });
    },
  });
  route({
    method: "POST",
    url: "/api/bodies/merge",
    action: "catalogue.group",
    summary: "merge two body records that show one person (the absorbed record stays, pointing to the kept one)",
    handler: (req, ctx, actor) =>
      mergeBodies(ctx, actor, z.object({ keep: z.string().min(1).max(64), absorb: z.string().min(1).max(64), reason: z.string().max(500).optional() }).strict().parse(req.body)),
  });
  route({
    method: "PUT",
    url: "/api/bodies/:id/photos/:sha256",
    action: "catalogue.edit",
    summary: "set the role of one of a body's photos (card, face, full, detail, other)",
    handler: (req, ctx, actor) => {
      const p = z.object({ id: z.string().min(1).max(64), sha256: Sha }).parse(req.params);
      const b = z.object({ role: z.string().min(1).max(40) }).strict().parse(req.body);
      return setPhotoRole(ctx, actor, { bodyId: p.id, sha256: p.sha256, role: b.role });
    },
  });
  route({
    method: "POST",
    url: "/api/bodies/:id/numbers",
    action: "catalogue.edit",
    summary: "type a number read on a body's photo or a document; it awaits a second person's check",
    handler: (req, ctx, actor) => {
      const b = z.object({ role: z.enum(NUMBER_ROLES), value: z.string().min(1).max(40), sourceSha256: Sha.nullable().optional() }).strict().parse(req.body);
      return addNumber(ctx, actor, { bodyId: Id.parse(req.params).id, ...b });
    },
  });
  route({
    method: "POST",
    url: "/api/numbers/:id/check",
    action: "catalogue.check",
    summary: "second-person check of a number: agree, or give the corrected value",
    handler: (req, ctx, actor) => {
      const b = z.object({ agree: z.boolean(), correctedValue: z.string().min(1).max(40).optional() }).strict().parse(req.body);
      return checkNumber(ctx, actor, { numberId: Id.parse(req.params).id, ...b });
    },
  });
  route({
    method: "POST",
    url: "/api/numbers/:id/retire",
    action: "catalogue.edit",
    summary: "withdraw a number entered in error (it stays on record with the reason)",
    handler: (req, ctx, actor) => retireNumber(ctx, actor, { numberId: Id.parse(req.params).id, ...z.object({ reason: z.string().min(1).max(500) }).strict().parse(req.body) }),
  });
  route({
    method: "GET",
    url: "/api/photos/:sha256/readings",
    action: "catalogue.read",
    summary: "what the card reader read on a photo, per run",
    handler: (req, ctx, actor) => readingsOf(ctx, actor, z.object({ sha256: Sha }).parse(req.params).sha256),
  });

  route({
    method: "POST",
    url: "/api/sources/:id/proposals",
    action: "catalogue.group",
    summary: "read the cards of a source's photos and propose bodies (a job; follow it at /api/jobs/:id)",
    handler: (req, ctx, actor) => proposeGroupings(ctx, actor, { sourceId: Id.parse(req.params).id }),
  });
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
    handler: (req, ctx, actor, q) => listProposals(ctx, actor, { sourceId: Id.parse(req.params).id, ...q }),
  });
  route({ method: "GET", url: "/api/proposals/:id", action: "catalogue.read", summary: "one grouping proposal", handler: (req, ctx, actor) => getProposal(ctx, actor, Id.parse(req.params).id) });
  route({
    method: "POST",
    url: "/api/proposals/:id/accept",
    action: "catalogue.group",
    summary: "accept a proposal: a body is created with its photos and numbers",
    handler: (req, ctx, actor) => acceptProposal(ctx, actor, { proposalId: Id.parse(req.params).id }),
  });
  route({
    method: "POST",
    url: "/api/proposals/accept",
    action: "catalogue.group",
    summary: "accept several proposals at once (all or none)",
    handler: (req, ctx, actor) => acceptProposals(ctx, actor, z.object({ proposalIds: z.array(z.string().max(64)).min(1).max(2000) }).strict().parse(req.body)),
  });
  route({
    method: "POST",
    url: "/api/proposals/:id/reject",
    action: "catalogue.group",
    summary: "reject a proposal",
    handler: (req, ctx, actor) => rejectProposal(ctx, actor, { proposalId: Id.parse(req.params).id, ...z.object({ reason: z.string().max(500).optional() }).strict().parse(req.body ?? {}) }),
  });
  route({
    method: "POST",
    url: "/api/proposals/:id/split",
    action: "catalogue.group",
    summary: "split a proposal into parts (new proposals)",
    handler: (req, ctx, actor) =>
      splitProposal(ctx, actor, { proposalId: Id.parse(req.params).id, ...z.object({ parts: z.array(z.array(Sha).max(500)).min(2).max(50) }).strict().parse(req.body) }),
  });
  route({
    method: "POST",
    url: "/api/proposals/merge",
    action: "catalogue.group",
    summary: "merge proposals into one",
    handler: (req, ctx, actor) => mergeProposals(ctx, actor, z.object({ proposalIds: z.array(z.string().max(64)).min(2).max(50) }).strict().parse(req.body)),
  });

  route({
    method: "GET",
    url: "/api/entities",
    action: "catalogue.read",
    query: z.object({ kind: z.enum(ENTITY_KINDS).optional(), q: z.string().max(200).optional(), after: z.string().max(64).optional(), limit: z.coerce.number().int().min(1).max(500).optional() }).strict(),
    summary: "facilities, units, hospitals and persons of interest",
    handler: (_req, ctx, actor, q) => listEntities(ctx, actor, q),
  });
  route({
    method: "POST",
    url: "/api/entities",
    action: "catalogue.edit",
    summary: "add a facility, unit, hospital or person of interest",
    handler: (req, ctx, actor) => createEntity(ctx, actor, z.object({ kind: z.enum(ENTITY_KINDS), ...EntityFields }).strict().parse(req.body)),
  });
  route({ method: "GET", url: "/api/entities/:id", action: "catalogue.read", summary: "one entity with its chain of command", handler: (req, ctx, actor) => getEntity(ctx, actor, Id.parse(req.params).id) });
  route({
    method: "PUT",
    url: "/api/entities/:id",
    action: "catalogue.edit",
    summary: "change an entity's fields (only those given)",
    handler: (req, ctx, actor) => updateEntity(ctx, actor, { ...z.object({ version: z.number().int().optional(), ...EntityFields }).strict().parse(req.body), id: Id.parse(req.params).id }),
  });
  route({
    method: "GET",
    url: "/api/entities/:id/links",
    action: "catalogue.read",
    summary: "links of an entity, with their evidence",
    handler: async (req, ctx, actor) => {
      const e = await getEntity(ctx, actor, Id.parse(req.params).id);
      return linksOf(ctx, actor, { recordId: e.id });
    },
  });
  route({
    method: "POST",
    url: "/api/links",
    action: "catalogue.edit",
    summary: "link a body or entity to another, with the evidence and reasoning",
    handler: (req, ctx, actor) =>
      createLink(
        ctx,
        actor,
        z
          .object({ type: z.string().min(1).max(40), from: End, to: End, evidence: z.array(EvidenceInput).min(1).max(100), reasoning: z.string().min(1).max(8000), confidence: z.enum(LINK_CONFIDENCES).optional() })
          .strict()
          .parse(req.body),
      ),
  });
  route({
    method: "PUT",
    url: "/api/links/:id",
    action: "catalogue.edit",
    summary: "change a link's evidence, reasoning or confidence",
    handler: (req, ctx, actor) =>
      updateLink(ctx, actor, {
        ...z.object({ evidence: z.array(EvidenceInput).min(1).max(100).optional(), reasoning: z.string().max(8000).optional(), confidence: z.enum(LINK_CONFIDENCES).optional(), version: z.number().int().optional() }).strict().parse(req.body),
        id: Id.parse(req.params).id,
      }),
  });
  route({
    method: "POST",
    url: "/api/links/:id/retract",
    action: "catalogue.edit",
    summary: "retract a link (it stays on record with the reason)",
    handler: (req, ctx, actor) => retractLink(ctx, actor, { id: Id.parse(req.params).id, ...z.object({ reason: z.string().min(1).max(2000) }).strict().parse(req.body) }),
  });

  route({
    method: "GET",
    url: "/api/vocabularies",
    action: "catalogue.read",
    query: z.object({ vocabulary: z.string().max(40).optional(), retired: z.enum(["true", "false"]).optional() }).strict(),
    summary: "the controlled vocabularies, bilingual",
    handler: (_req, ctx, actor, q) => listVocabulary(ctx, actor, { vocabulary: q.vocabulary, includeRetired: q.retired === "true" }),
  });
  route({
    method: "POST",
    url: "/api/vocabularies/:vocabulary",
    action: "vocabulary.manage",
    summary: "add a term to a vocabulary",
    handler: (req, ctx, actor) => {
      const b = z.object({ code: z.string().min(1).max(40), labelAr: z.string().min(1).max(300), labelEn: z.string().min(1).max(300), parent: z.string().max(40).nullable().optional(), extra: z.record(z.unknown()).optional() }).strict().parse(req.body);
      return addVocabularyTerm(ctx, actor, { vocabulary: z.object({ vocabulary: z.string().max(40) }).parse(req.params).vocabulary, ...b });
    },
  });
  route({
    method: "PUT",
    url: "/api/vocabularies/:vocabulary/:code",
    action: "vocabulary.manage",
    summary: "correct a term's labels, or retire or restore it",
    handler: (req, ctx, actor) => {
      const p = z.object({ vocabulary: z.string().max(40), code: z.string().max(40) }).parse(req.params);
      const b = z.object({ labelAr: z.string().max(300).optional(), labelEn: z.string().max(300).optional(), retired: z.boolean().optional(), extra: z.record(z.unknown()).optional() }).strict().parse(req.body);
      return updateVocabularyTerm(ctx, actor, { ...p, ...b });
    },
  });

  route({
    method: "POST",
    url: "/api/catalogue/import",
    action: "catalogue.import",
    bodyLimit: 64 * 1024 * 1024,
    summary: "import bodies from CSV text (all or nothing; 422 with every rejected row and why)",
    handler: async (req, ctx, actor, _q, reply) => {
      const b = z.object({ csv: z.string().min(1), dryRun: z.boolean().optional() }).strict().parse(req.body);
      const report = await importBodiesCsv(ctx, actor, b);
      if (!report.ok) reply.status(422);
      return report;
    },
  });
  route({
    method: "GET",
    url: "/api/catalogue/export",
    action: "catalogue.export",
    query: z.object({ bom: z.enum(["true", "false"]).optional() }).strict(),
    summary: "every body as CSV (an export event in the custody log)",
    handler: async (_req, ctx, actor, q, reply) => {
      const { csv, sha256 } = await exportBodiesCsv(ctx, actor, { bom: q.bom !== "false" });
      reply.header("content-type", "text/csv; charset=utf-8");
      reply.header("content-disposition", 'attachment; filename="dalil-bodies.csv"');
      reply.header("x-content-sha256", sha256);
      return csv;
    },
  });
}
