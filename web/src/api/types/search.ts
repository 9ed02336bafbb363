import type * as server from "../../../../src/catalogue/contracts.ts";
/** What GET /api/search answers (src/catalogue/search.ts). */
export const FACETS = ["branch", "hospital", "period", "finding", "review", "identification", "sex"] as const;
export type FacetName = (typeof FACETS)[number];

export type SearchHit = server.SearchHit;

export type FacetBucket = server.FacetBucket;

export type SearchResult = server.SearchResult;
