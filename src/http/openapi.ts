import { zodToJsonSchema } from "zod-to-json-schema";
import { ZodDefault, ZodEffects, ZodEnum, ZodLiteral, ZodNullable, ZodNumber, ZodObject, ZodOptional, ZodString, ZodBoolean, type ZodTypeAny } from "zod";
import { bodyLimitOf } from "./app.ts";
import { isBytes, type RouteSpec } from "./route-spec.ts";
import { SOFTWARE } from "../core/version.ts";

/**
 * The OpenAPI 3.1 document of the server, built from the same route table the server and the authorization
 * matrix use, so it cannot drift from what is served. Each operation names the action it needs
 * (`x-dalil-action`); its parameters, request body and answer come from the route's zod schemas (the module's
 * contracts), converted by zod-to-json-schema. The document is built once per route table and kept. The web app's endpoint table is
 * checked against this document by a test (test/http/openapi.test.ts).
 */
export interface OpenApiDocument {
  openapi: "3.1.0";
  info: { title: string; version: string; description: string };
  components: { securitySchemes: Record<string, unknown> };
  paths: Record<string, Record<string, OpenApiOperation>>;
}

export interface OpenApiOperation {
  operationId: string;
  summary: string;
  "x-dalil-action": string;
  /** Largest body the route takes, in bytes (POST and PUT). */
  "x-dalil-body-limit"?: number;
  parameters: OpenApiParameter[];
  security: Array<Record<string, string[]>>;
  requestBody?: { required: boolean; content: Record<string, { schema: Record<string, unknown> }> };
  responses: Record<string, OpenApiResponse>;
}

export interface OpenApiResponse {
  description: string;
  content?: Record<string, { schema: Record<string, unknown> }>;
}

export interface OpenApiParameter {
  name: string;
  in: "path" | "query";
  required: boolean;
  schema: Record<string, unknown>;
}

/** "/api/bodies/:id/photos/:sha256" → "/api/bodies/{id}/photos/{sha256}" */
export function openApiPath(url: string): string {
  return url.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
}

function pathParams(spec: RouteSpec): OpenApiParameter[] {
  const shape = objectShape(spec.params as ZodTypeAny | undefined);
  return [...spec.url.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => ({ name: m[1]!, in: "path", required: true, schema: shape?.[m[1]!] ? jsonSchemaOf(shape[m[1]!]!) : { type: "string" } }));
}

function objectShape(t: ZodTypeAny | undefined): Record<string, ZodTypeAny> | undefined {
  while (t instanceof ZodEffects) t = t.innerType() as ZodTypeAny;
  return t instanceof ZodObject ? (t.shape as Record<string, ZodTypeAny>) : undefined;
}

/** The full JSON Schema of a body or an answer (every named contract inlined, so each operation stands alone). */
function fullSchemaOf(t: ZodTypeAny): Record<string, unknown> {
  const { $schema: _drop, ...schema } = zodToJsonSchema(t, { $refStrategy: "none", effectStrategy: "input" }) as Record<string, unknown>;
  return schema;
}

/** The JSON Schema of the simple zod types query strings use; anything else is described as a string. */
export function jsonSchemaOf(t: ZodTypeAny): Record<string, unknown> {
  if (t instanceof ZodOptional || t instanceof ZodNullable) return jsonSchemaOf(t.unwrap() as ZodTypeAny);
  if (t instanceof ZodDefault) return { ...jsonSchemaOf(t.removeDefault() as ZodTypeAny), default: t._def.defaultValue() as unknown };
  if (t instanceof ZodEffects) return jsonSchemaOf(t.innerType() as ZodTypeAny);
  if (t instanceof ZodEnum) return { type: "string", enum: [...(t.options as string[])] };
  if (t instanceof ZodLiteral) return { const: t.value as unknown };
  if (t instanceof ZodNumber) return { type: t.isInt ? "integer" : "number" };
  if (t instanceof ZodBoolean) return { type: "boolean" };
  if (t instanceof ZodString) {
    const s: Record<string, unknown> = { type: "string" };
    if (t.maxLength !== null) s.maxLength = t.maxLength;
    if (t.minLength !== null) s.minLength = t.minLength;
    return s;
  }
  if (t instanceof ZodObject) {
    const shape = t.shape as Record<string, ZodTypeAny>;
    return {
      type: "object",
      properties: Object.fromEntries(Object.entries(shape).map(([k, v]) => [k, jsonSchemaOf(v)])),
      required: Object.entries(shape).filter(([, v]) => !v.isOptional()).map(([k]) => k),
    };
  }
  return { type: "string" };
}

