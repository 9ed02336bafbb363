import { createDecipheriv, createHash } from "node:crypto";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { IntegrityError, Invalid } from "../core/errors.ts";
import { say } from "../core/messages.ts";
import { paths } from "../core/config.ts";
import { custody, decodeEntryBundle, restoreLog, tilePath, tilesForSize, type StoredOpening } from "../ledger/index.ts";
import { recordsFromLog } from "../archive/index.ts";
import { loadKeyFile } from "../access/index.ts";
import { loadMirror, mirrorPaths } from "./follower.ts";
import { OPENINGS_KEY_FILE, openingsAad } from "./serving.ts";

/**
 * `dalil restore --from MIRROR_DIR`: a working archive rebuilt from a mirror's copy and the archive's keys. The
 * mirror holds the log (entries, checkpoints), the openings sealed under the archive's openings key, and the blob
 * store's objects as ciphertext; the keys (log key, master and naming keys, openings key) come from the
 * archive's key backup. The log is put back byte for byte and checked against every checkpoint the mirror held;
 * every object is checked against the SHA-256 the mirror recorded when it fetched it; the archive's records of
 * sources, originals and renditions are rebuilt from the log; the restore itself is the next custody event.
 */
export interface RestoreReport {
  events: number;
  checkpoints: number;
  objects: number;
  bytes: number;
  sources: number;
  originals: number;
  renditions: number;
}

export async function restoreFromMirror(ctx: Ctx, actor: Actor, input: { mirrorDir: string }): Promise<RestoreReport> {
  ctx.policy.require(actor, "mirror.manage");
  const dir = input.mirrorDir;
  const p = mirrorPaths(dir);
  const { config, state } = loadMirror(dir);
  if (!state) throw new Invalid(say("mirror.notFollowedYet", { dir }), "from");
  if (existsSync(p.alarm)) throw new Invalid(say("mirror.stoppedAlarm", { dir, alarm: p.alarm }), "from");
  if (config.origin !== ctx.tree.origin) {
    throw new Invalid(say("mirror.otherLog", { origin: config.origin, keys: ctx.tree.origin }), "keys");
  }
  const openingsKey = loadKeyFile(paths.keys(ctx.config), OPENINGS_KEY_FILE, false);
  if (!openingsKey) throw new Invalid(say("mirror.noOpeningsKey", { file: OPENINGS_KEY_FILE }), "keys");

  const leaves: Buffer[] = [];
  const openings: StoredOpening[] = [];
  for (const t of tilesForSize(state.size)) {
    if (t.kind !== "entries") continue;
    const path = tilePath(t);
    leaves.push(...decodeEntryBundle(readFileSync(join(p.log, path))));
    const sealed = readFileSync(join(p.log, "openings", path));
    for (const o of JSON.parse(unseal(openingsKey, config.origin, path, sealed).toString("utf8")) as StoredOpening[]) if (o.seq < state.size) openings.push(o);
  }
  if (leaves.length !== state.size) throw new IntegrityError(say("mirror.entriesShort", { entries: leaves.length, size: state.size }));
  const checkpointsDir = join(p.log, "checkpoints");
  const notes = readdirSync(checkpointsDir).map((f) => readFileSync(join(checkpointsDir, f), "utf8"));

  const manifest = JSON.parse(readFileSync(p.manifest, "utf8")) as Record<string, { size: number; sha256: string }>;
  let bytes = 0;
  for (const [key, m] of Object.entries(manifest)) {
    const b = readFileSync(join(p.blobs, key));
    if (b.length !== m.size || createHash("sha256").update(b).digest("hex") !== m.sha256) {
      throw new IntegrityError(say("mirror.copyDiffers", { key }));
    }
    await ctx.blobs.writeObject(key, b);
    bytes += b.length;
  }

  return ctx.db.transaction(async (tx) => {
    const log = await restoreLog(ctx, tx, { leaves, openings, checkpoints: notes });
    const records = await recordsFromLog(ctx, tx, leaves);
    await ctx.log.append(tx, custody("replication", actor, ctx.clock.now(), [], { act: "restored", size: state.size, root: Buffer.from(state.root, "base64").toString("hex"), objects: Object.keys(manifest).length }));
    return { events: log.events, checkpoints: log.checkpoints, objects: Object.keys(manifest).length, bytes, ...records };
  });
}

function unseal(key: Buffer, origin: string, path: string, sealed: Buffer): Buffer {
  try {
    const d = createDecipheriv("aes-256-gcm", key, sealed.subarray(0, 12));
    d.setAAD(openingsAad(origin, path));
    d.setAuthTag(sealed.subarray(sealed.length - 16));
    return Buffer.concat([d.update(sealed.subarray(12, sealed.length - 16)), d.final()]);
  } catch {
    throw new IntegrityError(say("mirror.openingsSealed", { path, file: OPENINGS_KEY_FILE }));
  }
}
