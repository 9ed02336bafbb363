import { test } from "node:test";
import assert from "node:assert/strict";
import Fastify from "fastify";
import { ROLES, operatorActor, type Role } from "../../src/core/actor.ts";
import { grantMirror } from "../../src/mirror/index.ts";
import { addWitness, generateCosigner } from "../../src/ledger/index.ts";
import { buildHttpApp, requireDeclaredAction, type RouteSpec } from "../../src/http/app.ts";
import { bytes } from "../../src/http/route-spec.ts";
import { backends } from "../support/backends.ts";
import { codeAt, freshAccessArchive, fullSession, readyUser, seedOriginal, type TestArchive, type TestUser } from "../support/accounts.ts";
import { CATALOGUE_MATRIX } from "../catalogue/matrix-rows.ts";
import { REVIEW_MATRIX } from "../review/matrix-rows.ts";
import { WEB_MATRIX } from "../web/matrix-rows.ts";
import { FAMILIES_MATRIX } from "../families/matrix-rows.ts";
import { DOSSIERS_MATRIX } from "../dossiers/matrix-rows.ts";
import { AUTHENTICITY_MATRIX } from "../authenticity/matrix-rows.ts";
import { STATISTICS_MATRIX } from "../catalogue/statistics-matrix-rows.ts";
import { EXHIBITIONS_MATRIX } from "../exhibitions/matrix-rows.ts";

/**
 * The authorization matrix: every route the server has × every role and an anonymous visitor. The expected
 * outcomes are written here by hand, from the design (who should be able to do what), not read from the
 * policy: a change to the policy that lets someone new in fails this test until the table is changed too.
 * A route with no row here fails the test, and so does a row for a route that no longer exists.
 *
 * An outcome is the HTTP status, or "pass": past the gate (neither 401 nor 403) — used where the status
 * depends on data (a job that may not exist, a log with no checkpoint yet).
 */
type Who = Role | "anonymous";
type Outcome = number | "pass";
const WHO: Who[] = ["anonymous", ...ROLES];

const STAFF: Role[] = ["admin", "archivist", "investigator", "forensic_reviewer", "family_caseworker", "prosecutor", "curator"];
const SIGNED_IN: Role[] = [...ROLES];

interface Env {
  who: Who;
  user: TestUser | null;
  session: { token: string; csrf: string; id: string } | null;
  sha256: string;
  sourceId: () => Promise<string>;
  target: TestUser;
  t: TestArchive;
}

interface Row {
  /** The request (URL with params filled in, body), built for this caller. */
  request?: (e: Env) => Promise<{ url?: string; body?: unknown }> | { url?: string; body?: unknown };
  expect: (who: Who) => Outcome;
}

/** Allowed roles get `ok` (or "pass"); other signed-in roles 403; an anonymous visitor 401. */
function only(roles: readonly Role[], ok: Outcome = 200): (who: Who) => Outcome {
  return (who) => (who === "anonymous" ? 401 : roles.includes(who) ? ok : 403);
}
const everyone = (ok: Outcome = 200) => () => ok;
const signedIn = (ok: Outcome = 200) => only(SIGNED_IN, ok);

