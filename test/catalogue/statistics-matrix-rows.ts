import type { Role } from "../../src/core/actor.ts";

/**
 * Rows of the HTTP authorization matrix (test/http/matrix.test.ts) for the statistics routes, written from the
 * design: the figures are counts of body records, so exactly the catalogue's readers get them (the policy gives
 * curators, families and the public no reading of body records, aggregated or not).
 */
type Who = Role | "anonymous";
type Outcome = number | "pass";
interface Row {
  request?: () => { url?: string; body?: unknown };
  expect: (who: Who) => Outcome;
}

const READ: Role[] = ["admin", "archivist", "investigator", "forensic_reviewer", "family_caseworker", "prosecutor"];

export const STATISTICS_MATRIX: Record<string, Row> = {
  "GET /api/statistics": {
    request: () => ({ url: "/api/statistics?minCount=5" }),
    expect: (who) => (who === "anonymous" ? 401 : READ.includes(who) ? 200 : 403),
  },
};
