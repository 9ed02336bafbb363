import { z } from "zod";
import type { RegisterRoute } from "../http/app.ts";
import { getOriginal, listOriginals } from "./originals.ts";

const ListQuery = z.object({
  status: z.enum(["preserved", "quarantined"]).optional(),
  after: z.string().regex(/^[0-9a-f]{64}$/, "after must be a SHA-256 in lowercase hex").optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});

const Sha = z.object({ sha256: z.string().regex(/^[0-9a-f]{64}$/, "must be a SHA-256 in lowercase hex") });

export function registerArchiveRoutes(route: RegisterRoute): void {
  route({
    method: "GET",
    url: "/api/originals",
    action: "archive.read",
    query: ListQuery,
    summary: "originals, paged by SHA-256",
    handler: (_req, ctx, actor, q) => listOriginals(ctx, actor, q),
  });
  route({
    method: "GET",
    url: "/api/originals/:sha256",
    action: "archive.read",
    summary: "one original with its renditions and sightings",
    handler: (req, ctx, actor) => getOriginal(ctx, actor, Sha.parse(req.params).sha256),
  });
  route({
    method: "GET",
    url: "/api/sources",
    action: "archive.read",
    summary: "source media taken in, with their tallies",
    handler: async (_req, ctx) =>
      ctx.db.db
        .selectFrom("sources")
        .select(["id", "label", "kind", "medium_sha256", "status", "started_at", "finished_at", "files", "ingested", "duplicates", "quarantined", "bytes"])
        .orderBy("started_at", "desc")
        .execute(),
  });
  route({
    method: "GET",
    url: "/api/jobs",
    action: "jobs.read",
    summary: "recent jobs with their progress",
    handler: (_req, ctx) => ctx.jobs.list({ limit: 100 }),
  });
  route({
    method: "GET",
    url: "/api/jobs/:id",
    action: "jobs.read",
    summary: "one job and its progress",
    handler: (req, ctx) => ctx.jobs.get(z.object({ id: z.string().max(64) }).parse(req.params).id),
  });
}
