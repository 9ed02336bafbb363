import { typedCall } from "../../api/client.ts";
import { toQuery, type SearchState } from "./url.ts";

/** The search area's typed call (the route is in web/src/api/endpoints/search.ts). */
const none = {} as never;

export const searchApi = {
  search: (s: SearchState, limit: number, signal?: AbortSignal) =>
    typedCall("search", none, { query: { ...toQuery(s), limit }, priority: "high", ...(signal ? { signal } : {}) }),
};
