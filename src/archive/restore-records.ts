import type { Ctx } from "../app/context.ts";
import type { Tx } from "../db/database.ts";
import { parseLeaf, type CustodyEvent } from "../ledger/index.ts";
import { sniffFormat } from "./media/sniff.ts";

/**
 * After a restore from a mirror, the archive's own records of what it holds, rebuilt from the custody log and the
 * blob store (opened with the archive's keys): a source per accession, an original per stored arrival (its format
 * sniffed again from its bytes), a rendition per creation. What the log never held is not invented: labels,
 * paths on the medium and metadata stay empty (catalogue records, accounts and families are not in the log; they
 * come back from a database backup, if any). Enough for `dalil verify` to check every object against the log.
 */
export async function recordsFromLog(ctx: Ctx, tx: Tx, leaves: readonly Buffer[]): Promise<{ sources: number; originals: number; renditions: number }> {
  const counts = { sources: 0, originals: 0, renditions: 0 };
  const events: CustodyEvent[] = leaves.map((l) => parseLeaf(l));
  for (const e of events) {
    if (e.type !== "accession" || e.outcome === "failure") continue;
    const id = e.objects.find((o) => o.role === "source")?.id;
    if (!id) continue;
    await tx
      .insertInto("sources")
      .values({
        id,
        label: `restored ${id}`,
        kind: String(e.detail.kind ?? "unknown"),
        intake_path: "",
        medium_sha256: e.objects.find((o) => o.role === "medium")?.sha256 ?? null,
        medium_size: typeof e.detail.size === "number" ? e.detail.size : null,
        volume_label: null,
        volume_serial: null,
        fs_type: typeof e.detail.fsType === "string" ? e.detail.fsType : null,
        status: "complete",
        started_at: e.at,
        finished_at: e.at,
        actor: e.actor.id,
        files: 0,
        ingested: 0,
        duplicates: 0,
        quarantined: 0,
        bytes: 0,
      })
      .onConflict((oc) => oc.column("id").doNothing())
      .execute();
    counts.sources++;
  }
  const original = async (sha256: string, sourceId: string, at: string, status: string): Promise<void> => {
    const stat = await ctx.blobs.stat(sha256);
    if (!stat) return;
    const head = await headOf(ctx, sha256, stat.size);
    const s = sniffFormat(head);
    const r = await tx
      .insertInto("originals")
      .values({
        sha256,
        size: stat.size,
        format: s.format,
        mime: s.mime,
        media_kind: s.kind,
        status,
        quarantine_reason: null,
        first_seen_at: at,
        first_source_id: sourceId,
        width: null,
        height: null,
        phash: null,
        capture_time: null,
        camera_make: null,
        camera_model: null,
        camera_serial: null,
        metadata_json: null,
        exif_raw: null,
        xmp_raw: null,
      })
      .onConflict((oc) => oc.column("sha256").doNothing())
      .executeTakeFirst();
    counts.originals += Number(r.numInsertedOrUpdatedRows ?? 0);
  };
  for (const e of events) {
    if (e.outcome === "failure") continue;
    const source = e.objects.find((o) => o.role === "source")?.id;
    if (!source) continue;
    if (e.type === "accession") {
      const medium = e.objects.find((o) => o.role === "medium")?.sha256;
      if (medium) await original(medium, source, e.at, "preserved");
    } else if ((e.type === "ingestion" && e.outcome === "success") || e.type === "quarantine") {
      const sha = e.objects.find((o) => o.role === "original")?.sha256;
      if (sha) await original(sha, source, e.at, e.type === "quarantine" ? "quarantined" : "preserved");
    }
  }
  for (const e of events) {
    if (e.type !== "creation" || e.outcome === "failure") continue;
    const of = e.objects.find((o) => o.role === "original")?.sha256;
    const list = (e.detail.renditions ?? []) as { kind: string; sha256: string; width: number; height: number }[];
    if (!of) continue;
    for (const r of list) {
      const stat = await ctx.blobs.stat(r.sha256);
      if (!stat) continue;
      const ins = await tx
        .insertInto("renditions")
        .values({ original_sha256: of, kind: r.kind, sha256: r.sha256, size: stat.size, width: r.width, height: r.height, created_at: e.at })
        .onConflict((oc) => oc.columns(["original_sha256", "kind"]).doUpdateSet({ sha256: r.sha256, size: stat.size, width: r.width, height: r.height, created_at: e.at }))
        .executeTakeFirst();
      counts.renditions += Number(ins.numInsertedOrUpdatedRows ?? 0) > 0 ? 1 : 0;
    }
  }
  return counts;
}

async function headOf(ctx: Ctx, sha256: string, size: number): Promise<Buffer> {
  if (size === 0) return Buffer.alloc(0);
  const s = await ctx.blobs.get(sha256, { start: 0, end: Math.min(size, 4096) - 1 });
  const parts: Buffer[] = [];
  for await (const c of s) parts.push(c as Buffer);
  return Buffer.concat(parts);
}
