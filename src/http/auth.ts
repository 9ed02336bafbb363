import type { FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { Unauthenticated } from "../core/errors.ts";
import {
  anonymousActor,
  beginEnrolment,
  changePassword,
  confirmEnrolment,
  csrfTokenFor,
  describeStage,
  findSession,
  actorForToken,
  regenerateRecoveryCodes,
  listOwnSessions,
  revokeOwnSession,
  signIn,
  signOut,
  signOutEverywhere,
  verifySecondFactor,
  type IssuedSession,
  type LiveSession,
  type SignedIn,
} from "../access/index.ts";
import { followerForToken, TOKEN_PREFIX as MIRROR_TOKEN_PREFIX } from "../mirror/index.ts";
import { route, type RouteSpec } from "./route-spec.ts";
import { checkCsrfToken, checkOrigin, isStateChanging, sessionCookieName, sessionCookieOptions } from "./security.ts";
import * as contracts from "./contracts.ts";

/**
 * Who a request is, and the routes that sign people in and out.
 *
 * A request is anonymous, or carries `Authorization: Bearer dalil_…` (an API token: its user narrowed to its
 * scopes), or the session cookie. A session half-way through signing in gives no actor (the request is
 * anonymous) but lets the sign-in routes finish the step it waits for. A bad bearer token is refused outright
 * (a script should fail loudly); a stale cookie is cleared and the request continues anonymous.
 */
export type Credential =
  | { kind: "none" }
  | { kind: "injected" }
  | { kind: "token" }
  | { kind: "session"; session: LiveSession };

declare module "fastify" {
  interface FastifyRequest {
    credential: Credential;
  }
}

export interface AuthOptions {
  actorFor?: (req: FastifyRequest) => Actor | undefined;
  /** Origins, besides the server's own, whose pages may send state-changing requests. */
  origins: readonly string[];
}

export async function authenticate(ctx: Ctx, req: FastifyRequest, reply: FastifyReply, opts: AuthOptions): Promise<void> {
  const injected = opts.actorFor?.(req);
  if (injected) {
    req.actor = injected;
    req.credential = { kind: "injected" };
  } else {
    await resolveCredential(ctx, req, reply);
  }
  if (isStateChanging(req.method)) {
    checkOrigin(req, opts.origins);
    if (req.credential.kind === "session") checkCsrfToken(req, csrfTokenFor(ctx.config, req.credential.session.token));
  }
}

async function resolveCredential(ctx: Ctx, req: FastifyRequest, reply: FastifyReply): Promise<void> {
  req.actor = anonymousActor;
  req.credential = { kind: "none" };
  const auth = req.headers.authorization;
  if (typeof auth === "string" && auth.length > 0) {
    const m = /^Bearer\s+(\S+)$/i.exec(auth);
    const token = m?.[1];
    // a mirror's follower token (dalilm_…) stands for a granted copy, an API token (dalil_…) for its user
    const actor = !token ? null : token.startsWith(MIRROR_TOKEN_PREFIX) ? await followerForToken(ctx.db.db, ctx.clock, token) : await actorForToken(ctx.db.db, ctx.clock, token);
    if (!actor) throw new Unauthenticated("This API token is not valid: it is unknown, revoked, expired, or its account is disabled.").says("refusal.badToken");
    req.actor = actor;
    req.credential = { kind: "token" };
    return;
  }
  const name = sessionCookieName(req);
  const token = req.cookies[name];
  if (!token) return;
  const session = await findSession(ctx.db.db, ctx.clock, token);
  if (!session) {
    reply.clearCookie(name, sessionCookieOptions(req));
    return;
  }
  req.credential = { kind: "session", session };
  if (session.stage === "full") req.actor = { kind: "user", id: session.user.id, role: session.user.role };
}

/** The sentence for a request that reached a route its half-way session cannot use yet. */
export function pendingHint(req: FastifyRequest): string | null {
  const c = req.credential;
  return c?.kind === "session" && c.session.stage !== "full" ? `Finish signing in first: ${describeStage(c.session.stage)}.` : null;
}

function setSession(req: FastifyRequest, reply: FastifyReply, ctx: Ctx, session: IssuedSession) {
  reply.setCookie(sessionCookieName(req), session.token, sessionCookieOptions(req));
  return { stage: session.stage, next: describeStage(session.stage), expiresAt: session.expiresAt, csrfToken: csrfTokenFor(ctx.config, session.token) };
}

function signedInReply(req: FastifyRequest, reply: FastifyReply, ctx: Ctx, s: SignedIn) {
  return {
    ...setSession(req, reply, ctx, s.session),
    user: s.user,
    ...(s.recoveryCodesLeft !== undefined ? { recoveryCodesLeft: s.recoveryCodesLeft } : {}),
  };
}

function pending(req: FastifyRequest): LiveSession {
  const c = req.credential;
  if (c.kind !== "session") throw new Unauthenticated("Sign in first: there is no sign-in under way in this browser.").says("refusal.noSignInUnderway");
  return c.session;
}

const SessionId = z.object({ id: z.string().max(64) });

export const AUTH_ROUTES: readonly RouteSpec[] = [
  route({
    method: "GET",
    url: "/api/session",
    action: "public",
    summary: "who this browser is signed in as, the sign-in step it is at, and its CSRF token",
    response: contracts.GetSessionAnswer,
    handler: async (req, ctx) => {
      const c = req.credential;
      if (c.kind === "session") {
        const { session } = c;
        return {
          signedIn: session.stage === "full",
          stage: session.stage,
          next: describeStage(session.stage),
          user: session.stage === "full" ? { id: session.user.id, email: session.user.email, role: session.user.role, secondFactor: session.user.secondFactor } : null,
          expiresAt: session.expiresAt,
          csrfToken: csrfTokenFor(ctx.config, session.token),
        };
      }
      if (c.kind === "token" || c.kind === "injected") return { signedIn: true, stage: "full" as const, user: { id: req.actor.id, role: req.actor.role } };
      return { signedIn: false, stage: null, user: null };
    },
  }),

  route({
    method: "POST",
    url: "/api/auth/login",
    action: "public",
    summary: "sign in with email and password; the answer says which step comes next",
    body: contracts.LoginInput,
    response: contracts.PostAuthLoginAnswer,
    handler: async (req, ctx, _actor, { body }, reply) => {
      const replacing = req.credential.kind === "session" ? req.credential.session.token : undefined;
      const s = await signIn(ctx, { email: body.email, password: body.password, address: req.ip, ...(replacing ? { replacing } : {}) });
      return signedInReply(req, reply, ctx, s);
    },
  }),

  route({
    method: "POST",
    url: "/api/auth/second-factor",
    action: "public",
    needsSession: true,
    summary: "the code from the authenticator app (or a recovery code) after the password",
    body: contracts.SecondFactorInput,
    response: contracts.PostAuthSecondFactorAnswer,
    handler: async (req, ctx, _a, { body }, reply) => {
      const s = await verifySecondFactor(ctx, pending(req), body);
      return signedInReply(req, reply, ctx, s);
    },
  }),

  route({
    method: "POST",
    url: "/api/auth/password",
    action: "public",
    needsSession: true,
    summary: "choose a new password (required after a one-time password); other sessions end",
    body: contracts.PasswordChangeInput,
    response: contracts.PostAuthPasswordAnswer,
    handler: async (req, ctx, _a, { body }, reply) => {
      const s = await changePassword(ctx, pending(req), body);
      return signedInReply(req, reply, ctx, s);
    },
  }),

  route({
    method: "POST",
    url: "/api/auth/enrol",
    action: "public",
    needsSession: true,
    summary: "start setting up an authenticator app: the secret and its otpauth:// URI",
    response: contracts.PostAuthEnrolAnswer,
    handler: async (req, ctx) => beginEnrolment(ctx, pending(req)),
  }),

  route({
    method: "POST",
    url: "/api/auth/enrol/confirm",
    action: "public",
    needsSession: true,
    summary: "confirm the authenticator app with a first code; returns recovery codes, shown once",
    body: contracts.CodeInput,
    response: contracts.PostAuthEnrolConfirmAnswer,
    handler: async (req, ctx, _a, { body }, reply) => {
      const s = await confirmEnrolment(ctx, pending(req), body.code);
      return { ...signedInReply(req, reply, ctx, s), recoveryCodes: s.recoveryCodes };
    },
  }),

  route({
    method: "POST",
    url: "/api/auth/recovery-codes",
    action: "account.self",
    summary: "new recovery codes against a current authenticator code; the old ones stop working",
    body: contracts.CodeInput,
    response: contracts.PostAuthRecoveryCodesAnswer,
    handler: async (req, ctx, _actor, { body }) => {
      return { recoveryCodes: await regenerateRecoveryCodes(ctx, pending(req), body.code) };
    },
  }),

  route({
    method: "POST",
    url: "/api/auth/logout",
    action: "public",
    summary: "end this browser's session",
    response: contracts.PostAuthLogoutAnswer,
    handler: async (req, ctx, _a, _q, reply) => {
      if (req.credential.kind === "session") await signOut(ctx, req.credential.session.token);
      reply.clearCookie(sessionCookieName(req), sessionCookieOptions(req));
      return { signedIn: false };
    },
  }),

  route({
    method: "POST",
    url: "/api/auth/logout-everywhere",
    action: "account.self",
    summary: "end every session of this account, in every browser",
    response: contracts.PostAuthLogoutEverywhereAnswer,
    handler: async (req, ctx, actor, _q, reply) => {
      const r = await signOutEverywhere(ctx, actor);
      reply.clearCookie(sessionCookieName(req), sessionCookieOptions(req));
      return r;
    },
  }),

  route({
    method: "GET",
    url: "/api/account/sessions",
    action: "account.self",
    summary: "this account's live sessions",
    response: contracts.GetAccountSessionsAnswer,
    handler: async (req, ctx, actor) => {
      const current = req.credential.kind === "session" ? req.credential.session.id : undefined;
      return listOwnSessions(ctx, actor, current);
    },
  }),

  route({
    method: "DELETE",
    url: "/api/account/sessions/:id",
    action: "account.self",
    summary: "end one of this account's sessions",
    params: SessionId,
    response: contracts.DeleteAccountSessionsByIdAnswer,
    handler: async (req, ctx, actor, { params }) => revokeOwnSession(ctx, actor, params.id),
  }),
];
