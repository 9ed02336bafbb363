import type * as server from "../../../../src/catalogue/contracts.ts";
/** What GET /api/statistics answers (src/catalogue/statistics.ts). */
export type StatBucket = server.StatBucket;

export const BREAKDOWNS = ["byBranch", "byHospital", "byPhotoMonth", "byDeathMonth", "byFinding"] as const;
export type Breakdown = (typeof BREAKDOWNS)[number];

export type Statistics = server.Statistics;
