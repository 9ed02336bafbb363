import { test } from "node:test";
import assert from "node:assert/strict";
import { Ajv } from "ajv";
import addFormats from "ajv-formats";
import { Validator } from "@seriousme/openapi-schema-validator";
import { buildHttpApp } from "../../src/http/app.ts";
import { isBytes } from "../../src/http/route-spec.ts";
import { openApiPath, type OpenApiDocument } from "../../src/http/openapi.ts";
import { ROLES, type Actor } from "../../src/core/actor.ts";
import { anonymousActor } from "../../src/access/policy.ts";
import { backends } from "../support/backends.ts";
import { ensureAccounts } from "../support/archive.ts";
import { freshAccessArchive } from "../support/accounts.ts";
import { as, investigator, seedBodies } from "../support/catalogue.ts";
import { frozenPhotoDossier } from "../support/packages.ts";
import { runAuthenticity } from "../../src/authenticity/index.ts";
import { addItem, addRegion, createExhibition } from "../../src/exhibitions/index.ts";

/**
 * The contracts are what the server sends: the OpenAPI document built from the route tables is valid OpenAPI
 * 3.1 with a request and response schema for every operation, and every JSON GET route, called by a role that
 * may, answers what its response schema says (validated by Ajv against the document), so a contract that
 * drifts from a handler fails here even where the compiler cannot see it (rows read straight from a table).
 */
const [sqlite] = await backends();

test("the OpenAPI document is valid OpenAPI 3.1, with an answer schema for every operation and a body schema for every JSON write", { skip: sqlite!.skip }, async () => {
  const t = await freshAccessArchive(sqlite!.backend);
  const http = await buildHttpApp(t.ctx);
  try {
    const doc = (await http.app.inject({ url: "/api/openapi.json" })).json<OpenApiDocument>();
    const result = await new Validator().validate(doc as unknown as Parameters<Validator["validate"]>[0]);
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 1)?.slice(0, 2000));
    for (const r of http.routes) {
      const op = doc.paths[openApiPath(r.url)]![r.method.toLowerCase()]!;
      const answer = op.responses["200"]!.content;
      assert.ok(answer && Object.keys(answer).length === 1, `${r.method} ${r.url} describes its answer`);
      if (!isBytes(r.response)) assert.ok(answer["application/json"]?.schema, `${r.method} ${r.url} has a JSON answer schema`);
      if (r.body) assert.ok(op.requestBody?.content["application/json"]?.schema.type, `${r.method} ${r.url} describes its body`);
    }
  } finally {
    await http.app.close();
    await t.close();
  }
});