const MATRIX: Record<string, Row> = {
  "GET /api/health": { expect: everyone() },
  "GET /api/routes": { expect: everyone() },
  "GET /api/openapi.json": { expect: everyone() },
  "GET /api/originals": { expect: only(STAFF) },
  "GET /api/originals/:sha256": { request: (e) => ({ url: `/api/originals/${e.sha256}` }), expect: only(STAFF) },
  "GET /api/sources": { expect: only(STAFF) },
  "GET /api/jobs": { expect: only(STAFF) },
  "GET /api/jobs/:id": { request: () => ({ url: "/api/jobs/job_none" }), expect: only(STAFF, "pass") },
  // Anyone may check the log only grows (checkpoints, hash tiles, consistency); what it holds (entry bundles,
  // inclusion proofs that answer "is this photograph here?") only the custodians who run `dalil verify`.
  "GET /log/checkpoint": { expect: everyone("pass") },
  "GET /log/key": { expect: everyone("pass") },
  "GET /log/proof/:sha256": { request: (e) => ({ url: `/log/proof/${e.sha256}` }), expect: only(["admin", "archivist"], "pass") },
  "GET /log/consistency": { request: () => ({ url: "/log/consistency?from=1&to=1" }), expect: everyone("pass") },
  "GET /log/tile/*": { request: () => ({ url: "/log/tile/0/000" }), expect: everyone("pass") },
  "GET /log/tile/entries/*": { request: () => ({ url: "/log/tile/entries/000" }), expect: only(["admin", "archivist"], "pass") },
  "GET /api/log/witnesses": { expect: everyone() },
  "GET /api/mirrors": { expect: only(["admin"]) },
  // Granting and revoking a mirror from the admin screen: the same use cases as `dalil mirror grant/revoke`.
  "POST /api/mirrors": { request: (e) => ({ body: { name: `museum-${e.who}` } }), expect: only(["admin"]) },
  "POST /api/mirrors/revoke": {
    request: async (e) => {
      await grantMirror(e.t.ctx, operatorActor(), { name: `court-${e.who}` });
      return { body: { name: `court-${e.who}` } };
    },
    expect: only(["admin"]),
  },
  // The witness policy from the admin screen: the same use cases as `dalil log witness-policy`.
  "GET /api/witness-policy": { expect: only(["admin"]) },
  "POST /api/witness-policy/witnesses": { request: (e) => ({ body: { name: `w-${e.who}`, vkey: generateCosigner(`w.test/${e.who}`).vkey } }), expect: only(["admin"]) },
  "POST /api/witness-policy/witnesses/remove": {
    request: async (e) => {
      await addWitness(e.t.ctx, operatorActor(), { name: `gone-${e.who}`, vkey: generateCosigner(`gone.test/${e.who}`).vkey });
      return { body: { name: `gone-${e.who}` } };
    },
    expect: only(["admin"]),
  },
  "POST /api/witness-policy/quorum": { request: () => ({ body: { quorum: "none" } }), expect: only(["admin"]) },
  // A mirror's follower token only (test/mirror/follow.test.ts); no role and no person's session reaches them.
  "GET /mirror/tile/entries/*": { request: () => ({ url: "/mirror/tile/entries/000" }), expect: only([]) },
  "GET /mirror/openings/tile/entries/*": { request: () => ({ url: "/mirror/openings/tile/entries/000" }), expect: only([]) },
  "GET /mirror/objects": { expect: only([]) },
  "GET /mirror/object/*": { request: () => ({ url: "/mirror/object/dalil-blob-store.json" }), expect: only([]) },

  "GET /api/session": { expect: everyone() },
  // A wrong password for everyone (each caller its own address, so no lockout interferes).
  "POST /api/auth/login": { request: (e) => ({ body: { email: `nobody-${e.who}@example.org`, password: "not the password" } }), expect: everyone(401) },
  // The sign-in steps answer 401 with no sign-in under way, 409 to someone signed in already.
  "POST /api/auth/second-factor": { request: () => ({ body: { code: "123456" } }), expect: (w) => (w === "anonymous" ? 401 : 409) },
  "POST /api/auth/enrol": { expect: (w) => (w === "anonymous" ? 401 : 409) },
  "POST /api/auth/enrol/confirm": { request: () => ({ body: { code: "123456" } }), expect: (w) => (w === "anonymous" ? 401 : 409) },
  "POST /api/auth/password": {
    request: (e) => ({ body: { current: e.user?.password ?? "not a password", next: `a brand new passphrase for ${e.who}` } }),
    expect: (w) => (w === "anonymous" ? 401 : 200),
  },
  "POST /api/auth/recovery-codes": {
    request: (e) => {
      e.t.clock.advance(30_000);
      return { body: { code: e.user ? codeAt(e.user, e.t.clock.now()) : "123456" } };
    },
    expect: signedIn(),
  },
  "POST /api/auth/logout": { expect: everyone() },
  "POST /api/auth/logout-everywhere": { expect: signedIn() },
  "GET /api/account/sessions": { expect: signedIn() },
  "DELETE /api/account/sessions/:id": { request: (e) => ({ url: `/api/account/sessions/${e.session?.id ?? "ses_none"}` }), expect: signedIn() },

  "GET /api/users": { expect: only(["admin"]) },
  "POST /api/users": { request: (e) => ({ body: { email: `new-${e.who}@example.org`, role: "curator" } }), expect: only(["admin"]) },
  "POST /api/users/:id/disable": { request: (e) => ({ url: `/api/users/${e.target.id}/disable` }), expect: only(["admin"]) },
  "POST /api/users/:id/enable": { request: (e) => ({ url: `/api/users/${e.target.id}/enable` }), expect: only(["admin"]) },
  "POST /api/users/:id/reset": { request: (e) => ({ url: `/api/users/${e.target.id}/reset`, body: {} }), expect: only(["admin"]) },

  // Colleagues by address and role for screens; a family member's home lists their own reports.
  "POST /api/people/names": { request: (e) => ({ body: { ids: [e.target.id] } }), expect: only(STAFF) },
  "GET /api/work": { expect: only([...STAFF, "family_member"]) },

  "GET /api/tokens": { expect: only(STAFF) },
  "POST /api/tokens": { request: () => ({ body: { name: "matrix", scopes: ["log.read"] } }), expect: only(STAFF) },
  "DELETE /api/tokens/:id": { request: () => ({ url: "/api/tokens/tok_aaaaaaaaaaaaaaaaaaaaaaaaaa" }), expect: only(STAFF, 404) },

  "GET /api/sealed": { expect: only(["admin"]) },
  "POST /api/sources/:id/seal": {
    request: async (e) => ({ url: `/api/sources/${await e.sourceId()}/seal`, body: { identity: "a made-up person, for the matrix" } }),
    expect: only(["admin", "archivist"]),
  },
  ...CATALOGUE_MATRIX,
  ...REVIEW_MATRIX,
  ...WEB_MATRIX,
  ...FAMILIES_MATRIX,
  ...DOSSIERS_MATRIX,
  ...AUTHENTICITY_MATRIX,
  ...STATISTICS_MATRIX,
  ...EXHIBITIONS_MATRIX,
};

