import { z } from "zod";
import { bytes, optionalBody, route, usecase, withPath, type RouteSpec } from "../http/route-spec.ts";
import { approveExhibition, createExhibition, listExhibitions, publishExhibition, returnToDraft, showExhibition, submitExhibition, updateExhibition, withdrawExhibition } from "./exhibitions.ts";
import { addItem, addRegion, orderItems, removeItem, removeRegion, reviewItem, updateItem } from "./items.ts";
import { previewItem, publishedFile } from "./publication.ts";
import { acceptSuggestion, discardSuggestion, enqueueFaceSuggestions, listSuggestions } from "./suggestions.ts";
import * as contracts from "./contracts.ts";

/** Exhibitions over HTTP: the curators' API and the public pages. Thin shells over the use cases. */
const Id = z.object({ id: z.string().min(1).max(64) });
const Item = z.object({ item: z.string().min(1).max(64) });
const PublicPath = z.object({ ref: z.string().regex(/^X-\d{4,}$/i, "an exhibition reference such as X-0001"), file: z.string().regex(/^(?:[a-z]{2}(?:-text)?\.html|style\.css|manifest\.json|VERIFY\.txt|index\.html)$/) });

const step = (url: string, action: "exhibition.edit" | "exhibition.review" | "exhibition.publish", summary: string, fn: typeof submitExhibition) =>
  route({ method: "POST", url, action, summary, params: Id, body: optionalBody(z.object({}).strict()), response: contracts.ExhibitionSummary, handler: (_req, ctx, actor, { params }) => fn(ctx, actor, params.id) });

