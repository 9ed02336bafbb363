import type * as server from "../../../../src/catalogue/contracts.ts";
/** What GET /api/search answers (src/catalogue/search.ts). */
export const FACETS = ["branch", "hospital", "period", "finding", "review", "identification", "sex"] as const;
export type FacetName = (typeof FACETS)[number];

/** True when two unions hold the same members. */
export type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
// The bundle takes no server code, so the lists the screens need are values here; each is checked against the
// server's contract, and a copy that drifts from it fails the typecheck.
export const facetsAreTheServers: Same<FacetName, keyof server.SearchResult["facets"]> = true;

export type SearchHit = server.SearchHit;

export type FacetBucket = server.FacetBucket;

export type SearchResult = server.SearchResult;
