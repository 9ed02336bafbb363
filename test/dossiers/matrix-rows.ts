import type { Role } from "../../src/core/actor.ts";

/**
 * The dossiers module's rows of the HTTP authorization matrix (test/http/matrix.test.ts), written from the design:
 * investigators and admins build dossiers, prosecutors read them, custodians (archivists, admins) hand packages
 * over, those who may look at originals mark redaction regions, all staff see which regions a photo has.
 * Records named here do not exist, so an allowed caller gets past the gate to a 404 from the use case.
 */
type Who = Role | "anonymous";
type Outcome = number | "pass";
interface Row {
  request?: () => { url?: string; body?: unknown };
  expect: (who: Who) => Outcome;
}

// archivists build packages, and building one means reading the dossier (decision 0011)
const READ: Role[] = ["admin", "archivist", "investigator", "prosecutor"];
const EDIT: Role[] = ["admin", "investigator"];
const PACKAGE: Role[] = ["admin", "archivist"];
const MARK: Role[] = ["admin", "archivist", "investigator"];
const STAFF: Role[] = ["admin", "archivist", "investigator", "forensic_reviewer", "family_caseworker", "prosecutor", "curator"];
const NO_PHOTO = "0".repeat(64);

function only(roles: readonly Role[], ok: Outcome = 200): (who: Who) => Outcome {
  return (who) => (who === "anonymous" ? 401 : roles.includes(who) ? ok : 403);
}

export const DOSSIERS_MATRIX: Record<string, Row> = {
  "GET /api/dossiers": { expect: only(READ) },
  "POST /api/dossiers": { request: () => ({ body: { name: "matrix" } }), expect: only(EDIT) },
  "GET /api/dossiers/:id": { request: () => ({ url: "/api/dossiers/dos_none" }), expect: only(READ, 404) },
  "GET /api/dossiers/:id/versions": { request: () => ({ url: "/api/dossiers/dos_none/versions" }), expect: only(READ, 404) },
  "POST /api/dossiers/:id/exhibits": {
    request: () => ({ url: "/api/dossiers/dos_none/exhibits", body: { kind: "photo", ref: NO_PHOTO, reasoning: "matrix" } }),
    expect: only(EDIT, 404),
  },
  "PUT /api/dossiers/:id/exhibits/:number": { request: () => ({ url: "/api/dossiers/dos_none/exhibits/E-0001", body: { reasoning: "matrix" } }), expect: only(EDIT, 404) },
  "POST /api/dossiers/:id/exhibits/:number/withdraw": { request: () => ({ url: "/api/dossiers/dos_none/exhibits/E-0001/withdraw", body: { reason: "matrix" } }), expect: only(EDIT, 404) },
  "POST /api/dossiers/:id/freeze": { request: () => ({ url: "/api/dossiers/dos_none/freeze", body: {} }), expect: only(EDIT, 404) },
  "POST /api/dossiers/:id/packages": {
    request: () => ({ url: "/api/dossiers/dos_none/packages", body: { version: 1, recipient: "matrix", clearance: "redacted", purpose: "matrix" } }),
    expect: only(PACKAGE, 404),
  },
  "GET /api/dossiers/:id/packages": { request: () => ({ url: "/api/dossiers/dos_none/packages" }), expect: only(PACKAGE, 404) },
  "GET /api/packages/:job/download": { request: () => ({ url: "/api/packages/job_none/download?format=tar" }), expect: only(PACKAGE, 404) },
  "GET /api/photos/:sha256/regions": { request: () => ({ url: `/api/photos/${NO_PHOTO}/regions` }), expect: only(STAFF) },
  "POST /api/photos/:sha256/regions": { request: () => ({ url: `/api/photos/${NO_PHOTO}/regions`, body: { x: 0, y: 0, w: 10, h: 10 } }), expect: only(MARK, 404) },
  "POST /api/regions/:id/withdraw": { request: () => ({ url: "/api/regions/rdr_none/withdraw", body: {} }), expect: only(MARK, 404) },
};
