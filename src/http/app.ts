import Fastify, { type FastifyInstance, type FastifyRequest, type RouteOptions } from "fastify";
import fastifyCookie from "@fastify/cookie";
import { ZodError, type ZodTypeAny } from "zod";
import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { DalilError, NotFound, TooLarge, Unauthenticated, Unavailable, UnsupportedMediaType } from "../core/errors.ts";
import { anonymousActor, gateRefusal } from "../access/index.ts";
import { ACCESS_ROUTES } from "../access/routes.ts";
import { authenticate, pendingHint, AUTH_ROUTES } from "./auth.ts";
import { isStateChanging, LIMITS, normaliseOrigin, scrubForLog, securityHeaders } from "./security.ts";
import { say } from "../core/messages.ts";
import { isDatabaseUnreachable } from "../db/unreachable.ts";
import { ARCHIVE_ROUTES } from "../archive/routes.ts";
import { LOG_ROUTES } from "../ledger/routes.ts";
import { CATALOGUE_ROUTES } from "../catalogue/routes.ts";
import { REVIEW_ROUTES } from "../review/routes.ts";
import { FAMILIES_ROUTES } from "../families/routes.ts";
import { DOSSIER_ROUTES } from "../dossiers/routes.ts";
import { STATISTICS_ROUTES } from "../catalogue/statistics-routes.ts";
import { WORK_ROUTES } from "../work/routes.ts";
import { AUTHENTICITY_ROUTES } from "../authenticity/routes.ts";
import { EXHIBITION_ROUTES } from "../exhibitions/routes.ts";
import { MIRROR_ROUTES } from "../mirror/index.ts";
import { isUseCaseInput, route, type RouteSpec } from "./route-spec.ts";
import { registerWebApp } from "./web.ts";
import { openApiDocument } from "./openapi.ts";
import * as contracts from "./contracts.ts";

export type { RouteSpec } from "./route-spec.ts";

/** Every module's route table, in the order they are registered (the web app's fallback comes last). */
export const MODULE_ROUTES: readonly (readonly RouteSpec[])[] = [ARCHIVE_ROUTES, LOG_ROUTES, AUTH_ROUTES, ACCESS_ROUTES, CATALOGUE_ROUTES, REVIEW_ROUTES, FAMILIES_ROUTES, DOSSIER_ROUTES, STATISTICS_ROUTES, WORK_ROUTES, AUTHENTICITY_ROUTES, EXHIBITION_ROUTES, MIRROR_ROUTES];

/**
 * The HTTP shell over the use cases. Every route declares the action it needs (`action`, or "public" for the
 * health check); the route table is kept so a test can check every route × role, and a route added to Fastify
 * any other way (without `config.action`) stops the server from building. Errors map to status codes with the
 * same sentence the CLI prints. Who the actor is (session cookie, API token), CSRF and security headers:
 * auth.ts and security.ts.
 */
export interface HttpOptions {
  /** Tests and embedders: the actor for a request, instead of its cookie or token (undefined: resolve as usual). */
  actorFor?: (req: FastifyRequest) => Actor | undefined;
  /** Origins, besides the server's own, whose pages may send state-changing requests (e.g. a separate web host). */
  origins?: readonly string[];
  /** Behind a reverse proxy: trust its X-Forwarded-* headers (its address, or true), so per-address limits see clients. */
  trustProxy?: boolean | string | string[];
}

export interface HttpApp {
  app: FastifyInstance;
  routes: RouteSpec[];
}

declare module "fastify" {
  interface FastifyRequest {
    actor: Actor;
  }
}

