/** The statistics area's server routes the web app calls (merged into ENDPOINTS in ../endpoints.ts). */
export const STATISTICS_ENDPOINTS = {
  statistics: { method: "GET", url: "/api/statistics" },
} as const satisfies Record<string, { method: "GET" | "POST" | "PUT" | "DELETE"; url: string }>;
