import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { Conflict, Invalid, NotFound } from "../core/errors.ts";
import { say } from "../core/messages.ts";
import { custody } from "../ledger/index.ts";
import { cwdb, type CaseDisclosuresTable } from "./casework-tables.ts";
import { disclosureView, type DisclosureView } from "./disclosure.ts";
import * as contracts from "./contracts.ts";
import { parseInput } from "../core/input.ts";
import type { z } from "zod";

/**
 * A caseworker takes back what was disclosed to a family member (decision 0020): sent in error, to the wrong
 * person, about a decision that changed. The disclosure and every later one of the same match to the same member
 * (the later stages rest on it) are marked withdrawn, with a reason from a closed list that the portal words in
 * the family's language and an optional note to them, as written. From that moment the family is no longer shown
 * the words or images; the portal tells them what kind of thing was withdrawn, when, and why. Nothing is deleted:
 * the caseworker's case view keeps every disclosure with its withdrawal. One `disclosure` custody event (ids and
 * the reason key; never the note).
 */
export const WITHDRAWAL_REASONS = contracts.WithdrawalReasonName.options;
export type WithdrawalReason = (typeof WITHDRAWAL_REASONS)[number];

/** note: words to the family, shown as written beside the reason (required with "other"). */
export type WithdrawDisclosure = z.input<typeof contracts.WithdrawDisclosureInput>;

export async function withdrawDisclosure(ctx: Ctx, actor: Actor, sent: WithdrawDisclosure): Promise<DisclosureView[]> {
  ctx.policy.require(actor, "disclosure.make");
  const input = parseInput(contracts.WithdrawDisclosureInput, sent);
  const note = (input.note ?? "").normalize("NFC").trim();
  if (input.reason === "other" && !note) throw new Invalid(say("families.otherNeedsNote"), "note");
  return ctx.db.transaction(async (tx) => {
    const d = await cwdb(tx).selectFrom("family_disclosures").selectAll().where("id", "=", input.id).executeTakeFirst();
    if (!d) throw new NotFound(say("families.noDisclosure"));
    if (d.withdrawn_at) throw new Conflict(say("families.alreadyWithdrawn", { date: d.withdrawn_at.slice(0, 10) }));
    // this one and the later ones of the same match to the same family member, still shown
    const shown = await cwdb(tx)
      .selectFrom("family_disclosures")
      .selectAll()
      .where("report_id", "=", d.report_id)
      .where("body_id", "=", d.body_id)
      .where("recipient_id", "=", d.recipient_id)
      .where("withdrawn_at", "is", null)
      .execute();
    // (the photos of one approved request share its moment: they go together)
    const later = shown.filter((x) => x.created_at >= d.created_at);
    const now = ctx.clock.now().toISOString();
    const set = { withdrawn_at: now, withdrawn_by: actor.id, withdraw_reason: input.reason, withdraw_note: note || null };
    await cwdb(tx).updateTable("family_disclosures").set(set).where("id", "in", later.map((x) => x.id)).execute();
    await ctx.log.append(
      tx,
      custody("disclosure", actor, ctx.clock.now(), [{ id: d.report_id, role: "report" }, { id: d.body_id, role: "body" }, ...later.map((x) => ({ id: x.id, role: "disclosure" }))], {
        action: "disclosure.withdrawn",
        recipient: d.recipient_id,
        withdrawal: input.reason,
      }),
    );
    return later.map((x): DisclosureView => disclosureView({ ...x, ...set } as CaseDisclosuresTable));
  });
}