export async function buildHttpApp(ctx: Ctx, opts: HttpOptions = {}): Promise<HttpApp> {
  const app = Fastify({ logger: false, bodyLimit: LIMITS.jsonBodyBytes, trustProxy: opts.trustProxy ?? false });
  const routes: RouteSpec[] = [];
  const origins = (opts.origins ?? []).map(normaliseOrigin);

  await app.register(fastifyCookie);
  app.addHook("onRoute", requireDeclaredAction);
  app.decorateRequest("actor", null as unknown as Actor);
  // Set on every request by the onRequest hook below, before any handler reads it.
  app.decorateRequest("credential", null as never);
  app.addHook("onRequest", async (req, reply) => {
    req.actor = anonymousActor;
    req.credential = { kind: "none" };
    securityHeaders(req, reply);
    // A body sent to no route is never read (Fastify would parse it for the not-found handler). GET and HEAD
    // bodies are never parsed, and their unknown paths are the web app's own routes.
    if (req.is404 && isStateChanging(req.method) && hasBody(req)) throw new NotFound(`There is no ${req.method} ${req.url.split("?")[0]} here; GET /api/routes lists every route.`).says("request.noRoute", { method: req.method, path: req.url.split("?")[0]! });
    await authenticate(ctx, req, reply, { actorFor: opts.actorFor, origins });
  });

  app.setErrorHandler((err, req, reply) => {
    // Refused while the caller is still sending (a hook's refusal, a body over the limit): close the connection
    // after the answer, so the rest of the body is not read off the wire either.
    if (!req.raw.complete) reply.header("connection", "close");
    // The database not answering is said as the archive's own Unavailable, through the branch below.
    if (isDatabaseUnreachable(err)) {
      ctx.logger.log("warn", "request not carried out: the database did not answer", { error: scrubForLog((err as Error).message) });
      reply.header("retry-after", "30");
      err = new Unavailable(say("request.databaseUnavailable"));
    }
    if (err instanceof DalilError) {
      return reply.status(err.status).send({ error: err.code, message: err.message, ...fieldOf(err), ...(err.key ? { key: err.key, params: err.params ?? {} } : {}) });
    }
    if (err instanceof ZodError) {
      const issue = err.issues[0];
      return reply.status(422).send({
        error: "invalid",
        message: issue ? `${issue.path.join(".") || "request"}: ${issue.message}` : "The request is not valid.",
        field: issue?.path.join("."),
        ...(issue && issue.path.length > 0 ? { key: "request.invalid", params: { field: issue.path.join(".") } } : { key: "request.invalidBody", params: {} }),
      });
    }
    const status = (err as { statusCode?: number }).statusCode;
    if (status === 413) {
      return reply.status(413).send({ error: "too_large", message: "The request is larger than this route accepts.", key: "request.tooLarge", params: { bytes: req.routeOptions.bodyLimit } });
    }
    if (status && status >= 400 && status < 500) {
      return reply.status(status).send({ error: "bad_request", message: (err as Error).message });
    }
    ctx.logger.log("error", "request failed", { error: scrubForLog((err as Error).message) });
    return reply.status(500).send({ error: "internal", message: "Something went wrong on the server; it has been logged.", key: "request.failed", params: {} });
  });

  const register = (spec: RouteSpec) => {
    routes.push(spec);
    app.route({
      method: spec.method,
      url: spec.url,
      config: { action: spec.action },
      bodyLimit: bodyLimitOf(spec),
      // After the app's onRequest hook has found the actor, and before any byte of the body is read: a caller
      // who may not make this request is answered at once, and nothing they send is buffered.
      onRequest: async (req) => gate(ctx, spec, req),
      handler: async (req, reply) => {
        // Path parameters are parsed here (they choose the record); a query or body that is a use case's input
        // is handed on as sent and parsed by the use case (parseInput), once; any other is parsed here. A
        // ZodError here is a 422 naming the field (error handler), as the use case's Invalid is.
        const params = spec.params ? spec.params.parse(req.params) : undefined;
        const query = edgeParse(spec.query, req.query);
        const body = edgeParse(spec.body, req.body);
        return spec.handler(req, ctx, req.actor, { params, query, body }, reply);
      },
    });
  };

  register(route({
    method: "GET",
    url: "/api/health",
    action: "public",
    summary: "liveness and the database in use",
    response: contracts.GetHealthAnswer,
    handler: async () => {
      await ctx.log.size();
      return { ok: true, database: ctx.db.dialect };
    },
  }));
  for (const table of MODULE_ROUTES) for (const spec of table) register(spec);
  registerWebApp(app, register);

  register(route({
    method: "GET",
    url: "/api/routes",
    action: "public",
    summary: "every route with the action it needs",
    response: contracts.GetRoutesAnswer,
    handler: async () => routes.map((r) => ({ method: r.method, url: r.url, action: r.action, summary: r.summary })),
  }));
  register(route({
    method: "GET",
    url: "/api/openapi.json",
    action: "public",
    summary: "the OpenAPI 3.1 document of every route, built from the same table the server uses",
    response: contracts.OpenApiDocument,
    handler: async () => openApiDocument(routes),
  }));
  return { app, routes };
}

