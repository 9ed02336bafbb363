import type { Role } from "../../src/core/actor.ts";

/**
 * The web app's rows of the HTTP authorization matrix (test/http/matrix.test.ts): the gallery, renditions and
 * reveals, metadata and custody history, sightings, uploads (src/archive/routes.ts) and the permissions and
 * log-status routes. Written by hand from the design. The seeded original has no renditions and the upload ids
 * name nothing, so an allowed caller gets past the gate to a 404 from the use case.
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

const STAFF: Role[] = ["admin", "archivist", "investigator", "forensic_reviewer", "family_caseworker", "prosecutor", "curator"];
const REVEAL: Role[] = ["admin", "archivist", "investigator", "forensic_reviewer", "prosecutor"];
const INGEST: Role[] = ["admin", "archivist"];
const NO_UPLOAD = "upl_aaaaaaaaaaaaaaaaaaaaaaaaaa";

function only(roles: readonly Role[], ok: Outcome = 200): (who: Who) => Outcome {
  return (who) => (who === "anonymous" ? 401 : roles.includes(who) ? ok : 403);
}
const everyone = (ok: Outcome = 200) => () => ok;

export const WEB_MATRIX: Record<string, Row> = {
  "GET /api/permissions": { expect: everyone() },
  // The log is for anyone to check.
  "GET /api/log/status": { expect: everyone() },
  "GET /api/gallery": { expect: only(STAFF) },
  "GET /api/originals/:sha256/renditions/:kind": { request: (e) => ({ url: `/api/originals/${e.sha256}/renditions/blurred` }), expect: only(STAFF, 404) },
  "POST /api/originals/:sha256/reveal": {
    request: (e) => ({ url: `/api/originals/${e.sha256}/reveal`, body: { reason: "the matrix check", kind: "preview" } }),
    expect: only(REVEAL, 404),
  },
  "POST /api/originals/:sha256/download": {
    request: (e) => ({ url: `/api/originals/${e.sha256}/download`, body: { reason: "the matrix check" } }),
    expect: only(REVEAL, 404),
  },
  "GET /api/originals/:sha256/metadata": { request: (e) => ({ url: `/api/originals/${e.sha256}/metadata` }), expect: only(STAFF) },
  "GET /api/originals/:sha256/events": { request: (e) => ({ url: `/api/originals/${e.sha256}/events` }), expect: only(STAFF) },
  "GET /api/sources/:id/sightings": { request: async (e) => ({ url: `/api/sources/${await e.sourceId()}/sightings?outcome=quarantined` }), expect: only(STAFF) },
  "POST /api/uploads": { request: () => ({ body: { kind: "folder" } }), expect: only(INGEST) },
  "GET /api/uploads/:id": { request: () => ({ url: `/api/uploads/${NO_UPLOAD}` }), expect: only(INGEST, 404) },
  "PUT /api/uploads/:id/files": { request: () => ({ url: `/api/uploads/${NO_UPLOAD}/files?path=x.jpg` }), expect: only(INGEST, 404) },
  "POST /api/uploads/:id/ingest": { request: () => ({ url: `/api/uploads/${NO_UPLOAD}/ingest`, body: {} }), expect: only(INGEST, 404) },
};
