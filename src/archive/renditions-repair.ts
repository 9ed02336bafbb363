import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { custody } from "../ledger/index.ts";
import { makeRenditions, MediaRejected } from "./media/renditions.ts";

const RENDERABLE = ["jpeg", "png", "webp", "gif", "tiff"];

/**
 * Makes the renditions an original lacks (an intake interrupted between storing and rendering, a format that
 * gained support, a rendition kind added later). Originals are read, never written.
 */
export async function repairRenditions(
  ctx: Ctx,
  actor: Actor,
  onProgress?: (done: number, total: number) => void,
): Promise<number> {
  const missing = await ctx.db.db
    .selectFrom("originals")
    .leftJoin("renditions", "renditions.original_sha256", "originals.sha256")
    .select(["originals.sha256"])
    .where("originals.status", "=", "preserved")
    .where("originals.format", "in", RENDERABLE)
    .where("renditions.sha256", "is", null)
    .execute();
  let made = 0;
  for (const [i, { sha256 }] of missing.entries()) {
    const bytes = await ctx.blobs.read(sha256);
    let r;
    try {
      r = await makeRenditions(bytes);
    } catch (err) {
      if (err instanceof MediaRejected) continue;
      throw err;
    }
    const rows: { kind: string; sha256: string; size: number }[] = [];
    for (const [kind, buf] of [["thumbnail", r.thumbnail], ["preview", r.preview], ["blurred", r.blurred]] as const) {
      const put = await ctx.blobs.putBuffer(buf);
      rows.push({ kind, sha256: put.sha256, size: buf.length });
    }
    await ctx.db.transaction(async (tx) => {
      const at = ctx.clock.now();
      for (const row of rows) {
        await tx
          .insertInto("renditions")
          .values({ original_sha256: sha256, ...row, width: r.width, height: r.height, created_at: at.toISOString() })
          .onConflict((oc) => oc.columns(["original_sha256", "kind"]).doNothing())
          .execute();
      }
      await ctx.log.append(
        tx,
        custody(
          "creation",
          actor,
          at,
          [{ sha256, role: "original" }, ...rows.map((x) => ({ sha256: x.sha256, role: `rendition:${x.kind}` }))],
          { renditions: rows.map((x) => ({ kind: x.kind, sha256: x.sha256 })), repair: true },
        ),
      );
    });
    made++;
    onProgress?.(i + 1, missing.length);
  }
  return made;
}