export const EXHIBITION_ROUTES: readonly RouteSpec[] = [
  route({ method: "GET", url: "/api/exhibitions", action: "exhibition.read", summary: "exhibitions in every state, newest first", response: contracts.GetExhibitionsAnswer, handler: (_req, ctx, actor) => listExhibitions(ctx, actor) }),
  route({
    method: "POST",
    url: "/api/exhibitions",
    action: "exhibition.edit",
    summary: "create an exhibition (titles and statements in its languages)",
    body: usecase(contracts.CreateExhibitionInput),
    response: contracts.ExhibitionSummary,
    handler: (_req, ctx, actor, { body }) => createExhibition(ctx, actor, body),
  }),
  route({ method: "GET", url: "/api/exhibitions/:id", action: "exhibition.read", summary: "an exhibition with its items, regions, reviews and consent", params: Id, response: contracts.ExhibitionView, handler: (_req, ctx, actor, { params }) => showExhibition(ctx, actor, params.id) }),
  route({
    method: "PUT",
    url: "/api/exhibitions/:id",
    action: "exhibition.edit",
    summary: "change a draft's titles, statements or languages",
    params: Id,
    body: usecase(contracts.UpdateExhibitionInput, "id"),
    response: contracts.ExhibitionSummary,
    handler: (_req, ctx, actor, { params, body }) => updateExhibition(ctx, actor, withPath(body, { id: params.id })),
  }),
  route({
    method: "POST",
    url: "/api/exhibitions/:id/items",
    action: "exhibition.edit",
    summary: "add a photo, a body's photo or a text panel to a draft",
    params: Id,
    body: usecase(contracts.AddItemInput, "exhibition"),
    response: contracts.ExhibitionItem,
    handler: (_req, ctx, actor, { params, body }) => addItem(ctx, actor, withPath(body, { exhibition: params.id })),
  }),
  route({
    method: "POST",
    url: "/api/exhibitions/:id/order",
    action: "exhibition.edit",
    summary: "put a draft's items in this order",
    params: Id,
    body: usecase(contracts.OrderItemsInput, "exhibition"),
    response: contracts.OrderedItems,
    handler: (_req, ctx, actor, { params, body }) => orderItems(ctx, actor, withPath(body, { exhibition: params.id })),
  }),
  step("/api/exhibitions/:id/submit", "exhibition.edit", "submit a draft for review by a second person", submitExhibition),
  step("/api/exhibitions/:id/return", "exhibition.edit", "return an exhibition to draft for changes", returnToDraft),
  step("/api/exhibitions/:id/approve", "exhibition.review", "approve an exhibition whose every item is reviewed (never one's own)", approveExhibition),
  step("/api/exhibitions/:id/publish", "exhibition.publish", "publish an approved exhibition (refused while an item is unreviewed or lacks consent)", publishExhibition),
  step("/api/exhibitions/:id/withdraw", "exhibition.publish", "withdraw a published exhibition", withdrawExhibition),
  route({
    method: "PUT",
    url: "/api/exhibition-items/:item",
    action: "exhibition.edit",
    summary: "an item's captions, content warning and redaction layers",
    params: Item,
    body: usecase(contracts.UpdateItemInput, "item"),
    response: contracts.ExhibitionItem,
    handler: (_req, ctx, actor, { params, body }) => updateItem(ctx, actor, withPath(body, { item: params.item })),
  }),
  route({
    method: "POST",
    url: "/api/exhibition-items/:item/remove",
    action: "exhibition.edit",
    summary: "remove an item from a draft",
    params: Item,
    body: optionalBody(z.object({}).strict()),
    response: contracts.Removed,
    handler: async (_req, ctx, actor, { params }) => {
      await removeItem(ctx, actor, params.item);
      return { ok: true as const };
    },
  }),
  route({
    method: "POST",
    url: "/api/exhibition-items/:item/regions",
    action: "exhibition.edit",
    summary: "a region of one layer on a photo item (pixels of the upright image)",
    params: Item,
    body: usecase(contracts.AddRegionInput, "item"),
    response: contracts.ExhibitionRegion,
    handler: (_req, ctx, actor, { params, body }) => addRegion(ctx, actor, withPath(body, { item: params.item })),
  }),
  route({
    method: "POST",
    url: "/api/exhibition-regions/:id/remove",
    action: "exhibition.edit",
    summary: "remove a region from a draft's item",
    params: Id,
    body: optionalBody(z.object({}).strict()),
    response: contracts.Removed,
    handler: async (_req, ctx, actor, { params }) => {
      await removeRegion(ctx, actor, params.id);
      return { ok: true as const };
    },
  }),
  route({
    method: "GET",
    url: "/api/exhibition-items/:item/suggestions",
    action: "exhibition.read",
    summary: "faces the detector suggests on a photo item, waiting for a curator to accept or discard them (not regions)",
    params: Item,
    response: z.array(contracts.ExhibitionSuggestion),
    handler: (_req, ctx, actor, { params }) => listSuggestions(ctx, actor, params.item),
  }),
  route({
    method: "POST",
    url: "/api/exhibition-items/:item/suggestions",
    action: "exhibition.edit",
    summary: "look for faces on a draft's photo item at 0/90/180/270° (a job; follow it at /api/jobs/:id)",
    params: Item,
    body: optionalBody(z.object({}).strict()),
    response: contracts.FaceSuggestJob,
    handler: (_req, ctx, actor, { params }) => enqueueFaceSuggestions(ctx, actor, params.item),
  }),
  route({
    method: "POST",
    url: "/api/exhibition-suggestions/:id/accept",
    action: "exhibition.edit",
    summary: "keep a suggested face: it becomes a faces region (logged as every region is)",
    params: Id,
    body: optionalBody(z.object({}).strict()),
    response: contracts.ExhibitionRegion,
    handler: (_req, ctx, actor, { params }) => acceptSuggestion(ctx, actor, params.id),
  }),
  route({
    method: "POST",
    url: "/api/exhibition-suggestions/:id/discard",
    action: "exhibition.edit",
    summary: "discard a suggested face (nothing is hidden)",
    params: Id,
    body: optionalBody(z.object({}).strict()),
    response: contracts.Removed,
    handler: async (_req, ctx, actor, { params }) => {
      await discardSuggestion(ctx, actor, params.id);
      return { ok: true as const };
    },
  }),
  route({
    method: "POST",
    url: "/api/exhibition-items/:item/review",
    action: "exhibition.review",
    summary: "confirm an item's redaction, captions and warning as they stand (the second person)",
    params: Item,
    body: usecase(contracts.ReviewItemInput, "item"),
    response: contracts.ExhibitionItem,
    handler: (_req, ctx, actor, { params, body }) => reviewItem(ctx, actor, withPath(body, { item: params.item })),
  }),
  route({
    method: "GET",
    url: "/api/exhibition-items/:item/preview",
    action: "exhibition.read",
    summary: "the item's image as it would be published now (layers applied, no metadata)",
    params: Item,
    response: bytes("image/jpeg"),
    handler: async (_req, ctx, actor, { params }, reply) => {
      const p = await previewItem(ctx, actor, params.item);
      return reply.header("content-type", "image/jpeg").header("cache-control", "private, no-store").send(p.bytes);
    },
  }),
  // The public pages: what the static export holds, served live (consent read on every request).
  route({
    method: "GET",
    url: "/exhibitions/:ref/",
    action: "public",
    summary: "a published exhibition's door page (content warning, ways in)",
    params: z.object({ ref: PublicPath.shape.ref }),
    response: bytes("text/html"),
    handler: async (_req, ctx, _actor, { params }, reply) => {
      const f = await publishedFile(ctx, params.ref, "index.html");
      return reply.header("content-type", f.contentType).header("cache-control", "no-cache").send(f.bytes);
    },
  }),
  route({
    method: "GET",
    url: "/exhibitions/:ref/:file",
    action: "public",
    summary: "a published exhibition's page, style sheet, manifest or VERIFY.txt",
    params: PublicPath,
    response: bytes("text/html"),
    handler: async (_req, ctx, _actor, { params }, reply) => {
      const f = await publishedFile(ctx, params.ref, params.file);
      return reply.header("content-type", f.contentType).header("cache-control", "no-cache").send(f.bytes);
    },
  }),
  route({
    method: "GET",
    url: "/exhibitions/:ref/images/:file",
    action: "public",
    summary: "a published exhibition's image (a clean copy: redacted, no metadata)",
    params: z.object({ ref: PublicPath.shape.ref, file: z.string().regex(/^\d{3,}\.jpg$/) }),
    response: bytes("image/jpeg"),
    handler: async (_req, ctx, _actor, { params }, reply) => {
      const f = await publishedFile(ctx, params.ref, `images/${params.file}`);
      return reply.header("content-type", f.contentType).header("cache-control", "no-cache").send(f.bytes);
    },
  }),
];
