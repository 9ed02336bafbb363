import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import type { Tx } from "../db/database.ts";
import { Conflict, IntegrityError, Invalid, NotFound } from "../core/errors.ts";
import { custody } from "../ledger/index.ts";
import { secret } from "../ledger/index.ts";
import { sealedKey, sealedKeyring, SEALED_KEY } from "./keyring.ts";
import { keyId, open, seal } from "./secrets.ts";
import { adb } from "./tables.ts";
import * as contracts from "./contracts.ts";
import { parseInput } from "../core/input.ts";
import type { z } from "zod";
import { say, type Said } from "../core/messages.ts";

/**
 * Sealed source identities: who handed over a medium. The identity is encrypted with AES-256-GCM under its own
 * key (DATA/keys/sealed.key, apart from the blob and log keys), with the source id as associated data so a
 * sealed value cannot be moved onto another source. Archivists and administrators may seal; only an
 * administrator may open, giving a reason, and each opening is a custody event ("opened sealed record") that
 * names the source, the administrator and the reason, never the identity. The identity appears in no listing,
 * export, log line or error message: only in the return value of `openSealedIdentity`.
 */
export const MAX_IDENTITY_BYTES = contracts.MAX_IDENTITY_BYTES;
const MIN_REASON = 10;

/** Binds a sealed value to its source: moved onto another source's row, it does not open. */
export function sealedAad(sourceId: string): string {
  return `dalil.sealed/1\u0000${sourceId}`;
}

export type SealedView = contracts.SealedView;

/** `replace`: an existing sealed identity (administrators only). */
export type SealIdentity = z.input<typeof contracts.SealIdentityInput>;

/**
 * Whether a source exists, asked of the archive that owns the table of sources: the archive passes it in
 * (src/archive/sealing.ts), so access reads no archive table and the two modules do not import each other.
 */
export type SourceExists = (db: Tx, sourceId: string) => Promise<boolean>;

export async function sealIdentity(ctx: Ctx, actor: Actor, sent: SealIdentity, sourceExists: SourceExists): Promise<SealedView> {
  ctx.policy.require(actor, "sealed.write");
  const input = parseInput(contracts.SealIdentityInput, sent);
  if (input.replace) ctx.policy.require(actor, "sealed.open");
  const plaintext = Buffer.from(input.identity.trim(), "utf8");
  if (plaintext.length === 0) throw new Invalid(say("sealed.identityEmpty"), "identity");
  if (plaintext.length > MAX_IDENTITY_BYTES) throw new Invalid(say("sealed.identityTooLong", { kib: MAX_IDENTITY_BYTES / 1024 }), "identity");
  if (!(await sourceExists(ctx.db.db, input.sourceId))) throw new NotFound(say("source.notFound", { source: input.sourceId }));
  const key = sealedKey(ctx.config, false) ?? (await firstSealedKey(ctx));
  return ctx.db.transaction(async (tx) => {
    if (!(await sourceExists(tx, input.sourceId))) throw new NotFound(say("source.notFound", { source: input.sourceId }));
    const existing = await adb(tx).selectFrom("sealed_identities").select("source_id").where("source_id", "=", input.sourceId).executeTakeFirst();
    if (existing && !input.replace) throw new Conflict(say("sealed.identityExists", { source: input.sourceId }));
    const { nonce, ciphertext } = seal(key, plaintext, sealedAad(input.sourceId));
    const row = {
      source_id: input.sourceId,
      ciphertext,
      nonce,
      key_id: keyId(key),
      sealed_at: ctx.clock.now().toISOString(),
      sealed_by: actor.id,
    };
    if (existing) {
      await adb(tx).updateTable("sealed_identities").set(row).where("source_id", "=", input.sourceId).execute();
    } else {
      await adb(tx).insertInto("sealed_identities").values(row).execute();
    }
    await ctx.log.append(
      tx,
      custody("metadata modification", actor, ctx.clock.now(), [{ id: input.sourceId, role: "source" }], {
        record: "sealed source identity",
        change: existing ? "replaced" : "sealed",
        key: row.key_id,
      }),
    );
    return { sourceId: row.source_id, sealedAt: row.sealed_at, sealedBy: row.sealed_by, keyId: row.key_id };
  });
}

/**
 * The sealed key is made with the first sealed record. Once records exist, a missing key means it was taken off
 * the server on purpose (or lost): making a new one quietly would split the records across keys.
 */
async function firstSealedKey(ctx: Ctx): Promise<Buffer> {
  const any = await adb(ctx.db.db).selectFrom("sealed_identities").select("source_id").limit(1).executeTakeFirst();
  if (any) throw new NotFound(say("sealed.keyMissingSeal", { file: SEALED_KEY }));
  return sealedKey(ctx.config, true)!;
}

/** Which sources have a sealed identity: never the identity itself. */
export async function listSealed(ctx: Ctx, actor: Actor): Promise<SealedView[]> {
  ctx.policy.require(actor, "sealed.list");
  const rows = await adb(ctx.db.db).selectFrom("sealed_identities").select(["source_id", "sealed_at", "sealed_by", "key_id"]).orderBy("sealed_at").execute();
  return rows.map((r) => ({ sourceId: r.source_id, sealedAt: r.sealed_at, sealedBy: r.sealed_by, keyId: r.key_id }));
}

export async function isSealed(ctx: Ctx, sourceId: string): Promise<boolean> {
  const row = await adb(ctx.db.db).selectFrom("sealed_identities").select("source_id").where("source_id", "=", sourceId).executeTakeFirst();
  return row !== undefined;
}

export interface OpenSealed {
  sourceId: string;
  reason: string;
}

/**
 * Opens a sealed identity for an administrator with a reason. The custody event is appended in the same
 * transaction as the read; if the key is wrong or the record altered, a failed opening is recorded all the same.
 */
export async function openSealedIdentity(ctx: Ctx, actor: Actor, input: OpenSealed): Promise<{ sourceId: string; identity: string; event: string }> {
  ctx.policy.require(actor, "sealed.open");
  const reason = input.reason.trim();
  if (reason.length < MIN_REASON) {
    throw new Invalid(say("sealed.reasonNeeded", { min: MIN_REASON }), "reason");
  }
  const ring = sealedKeyring(ctx.config);
  if (ring.size === 0) throw new NotFound(say("sealed.keyMissingOpen", { file: SEALED_KEY }));
  const result = await ctx.db.transaction(async (tx) => {
    const row = await adb(tx).selectFrom("sealed_identities").selectAll().where("source_id", "=", input.sourceId).executeTakeFirst();
    if (!row) throw new NotFound(say("sealed.noIdentity", { source: input.sourceId }));
    let identity: string | null = null;
    let failure: Said | null = null;
    const key = ring.get(row.key_id);
    if (!key) {
      failure = say("sealed.keyNotHere", { key: row.key_id, keys: [...ring.keys()].join(", ") });
    } else {
      try {
        identity = open(key, row.nonce, row.ciphertext, sealedAad(row.source_id)).toString("utf8");
      } catch (err) {
        failure = err instanceof IntegrityError && err.key ? { key: err.key, params: err.params ?? {} } : say("sealed.couldNotOpen");
      }
    }
    const { event } = await ctx.log.append(
      tx,
      custody("opened sealed record", actor, ctx.clock.now(), [{ id: row.source_id, role: "source" }], { reason: secret(reason) }, identity === null ? "failure" : "success"),
    );
    return { identity, failure, event: event.id };
  });
  if (result.identity === null) throw new IntegrityError(result.failure ?? say("sealed.couldNotOpen"));
  return { sourceId: input.sourceId, identity: result.identity, event: result.event };
}
