/** The catalogue area's server routes the web app calls (merged into ENDPOINTS in ../endpoints.ts). */
export const CATALOGUE_ENDPOINTS = {
  bodies: { method: "GET", url: "/api/bodies" },
  body: { method: "GET", url: "/api/bodies/:id" },
  editBody: { method: "PUT", url: "/api/bodies/:id" },
  bodyHistory: { method: "GET", url: "/api/bodies/:id/history" },
  bodyLinks: { method: "GET", url: "/api/bodies/:id/links" },
  splitBody: { method: "POST", url: "/api/bodies/:id/split" },
  mergeBodies: { method: "POST", url: "/api/bodies/merge" },
  setPhotoRole: { method: "PUT", url: "/api/bodies/:id/photos/:sha256" },
  addNumber: { method: "POST", url: "/api/bodies/:id/numbers" },
  checkNumber: { method: "POST", url: "/api/numbers/:id/check" },
  retireNumber: { method: "POST", url: "/api/numbers/:id/retire" },
  photoReadings: { method: "GET", url: "/api/photos/:sha256/readings" },
  photoBodies: { method: "GET", url: "/api/photos/:sha256/bodies" },

  proposeGroupings: { method: "POST", url: "/api/sources/:id/proposals" },
  proposals: { method: "GET", url: "/api/sources/:id/proposals" },
  acceptProposal: { method: "POST", url: "/api/proposals/:id/accept" },
  rejectProposal: { method: "POST", url: "/api/proposals/:id/reject" },
  splitProposal: { method: "POST", url: "/api/proposals/:id/split" },
  mergeProposals: { method: "POST", url: "/api/proposals/merge" },

  entities: { method: "GET", url: "/api/entities" },
  createEntity: { method: "POST", url: "/api/entities" },
  entity: { method: "GET", url: "/api/entities/:id" },
  editEntity: { method: "PUT", url: "/api/entities/:id" },
  entityLinks: { method: "GET", url: "/api/entities/:id/links" },
  createLink: { method: "POST", url: "/api/links" },
  retractLink: { method: "POST", url: "/api/links/:id/retract" },

  vocabulary: { method: "GET", url: "/api/vocabularies" },
} as const satisfies Record<string, { method: "GET" | "POST" | "PUT" | "DELETE"; url: string }>;
