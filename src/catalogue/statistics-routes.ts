import { z } from "zod";
import type { RegisterRoute } from "../http/app.ts";
import { MAX_MIN_COUNT, readStatistics } from "./statistics.ts";

/** The statistics a report quotes (bodies, photos, facilities; by branch, hospital, month, finding) over HTTP. */
export function registerStatisticsRoutes(route: RegisterRoute): void {
  route({
    method: "GET",
    url: "/api/statistics",
    action: "catalogue.read",
    query: z.object({ minCount: z.coerce.number().int().min(0).max(MAX_MIN_COUNT).optional() }).strict(),
    summary: "counts of bodies, photos and facilities; bodies by branch, hospital, month and finding (small cells withheld on request)",
    handler: (_req, ctx, actor, q) => readStatistics(ctx, actor, q.minCount === undefined ? {} : { minCount: q.minCount }),
  });
}
