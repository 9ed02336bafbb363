import type { Role } from "../../src/core/actor.ts";

/**
 * The catalogue's rows of the HTTP authorization matrix (test/http/matrix.test.ts), written by hand from the
 * design: who reads the catalogue, who groups and edits, who checks numbers, who manages vocabularies. Records
 * named here do not exist, so an allowed caller gets past the gate to a 404 (or 422) from the use case.
 */
type Who = Role | "anonymous";
type Outcome = number | "pass";
interface Env {
  who: Who;
  sha256: string;
  sourceId: () => Promise<string>;
}
interface Row {
  request?: (e: Env) => Promise<{ url?: string; body?: unknown }> | { url?: string; body?: unknown };
  expect: (who: Who) => Outcome;
}

const READ: Role[] = ["admin", "archivist", "investigator", "forensic_reviewer", "family_caseworker", "prosecutor"];
const EDIT: Role[] = ["admin", "investigator"];
const CHECK: Role[] = ["admin", "archivist", "investigator"];

function only(roles: readonly Role[], ok: Outcome = 200): (who: Who) => Outcome {
  return (who) => (who === "anonymous" ? 401 : roles.includes(who) ? ok : 403);
}

export const CATALOGUE_MATRIX: Record<string, Row> = {
  "GET /api/search": { request: () => ({ url: `/api/search?q=${encodeURIComponent("أحمد")}&branch=215` }), expect: only(READ) },
  "GET /api/bodies": { expect: only(READ) },
  "GET /api/photos/:sha256/bodies": { request: () => ({ url: `/api/photos/${"0".repeat(64)}/bodies` }), expect: only(READ) },
  "GET /api/bodies/:id": { request: () => ({ url: "/api/bodies/B-999999" }), expect: only(READ, 404) },
  "PUT /api/bodies/:id": { request: () => ({ url: "/api/bodies/bod_none", body: { notes: "x" } }), expect: only(EDIT, 404) },
  "GET /api/bodies/:id/history": { request: () => ({ url: "/api/bodies/bod_none/history" }), expect: only(READ, 404) },
  "GET /api/bodies/:id/links": { request: () => ({ url: "/api/bodies/bod_none/links" }), expect: only(READ, 404) },
  "POST /api/bodies/:id/split": { request: (e) => ({ url: "/api/bodies/bod_none/split", body: { photos: [e.sha256] } }), expect: only(EDIT, 404) },
  "POST /api/bodies/merge": { request: () => ({ body: { keep: "bod_a", absorb: "bod_b" } }), expect: only(EDIT, 404) },
  "PUT /api/bodies/:id/photos/:sha256": { request: (e) => ({ url: `/api/bodies/bod_none/photos/${e.sha256}`, body: { role: "face" } }), expect: only(EDIT, 404) },
  "POST /api/bodies/:id/numbers": { request: () => ({ url: "/api/bodies/bod_none/numbers", body: { role: "detainee", value: "1234" } }), expect: only(EDIT, 404) },
  "POST /api/numbers/:id/check": { request: () => ({ url: "/api/numbers/num_none/check", body: { agree: true } }), expect: only(CHECK, 404) },
  "POST /api/numbers/:id/retire": { request: () => ({ url: "/api/numbers/num_none/retire", body: { reason: "wrong body" } }), expect: only(EDIT, 404) },
  "GET /api/photos/:sha256/readings": { request: (e) => ({ url: `/api/photos/${e.sha256}/readings` }), expect: only(READ) },
  "POST /api/sources/:id/proposals": { request: async (e) => ({ url: `/api/sources/${await e.sourceId()}/proposals` }), expect: only(EDIT) },
  "GET /api/sources/:id/proposals": { request: () => ({ url: "/api/sources/src_none/proposals" }), expect: only(READ) },
  "GET /api/proposals/:id": { request: () => ({ url: "/api/proposals/gp_none" }), expect: only(READ, 404) },
  "POST /api/proposals/:id/accept": { request: () => ({ url: "/api/proposals/gp_none/accept" }), expect: only(EDIT, 404) },
  "POST /api/proposals/accept": { request: () => ({ body: { proposalIds: ["gp_none"] } }), expect: only(EDIT, 404) },
  "POST /api/proposals/:id/reject": { request: () => ({ url: "/api/proposals/gp_none/reject", body: {} }), expect: only(EDIT, 404) },
  "POST /api/proposals/:id/split": { request: (e) => ({ url: "/api/proposals/gp_none/split", body: { parts: [[e.sha256], [e.sha256]] } }), expect: only(EDIT, 404) },
  "POST /api/proposals/merge": { request: () => ({ body: { proposalIds: ["gp_a", "gp_b"] } }), expect: only(EDIT, 404) },
  "GET /api/entities": { expect: only(READ) },
  "POST /api/entities": { request: (e) => ({ body: { kind: "facility", nameEn: `matrix facility (${e.who})` } }), expect: only(EDIT) },
  "GET /api/entities/:id": { request: () => ({ url: "/api/entities/ent_none" }), expect: only(READ, 404) },
  "PUT /api/entities/:id": { request: () => ({ url: "/api/entities/ent_none", body: { nameEn: "x" } }), expect: only(EDIT, 404) },
  "GET /api/entities/:id/links": { request: () => ({ url: "/api/entities/ent_none/links" }), expect: only(READ, 404) },
  "POST /api/links": {
    request: () => ({
      body: { type: "held_by", from: { kind: "body", id: "bod_none" }, to: { kind: "entity", id: "ent_none" }, evidence: [{ kind: "testimony", ref: "a witness" }], reasoning: "named by a witness" },
    }),
    expect: only(EDIT, 422),
  },
  "PUT /api/links/:id": { request: () => ({ url: "/api/links/lnk_none", body: { reasoning: "a better reason" } }), expect: only(EDIT, 404) },
  "POST /api/links/:id/retract": { request: () => ({ url: "/api/links/lnk_none/retract", body: { reason: "wrong" } }), expect: only(EDIT, 404) },
  "GET /api/vocabularies": { expect: only(READ) },
  "POST /api/vocabularies/:vocabulary": {
    request: (e) => ({ url: "/api/vocabularies/hospital", body: { code: `matrix-${e.who}`, labelAr: "مشفى للاختبار", labelEn: "A test hospital" } }),
    expect: only(["admin"]),
  },
  "PUT /api/vocabularies/:vocabulary/:code": { request: () => ({ url: "/api/vocabularies/hospital/harasta", body: { labelEn: "Harasta Military Hospital" } }), expect: only(["admin"]) },
  "POST /api/catalogue/import": { request: () => ({ body: { csv: "ref,name\nP-1,Matrix Example\n", dryRun: true } }), expect: only(EDIT) },
  "POST /api/catalogue/documents/import": { request: () => ({ body: { csv: "external_ref,name\nP-1,Matrix Example\n", source: "Register 601", dryRun: true } }), expect: only(EDIT, 422) },
  "GET /api/catalogue/export": { expect: only(EDIT) },
};
