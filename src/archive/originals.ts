import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { NotFound } from "../core/errors.ts";
import type { OriginalsTable } from "../db/schema.ts";
import type * as contracts from "./contracts.ts";

/** Reading the archive's originals: listing and one item with its renditions and sightings. */
export type OriginalView = contracts.OriginalView;

export interface ListOriginals {
  status?: "preserved" | "quarantined";
  after?: string;
  limit: number;
}

export async function listOriginals(ctx: Ctx, actor: Actor, input: ListOriginals): Promise<{ items: OriginalView[]; next: string | null }> {
  ctx.policy.require(actor, "archive.read");
  const sensitive = ctx.policy.allows(actor, "metadata.sensitive");
  let q = ctx.db.db.selectFrom("originals").selectAll().where("media_kind", "!=", "medium").orderBy("sha256").limit(input.limit + 1);
  if (input.status) q = q.where("status", "=", input.status);
  if (input.after) q = q.where("sha256", ">", input.after);
  const rows = await q.execute();
  const page = rows.slice(0, input.limit);
  const items = await withRenditions(ctx, page, sensitive);
  return { items, next: rows.length > input.limit ? page[page.length - 1]!.sha256 : null };
}

export async function getOriginal(
  ctx: Ctx,
  actor: Actor,
  sha256: string,
): Promise<OriginalView & { sightings: { source: string; path?: string; outcome: string }[] }> {
  ctx.policy.require(actor, "archive.read");
  const sensitive = ctx.policy.allows(actor, "metadata.sensitive");
  const row = await ctx.db.db.selectFrom("originals").selectAll().where("sha256", "=", sha256).executeTakeFirst();
  if (!row) throw new NotFound(`No original with SHA-256 ${sha256}.`).says("record.notFound", { kind: "original" });
  const [item] = await withRenditions(ctx, [row], sensitive);
  const sightings = await ctx.db.db
    .selectFrom("sightings")
    .select(["source_id", "path", "outcome"])
    .where("original_sha256", "=", sha256)
    .orderBy("seen_at")
    .execute();
  return {
    ...item!,
    sightings: sightings.map((s) => ({ source: s.source_id, outcome: s.outcome, ...(sensitive ? { path: s.path } : {}) })),
  };
}

/** Many originals by SHA-256 (as getOriginal, without sightings) in a few queries; absent ones are left out. */
export async function getOriginals(ctx: Ctx, actor: Actor, sha256s: readonly string[]): Promise<Map<string, OriginalView>> {
  ctx.policy.require(actor, "archive.read");
  const sensitive = ctx.policy.allows(actor, "metadata.sensitive");
  const out = new Map<string, OriginalView>();
  // In slices: both databases cap the parameters of one statement.
  for (let i = 0; i < sha256s.length; i += 1000) {
    const rows = await ctx.db.db.selectFrom("originals").selectAll().where("sha256", "in", sha256s.slice(i, i + 1000)).execute();
    for (const v of await withRenditions(ctx, rows, sensitive)) out.set(v.sha256, v);
  }
  return out;
}

async function withRenditions(ctx: Ctx, rows: OriginalsTable[], sensitive: boolean): Promise<OriginalView[]> {
  const rend = rows.length
    ? await ctx.db.db.selectFrom("renditions").selectAll().where("original_sha256", "in", rows.map((r) => r.sha256)).execute()
    : [];
  const byOriginal = new Map<string, typeof rend>();
  for (const x of rend) byOriginal.set(x.original_sha256, [...(byOriginal.get(x.original_sha256) ?? []), x]);
  return rows.map((r) => ({
    sha256: r.sha256,
    size: r.size,
    format: r.format,
    mediaKind: r.media_kind,
    status: r.status,
    quarantineReason: r.quarantine_reason,
    quarantineKey: r.quarantine_key,
    quarantineParams: r.quarantine_params ? (JSON.parse(r.quarantine_params) as Record<string, string | number>) : null,
    width: r.width,
    height: r.height,
    captureTime: r.capture_time,
    // The serial number identifies the camera and so may identify the photographer: only for those who need it.
    camera: { make: r.camera_make, model: r.camera_model, ...(sensitive ? { serial: r.camera_serial } : {}) },
    phash: r.phash,
    firstSeenAt: r.first_seen_at,
    renditions: (byOriginal.get(r.sha256) ?? []).map((x) => ({ kind: x.kind, sha256: x.sha256, width: x.width, height: x.height })),
  }));
}
