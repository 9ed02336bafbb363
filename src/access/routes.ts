import { z } from "zod";
import { route, usecase, withPath, type RouteSpec } from "../http/route-spec.ts";
import { addUser, disableUser, enableUser, listUsers, resetUser } from "./users.ts";
import { createApiToken, listApiTokens, revokeApiToken } from "./tokens.ts";
import { listSealed } from "./sealed.ts";
import { peopleNames } from "./people.ts";
import * as contracts from "./contracts.ts";

/**
 * Accounts, API tokens and sealed identities over HTTP. Opening a sealed identity is deliberately not here:
 * it is done at the server's console (`dalil sources unseal`), where the sealed key is, so a stolen
 * administrator's browser session cannot reach a source's identity.
 */
const UserId = z.object({ id: z.string().regex(/^usr_[a-z2-7]{26}$/, "must be an account id (usr_…)") });
const TokenId = z.object({ id: z.string().regex(/^tok_[a-z2-7]{26}$/, "must be a token id (tok_…)") });


export const ACCESS_ROUTES: readonly RouteSpec[] = [
  route({ method: "GET", url: "/api/users", action: "users.manage", summary: "accounts and their roles", response: contracts.GetUsersAnswer, handler: (_r, ctx, actor) => listUsers(ctx, actor) }),
  route({
    method: "POST",
    url: "/api/users",
    action: "users.manage",
    summary: "add an account; the one-time password is in this answer only",
    body: usecase(contracts.AddUserInput),
    response: contracts.PostUsersAnswer,
    handler: (req, ctx, actor, { body }) => addUser(ctx, actor, body),
  }),
  route({
    method: "POST",
    url: "/api/users/:id/disable",
    action: "users.manage",
    summary: "disable an account: its sessions and tokens stop at once",
    params: UserId,
    response: contracts.UserView,
    handler: (req, ctx, actor, { params }) => disableUser(ctx, actor, params.id),
  }),
  route({
    method: "POST",
    url: "/api/users/:id/enable",
    action: "users.manage",
    summary: "enable a disabled account",
    params: UserId,
    response: contracts.UserView,
    handler: (req, ctx, actor, { params }) => enableUser(ctx, actor, params.id),
  }),
  route({
    method: "POST",
    url: "/api/users/:id/reset",
    action: "users.manage",
    summary: "a new one-time password (and optionally a new second factor); sessions end",
    params: UserId,
    body: usecase(contracts.ResetUserInput, "user"),
    response: contracts.PostUsersByIdResetAnswer,
    handler: (req, ctx, actor, { params, body }) => resetUser(ctx, actor, withPath(body, { user: params.id })),
  }),

  route({
    method: "POST",
    url: "/api/people/names",
    action: "people.names",
    summary: "colleagues behind account ids, by address and role, so screens name people rather than ids",
    body: usecase(contracts.PeopleNamesInput),
    response: contracts.PostPeopleNamesAnswer,
    handler: (_r, ctx, actor, { body }) => peopleNames(ctx, actor, body),
  }),

  route({ method: "GET", url: "/api/tokens", action: "token.manage", summary: "your API tokens (never the secrets)", response: contracts.GetTokensAnswer, handler: (_r, ctx, actor) => listApiTokens(ctx, actor) }),
  route({
    method: "POST",
    url: "/api/tokens",
    action: "token.manage",
    summary: "a new API token with scopes; the secret is in this answer only",
    body: usecase(contracts.CreateApiTokenInput),
    response: contracts.PostTokensAnswer,
    handler: (req, ctx, actor, { body }) => createApiToken(ctx, actor, body),
  }),
  route({
    method: "DELETE",
    url: "/api/tokens/:id",
    action: "token.manage",
    summary: "revoke one of your API tokens",
    params: TokenId,
    response: contracts.ApiTokenView,
    handler: (req, ctx, actor, { params }) => revokeApiToken(ctx, actor, params.id),
  }),

  route({ method: "GET", url: "/api/sealed", action: "sealed.list", summary: "sources with a sealed identity (never the identity)", response: contracts.GetSealedAnswer, handler: (_r, ctx, actor) => listSealed(ctx, actor) }),
];
