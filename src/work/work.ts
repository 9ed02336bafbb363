import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { catalogueWork } from "../catalogue/index.ts";
import { listDisagreements, myAssignments } from "../review/index.ts";
import { listDuplicates, listFlags, portalReports } from "../families/index.ts";
import { listDossiers } from "../dossiers/index.ts";
import type * as contracts from "./contracts.ts";

/**
 * A person's home page: what waits for them, by kind, each with where to go. Only kinds that are this person's
 * work appear (an investigator is not shown reviews to write); a kind with nothing waiting still appears, with 0,
 * so "nothing to do" is said rather than guessed. Each count comes from the module's own use case, so clearance
 * and blindness apply as they do on the list it links to.
 */
// What each kind counts: proposals — grouping proposals to accept, split or reject; numbersToCheck — numbers
// someone else entered, unchecked; reviewsAssigned — one's own open review assignments; disagreements — double
// reviews that disagree, to settle; flags — families' cases flagged for a caseworker; duplicates — possible
// duplicate missing-person reports; dossiers — the dossiers one works on or receives packages of; myReports — a
// family member's own reports, with what was shared. (`href` is where the list is, in the web app; `records`
// the first few records by reference, each with its page.)
export type WorkKind = contracts.WorkKind;
export type WorkItem = contracts.WorkItem;
export type WorkView = contracts.WorkView;

export async function myWork(ctx: Ctx, actor: Actor): Promise<WorkView> {
  ctx.policy.require(actor, "work.read");
  const items: WorkItem[] = [];
  const may = (a: Parameters<Ctx["policy"]["allows"]>[1]) => ctx.policy.allows(actor, a);
  const cat = await catalogueWork(ctx, actor);
  if (cat.proposals !== null) items.push({ kind: "proposals", count: cat.proposals, href: "/groupings" });
  if (cat.numbersToCheck) {
    const n = cat.numbersToCheck;
    items.push({ kind: "numbersToCheck", count: n.count, href: n.bodies[0] ? `/bodies/${n.bodies[0].id}` : "/bodies", records: n.bodies.map((b) => ({ ref: b.ref, href: `/bodies/${b.id}` })) });
  }
  if (may("review.submit")) {
    const open = await myAssignments(ctx, actor, { open: true });
    items.push({ kind: "reviewsAssigned", count: open.length, href: "/review" });
  }
  if (may("review.resolve")) items.push({ kind: "disagreements", count: (await listDisagreements(ctx, actor)).length, href: "/review/disagreements" });
  if (may("disclosure.make")) items.push({ kind: "flags", count: (await listFlags(ctx, actor)).length, href: "/families/flags" });
  if (may("report.import")) items.push({ kind: "duplicates", count: (await listDuplicates(ctx, actor, { status: "proposed" })).length, href: "/families/duplicates" });
  if (may("dossier.read")) items.push({ kind: "dossiers", count: (await listDossiers(ctx, actor)).length, href: "/dossiers" });
  if (ctx.policy.stands(actor, "family.portal")) {
    const mine = await portalReports(ctx, actor);
    items.push({ kind: "myReports", count: mine.length, href: "/portal", records: mine.map((r) => ({ ref: r.ref, href: `/portal/reports/${r.id}` })) });
  }
  return { items };
}
