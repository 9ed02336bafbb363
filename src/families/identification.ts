import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { Conflict, NotFound } from "../core/errors.ts";
import { say } from "../core/messages.ts";
import { newId } from "../core/ids.ts";
import { custody } from "../ledger/index.ts";
import type { Tx } from "../db/database.ts";
import { findBodyRow, identifyBodyInTx, moveIdentificationToReportInTx, reverseIdentificationInTx } from "../catalogue/index.ts";
import { cwdb, type CaseReportsTable, type DecisionsTable } from "./casework-tables.ts";
import type { Consent } from "./reports.ts";

/**
 * Closing the loop (decision 0020): a caseworker's confirmed decision identifies the body in the catalogue,
 * through the catalogue's own use case, in the decision's transaction; changing it reverses the identification.
 * The catalogue refuses a second standing identification of the body or of the report with a sentence, which
 * rolls the decision back with it.
 */

/** A body named by its id or its reference (B-000123), as the id the casework tables hold; unknown ones as given. */
export async function bodyIdOf(tx: Tx, idOrRef: string): Promise<string> {
  try {
    return (await findBodyRow(tx, idOrRef)).id;
  } catch (err) {
    // "not a candidate" follows, the same answer whether or not such a body exists
    if (err instanceof NotFound) return idOrRef;
    throw err;
  }
}

/** Keeps the catalogue in step with a new decision on report × body, `prev` being the one it replaces. */
export async function followDecision(ctx: Ctx, tx: Tx, actor: Actor, r: CaseReportsTable, decision: DecisionsTable, prev: DecisionsTable | null): Promise<void> {
  const was = prev?.status === "confirmed";
  const is = decision.status === "confirmed";
  if (is && !was) {
    await identifyBodyInTx(ctx, tx, actor, {
      body: decision.body_id,
      reportId: r.id,
      reportRef: r.ref,
      decisionId: decision.id,
      // the person's names go onto the body only if the family agreed to their data being shared
      names: (JSON.parse(r.consent) as Consent).dataSharing?.given === true ? { nameAr: r.name_ar, nameLat: r.name_lat } : null,
    });
  } else if (was && !is) {
    await reverseIdentificationInTx(ctx, tx, actor, { body: decision.body_id, reportId: r.id, decisionId: decision.id });
  }
}

/** Each body's latest decision on a report (the one that counts), by body id. */
async function latestDecisions(tx: Tx, reportId: string): Promise<Map<string, DecisionsTable>> {
  const rows = await cwdb(tx).selectFrom("family_decisions").selectAll().where("report_id", "=", reportId).orderBy("created_at", "desc").orderBy("id", "desc").execute();
  const out = new Map<string, DecisionsTable>();
  for (const d of rows) if (!out.has(d.body_id)) out.set(d.body_id, d);
  return out;
}

async function refOfBody(tx: Tx, bodyId: string): Promise<string> {
  try {
    return (await findBodyRow(tx, bodyId)).ref;
  } catch {
    return "(a body no longer in the catalogue)";
  }
}

/**
 * A report merged into another (an accepted duplicate) carries a confirmed decision: the person is the same, so
 * the identification moves to the report kept — a confirmed decision on the same body, recorded for the kept
 * report with the original reason, and the catalogue's identification moved to it in the same transaction —
 * so the catalogue never names a merged report and the kept case can still reverse it. Refused with a sentence
 * (and nothing merged) when the two reports disagree: each confirmed as a different body, or the kept report's
 * latest decision on that body excludes it. Returns the decision carried, or null.
 */
export async function carryIdentificationOnMerge(ctx: Ctx, tx: Tx, actor: Actor, keep: CaseReportsTable, gone: CaseReportsTable): Promise<DecisionsTable | null> {
  const [kept, away] = [await latestDecisions(tx, keep.id), await latestDecisions(tx, gone.id)];
  const confirmedOf = (m: Map<string, DecisionsTable>) => [...m.values()].find((d) => d.status === "confirmed") ?? null;
  const [k, g] = [confirmedOf(kept), confirmedOf(away)];
  if (!g) return null;
  if (k && k.body_id !== g.body_id) {
    throw new Conflict(say("families.mergeConfirmedTwo", { report: keep.ref, body: await refOfBody(tx, k.body_id), report2: gone.ref, body2: await refOfBody(tx, g.body_id) }));
  }
  if (k) return null; // both confirmed the same body: the kept report's decision stands
  const onKeep = kept.get(g.body_id);
  if (onKeep?.status === "excluded") {
    throw new Conflict(say("families.mergeExcluded", { report: gone.ref, body: await refOfBody(tx, g.body_id), report2: keep.ref }));
  }
  const row: DecisionsTable = {
    id: newId("dec"), report_id: keep.id, body_id: g.body_id, status: "confirmed", score: g.score, decided_by: actor.id,
    reason: `Confirmed on report ${gone.ref}, merged into this report: ${g.reason}`.slice(0, 4000), created_at: ctx.clock.now().toISOString(),
  };
  await cwdb(tx).insertInto("family_decisions").values(row).execute();
  await ctx.log.append(
    tx,
    custody("identification", actor, ctx.clock.now(), [{ id: keep.id, role: "report" }, { id: g.body_id, role: "body" }, { id: gone.id, role: "report merged" }], {
      action: "disclosure.decide",
      decision: row.id,
      status: "confirmed",
      carried: g.id,
      ...(onKeep ? { previous: onKeep.status } : {}),
    }),
  );
  await moveIdentificationToReportInTx(ctx, tx, actor, { fromReportId: gone.id, toReportId: keep.id, toReportRef: keep.ref, decisionId: row.id });
  return row;
}
