import Fastify, { type FastifyInstance, type FastifyRequest } from "fastify";
import { ZodError, type ZodType, type ZodTypeDef } from "zod";
import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { DalilError } from "../core/errors.ts";
import type { Action } from "../access/policy.ts";
import { registerArchiveRoutes } from "../archive/routes.ts";
import { registerLogRoutes } from "../ledger/routes.ts";

/**
 * The HTTP shell over the use cases. Every route declares the action it needs (`action`, or "public" for the
 * health check); the route table is kept so a test can check every route × role. Errors map to status codes
 * with the same sentence the CLI prints.
 */
export interface RouteSpec<Q = unknown> {
  method: "GET" | "POST" | "PUT" | "DELETE";
  url: string;
  action: Action | "public";
  query?: ZodType<Q, ZodTypeDef, unknown>;
  summary: string;
  handler: (req: FastifyRequest, ctx: Ctx, actor: Actor, query: Q) => Promise<unknown>;
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

/** Until sign-in exists (access issue) the server answers as an anonymous public visitor. */
const anonymous: Actor = { kind: "user", id: "anonymous", role: "public" };

export async function buildHttpApp(ctx: Ctx, opts: { actorFor?: (req: FastifyRequest) => Actor } = {}): Promise<HttpApp> {
  const app = Fastify({ logger: false, bodyLimit: 1024 * 1024, trustProxy: false });
  const routes: RouteSpec[] = [];

  app.decorateRequest("actor", null as unknown as Actor);
  app.addHook("onRequest", async (req, reply) => {
    req.actor = opts.actorFor?.(req) ?? anonymous;
    reply.header("x-content-type-options", "nosniff");
    reply.header("x-frame-options", "DENY");
    reply.header("referrer-policy", "no-referrer");
    reply.header("content-security-policy", "default-src 'self'; img-src 'self' blob: data:; object-src 'none'; frame-ancestors 'none'; base-uri 'none'");
  });

  app.setErrorHandler((err, _req, reply) => {
    if (err instanceof DalilError) {
      return reply.status(err.status).send({ error: err.code, message: err.message, ...fieldOf(err) });
    }
    if (err instanceof ZodError) {
      const issue = err.issues[0];
      return reply.status(422).send({
        error: "invalid",
        message: issue ? `${issue.path.join(".") || "request"}: ${issue.message}` : "The request is not valid.",
        field: issue?.path.join("."),
      });
    }
    const status = (err as { statusCode?: number }).statusCode;
    if (status && status >= 400 && status < 500) {
      return reply.status(status).send({ error: "bad_request", message: (err as Error).message });
    }
    ctx.logger.log("error", "request failed", { error: (err as Error).message });
    return reply.status(500).send({ error: "internal", message: "Something went wrong on the server; it has been logged." });
  });

  const register = <Q>(spec: RouteSpec<Q>) => {
    routes.push(spec as RouteSpec);
    app.route({
      method: spec.method,
      url: spec.url,
      handler: async (req) => {
        if (spec.action !== "public") ctx.policy.require(req.actor, spec.action);
        const query = spec.query ? spec.query.parse(req.query) : (undefined as Q);
        return spec.handler(req, ctx, req.actor, query);
      },
    });
  };

  register({
    method: "GET",
    url: "/api/health",
    action: "public",
    summary: "liveness and the database in use",
    handler: async () => {
      await ctx.log.size();
      return { ok: true, database: ctx.db.dialect };
    },
  });
  registerArchiveRoutes(register);
  registerLogRoutes(register);

  app.get("/api/routes", async () => routes.map((r) => ({ method: r.method, url: r.url, action: r.action, summary: r.summary })));
  return { app, routes };
}

export type RegisterRoute = <Q>(spec: RouteSpec<Q>) => void;

function fieldOf(err: DalilError): { field?: string } {
  const f = (err as { field?: string }).field;
  return f ? { field: f } : {};
}