function edgeParse(schema: ZodTypeAny | undefined, sent: unknown): unknown {
  if (!schema) return undefined;
  return isUseCaseInput(schema) ? sent : schema.parse(sent);
}

export type RegisterRoute = (spec: RouteSpec) => void;

function fieldOf(err: DalilError): { field?: string } {
  const f = (err as { field?: string }).field;
  return f ? { field: f } : {};
}

/** Body limits by kind of route: a route that takes more says so (`bodyLimit`). */
export function bodyLimitOf(spec: Pick<RouteSpec, "method" | "action" | "bodyLimit" | "raw">): number {
  if (spec.bodyLimit) return spec.bodyLimit;
  // A GET's body is never read (Fastify does not parse one); the limit only has to be a valid number.
  if (spec.method === "GET" || spec.method === "DELETE") return LIMITS.smallBodyBytes;
  if (spec.action === "public") return LIMITS.publicBodyBytes;
  return LIMITS.jsonBodyBytes;
}

function hasBody(req: FastifyRequest): boolean {
  const length = req.headers["content-length"];
  return req.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0");
}

/**
 * What a route decides from the request line and headers alone: the actor may attempt its action, a session
 * is there if the route needs one, the body (if any) is of the route's content type and within its limit.
 */
async function gate(ctx: Ctx, spec: RouteSpec, req: FastifyRequest): Promise<void> {
  if (spec.action !== "public" && !ctx.policy.mayAttempt(req.actor, spec.action)) {
    const hint = pendingHint(req);
    throw hint ? new Unauthenticated(hint) : gateRefusal(req.actor, spec.action);
  }
  if (spec.needsSession && req.credential.kind !== "session") {
    throw new Unauthenticated("Sign in first: there is no sign-in under way in this browser.").says("refusal.noSignInUnderway");
  }
  if (spec.method === "GET" || !hasBody(req)) return;
  const type = String(req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
  const wanted = spec.raw ? "application/octet-stream" : "application/json";
  if (type !== wanted) {
    throw new UnsupportedMediaType(`This route takes a ${spec.raw ? "raw (application/octet-stream)" : "JSON (application/json)"} body, not ${type || "an untyped one"}.`).says("request.contentType", { wanted });
  }
  const length = Number(req.headers["content-length"]);
  const limit = bodyLimitOf(spec);
  if (Number.isFinite(length) && length > limit) throw new TooLarge(`The request is larger than this route accepts (${limit} bytes).`).says("request.tooLarge", { bytes: limit });
}

/** A route that did not come through `register` names no action: refuse to build rather than serve it unchecked. */
export function requireDeclaredAction(route: RouteOptions): void {
  const action = (route.config as { action?: unknown } | undefined)?.action;
  if (typeof action !== "string" || action.length === 0) {
    throw new Error(`route ${String(route.method)} ${route.url} declares no action; register it with an action (or "public")`);
  }
}
