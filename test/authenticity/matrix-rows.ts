import type { Role } from "../../src/core/actor.ts";

/**
 * The authenticity module's rows of the HTTP authorization matrix (test/http/matrix.test.ts), written from the
 * design: custodians and investigators run analyses; they, forensic reviewers and prosecutors read them; the
 * error-level map (a picture made from the unblurred original) goes to the roles that may see originals.
 * Families, curators and caseworkers have no part. Records named here do not exist: an allowed caller gets a 404.
 */
type Who = Role | "anonymous";
type Outcome = number | "pass";
interface Row {
  request?: () => { url?: string; body?: unknown };
  expect: (who: Who) => Outcome;
}

const RUN: Role[] = ["admin", "archivist", "investigator"];
const READ: Role[] = ["admin", "archivist", "investigator", "forensic_reviewer", "prosecutor"];
const NO_PHOTO = "0".repeat(64);

function only(roles: readonly Role[], ok: Outcome = 200): (who: Who) => Outcome {
  return (who) => (who === "anonymous" ? 401 : roles.includes(who) ? ok : 403);
}

export const AUTHENTICITY_MATRIX: Record<string, Row> = {
  "GET /api/authenticity/runs": { expect: only(READ) },
  "POST /api/authenticity/sources/:source/runs": { request: () => ({ url: "/api/authenticity/sources/src_none/runs", body: { content: false } }), expect: only(RUN, 404) },
  "GET /api/authenticity/sources/:source": { request: () => ({ url: "/api/authenticity/sources/src_none" }), expect: only(READ, 404) },
  "GET /api/authenticity/photos/:sha256": { request: () => ({ url: `/api/authenticity/photos/${NO_PHOTO}` }), expect: only(READ, 404) },
  "GET /api/authenticity/photos/:sha256/ela": { request: () => ({ url: `/api/authenticity/photos/${NO_PHOTO}/ela` }), expect: only(READ, 404) },
};
