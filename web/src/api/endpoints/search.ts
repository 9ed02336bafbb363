/** The search area's server routes the web app calls (merged into ENDPOINTS in ../endpoints.ts). */
export const SEARCH_ENDPOINTS = {
  search: { method: "GET", url: "/api/search" },
} as const satisfies Record<string, { method: "GET" | "POST" | "PUT" | "DELETE"; url: string }>;
