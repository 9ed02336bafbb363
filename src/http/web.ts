import { createReadStream, existsSync, statSync } from "node:fs";
import { extname, join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { ROLES } from "../core/actor.ts";
import { ACTIONS } from "../access/index.ts";
import type { RegisterRoute } from "./app.ts";
import { route } from "./route-spec.ts";
import * as contracts from "./contracts.ts";

/**
 * The web app, from the same origin as the API: the files Vite built into web/dist, with
 *  - hashed assets (/assets/name-HASH.js) cached for a year as immutable, gzip-precompressed copies when present;
 *  - every other GET that is not an API path answered with index.html (no-cache), so the app's own routes
 *    (/gallery, /photo/…) survive a reload; unknown /api/ and /log/ paths stay JSON 404s;
 *  - GET /api/permissions: which actions the current actor may attempt, so the app shows only the screens
 *    that will work (the server still decides every request);
 *  - raw request bodies (application/octet-stream) passed through as a stream, for uploads of card files.
 * Security headers (CSP and the rest) come from the app's onRequest hook and apply here too.
 */
export const WEB_DIST = resolve(fileURLToPath(new URL("../../web/dist", import.meta.url)));

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
  ".woff": "font/woff",
  ".txt": "text/plain; charset=utf-8",
  ".webmanifest": "application/manifest+json",
};

const API_PREFIXES = ["/api/", "/log/"];

export interface WebAppOptions {
  /** The built app (default: web/dist next to the source tree). */
  dir?: string;
}

export function registerWebApp(app: FastifyInstance, register: RegisterRoute, opts: WebAppOptions = {}): void {
  const dir = resolve(opts.dir ?? WEB_DIST);

  // Uploads (PUT /api/uploads/:id/files) read req.raw themselves, streaming to disk under their own limits.
  app.addContentTypeParser("application/octet-stream", (_req, _payload, done) => done(null, undefined));

  register(route({
    method: "GET",
    url: "/api/permissions",
    action: "public",
    summary: "the actions this browser's actor may attempt, and the roles there are (for the web app's menus)",
    response: contracts.GetPermissionsAnswer,
    handler: async (_req, ctx, actor) => ({
      role: actor.role,
      actions: ACTIONS.filter((a) => ctx.policy.mayAttempt(actor, a)),
      roles: [...ROLES],
    }),
  }));

  app.setNotFoundHandler(async (req, reply) => {
    const path = decodePath(req.url);
    if ((req.method !== "GET" && req.method !== "HEAD") || path === null || API_PREFIXES.some((p) => path.startsWith(p))) {
      return reply.status(404).send({ error: "not_found", message: `There is no ${req.method} ${path ?? "route"} here; GET /api/routes lists every route.` });
    }
    return serveFile(dir, path, req, reply);
  });
}

function decodePath(url: string): string | null {
  const raw = url.split("?")[0] ?? "/";
  try {
    return decodeURIComponent(raw);
  } catch {
    return null;
  }
}

async function serveFile(dir: string, path: string, req: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  const index = join(dir, "index.html");
  if (!existsSync(index)) {
    return reply
      .status(503)
      .type("text/plain; charset=utf-8")
      .send("The web app has not been built. Run `npm run build:web` (npm start and npm test do it for you), then reload.\n");
  }
  const file = resolve(dir, `.${path}`);
  const inside = file.startsWith(dir + sep);
  const isFile = inside && !path.includes("\0") && existsSync(file) && statSync(file).isFile();
  if (!isFile || file === index) {
    // An app route (/gallery, /photo/…): the app decides what to show. A missing hashed asset is a real 404.
    if (path.startsWith("/assets/")) return reply.status(404).type("text/plain; charset=utf-8").send("Not found.\n");
    reply.header("cache-control", "no-cache");
    return sendFile(reply, index, ".html", req);
  }
  const hashed = path.startsWith("/assets/");
  reply.header("cache-control", hashed ? "public, max-age=31536000, immutable" : "no-cache");
  return sendFile(reply, file, extname(file), req);
}

function sendFile(reply: FastifyReply, file: string, ext: string, req: FastifyRequest): FastifyReply {
  const type = TYPES[ext.toLowerCase()] ?? "application/octet-stream";
  reply.status(200).header("content-type", type).header("vary", "accept-encoding");
  const gz = `${file}.gz`;
  const accepts = String(req.headers["accept-encoding"] ?? "");
  if (/\bgzip\b/.test(accepts) && existsSync(gz)) {
    reply.header("content-encoding", "gzip").header("content-length", String(statSync(gz).size));
    return req.method === "HEAD" ? reply.send() : reply.send(createReadStream(gz));
  }
  reply.header("content-length", String(statSync(file).size));
  return req.method === "HEAD" ? reply.send() : reply.send(createReadStream(file));
}
