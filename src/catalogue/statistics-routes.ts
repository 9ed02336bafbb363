import { z } from "zod";
import { route, type RouteSpec } from "../http/route-spec.ts";
import { MAX_MIN_COUNT, readStatistics } from "./statistics.ts";
import * as contracts from "./contracts.ts";

/** The statistics a report quotes (bodies, photos, facilities; by branch, hospital, month, finding) over HTTP. */
export const STATISTICS_ROUTES: readonly RouteSpec[] = [
  route({
    method: "GET",
    url: "/api/statistics",
    action: "catalogue.read",
    query: z.object({ minCount: z.coerce.number().int().min(0).max(MAX_MIN_COUNT).optional() }).strict(),
    summary: "counts of bodies, photos and facilities; bodies by branch, hospital, month and finding (small cells withheld on request)",
    response: contracts.Statistics,
    handler: (_req, ctx, actor, { query: q }) => readStatistics(ctx, actor, q.minCount === undefined ? {} : { minCount: q.minCount }),
  }),
];
