import type { FastifyReply, FastifyRequest } from "fastify";
import { z, type ZodType, type ZodTypeAny, type ZodTypeDef } from "zod";
import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import type { Action } from "../access/index.ts";

/**
 * One route as a module declares it: method, path, the action it needs, and its contract — the zod schemas of
 * its path parameters, query, body and answer. The HTTP shell (app.ts) parses params, query and body with these
 * schemas once, at the edge, and hands the handler typed values; the OpenAPI document and the web app's types
 * are built from the same schemas. A handler's answer is checked against `response` by the compiler (its
 * return type is the schema's input type), and every JSON GET by a test that validates what is served.
 */
export interface RouteSpec<Q = unknown, R extends ResponseSchema = ResponseSchema, P = unknown, B = unknown> {
  method: "GET" | "POST" | "PUT" | "DELETE";
  url: string;
  action: Action | "public";
  params?: ZodType<P, ZodTypeDef, unknown>;
  query?: ZodType<Q, ZodTypeDef, unknown>;
  body?: ZodType<B, ZodTypeDef, unknown>;
  /** The answer: a zod schema of the JSON sent, or `bytes(type)` for a route that sends a file or text. */
  response: R;
  summary: string;
  /**
   * Largest request body this route takes. Without it: a few KiB for GET and DELETE and the public
   * sign-in routes, 1 MiB for other JSON routes (see `bodyLimitOf`).
   */
  bodyLimit?: number;
  /**
   * The body is raw bytes (`application/octet-stream`), read by the handler as a stream (uploads). Any other
   * content type is refused (415) before a byte of the body is read; JSON routes refuse everything but JSON.
   */
  raw?: boolean;
  /**
   * The route only means something to a browser that holds a session (if only half-way through signing in):
   * a request without one is refused before its body is read.
   */
  needsSession?: boolean;
  handler: (req: FastifyRequest, ctx: Ctx, actor: Actor, input: RouteInput<Q, P, B>, reply: FastifyReply) => Promise<Answer<R>>;
}

/** What the edge parsed: each part is `undefined` when the route declares no schema for it. */
export interface RouteInput<Q, P, B> {
  query: Q;
  params: P;
  body: B;
}

/** The answer of a route that sends bytes (a file, a rendition, a text note) rather than JSON. */
export interface Bytes {
  readonly kind: "bytes";
  readonly contentType: string;
}

export type ResponseSchema = ZodTypeAny | Bytes;

/** What a handler may return for a response schema: the schema's input type, or anything for bytes. */
export type Answer<R> = R extends ZodTypeAny ? z.input<R> : unknown;

export function bytes(contentType: string): Bytes {
  return { kind: "bytes", contentType };
}

export function isBytes(r: ResponseSchema): r is Bytes {
  return (r as Bytes).kind === "bytes";
}

/**
 * A route of a module's route table: checks the handler against the spec's schemas and keeps the spec as is.
 * (The table is then a plain list the HTTP shell registers, the matrix test walks and OpenAPI describes.)
 */
export function route<Q = undefined, R extends ResponseSchema = ResponseSchema, P = undefined, B = undefined>(spec: RouteSpec<Q, R, P, B>): RouteSpec {
  return spec as unknown as RouteSpec;
}

/** A JSON body that may be left out: no body reads as `{}` (so its fields' own defaults and messages apply). */
export function optionalBody<T extends ZodTypeAny>(schema: T) {
  return z.preprocess((b) => b ?? {}, schema);
}
