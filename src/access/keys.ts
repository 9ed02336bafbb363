import { randomBytes } from "node:crypto";
import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { IntegrityError, NotFound } from "../core/errors.ts";
import { custody } from "../ledger/index.ts";
import { promoteNextSealedKey, sealedKey, sealedKeyring, stageNextSealedKey, SEALED_KEY } from "./keyring.ts";
import { keyId, open, seal } from "./secrets.ts";
import { adb } from "./tables.ts";
import { sealedAad } from "./sealed.ts";
import { say } from "../core/messages.ts";

/**
 * Key rotation that administrators start. Each rotation is a custody event ("key rotation") naming the key,
 * the old and new key ids and what was rewrapped, never a key.
 *
 * - Master key (blobs): the archive's, beside the blob store it rewraps (src/archive/key-rotation.ts).
 * - Sealed key: re-encrypts every sealed identity under a new key in one transaction, the new key saved first.
 * - Log signing key: the ledger's business (old checkpoints must stay verifiable and the rotation is itself a
 *   signed event); not done here.
 */
export interface SealedRotation {
  from: string | null;
  to: string;
  records: number;
  event: string;
}

export async function rotateSealedKey(ctx: Ctx, actor: Actor): Promise<SealedRotation> {
  ctx.policy.require(actor, "keys.rotate");
  const old = sealedKey(ctx.config, false);
  const ring = sealedKeyring(ctx.config);
  const count = await adb(ctx.db.db).selectFrom("sealed_identities").select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow();
  if (!old && Number(count.n) > 0) throw new NotFound(say("sealed.keyMissingRotate", { file: SEALED_KEY }));
  const next = randomBytes(32);
  stageNextSealedKey(ctx.config, next);
  const to = keyId(next);
  const result = await ctx.db.transaction(async (tx) => {
    const rows = await adb(tx).selectFrom("sealed_identities").selectAll().execute();
    for (const row of rows) {
      const key = ring.get(row.key_id);
      if (!key) throw new IntegrityError(say("sealed.underMissingKey", { source: row.source_id, key: row.key_id }));
      const aad = sealedAad(row.source_id);
      const plain = open(key, row.nonce, row.ciphertext, aad);
      const { nonce, ciphertext } = seal(next, plain, aad);
      plain.fill(0);
      await adb(tx).updateTable("sealed_identities").set({ nonce, ciphertext, key_id: to }).where("source_id", "=", row.source_id).execute();
    }
    const { event } = await ctx.log.append(
      tx,
      custody("key rotation", actor, ctx.clock.now(), [], { key: "sealed", from: old ? keyId(old) : null, to, records: rows.length }),
    );
    return { records: rows.length, event: event.id };
  });
  promoteNextSealedKey(ctx.config, old);
  return { from: old ? keyId(old) : null, to, ...result };
}
