/** The review area's server routes the web app calls (merged into ENDPOINTS in ../endpoints.ts). */
export const REVIEW_ENDPOINTS = {
  reviewDrawSample: { method: "POST", url: "/api/review/samples" },
  reviewSample: { method: "GET", url: "/api/review/samples/:id" },
  reviewAssignSample: { method: "POST", url: "/api/review/samples/:id/assign" },
  reviewMyAssignments: { method: "GET", url: "/api/review/assignments" },
  reviewSubmit: { method: "POST", url: "/api/review/assignments/:id/submit" },
  reviewGet: { method: "GET", url: "/api/review/reviews/:id" },
  reviewsOfBody: { method: "GET", url: "/api/bodies/:id/reviews" },
  reviewDisagreements: { method: "GET", url: "/api/review/disagreements" },
  reviewResolve: { method: "POST", url: "/api/review/items/:id/resolve" },
  reviewStats: { method: "GET", url: "/api/review/stats" },
  // The catalogue's routes the review screens read (named here so this area does not depend on that table).
  reviewBody: { method: "GET", url: "/api/bodies/:id" },
  reviewVocabulary: { method: "GET", url: "/api/vocabularies" },
} as const satisfies Record<string, { method: "GET" | "POST" | "PUT" | "DELETE"; url: string }>;
