import type { FastifyReply, FastifyRequest } from "fastify";
import { Forbidden } from "../core/errors.ts";
import { constantTimeEqual } from "../access/index.ts";

/**
 * What every response and every state-changing request goes through, apart from who the actor is (auth.ts).
 *
 * CSRF: a state-changing request (anything but GET/HEAD/OPTIONS) is refused when
 *  1. it comes from another origin: its `Origin` header (browsers send one on every such request) is neither
 *     the server's own origin nor one configured, or, without `Origin`, its `Sec-Fetch-Site` is cross-site; or
 *  2. it rides on a session cookie without the session's CSRF token in `X-CSRF-Token` (a synchronizer token:
 *     an HMAC of the session's cookie value, handed out by `GET /api/session`, never in a cookie).
 * Requests that carry a bearer token instead of a cookie are not CSRF-able (a browser never adds the header
 * on its own) and need no token. The session cookie is also SameSite=Strict: three independent locks.
 */
export const CSRF_HEADER = "x-csrf-token";

/** Request bodies by kind of route (app.ts `bodyLimitOf`); imports and uploads declare their own on their route. */
export const LIMITS = {
  jsonBodyBytes: 1024 * 1024,
  /** The public routes (sign-in and its steps, logout): an email, a password or two, a code. */
  publicBodyBytes: 16 * 1024,
  /** DELETE: at most a few fields. */
  smallBodyBytes: 4 * 1024,
  uploadBytes: 4 * 1024 * 1024 * 1024,
};

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

export function isStateChanging(method: string): boolean {
  return !SAFE_METHODS.has(method.toUpperCase());
}

export const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' blob: data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "object-src 'none'",
].join("; ");

export function securityHeaders(req: FastifyRequest, reply: FastifyReply): void {
  reply.header("content-security-policy", req.protocol === "https" ? `${CSP}; upgrade-insecure-requests` : CSP);
  reply.header("x-content-type-options", "nosniff");
  reply.header("x-frame-options", "DENY");
  reply.header("referrer-policy", "no-referrer");
  reply.header("cross-origin-opener-policy", "same-origin");
  reply.header("cross-origin-resource-policy", "same-origin");
  reply.header("permissions-policy", "camera=(), microphone=(), geolocation=(), payment=(), usb=()");
  reply.header("x-permitted-cross-domain-policies", "none");
  if (req.protocol === "https") reply.header("strict-transport-security", "max-age=63072000; includeSubDomains");
  // What the API returns is about people: no shared or browser cache keeps a copy.
  if (req.url.startsWith("/api/")) reply.header("cache-control", "no-store");
}

/** The origin the request was addressed to, as a browser would write it in `Origin`. */
export function ownOrigin(req: FastifyRequest): string {
  return normaliseOrigin(`${req.protocol}://${req.host}`);
}

/** Lowercase, without the scheme's default port: `http://Example.org:80` and `http://example.org` are one origin. */
export function normaliseOrigin(origin: string): string {
  return origin.toLowerCase().replace(/^(http:\/\/[^/]+):80$/, "$1").replace(/^(https:\/\/[^/]+):443$/, "$1");
}

export function checkOrigin(req: FastifyRequest, extraOrigins: readonly string[]): void {
  const origin = req.headers.origin;
  if (typeof origin === "string") {
    const o = normaliseOrigin(origin);
    if (o !== ownOrigin(req) && !extraOrigins.includes(o)) {
      throw new Forbidden("This request came from another site and was refused; use the archive's own pages.");
    }
    return;
  }
  const site = req.headers["sec-fetch-site"];
  if (typeof site === "string" && site !== "same-origin" && site !== "none") {
    throw new Forbidden("This request came from another site and was refused; use the archive's own pages.");
  }
}

export function checkCsrfToken(req: FastifyRequest, expected: string): void {
  const got = req.headers[CSRF_HEADER];
  if (typeof got !== "string" || !constantTimeEqual(got, expected)) {
    throw new Forbidden("This request lacks the page's security token (X-CSRF-Token); reload the page and try again.");
  }
}

/** Cookie name: with HTTPS the `__Host-` prefix, which browsers only accept Secure, host-only and for path /. */
export function sessionCookieName(req: FastifyRequest): string {
  return req.protocol === "https" ? "__Host-dalil_session" : "dalil_session";
}

export interface CookieOptions {
  httpOnly: true;
  sameSite: "strict";
  secure: boolean;
  path: "/";
}

export function sessionCookieOptions(req: FastifyRequest): CookieOptions {
  // No Max-Age: the cookie ends with the browser (a shared computer), and the server ends it sooner anyway.
  return { httpOnly: true, sameSite: "strict", secure: req.protocol === "https", path: "/" };
}

/**
 * Log lines name records by id and hash only. Messages from libraries (a database error, a parser) may quote
 * what they were given: email addresses, tokens and long secrets are masked before anything is written.
 */
export function scrubForLog(message: string): string {
  return message
    .replace(/[^\s@"'<>()]+@[^\s@"'<>()]+\.[a-z]{2,}/gi, "<email>")
    .replace(/dalil_[A-Za-z0-9_-]{20,}/g, "<token>")
    .replace(/\b[A-Za-z0-9_-]{40,}\b/g, (m) => (/^[0-9a-f]{64}$/.test(m) ? m : "<secret>"));
}
