import type { FastifyReply, FastifyRequest } from "fastify";
import { z, type AnyZodObject, type ZodObject, type ZodRawShape, type ZodTypeAny } from "zod";
import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import type { Action } from "../access/index.ts";
import { Invalid } from "../core/errors.ts";

/**
 * One route as a module declares it: method, path, the action it needs, and its contract — the zod schemas of
 * its path parameters, query, body and answer. The HTTP shell (app.ts) parses params, query and body with these
 * schemas once, at the edge, and hands the handler typed values; the OpenAPI document and the web app's types
 * are built from the same schemas. A handler's answer is checked against `response` by the compiler (its
 * return type is the schema's input type), and every JSON GET by a test that validates what is served.
 */
export interface RouteSpec<QS = ZodTypeAny, R extends ResponseSchema = ResponseSchema, PS = ZodTypeAny, BS = ZodTypeAny> {
  method: "GET" | "POST" | "PUT" | "DELETE";
  url: string;
  action: Action | "public";
  /** Path parameters: parsed by the edge (they choose the record the route is about). */
  params?: PS;
  /**
   * Query and body: a use case's input schema from its module's contracts.ts, marked `usecase(...)` — the edge
   * hands on what was sent and the use case parses it (`parseInput`) — or, for a route whose query only shapes
   * the HTTP answer (a flag, a page), a schema the edge parses itself.
   */
  query?: QS;
  body?: BS;
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
  handler: (req: FastifyRequest, ctx: Ctx, actor: Actor, input: RouteInput<Parsed<QS>, Parsed<PS>, Parsed<BS>>, reply: FastifyReply) => Promise<Answer<R>>;
}

/**
 * A schema the use case parses, not the edge: the handler gets what was sent, typed as the use case's input
 * (z.input), and passes it on; the use case's `parseInput` is the one check (422 naming the field, as before).
 */
export type UseCaseInput<S extends ZodTypeAny = ZodTypeAny> = S & { readonly [USE_CASE_PARSES]: true };
declare const USE_CASE_PARSES: unique symbol;
const parsedByUseCase = new WeakMap<ZodTypeAny, { input: ZodTypeAny; without: readonly string[] }>();

/**
 * Mark a use case's input schema as a route's query or body: the edge does not parse it, the use case does
 * (decision 0021). `without`: the fields the route's path gives (the handler adds them back with `withPath`).
 */
export function usecase<S extends AnyZodObject, K extends keyof S["shape"] & string = never>(schema: S, ...without: K[]): UseCaseInput<ZodObject<Omit<S["shape"], K>, UnknownKeysOf<S>>>;
export function usecase<S extends ZodTypeAny>(schema: S): UseCaseInput<S>;
export function usecase(schema: ZodTypeAny, ...without: string[]): ZodTypeAny {
  const part = without.length ? (schema as AnyZodObject).omit(Object.fromEntries(without.map((k) => [k, true]))) : schema;
  parsedByUseCase.set(part, { input: schema, without });
  return part;
}

type UnknownKeysOf<S> = S extends ZodObject<ZodRawShape, infer U> ? U : "strip";

export function isUseCaseInput(schema: ZodTypeAny): boolean {
  return parsedByUseCase.has(schema);
}

/** The use case's input schema a route's query or body is part of, and the fields the path gives (web contracts). */
export function useCaseInputOf(schema: ZodTypeAny): { input: ZodTypeAny; without: readonly string[] } | undefined {
  return parsedByUseCase.get(schema);
}

/** What a handler gets for a schema: the use case's input type as sent, or what the edge's parse made of it. */
export type Parsed<S> = S extends UseCaseInput ? z.input<S> : S extends ZodTypeAny ? z.output<S> : undefined;

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
export function route<QS extends ZodTypeAny | undefined = undefined, R extends ResponseSchema = ResponseSchema, PS extends ZodTypeAny | undefined = undefined, BS extends ZodTypeAny | undefined = undefined>(spec: RouteSpec<QS, R, PS, BS>): RouteSpec {
  return spec as unknown as RouteSpec;
}

/**
 * A use case's input from a body and the path's parameters: `{ ...body, ...path }`, except that a body naming a
 * path parameter itself is refused (the use case's strict schema would have refused it as an unknown field),
 * and a body that is no JSON object is handed on as it is for the use case's parse to refuse. No body is `{}`.
 */
export function withPath<B, P extends Record<string, unknown>>(body: B, path: P): B & P {
  const sent: unknown = body ?? {};
  if (typeof sent !== "object" || sent === null || Array.isArray(sent)) return sent as B & P;
  const named = Object.keys(path).filter((k) => Object.prototype.hasOwnProperty.call(sent, k));
  if (named.length > 0) throw new Invalid(`The input is not valid: Unrecognized key(s) in object: ${named.map((k) => `'${k}'`).join(", ")}.`).says("request.invalidBody");
  return { ...(sent as B), ...path };
}

/** A JSON body that may be left out: no body reads as `{}` (so its fields' own defaults and messages apply). */
export function optionalBody<T extends ZodTypeAny>(schema: T) {
  return z.preprocess((b) => b ?? {}, schema);
}
