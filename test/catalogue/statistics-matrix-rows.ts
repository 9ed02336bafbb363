import type { Role } from "../../src/core/actor.ts";

/** Rows of the HTTP authorization matrix (test/http/matrix.test.ts) for this area's routes, written from the design. */
type Who = Role | "anonymous";
type Outcome = number | "pass";
interface Row {
  request?: () => { url?: string; body?: unknown };
  expect: (who: Who) => Outcome;
}

export const STATISTICS_MATRIX: Record<string, Row> = {};
