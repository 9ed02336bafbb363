/** The families area's server routes the web app calls (merged into ENDPOINTS in ../endpoints.ts). */
export const FAMILIES_ENDPOINTS = {} as const satisfies Record<string, { method: "GET" | "POST" | "PUT" | "DELETE"; url: string }>;
