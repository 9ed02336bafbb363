import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import type { SourcesTable } from "../db/schema.ts";

const COLUMNS = ["id", "label", "kind", "medium_sha256", "status", "started_at", "finished_at", "files", "ingested", "duplicates", "quarantined", "bytes"] as const;

/**
 * A source medium taken in (a card, an image, an upload), with what became of its files. Not its path on the
 * intake machine, its volume serial or who took it in: those can lead back to a person.
 */
export type SourceView = Pick<SourcesTable, (typeof COLUMNS)[number]>;

/** The sources taken in, newest first. */
export async function listSources(ctx: Ctx, actor: Actor): Promise<SourceView[]> {
  ctx.policy.require(actor, "archive.read");
  return ctx.db.db
    .selectFrom("sources")
    .select(COLUMNS)
    .orderBy("started_at", "desc")
    .execute();
}