function queryParams(spec: RouteSpec): OpenApiParameter[] {
  const shape = objectShape(spec.query as ZodTypeAny | undefined);
  if (!shape) return [];
  return Object.entries(shape).map(([name, t]) => ({ name, in: "query", required: !t.isOptional(), schema: jsonSchemaOf(t) }));
}

function operationId(spec: RouteSpec): string {
  const words = spec.url
    .split("/")
    .filter((p) => p && p !== "api")
    .map((p) => (p.startsWith(":") ? `by_${p.slice(1)}` : p.replace(/[^A-Za-z0-9]+/g, "_")));
  return [spec.method.toLowerCase(), ...words].join("_");
}

const built = new WeakMap<readonly RouteSpec[], { size: number; doc: OpenApiDocument }>();

export function openApiDocument(routes: readonly RouteSpec[]): OpenApiDocument {
  const cached = built.get(routes);
  if (cached && cached.size === routes.length) return cached.doc;
  const doc = buildDocument(routes);
  built.set(routes, { size: routes.length, doc });
  return doc;
}

function answerOf(spec: RouteSpec): OpenApiResponse {
  if (isBytes(spec.response)) return { description: "the bytes asked for", content: { [spec.response.contentType]: { schema: { type: "string", format: "binary" } } } };
  return { description: "the result", content: { "application/json": { schema: fullSchemaOf(spec.response) } } };
}

function buildDocument(routes: readonly RouteSpec[]): OpenApiDocument {
  const paths: OpenApiDocument["paths"] = {};
  for (const spec of routes) {
    const path = openApiPath(spec.url);
    const op: OpenApiOperation = {
      operationId: operationId(spec),
      summary: spec.summary,
      "x-dalil-action": spec.action,
      parameters: [...pathParams(spec), ...queryParams(spec)],
      // A public route needs nothing; the others take the session cookie (with the CSRF header on writes) or a token.
      security: spec.action === "public" ? [] : [{ session: [] }, { token: [] }],
      responses: {
        "200": answerOf(spec),
        ...(spec.action === "public" ? {} : { "401": { description: "not signed in" }, "403": { description: "the role may not do this" } }),
        "404": { description: "no such record" },
        "422": { description: "the request is not valid: `message` says why and `field` where" },
      },
    };
    if (spec.method === "POST" || spec.method === "PUT") {
      const content: Record<string, { schema: Record<string, unknown> }> = spec.raw ? { "application/octet-stream": { schema: { type: "string", format: "binary" } } } : { "application/json": { schema: spec.body ? fullSchemaOf(spec.body as ZodTypeAny) : { type: "object" } } };
      op.requestBody = { required: false, content };
      // Both decided from the headers, before the body is read.
      op.responses["413"] = { description: `the body is larger than this route takes (${bodyLimitOf(spec)} bytes)` };
      op.responses["415"] = { description: `the body is not ${Object.keys(content)[0]}` };
      op["x-dalil-body-limit"] = bodyLimitOf(spec);
    }
    (paths[path] ??= {})[spec.method.toLowerCase()] = op;
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "dalil",
      version: SOFTWARE.version,
      description: "The archive's HTTP API. Every operation names the action it needs (x-dalil-action); who may do what is decided by one policy.",
    },
    components: {
      securitySchemes: {
        session: { type: "apiKey", in: "cookie", name: "dalil_session", description: "a signed-in session; writes also send X-CSRF-Token" },
        token: { type: "http", scheme: "bearer", description: "an API token" },
      },
    },
    paths,
  };
}
