import { z } from "zod";
import type { RegisterRoute } from "../http/app.ts";
import { enqueueAuthenticity } from "./jobs.ts";
import { errorLevel, listAuthenticityRuns, photoAuthenticity, showAuthenticity } from "./runs.ts";

const Source = z.object({ source: z.string().min(1).max(200) });
const Sha = z.object({ sha256: z.string().regex(/^[0-9a-f]{64}$/, "must be a SHA-256 in lowercase hex") });

/** Route table of the authenticity module: each route names its action; the logic is in runs.ts. */
export function registerAuthenticityRoutes(route: RegisterRoute): void {
  route({
    method: "GET",
    url: "/api/authenticity/runs",
    action: "authenticity.read",
    summary: "analyses of cards, newest first",
    handler: (_req, ctx, actor) => listAuthenticityRuns(ctx, actor),
  });
  route({
    method: "POST",
    url: "/api/authenticity/sources/:source/runs",
    action: "authenticity.run",
    summary: "queue an analysis of a card's photographs (headers, sequence; content checks unless content=false); the job's result names the run",
    handler: (req, ctx, actor) => {
      const b = z.object({ content: z.boolean().default(true) }).strict().parse(req.body ?? {});
      return enqueueAuthenticity(ctx, actor, { source: Source.parse(req.params).source, content: b.content });
    },
  });
  route({
    method: "GET",
    url: "/api/authenticity/sources/:source",
    action: "authenticity.read",
    query: z.object({ run: z.string().max(64).optional() }),
    summary: "the latest analysis of a card (or a named run): cameras, signatures, sequence, findings",
    handler: (req, ctx, actor, q) => showAuthenticity(ctx, actor, { source: Source.parse(req.params).source, run: q.run }),
  });
  route({
    method: "GET",
    url: "/api/authenticity/photos/:sha256",
    action: "authenticity.read",
    summary: "what the latest analysis found about one photo",
    handler: (req, ctx, actor) => photoAuthenticity(ctx, actor, Sha.parse(req.params).sha256),
  });
  route({
    method: "GET",
    url: "/api/authenticity/photos/:sha256/ela",
    action: "authenticity.ela",
    query: z.object({ quality: z.coerce.number().int().min(50).max(99).default(90) }),
    summary: "an error-level map of one photo (PNG), made on request and logged",
    handler: async (req, ctx, actor, q, reply) => {
      const r = await errorLevel(ctx, actor, { sha256: Sha.parse(req.params).sha256, quality: q.quality });
      reply.header("content-type", "image/png").header("cache-control", "private, no-store");
      return reply.send(r.png);
    },
  });
}
