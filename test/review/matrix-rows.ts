import type { Role } from "../../src/core/actor.ts";

/**
 * The review module's rows of the HTTP authorization matrix (test/http/matrix.test.ts), written by hand from
 * the design: investigators and admins draw and assign samples, only forensic reviewers record reviews, admins
 * and forensic reviewers settle disagreements, prosecutors read results; curators and families have no part.
 * Records named here do not exist, so an allowed caller gets past the gate to a 404 (or 422) from the use case.
 */
type Who = Role | "anonymous";
type Outcome = number | "pass";
interface Row {
  request?: () => { url?: string; body?: unknown };
  expect: (who: Who) => Outcome;
}

const ORGANISE: Role[] = ["admin", "investigator"];
const READ: Role[] = ["admin", "investigator", "forensic_reviewer", "prosecutor"];
const RESOLVE: Role[] = ["admin", "forensic_reviewer"];
const REVIEW: Role[] = ["forensic_reviewer"];

function only(roles: readonly Role[], ok: Outcome = 200): (who: Who) => Outcome {
  return (who) => (who === "anonymous" ? 401 : roles.includes(who) ? ok : 403);
}

export const REVIEW_MATRIX: Record<string, Row> = {
  // The matrix archive has no bodies: an allowed caller is told there is nothing to draw from.
  "POST /api/review/samples": { request: () => ({ body: { size: 1, seed: "matrix" } }), expect: only(ORGANISE, 422) },
  "GET /api/review/samples/:id": { request: () => ({ url: "/api/review/samples/smp_none" }), expect: only(READ, 404) },
  "POST /api/review/samples/:id/assign": { request: () => ({ url: "/api/review/samples/smp_none/assign", body: { reviewers: ["usr_none"] } }), expect: only(ORGANISE, 404) },
  "GET /api/review/assignments": { expect: only(REVIEW) },
  "POST /api/review/assignments/:id/submit": {
    request: () => ({ url: "/api/review/assignments/rva_none/submit", body: { findings: [{ code: "burn", confidence: "probable" }] } }),
    expect: only(REVIEW, 404),
  },
  "GET /api/review/reviews/:id": { request: () => ({ url: "/api/review/reviews/rev_none" }), expect: only(READ, 404) },
  "GET /api/bodies/:id/reviews": { request: () => ({ url: "/api/bodies/bod_none/reviews" }), expect: only(READ) },
  "GET /api/review/disagreements": { expect: only(RESOLVE) },
  "POST /api/review/items/:id/resolve": {
    request: () => ({ url: "/api/review/items/rvi_none/resolve", body: { method: "consensus", findings: ["burn"], note: "matrix" } }),
    expect: only(RESOLVE, 404),
  },
  "GET /api/review/stats": { expect: only(READ) },
};
