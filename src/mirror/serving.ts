import { createCipheriv, randomBytes } from "node:crypto";
import type { Readable } from "node:stream";
import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { NotFound, RateLimited } from "../core/errors.ts";
import { say } from "../core/messages.ts";
import { canonicalJson } from "../core/canonical-json.ts";
import { paths } from "../core/config.ts";
import { entryTileOpenings } from "../ledger/index.ts";
import { loadKeyFile } from "../access/index.ts";

/**
 * What a granted mirror may fetch besides the public log (checkpoints, hash tiles, consistency proofs): the entry
 * bundles, the openings of their commitments sealed under a key only the archive's key backup holds, and every
 * object of the blob store exactly as it is at rest (ciphertext and wrapped keys). A follower can keep and check
 * the log; it reads neither the photographs nor the words behind commitments without the archive's keys.
 * Each follower's requests are rate-limited (DALIL_MIRROR_RATE requests a second, bursts of twice that).
 */
export const OPENINGS_KEY_FILE = "mirror-openings.key";
const SEAL_LABEL = "dalil mirror openings v1";

function rateOf(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env.DALIL_MIRROR_RATE ?? "200");
  return Number.isFinite(n) && n > 0 ? n : 200;
}

const buckets = new Map<string, { tokens: number; at: number }>();

/** One request of this follower; RateLimited when its bucket is empty. */
export function spendRequest(actor: Actor, now = Date.now(), rate = rateOf()): void {
  const burst = rate * 2;
  const b = buckets.get(actor.id) ?? { tokens: burst, at: now };
  b.tokens = Math.min(burst, b.tokens + ((now - b.at) / 1000) * rate);
  b.at = now;
  if (b.tokens < 1) {
    buckets.set(actor.id, b);
    throw new RateLimited(say("mirror.rate", { rate }));
  }
  b.tokens -= 1;
  buckets.set(actor.id, b);
}

function follow(ctx: Ctx, actor: Actor): void {
  ctx.policy.require(actor, "mirror.follow");
  spendRequest(actor);
}

export async function mirrorEntryBundle(ctx: Ctx, actor: Actor, path: string): Promise<Buffer> {
  follow(ctx, actor);
  // the follower's token carries mirror.follow, which stands in for log.entries on this one route
  return (await ctx.tree.tile(path, "entries")).bytes;
}

/** The openings of one entry bundle as AES-256-GCM ciphertext: nonce ‖ ciphertext ‖ tag, AAD = label, origin, path. */
export async function mirrorSealedOpenings(ctx: Ctx, actor: Actor, path: string): Promise<Buffer> {
  follow(ctx, actor);
  const openings = await entryTileOpenings(ctx, actor, { path });
  const key = loadKeyFile(paths.keys(ctx.config), OPENINGS_KEY_FILE, true)!;
  return sealOpenings(key, ctx.tree.origin, path, Buffer.from(canonicalJson(openings), "utf8"));
}

export function openingsAad(origin: string, path: string): Buffer {
  return Buffer.from(`${SEAL_LABEL}\n${origin}\n${path}`, "utf8");
}

export function sealOpenings(key: Buffer, origin: string, path: string, plain: Buffer): Buffer {
  const nonce = randomBytes(12);
  const c = createCipheriv("aes-256-gcm", key, nonce);
  c.setAAD(openingsAad(origin, path));
  const body = Buffer.concat([c.update(plain), c.final()]);
  return Buffer.concat([nonce, body, c.getAuthTag()]);
}

/** Every object of the blob store at rest, one line each: size, a space, the key. */
export async function mirrorObjectList(ctx: Ctx, actor: Actor): Promise<string> {
  follow(ctx, actor);
  const lines: string[] = [];
  for await (const o of ctx.blobs.listObjects()) lines.push(`${o.size} ${o.key}\n`);
  return lines.join("");
}

export async function mirrorObject(ctx: Ctx, actor: Actor, key: string): Promise<Readable> {
  follow(ctx, actor);
  const s = await ctx.blobs.readObject(key);
  if (!s) throw new NotFound(say("mirror.noObject", { key: JSON.stringify(key.slice(0, 120)) }));
  return s;
}

