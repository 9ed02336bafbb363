/** The authenticity area's server routes the web app calls (merged into ENDPOINTS in ../endpoints.ts). */
export const AUTHENTICITY_ENDPOINTS = {
  authenticityRuns: { method: "GET", url: "/api/authenticity/runs" },
  authenticityRun: { method: "POST", url: "/api/authenticity/sources/:source/runs" },
  authenticityCard: { method: "GET", url: "/api/authenticity/sources/:source" },
  authenticityPhoto: { method: "GET", url: "/api/authenticity/photos/:sha256" },
  authenticityEla: { method: "GET", url: "/api/authenticity/photos/:sha256/ela" },
} as const satisfies Record<string, { method: "GET" | "POST" | "PUT" | "DELETE"; url: string }>;