function keyOf(r: Pick<RouteSpec, "method" | "url">): string {
  return `${r.method} ${r.url}`;
}

test("a route registered on Fastify without an action stops the server from building", async () => {
  const app = Fastify();
  app.addHook("onRoute", requireDeclaredAction);
  assert.throws(() => app.get("/api/unchecked", async () => "x"), /declares no action/);
  assert.doesNotThrow(() => app.get("/api/checked", { config: { action: "public" } }, async () => "x"));
  await app.close();
});

const [sqlite] = await backends();

for (const { backend, skip } of await backends()) {
  test(`authorization matrix: every route × every role and anonymous, on ${backend.name}`, { skip, timeout: 120_000 }, async () => {
    const t = await freshAccessArchive(backend);
    const http = await buildHttpApp(t.ctx);
    try {
      const declared = http.routes.map(keyOf);
      const missing = declared.filter((k) => !(k in MATRIX));
      assert.deepEqual(missing, [], `routes without an expected outcome in the matrix: ${missing.join(", ")}`);
      const stale = Object.keys(MATRIX).filter((k) => !declared.includes(k));
      assert.deepEqual(stale, [], `matrix rows for routes that do not exist: ${stale.join(", ")}`);

      const { sha256 } = await seedOriginal(t.ctx);
      const users = new Map<Role, TestUser>();
      for (const role of ROLES) users.set(role, await readyUser(t.ctx, role));
      const target = await readyUser(t.ctx, "curator");
      const failures: string[] = [];
      let address = 0;

      for (const route of http.routes) {
        const row = MATRIX[keyOf(route)]!;
        for (const who of WHO) {
          const user = who === "anonymous" ? null : users.get(who)!;
          // A fresh session per cell: a logout in one cell cannot change another's outcome.
          const session = user ? await fullSession(t.ctx, user.id) : null;
          const env: Env = { who, user, session, sha256, target, t, sourceId: async () => (await seedOriginal(t.ctx)).sourceId };
          const req = (await row.request?.(env)) ?? {};
          const headers: Record<string, string> = {};
          if (route.method !== "GET") {
            headers.origin = "http://localhost";
            if (session) headers["x-csrf-token"] = session.csrf;
          }
          const r = await http.app.inject({
            method: route.method,
            url: req.url ?? route.url,
            headers,
            remoteAddress: `10.0.${Math.floor(address / 250)}.${address++ % 250}`,
            ...(session ? { cookies: { dalil_session: session.token } } : {}),
            ...(req.body !== undefined ? { payload: req.body as object } : {}),
          });
          const expected = row.expect(who);
          const ok = expected === "pass" ? r.statusCode !== 401 && r.statusCode !== 403 : r.statusCode === expected;
          if (!ok) failures.push(`${keyOf(route)} as ${who}: expected ${expected}, got ${r.statusCode} ${r.body.slice(0, 160)}`);
          if ((r.statusCode === 401 || r.statusCode === 403) && !/"message":"[^"]{10,}/.test(r.body)) {
            failures.push(`${keyOf(route)} as ${who}: a refusal without a sentence: ${r.body}`);
          }
        }
      }
      assert.deepEqual(failures, []);
    } finally {
      await http.app.close();
      await t.close();
    }
  });
}

test("the matrix test notices a route added without a row", { skip: sqlite!.skip }, async () => {
  const t = await freshAccessArchive(sqlite!.backend);
  try {
    const http = await buildHttpApp(t.ctx);
    const extra: RouteSpec = { method: "GET", url: "/api/new-thing", action: "archive.read", summary: "", response: bytes("text/plain"), handler: async () => ({}) };
    const keys = [...http.routes, extra].map(keyOf).filter((k) => !(k in MATRIX));
    assert.deepEqual(keys, ["GET /api/new-thing"]);
    await http.app.close();
  } finally {
    await t.close();
  }
});
