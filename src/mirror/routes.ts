import { bytes, route, usecase, type RouteSpec } from "../http/route-spec.ts";
import { grantMirror, listMirrors, revokeMirror } from "./grants.ts";
import * as contracts from "./contracts.ts";
import { mirrorEntryBundle, mirrorObject, mirrorObjectList, mirrorSealedOpenings } from "./serving.ts";

const rest = (req: { params: unknown }): string => (req.params as { "*": string })["*"];

/**
 * The follower's surface (a granted mirror's bearer token, `mirror.follow`); the public log (checkpoint, key,
 * hash tiles, consistency proofs) is at /log as for anyone. The gate refuses before any lookup.
 */
export const MIRROR_ROUTES: readonly RouteSpec[] = [
  route({
    method: "GET",
    url: "/api/mirrors",
    action: "mirror.manage",
    summary: "the mirrors granted a copy of the archive, revoked or not, and when each last fetched",
    response: contracts.GetMirrorsAnswer,
    handler: async (_req, ctx, actor) => listMirrors(ctx, actor),
  }),
  route({
    method: "POST",
    url: "/api/mirrors",
    action: "mirror.manage",
    summary: "grant a mirror a copy of the archive: its token is in this answer only (as `dalil mirror grant NAME` prints it)",
    body: usecase(contracts.GrantMirrorInput),
    response: contracts.MirrorGrantIssued,
    handler: async (_req, ctx, actor, { body }) => grantMirror(ctx, actor, body),
  }),
  route({
    method: "POST",
    url: "/api/mirrors/revoke",
    action: "mirror.manage",
    summary: "end a mirror's live grant by the custodian's name; its token stops working at once",
    body: usecase(contracts.RevokeMirrorInput),
    response: contracts.MirrorGrantView,
    handler: async (_req, ctx, actor, { body }) => revokeMirror(ctx, actor, body),
  }),
  route({
    method: "GET",
    url: "/mirror/tile/entries/*",
    action: "mirror.follow",
    summary: "C2SP tlog-tiles entry bundles for a granted mirror",
    response: bytes("application/octet-stream"),
    handler: async (req, ctx, actor) => mirrorEntryBundle(ctx, actor, `tile/entries/${rest(req)}`),
  }),
  route({
    method: "GET",
    url: "/mirror/openings/tile/entries/*",
    action: "mirror.follow",
    summary: "the openings of one entry bundle's commitments, sealed with the archive's openings key (AES-256-GCM)",
    response: bytes("application/octet-stream"),
    handler: async (req, ctx, actor) => mirrorSealedOpenings(ctx, actor, `tile/entries/${rest(req)}`),
  }),
  route({
    method: "GET",
    url: "/mirror/objects",
    action: "mirror.follow",
    summary: "every object of the blob store at rest (ciphertext, wrapped keys): one line each, size and key",
    response: bytes("text/plain; charset=utf-8"),
    handler: async (_req, ctx, actor) => mirrorObjectList(ctx, actor),
  }),
  route({
    method: "GET",
    url: "/mirror/object/*",
    action: "mirror.follow",
    summary: "one object of the blob store as it is at rest (ciphertext)",
    response: bytes("application/octet-stream"),
    handler: async (req, ctx, actor) => mirrorObject(ctx, actor, rest(req)),
  }),
];
