import { z } from "zod";
import { bytes, route, usecase, withPath, type RouteSpec } from "../http/route-spec.ts";
import { enqueueAuthenticity } from "./jobs.ts";
import { errorLevel, listAuthenticityRuns, photoAuthenticity, showAuthenticity } from "./runs.ts";
import * as contracts from "./contracts.ts";

const Source = z.object({ source: z.string().min(1).max(200) });
const Sha = z.object({ sha256: z.string().regex(/^[0-9a-f]{64}$/, "must be a SHA-256 in lowercase hex") });

/** Route table of the authenticity module: each route names its action and its contract; the logic is in runs.ts. */
export const AUTHENTICITY_ROUTES: readonly RouteSpec[] = [
  route({
    method: "GET",
    url: "/api/authenticity/runs",
    action: "authenticity.read",
    summary: "analyses of cards, newest first",
    response: z.array(contracts.RunSummary),
    handler: (_req, ctx, actor) => listAuthenticityRuns(ctx, actor),
  }),
  route({
    method: "POST",
    url: "/api/authenticity/sources/:source/runs",
    action: "authenticity.run",
    params: Source,
    body: usecase(contracts.RunAnalysisInput, "source"),
    summary: "queue an analysis of a card's photographs (headers, sequence; content checks unless content=false); the job's result names the run",
    response: contracts.QueuedAnalysis,
    handler: (_req, ctx, actor, { params, body }) => enqueueAuthenticity(ctx, actor, withPath(body, { source: params.source })),
  }),
  route({
    method: "GET",
    url: "/api/authenticity/sources/:source",
    action: "authenticity.read",
    params: Source,
    query: usecase(contracts.ShowAnalysisInput, "source"),
    summary: "the latest analysis of a card (or a named run): cameras, signatures, sequence, findings",
    response: contracts.RunView,
    handler: (_req, ctx, actor, { params, query }) => showAuthenticity(ctx, actor, withPath(query, { source: params.source })),
  }),
  route({
    method: "GET",
    url: "/api/authenticity/photos/:sha256",
    action: "authenticity.read",
    params: Sha,
    summary: "what the latest analysis found about one photo",
    response: contracts.PhotoAuthenticity,
    handler: (_req, ctx, actor, { params }) => photoAuthenticity(ctx, actor, params.sha256),
  }),
  route({
    method: "GET",
    url: "/api/authenticity/photos/:sha256/ela",
    action: "authenticity.ela",
    params: Sha,
    query: usecase(contracts.ErrorLevelInput, "sha256"),
    summary: "an error-level map of one photo (PNG), made on request and logged",
    response: bytes("image/png"),
    handler: async (_req, ctx, actor, { params, query }, reply) => {
      const r = await errorLevel(ctx, actor, withPath(query, { sha256: params.sha256 }));
      reply.header("content-type", "image/png").header("cache-control", "private, no-store");
      return reply.send(r.png);
    },
  }),
];
