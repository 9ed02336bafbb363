/** The dossiers area's server routes the web app calls (merged into ENDPOINTS in ../endpoints.ts). */
export const DOSSIERS_ENDPOINTS = {
  dossiers: { method: "GET", url: "/api/dossiers" },
  createDossier: { method: "POST", url: "/api/dossiers" },
  dossier: { method: "GET", url: "/api/dossiers/:id" },
  dossierVersions: { method: "GET", url: "/api/dossiers/:id/versions" },
  addExhibit: { method: "POST", url: "/api/dossiers/:id/exhibits" },
  withdrawExhibit: { method: "POST", url: "/api/dossiers/:id/exhibits/:number/withdraw" },
  freezeDossier: { method: "POST", url: "/api/dossiers/:id/freeze" },
  buildPackage: { method: "POST", url: "/api/dossiers/:id/packages" },
  packages: { method: "GET", url: "/api/dossiers/:id/packages" },
  downloadPackage: { method: "GET", url: "/api/packages/:job/download" },
} as const satisfies Record<string, { method: "GET" | "POST" | "PUT" | "DELETE"; url: string }>;
