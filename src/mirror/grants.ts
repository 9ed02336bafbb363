import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { Conflict, Invalid, NotFound } from "../core/errors.ts";
import { say } from "../core/messages.ts";
import { newId } from "../core/ids.ts";
import { custody, secret } from "../ledger/index.ts";
import { randomBytes } from "node:crypto";
import { loadKeyFile, sha256Hex, type Action } from "../access/index.ts";
import { paths } from "../core/config.ts";
import { OPENINGS_KEY_FILE } from "./serving.ts";
import type { Tx } from "../db/database.ts";
import type { Clock } from "../core/clock.ts";
import { mdb } from "./tables.ts";
import { GrantMirrorInput, RevokeMirrorInput, type MirrorGrantIssued, type MirrorGrantView } from "./contracts.ts";
import { parseInput } from "../core/input.ts";

/**
 * Grants: another custodian's mirror follows the archive with a bearer token made for it alone. The token is
 * shown once and stored as its SHA-256; revoking ends it at once. Granting and revoking are custody events
 * (PREMIS "replication" with act granted/revoked) naming the grant by id, the custodian's name only as a
 * commitment: the log says a copy was authorised and when, not to whom.
 */
export const TOKEN_PREFIX = "dalilm_";


export type { MirrorGrantView };

function cleanName(name: string): string {
  const n = name.trim();
  if (n.length < 1 || n.length > 120 || [...n].some((ch) => ch.charCodeAt(0) < 0x20)) throw new Invalid(say("mirror.name"), "name");
  return n;
}

export async function grantMirror(ctx: Ctx, actor: Actor, sent: GrantMirrorInput): Promise<MirrorGrantIssued> {
  ctx.policy.require(actor, "mirror.manage");
  const name = cleanName(parseInput(GrantMirrorInput, sent).name);
  const token = `${TOKEN_PREFIX}${randomBytes(32).toString("base64url")}`;
  const id = newId("mir");
  const now = ctx.clock.now();
  // the key that seals the openings a mirror holds is made now, so a keys backup taken after a grant has it
  loadKeyFile(paths.keys(ctx.config), OPENINGS_KEY_FILE, true);
  return ctx.db.transaction(async (tx) => {
    const live = await mdb(tx).selectFrom("mirror_grants").select("id").where("name", "=", name).where("revoked_at", "is", null).executeTakeFirst();
    if (live) throw new Conflict(say("mirror.liveGrant", { name }));
    await mdb(tx)
      .insertInto("mirror_grants")
      .values({ id, name, token_hash: sha256Hex(token), created_at: now.toISOString(), created_by: actor.id, revoked_at: null, last_seen_at: null })
      .execute();
    await ctx.log.append(tx, custody("replication", actor, now, [{ id, role: "mirror" }], { act: "granted", mirror: id, name: secret(name) }));
    return { id, name, createdAt: now.toISOString(), revokedAt: null, lastSeenAt: null, token };
  });
}

export async function revokeMirror(ctx: Ctx, actor: Actor, sent: RevokeMirrorInput): Promise<MirrorGrantView> {
  ctx.policy.require(actor, "mirror.manage");
  const name = cleanName(parseInput(RevokeMirrorInput, sent).name);
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const row = await mdb(tx).selectFrom("mirror_grants").selectAll().where("name", "=", name).where("revoked_at", "is", null).executeTakeFirst();
    if (!row) throw new NotFound(say("mirror.noLiveGrant", { name }));
    await mdb(tx).updateTable("mirror_grants").set({ revoked_at: now.toISOString() }).where("id", "=", row.id).execute();
    await ctx.log.append(tx, custody("replication", actor, now, [{ id: row.id, role: "mirror" }], { act: "revoked", mirror: row.id, name: secret(name) }));
    return { id: row.id, name: row.name, createdAt: row.created_at, revokedAt: now.toISOString(), lastSeenAt: row.last_seen_at };
  });
}

export async function listMirrors(ctx: Ctx, actor: Actor): Promise<MirrorGrantView[]> {
  ctx.policy.require(actor, "mirror.manage");
  const rows = await mdb(ctx.db.db).selectFrom("mirror_grants").selectAll().orderBy("created_at").execute();
  return rows.map((r) => ({ id: r.id, name: r.name, createdAt: r.created_at, revokedAt: r.revoked_at, lastSeenAt: r.last_seen_at }));
}

/**
 * The actor a follower's token stands for, or null when it is not a live grant's. The actor is role public,
 * kind follower, scoped to following and the public log: the policy grants it nothing else.
 */
export async function followerForToken(tx: Tx, clock: Clock, token: string): Promise<Actor | null> {
  if (!token.startsWith(TOKEN_PREFIX)) return null;
  const row = await mdb(tx).selectFrom("mirror_grants").select(["id", "last_seen_at"]).where("token_hash", "=", sha256Hex(token)).where("revoked_at", "is", null).executeTakeFirst();
  if (!row) return null;
  const now = clock.now().toISOString();
  // at most one write a minute per follower: a catch-up makes thousands of requests
  if (!row.last_seen_at || Date.parse(now) - Date.parse(row.last_seen_at) > 60_000) {
    await mdb(tx).updateTable("mirror_grants").set({ last_seen_at: now }).where("id", "=", row.id).execute();
  }
  const actor: Actor & { scopes: Action[] } = { kind: "follower", id: `follower:${row.id}`, role: "public", scopes: ["mirror.follow", "log.read"] };
  return actor;
}
