import type { Role } from "../../src/core/actor.ts";

/**
 * The exhibitions module's rows of the HTTP authorization matrix (test/http/matrix.test.ts), from the design:
 * curators and administrators prepare, review and publish exhibitions; no other role has a part in them; anyone
 * reads what is published (the public pages). Records named here do not exist, so an allowed caller gets past the
 * gate to a 404 from the use case.
 */
type Who = Role | "anonymous";
type Outcome = number | "pass";
interface Row {
  request?: () => { url?: string; body?: unknown };
  expect: (who: Who) => Outcome;
}

const CURATORS: Role[] = ["admin", "curator"];

function only(roles: readonly Role[], ok: Outcome = 200): (who: Who) => Outcome {
  return (who) => (who === "anonymous" ? 401 : roles.includes(who) ? ok : 403);
}
const step = (name: string): Row => ({ request: () => ({ url: `/api/exhibitions/exh_none/${name}`, body: {} }), expect: only(CURATORS, 404) });

export const EXHIBITIONS_MATRIX: Record<string, Row> = {
  "GET /api/exhibitions": { expect: only(CURATORS) },
  "POST /api/exhibitions": { request: () => ({ body: { title: { en: "matrix" }, languages: ["en"] } }), expect: only(CURATORS) },
  "GET /api/exhibitions/:id": { request: () => ({ url: "/api/exhibitions/exh_none" }), expect: only(CURATORS, 404) },
  "PUT /api/exhibitions/:id": { request: () => ({ url: "/api/exhibitions/exh_none", body: { title: { en: "x" } } }), expect: only(CURATORS, 404) },
  "POST /api/exhibitions/:id/items": { request: () => ({ url: "/api/exhibitions/exh_none/items", body: { kind: "text", caption: { en: "x" } } }), expect: only(CURATORS, 404) },
  "POST /api/exhibitions/:id/order": { request: () => ({ url: "/api/exhibitions/exh_none/order", body: { order: [] } }), expect: only(CURATORS, 404) },
  "POST /api/exhibitions/:id/submit": step("submit"),
  "POST /api/exhibitions/:id/return": step("return"),
  "POST /api/exhibitions/:id/approve": step("approve"),
  "POST /api/exhibitions/:id/publish": step("publish"),
  "POST /api/exhibitions/:id/withdraw": step("withdraw"),
  "PUT /api/exhibition-items/:item": { request: () => ({ url: "/api/exhibition-items/exi_none", body: { graphic: true } }), expect: only(CURATORS, 404) },
  "POST /api/exhibition-items/:item/remove": { request: () => ({ url: "/api/exhibition-items/exi_none/remove", body: {} }), expect: only(CURATORS, 404) },
  "POST /api/exhibition-items/:item/regions": { request: () => ({ url: "/api/exhibition-items/exi_none/regions", body: { layer: "faces", x: 0, y: 0, w: 5, h: 5 } }), expect: only(CURATORS, 404) },
  "POST /api/exhibition-regions/:id/remove": { request: () => ({ url: "/api/exhibition-regions/exr_none/remove", body: {} }), expect: only(CURATORS, 404) },
  "POST /api/exhibition-items/:item/review": { request: () => ({ url: "/api/exhibition-items/exi_none/review", body: {} }), expect: only(CURATORS, 404) },
  // Face suggestions: only those who may curate ask for them, see them, accept or discard them.
  "GET /api/exhibition-items/:item/suggestions": { request: () => ({ url: "/api/exhibition-items/exi_none/suggestions" }), expect: only(CURATORS, 404) },
  "POST /api/exhibition-items/:item/suggestions": { request: () => ({ url: "/api/exhibition-items/exi_none/suggestions", body: {} }), expect: only(CURATORS, 404) },
  "POST /api/exhibition-suggestions/:id/accept": { request: () => ({ url: "/api/exhibition-suggestions/exs_none/accept", body: {} }), expect: only(CURATORS, 404) },
  "POST /api/exhibition-suggestions/:id/discard": { request: () => ({ url: "/api/exhibition-suggestions/exs_none/discard", body: {} }), expect: only(CURATORS, 404) },
  "GET /api/exhibition-items/:item/preview": { request: () => ({ url: "/api/exhibition-items/exi_none/preview" }), expect: only(CURATORS, 404) },
  "GET /exhibitions/:ref/": { request: () => ({ url: "/exhibitions/X-9999/" }), expect: () => 404 },
  "GET /exhibitions/:ref/:file": { request: () => ({ url: "/exhibitions/X-9999/en.html" }), expect: () => 404 },
  "GET /exhibitions/:ref/images/:file": { request: () => ({ url: "/exhibitions/X-9999/images/001.jpg" }), expect: () => 404 },
};