test("every JSON GET answers what its contract says, for a role that may call it", { skip: sqlite!.skip }, async () => {
  const t = await freshAccessArchive(sqlite!.backend);
  const actors = new Map<string, Actor>(ROLES.map((role) => [role, role === "public" ? anonymousActor : as(role)]));
  await ensureAccounts(t.ctx, [...actors.values(), investigator]);
  const { dossierId, photos } = await frozenPhotoDossier(t.ctx, "contracts");
  const [body] = await seedBodies(t.ctx, investigator, [{ sex: "male" }]);
  const source = await t.ctx.db.db.selectFrom("sources").select("id").executeTakeFirstOrThrow();
  // An analysis of that card, so its authenticity page answers a report (headers and sequence; no pixels).
  await runAuthenticity(t.ctx, investigator, { source: source.id, content: false });
  // An exhibition with a photo item and a region, so its page answers items, regions and consent.
  const exhibition = await createExhibition(t.ctx, as("curator"), { title: { en: "contracts", ar: "عقود" }, languages: ["ar", "en"] });
  const shown = await addItem(t.ctx, as("curator"), { exhibition: exhibition.id, kind: "photo", sha256: photos[0]!, caption: { en: "photo" } });
  await addRegion(t.ctx, as("curator"), { item: shown.id, layer: "faces", x: 0, y: 0, w: 10, h: 10 });
  const http = await buildHttpApp(t.ctx, { actorFor: (req) => actors.get(String(req.headers["x-test-role"])) });
  try {
    const doc = (await http.app.inject({ url: "/api/openapi.json" })).json<OpenApiDocument>();
    const ajv = new Ajv({ allErrors: true, strict: false });
    addFormats.default(ajv);
    // Path parameters the fixture can fill: an original, a dossier, a body, a source (card).
    const fill = (url: string): string | null => {
      const filled = url
        .replace(":sha256", photos[0]!)
        .replace(/^\/api\/dossiers\/:id/, `/api/dossiers/${dossierId}`)
        .replace(/^\/api\/bodies\/:id/, `/api/bodies/${body!.id}`)
        .replace(/^\/api\/sources\/:id/, `/api/sources/${source.id}`)
        .replace(/^\/api\/exhibitions\/:id/, `/api/exhibitions/${exhibition.id}`)
        .replace(/^\/api\/exhibition-items\/:item/, `/api/exhibition-items/${shown.id}`)
        .replace(":source", source.id);
      return filled.includes(":") || filled.includes("*") ? null : filled;
    };
    const checked: string[] = [];
    const unfilled: string[] = [];
    for (const r of http.routes) {
      if (r.method !== "GET" || isBytes(r.response)) continue;
      const url = fill(r.url);
      if (!url) {
        unfilled.push(r.url);
        continue;
      }
      const role = r.action === "public" ? "public" : ROLES.find((role) => role !== "public" && t.ctx.policy.mayAttempt(actors.get(role)!, r.action as never));
      assert.ok(role, `some role may call ${r.url}`);
      const res = await http.app.inject({ url, headers: { "x-test-role": role } });
      if (res.statusCode === 403 || res.statusCode === 404) {
        // A relationship rule (own records, assignments) or a record the fixture does not hold: not an answer.
        unfilled.push(`${r.url} (${res.statusCode} as ${role})`);
        continue;
      }
      assert.equal(res.statusCode, 200, `${r.url} as ${role}: ${res.body.slice(0, 300)}`);
      const schema = doc.paths[openApiPath(r.url)]!.get!.responses["200"]!.content!["application/json"]!.schema;
      const validate = ajv.compile(schema);
      assert.ok(validate(res.json()), `${r.url} as ${role} answers what its contract says: ${ajv.errorsText(validate.errors)}`);
      checked.push(r.url);
    }
    // A JSON POST whose answer names people: validated the same way (its contract lives in access's contracts).
    const names = await http.app.inject({ method: "POST", url: "/api/people/names", headers: { "x-test-role": "investigator" }, payload: { ids: [investigator.id, "operator:console", "system:jobs", "usr_gone"] } });
    assert.equal(names.statusCode, 200, names.body.slice(0, 300));
    const namesSchema = doc.paths["/api/people/names"]!.post!.responses["200"]!.content!["application/json"]!.schema;
    const validateNames = ajv.compile(namesSchema);
    assert.ok(validateNames(names.json()), `/api/people/names answers what its contract says: ${ajv.errorsText(validateNames.errors)}`);
    assert.deepEqual(names.json<{ people: { kind: string }[] }>().people.map((p) => p.kind), ["account", "operator", "system", "unknown"]);
    // Every JSON GET without a path parameter, and the pages of an original, a dossier, a body and a source.
    assert.ok(checked.length >= 40, `checked ${checked.length}; not reached: ${unfilled.join(", ")}`);
    for (const must of ["/api/gallery", "/api/photos/:sha256/bodies", "/api/dossiers/:id/packages", "/api/originals/:sha256", "/api/dossiers/:id", "/api/bodies/:id", "/api/search", "/api/statistics", "/api/sources/:id/sightings", "/api/session", "/api/work", "/api/authenticity/runs", "/api/authenticity/sources/:source", "/api/authenticity/photos/:sha256", "/api/exhibitions", "/api/exhibitions/:id", "/api/exhibition-items/:item/suggestions", "/api/log/witnesses", "/api/mirrors"]) assert.ok(checked.includes(must), `${must} checked`);
  } finally {
    await http.app.close();
    await t.close();
  }
});
