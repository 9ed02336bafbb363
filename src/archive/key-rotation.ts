import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { paths } from "../core/config.ts";
import { custody } from "../ledger/index.ts";
import { generateKey, loadOrCreateBlobKeys, rotateMasterKey as rewrapBlobKeys } from "./blobs/index.ts";

/**
 * Master key rotation, which an administrator starts: rewraps every blob's data key under a new master key; the
 * blobs themselves are not rewritten. The blob store does the work (src/archive/blobs/keys.ts) and is safe to
 * interrupt and rerun. Run it with no server or worker writing: a process still holding the old key would wrap
 * new blobs with it. The rotation is a custody event ("key rotation") naming the key, the old and new key ids and
 * what was rewrapped, never a key. (The sealed-records key is access's: src/access/keys.ts.)
 */
export interface MasterRotation {
  from: string;
  to: string;
  sidecars: number;
  rewrapped: number;
  alreadyCurrent: number;
  event: string;
}

export async function rotateMasterKey(ctx: Ctx, actor: Actor, input: { newKey?: Buffer } = {}): Promise<MasterRotation> {
  ctx.policy.require(actor, "keys.rotate");
  const keys = await loadOrCreateBlobKeys(paths.keys(ctx.config));
  const { keys: after, report } = await rewrapBlobKeys(ctx.blobs, keys, input.newKey ?? generateKey());
  const event = await ctx.db.transaction(async (tx) => {
    const { event: e } = await ctx.log.append(
      tx,
      custody("key rotation", actor, ctx.clock.now(), [], {
        key: "master",
        from: keys.master.id,
        to: after.master.id,
        sidecars: report.sidecars,
        rewrapped: report.rewrapped,
      }),
    );
    return e.id;
  });
  return { from: keys.master.id, to: after.master.id, sidecars: report.sidecars, rewrapped: report.rewrapped, alreadyCurrent: report.alreadyCurrent, event };
}

