/** The exhibitions area's server routes the web app calls (merged into ENDPOINTS in ../endpoints.ts). */
export const EXHIBITIONS_ENDPOINTS = {
  exhibitions: { method: "GET", url: "/api/exhibitions" },
  createExhibition: { method: "POST", url: "/api/exhibitions" },
  exhibition: { method: "GET", url: "/api/exhibitions/:id" },
  addExhibitionItem: { method: "POST", url: "/api/exhibitions/:id/items" },
  orderExhibitionItems: { method: "POST", url: "/api/exhibitions/:id/order" },
  submitExhibition: { method: "POST", url: "/api/exhibitions/:id/submit" },
  returnExhibition: { method: "POST", url: "/api/exhibitions/:id/return" },
  approveExhibition: { method: "POST", url: "/api/exhibitions/:id/approve" },
  publishExhibition: { method: "POST", url: "/api/exhibitions/:id/publish" },
  withdrawExhibition: { method: "POST", url: "/api/exhibitions/:id/withdraw" },
  updateExhibitionItem: { method: "PUT", url: "/api/exhibition-items/:item" },
  removeExhibitionItem: { method: "POST", url: "/api/exhibition-items/:item/remove" },
  addExhibitionRegion: { method: "POST", url: "/api/exhibition-items/:item/regions" },
  removeExhibitionRegion: { method: "POST", url: "/api/exhibition-regions/:id/remove" },
  reviewExhibitionItem: { method: "POST", url: "/api/exhibition-items/:item/review" },
  exhibitionItemPreview: { method: "GET", url: "/api/exhibition-items/:item/preview" },
} as const satisfies Record<string, { method: "GET" | "POST" | "PUT" | "DELETE"; url: string }>;
