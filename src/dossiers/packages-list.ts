import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { JOB_DOSSIER_PACKAGE, requirePackager } from "./dossier-package.ts";
import { ddb } from "./tables.ts";
import { NotFound } from "../core/errors.ts";
import { say } from "../core/messages.ts";
import type * as contracts from "./contracts.ts";

/**
 * The packages built of a dossier, newest first: which frozen version, for whom (the recipient as typed), with
 * which clearance, who asked for it and when, and whether its bag is still on the server to download (bags are
 * removed once their time is up). Read from the package jobs, which hold exactly what was asked.
 */
export async function listPackages(ctx: Ctx, actor: Actor, dossierId: string): Promise<contracts.PackageList> {
  requirePackager(ctx, actor);
  const dossier = await ddb(ctx.db.db).selectFrom("dossiers").select(["id"]).where("id", "=", dossierId).executeTakeFirst();
  if (!dossier) throw new NotFound(say("record.notFound", { kind: "dossier" }));
  const rows = await ctx.db.db
    .selectFrom("jobs")
    .select(["id", "payload", "status", "result", "created_at", "updated_at"])
    .where("kind", "=", JOB_DOSSIER_PACKAGE)
    .where("payload", "like", `%${dossierId}%`)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .execute();
  const items: contracts.PackageList["items"] = [];
  for (const r of rows) {
    const p = JSON.parse(r.payload) as { dossierId?: unknown; version?: unknown; recipient?: unknown; clearance?: unknown; actor?: { id?: unknown } };
    if (p.dossierId !== dossierId) continue;
    const result = r.result ? (JSON.parse(r.result) as { id?: unknown; dir?: unknown } | null) : null;
    items.push({
      job: r.id,
      version: Number(p.version),
      recipient: String(p.recipient ?? ""),
      clearance: String(p.clearance ?? ""),
      requestedBy: String(p.actor?.id ?? ""),
      requestedAt: r.created_at,
      status: r.status as contracts.PackageList["items"][number]["status"],
      finishedAt: r.status === "done" || r.status === "failed" ? r.updated_at : null,
      packageId: typeof result?.id === "string" ? result.id : null,
    });
  }
  return { items };
}
