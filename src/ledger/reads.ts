import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { Invalid, NotFound } from "../core/errors.ts";
import { openingsBetween, type StoredOpening } from "./openings.ts";
import type { TileFile } from "./tiles.ts";
import { parseTilePath, tileExists, tilePath, tilesForSize } from "./tiles.ts";
import type { StoredCheckpoint } from "./tree.ts";
import type { WitnessOutcome, WitnessState } from "./witness-client.ts";
import { describeQuorum, quorumMet, type WitnessPolicy } from "./witness-policy.ts";
import type { LogWitnesses } from "./contracts.ts";
import { say } from "../core/messages.ts";

/**
 * Reading the custody log's shape, for the HTTP routes under /log and the `log` commands alike. Checkpoints, the
 * verifier key, consistency proofs and hash tiles are for anyone (`log.read`): hashes only. Entry bundles are the
 * events themselves (`log.entries`). Inclusion proofs of one original are in proofs.ts.
 */

/**
 * The latest signed checkpoint. `sign` signs one first if the log has grown since (the operator's command does;
 * a reader over HTTP gets the latest signed one, and the first is signed on demand).
 */
export async function latestCheckpoint(ctx: Ctx, actor: Actor, input: { sign?: boolean } = {}): Promise<StoredCheckpoint> {
  ctx.policy.require(actor, "log.read");
  if (input.sign) return ctx.tree.checkpoint();
  return (await ctx.tree.latestCheckpoint()) ?? (await ctx.tree.checkpoint());
}

/** Asks the RFC 3161 authority to timestamp the latest checkpoint, unless it has a token already. */
export async function timestampLatestCheckpoint(ctx: Ctx, actor: Actor): Promise<StoredCheckpoint & { timestampToken: Buffer }> {
  ctx.policy.require(actor, "archive.verify");
  const latest = await ctx.tree.checkpoint();
  const cp = latest.timestampToken ? latest : await ctx.tree.timestamp(latest);
  if (!cp.timestampToken) throw new Invalid(say("timestamp.notTimestamped"));
  return cp as StoredCheckpoint & { timestampToken: Buffer };
}

export function verifierKey(ctx: Ctx, actor: Actor): { origin: string; vkey: string } {
  ctx.policy.require(actor, "log.read");
  return { origin: ctx.tree.origin, vkey: ctx.tree.verifierKey };
}

export async function consistencyProof(ctx: Ctx, actor: Actor, input: { from: number; to?: number }) {
  ctx.policy.require(actor, "log.read");
  return ctx.tree.proveConsistency(input.from, input.to);
}

/** One C2SP tlog-tiles file by its path: a hash tile for anyone, an entry bundle for `log.entries`. */
export async function logTile(ctx: Ctx, actor: Actor, input: { path: string; kind: "hash" | "entries" }): Promise<TileFile> {
  ctx.policy.require(actor, input.kind === "entries" ? "log.entries" : "log.read");
  return ctx.tree.tile(input.path, input.kind);
}

/**
 * Every tile of the log at its latest checkpoint (signed first if the log has grown), for publishing as static
 * files: hash tiles, and the entry bundles too when asked (`log.entries`: a custodians' copy, never a public mirror).
 */
export async function logTiles(ctx: Ctx, actor: Actor, input: { entries?: boolean } = {}): Promise<{ checkpoint: StoredCheckpoint; tiles: AsyncGenerator<TileFile> }> {
  ctx.policy.require(actor, input.entries ? "log.entries" : "log.read");
  const checkpoint = await ctx.tree.checkpoint();
  async function* tiles(): AsyncGenerator<TileFile> {
    for (const t of tilesForSize(checkpoint.size)) {
      if (t.kind === "entries" && !input.entries) continue;
      yield ctx.tree.tile(tilePath(t), t.kind);
    }
  }
  return { checkpoint, tiles: tiles() };
}

/** The witness policy in force and each witness's last cosignature and last alarm; null when there is no policy. */
export async function witnessStates(
  ctx: Ctx,
  actor: Actor,
): Promise<{ policyFile: string; policy: WitnessPolicy; latestSize: number | null; witnesses: WitnessState[] } | null> {
  ctx.policy.require(actor, "archive.verify");
  const client = ctx.tree.witnesses;
  if (!client) return null;
  const latest = await ctx.tree.latestCheckpoint();
  return { policyFile: client.source.file, policy: client.policy, latestSize: latest?.size ?? null, witnesses: await client.states() };
}

/**
 * Asks every witness that has not cosigned the latest checkpoint (signed first if the log has grown) to cosign it,
 * as after a witness was down; what each answered and whether the policy's quorum is met.
 */
export async function cosignLatest(ctx: Ctx, actor: Actor): Promise<{ checkpoint: StoredCheckpoint; outcomes: WitnessOutcome[]; quorumMet: boolean }> {
  ctx.policy.require(actor, "archive.verify");
  const client = ctx.tree.witnesses;
  if (!client) throw new Invalid(say("witness.noPolicy"));
  await ctx.tree.checkpoint({ cosign: false });
  const { checkpoint, outcomes } = await ctx.tree.cosign();
  const cosigned = new Set(outcomes.filter((o) => o.outcome === "cosigned").map((o) => o.witness));
  return { checkpoint, outcomes, quorumMet: quorumMet(client.policy, cosigned) };
}

/**
 * The openings (salt and value behind each commitment) of the events of one entry bundle, by the bundle's tile
 * path, for a custodian's sealed copy (the mirror module seals them before they leave). NotFound beyond the
 * latest checkpoint, as for the bundle itself.
 */
export async function entryTileOpenings(ctx: Ctx, actor: Actor, input: { path: string }): Promise<StoredOpening[]> {
  ctx.policy.require(actor, "mirror.follow");
  const cp = await ctx.tree.latestCheckpoint();
  let coord;
  try {
    coord = parseTilePath(input.path);
  } catch {
    throw new NotFound(say("tile.notFound", { path: JSON.stringify(input.path.slice(0, 120)) }));
  }
  if (coord.kind !== "entries" || !cp || !tileExists(coord, cp.size)) throw new NotFound(say("tile.noEntryBundle", { path: JSON.stringify(input.path.slice(0, 120)) }));
  const first = coord.index * 256;
  const bySeq = await openingsBetween(ctx.db.db, first, first + coord.width - 1);
  return [...bySeq.keys()].sort((a, b) => a - b).flatMap((s) => bySeq.get(s)!);
}

/**
 * The witnesses for anyone reading the log page: names, what each last cosigned and its last alarm (its kind,
 * not the detail). No policy: no witnesses, quorum null.
 */
export async function publicWitnessStates(ctx: Ctx, actor: Actor): Promise<LogWitnesses> {
  ctx.policy.require(actor, "log.read");
  const client = ctx.tree.witnesses;
  const latest = await ctx.tree.latestCheckpoint();
  if (!client) return { quorum: null, latestSize: latest?.size ?? null, witnesses: [] };
  return {
    quorum: describeQuorum(client.policy),
    latestSize: latest?.size ?? null,
    witnesses: (await client.states()).map((w) => ({
      name: w.name,
      url: w.url ?? null,
      lastCosigned: w.lastCosigned ? { size: w.lastCosigned.size, at: w.lastCosigned.receivedAt } : null,
      lastAlarm: w.lastAlarm ? { size: w.lastAlarm.size, kind: w.lastAlarm.kind, at: w.lastAlarm.at } : null,
      alarms: w.alarms,
    })),
  };
}
