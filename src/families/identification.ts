import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { NotFound } from "../core/errors.ts";
import type { Tx } from "../db/database.ts";
import { findBodyRow, identifyBodyInTx, reverseIdentificationInTx } from "../catalogue/index.ts";
import type { CaseReportsTable, DecisionsTable } from "./casework-tables.ts";
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
