import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { visibleSensitivities } from "./bodies.ts";
import { cdb } from "./tables.ts";

/**
 * What waits in the catalogue for one person (their home page): grouping proposals to decide, and numbers
 * someone else entered that no second person has checked yet, on bodies the person may read. Counts and the
 * first few bodies by reference; the lists themselves are on their own screens.
 */
export interface CatalogueWork {
  proposals: number | null; // null: not this person's work
  numbersToCheck: { count: number; bodies: { id: string; ref: string }[] } | null;
}

const FIRST = 5;

export async function catalogueWork(ctx: Ctx, actor: Actor): Promise<CatalogueWork> {
  const db = cdb(ctx.db.db);
  let proposals: number | null = null;
  if (ctx.policy.allows(actor, "catalogue.group")) {
    const r = await db.selectFrom("grouping_proposals").select((eb) => eb.fn.countAll<number>().as("n")).where("status", "=", "proposed").executeTakeFirst();
    proposals = Number(r?.n ?? 0);
  }
  let numbersToCheck: CatalogueWork["numbersToCheck"] = null;
  if (ctx.policy.allows(actor, "catalogue.check")) {
    const readable = visibleSensitivities(ctx, actor);
    // The one who entered a number cannot check it: those are someone else's work.
    const waiting = db
      .selectFrom("body_numbers")
      .innerJoin("bodies", "bodies.id", "body_numbers.body_id")
      .where("body_numbers.checked_by", "is", null)
      .where("body_numbers.retired_at", "is", null)
      .where("body_numbers.entered_by", "!=", actor.id)
      .where("bodies.merged_into", "is", null)
      .where("bodies.sensitivity", "in", readable.length ? readable : ["none"]);
    const count = await waiting.select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirst();
    const bodies = await waiting.select(["bodies.id", "bodies.ref"]).distinct().orderBy("bodies.ref").limit(FIRST).execute();
    numbersToCheck = { count: Number(count?.n ?? 0), bodies: bodies.map((b) => ({ id: b.id, ref: b.ref })) };
  }
  return { proposals, numbersToCheck };
}
