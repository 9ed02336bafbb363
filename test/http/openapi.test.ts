import { test } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import { buildHttpApp } from "../../src/http/app.ts";
import { jsonSchemaOf, openApiPath, type OpenApiDocument } from "../../src/http/openapi.ts";
import { ENDPOINTS } from "../../web/src/api/endpoints.ts";
import { backends } from "../support/backends.ts";
import { freshAccessArchive } from "../support/accounts.ts";

/**
 * The OpenAPI document is built from the route table the server uses: every route is in it with its action,
 * its path parameters and its query parameters; and every endpoint the web app calls is an operation of it
 * with the same method, so the app's typed client cannot call a route the server does not have.
 */
const [sqlite] = await backends();

test("GET /api/openapi.json describes every route, and the web app calls only routes it describes", { skip: sqlite!.skip }, async () => {
  const t = await freshAccessArchive(sqlite!.backend);
  const http = await buildHttpApp(t.ctx);
  try {
    const res = await http.app.inject({ url: "/api/openapi.json" });
    assert.equal(res.statusCode, 200);
    const doc = res.json<OpenApiDocument>();
    assert.equal(doc.openapi, "3.1.0");

    const ops = Object.entries(doc.paths).flatMap(([path, methods]) => Object.entries(methods).map(([m, op]) => ({ key: `${m.toUpperCase()} ${path}`, op })));
    assert.equal(ops.length, http.routes.length, "one operation per route");
    const byKey = new Map(ops.map((o) => [o.key, o.op]));
    const ids = new Set<string>();
    for (const r of http.routes) {
      const op = byKey.get(`${r.method} ${openApiPath(r.url)}`);
      assert.ok(op, `${r.method} ${r.url} is in the document`);
      assert.equal(op["x-dalil-action"], r.action);
      assert.ok(!ids.has(op.operationId), `operationId ${op.operationId} is unique`);
      ids.add(op.operationId);
      const declared = op.parameters.filter((p) => p.in === "path").map((p) => p.name);
      assert.deepEqual(declared, [...r.url.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]), `${r.url}: path parameters`);
      assert.equal(op.security.length === 0, r.action === "public");
    }

    const missing = Object.entries(ENDPOINTS)
      .filter(([, e]) => !doc.paths[openApiPath(e.url)]?.[e.method.toLowerCase()])
      .map(([name, e]) => `${name}: ${e.method} ${e.url}`);
    assert.deepEqual(missing, [], "endpoints the web app calls that the server does not describe");

    // Query parameters come from the routes' schemas: the gallery's page size is a query parameter.
    const gallery = byKey.get("GET /api/gallery")!;
    assert.ok(gallery.parameters.some((p) => p.in === "query"), "the gallery's query parameters are described");
  } finally {
    await http.app.close();
    await t.close();
  }
});

test("zod schemas of query strings become JSON Schema", () => {
  const q = z.object({ q: z.string().max(200), view: z.enum(["list", "grid"]).optional(), limit: z.coerce.number().int().default(50) });
  assert.deepEqual(jsonSchemaOf(q), {
    type: "object",
    properties: { q: { type: "string", maxLength: 200 }, view: { type: "string", enum: ["list", "grid"] }, limit: { type: "integer", default: 50 } },
    required: ["q"],
  });
});
