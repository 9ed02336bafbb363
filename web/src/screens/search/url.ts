import type * as server from "../../../../src/catalogue/contracts.ts";
import { FACETS, type FacetName, type Same } from "../../api/types/search.ts";

/**
 * Everything a search shows lives in its URL (/search?q=…&branch=215&branch=227&view=grid&after=…), so a
 * colleague who opens a shared link sees the same results, and back and forward step through a session.
 */
export const VIEWS = ["list", "grid"] as const;
export type View = (typeof VIEWS)[number];
export const SORTS = ["ref", "-ref", "photo_date", "-photo_date", "updated", "-updated"] as const;
export type Sort = (typeof SORTS)[number];
/** The server's orders (its contract's SORTS): a copy that drifts fails the typecheck. */
export const sortsAreTheServers: Same<Sort, (typeof server.SORTS)[number]> = true;

export interface SearchState {
  q: string;
  filters: Record<FacetName, string[]>;
  view: View;
  sort: Sort;
  /** The page cursor the server handed out (absent: the first page). */
  after: string | null;
}

export function readState(search: URLSearchParams): SearchState {
  const filters = Object.fromEntries(FACETS.map((f) => [f, [...new Set(search.getAll(f).filter(Boolean))]])) as Record<FacetName, string[]>;
  const view = search.get("view");
  const sort = search.get("sort");
  return {
    q: search.get("q") ?? "",
    filters,
    view: (VIEWS as readonly string[]).includes(view ?? "") ? (view as View) : "list",
    sort: (SORTS as readonly string[]).includes(sort ?? "") ? (sort as Sort) : "ref",
    after: search.get("after") || null,
  };
}

/** The screen's URL for a state (defaults left out, so links stay short). */
export function hrefOf(s: SearchState): string {
  const p = new URLSearchParams();
  if (s.q.trim()) p.set("q", s.q);
  for (const f of FACETS) for (const v of s.filters[f]) p.append(f, v);
  if (s.sort !== "ref") p.set("sort", s.sort);
  if (s.view !== "list") p.set("view", s.view);
  if (s.after) p.set("after", s.after);
  const qs = p.toString();
  return qs ? `/search?${qs}` : "/search";
}

/** The API's query: facet values comma-joined (codes and months hold no commas). */
export function toQuery(s: SearchState): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = { q: s.q.trim() || undefined, sort: s.sort === "ref" ? undefined : s.sort, after: s.after ?? undefined };
  for (const f of FACETS) if (s.filters[f].length) out[f] = s.filters[f].join(",");
  return out;
}

/** The same search with one facet value switched on or off, from the first page. */
export function toggled(s: SearchState, facet: FacetName, value: string): SearchState {
  const now = s.filters[facet];
  const next = now.includes(value) ? now.filter((v) => v !== value) : [...now, value];
  return { ...s, filters: { ...s.filters, [facet]: next }, after: null };
}

/** The key the results were fetched for: what decides whether the shown results are current. */
export function resultKey(s: SearchState): string {
  return JSON.stringify(toQuery(s));
}
