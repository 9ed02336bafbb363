import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { Conflict, NotFound } from "../core/errors.ts";
import { say } from "../core/messages.ts";
import type { Tx } from "../db/database.ts";
import { custody } from "../ledger/index.ts";
import { findAccountOfRole } from "../access/index.ts";
import { cwdb, type CaseReportsTable } from "./casework-tables.ts";
import * as contracts from "./contracts.ts";
import { parseInput } from "../core/input.ts";
import type { z } from "zod";

/**
 * Which family members' accounts are tied to which reports. The filer of a report is tied to it; a caseworker
 * ties others (a report entered by a caseworker or imported, a relative of a merged report). A tie is ended,
 * never deleted. A family member sees only reports they are tied to, and only what was disclosed to them.
 */

export async function loadCaseReport(tx: Tx, idOrRef: string): Promise<CaseReportsTable> {
  const row = await cwdb(tx)
    .selectFrom("family_reports")
    .selectAll()
    .where((eb) => eb.or([eb("id", "=", idOrRef), eb("ref", "=", idOrRef)]))
    .executeTakeFirst();
  if (!row) throw new NotFound(say("record.notFound", { kind: "report" }));
  return row;
}

/** The accounts tied to a report now: its filer and every member whose tie has not ended. */
export async function tiedUsers(tx: Tx, report: Pick<CaseReportsTable, "id" | "filed_by">): Promise<string[]> {
  const rows = await cwdb(tx).selectFrom("family_report_members").select("user_id").where("report_id", "=", report.id).where("ended_at", "is", null).execute();
  return [...new Set([...(report.filed_by ? [report.filed_by] : []), ...rows.map((r) => r.user_id)])];
}

/**
 * The report a family member's own family filed, of those that make up `report`: the report itself when they
 * filed it, else a report merged into it (at any depth) that they filed or were tied to, else the report itself
 * (a relative a caseworker tied to it). After a merge each family keeps its own report: its reporter, its
 * contact and its consent, which governs what that family is shown of the merged case.
 */
export async function homeReport(tx: Tx, report: CaseReportsTable, userId: string): Promise<CaseReportsTable> {
  if (report.filed_by === userId) return report;
  const merged: CaseReportsTable[] = [];
  for (let frontier = [report.id]; frontier.length; ) {
    const rows = await cwdb(tx).selectFrom("family_reports").selectAll().where("merged_into", "in", frontier).orderBy("created_at").orderBy("id").execute();
    merged.push(...rows);
    frontier = rows.map((r) => r.id);
  }
  if (merged.length === 0) return report;
  const filed = merged.find((m) => m.filed_by === userId);
  if (filed) return filed;
  const links = await cwdb(tx).selectFrom("family_report_members").select("report_id").where("user_id", "=", userId).where("ended_at", "is", null).where("report_id", "in", merged.map((m) => m.id)).execute();
  return merged.find((m) => links.some((l) => l.report_id === m.id)) ?? report;
}

/** Report ids a user is tied to now. */
export async function reportsOfUser(tx: Tx, userId: string): Promise<string[]> {
  const filed = await cwdb(tx).selectFrom("family_reports").select("id").where("filed_by", "=", userId).execute();
  const linked = await cwdb(tx).selectFrom("family_report_members").select("report_id").where("user_id", "=", userId).where("ended_at", "is", null).execute();
  return [...new Set([...filed.map((r) => r.id), ...linked.map((r) => r.report_id)])];
}

/** Ties a family member's account to a report (a caseworker's act, a custody event). */
export async function linkMember(ctx: Ctx, actor: Actor, sent: z.input<typeof contracts.LinkMemberInput>): Promise<{ reportId: string; userId: string; members: string[] }> {
  ctx.policy.require(actor, "disclosure.make");
  const input = parseInput(contracts.LinkMemberInput, sent);
  return ctx.db.transaction(async (tx) => {
    const r = await loadCaseReport(tx, input.report);
    const user = await findAccountOfRole(tx, input.userId, "family_member", "userId");
    const now = ctx.clock.now().toISOString();
    const existing = await cwdb(tx).selectFrom("family_report_members").selectAll().where("report_id", "=", r.id).where("user_id", "=", user.id).executeTakeFirst();
    if (existing && !existing.ended_at) throw new Conflict(say("families.alreadyTied", { report: r.ref }));
    const rel = input.relationship?.trim().slice(0, 80) || null;
    if (existing) {
      await cwdb(tx).updateTable("family_report_members").set({ relationship: rel, linked_by: actor.id, linked_at: now, ended_by: null, ended_at: null }).where("report_id", "=", r.id).where("user_id", "=", user.id).execute();
    } else {
      await cwdb(tx).insertInto("family_report_members").values({ report_id: r.id, user_id: user.id, relationship: rel, linked_by: actor.id, linked_at: now, ended_by: null, ended_at: null }).execute();
    }
    await ctx.log.append(tx, custody("metadata modification", actor, ctx.clock.now(), [{ id: r.id, role: "report" }], { action: "report.member-linked", user: user.id }));
    return { reportId: r.id, userId: user.id, members: await tiedUsers(tx, r) };
  });
}

/** Ends a tie: the account no longer sees the report or anything disclosed about it. */
export async function endMember(ctx: Ctx, actor: Actor, sent: z.input<typeof contracts.EndMemberInput>): Promise<{ reportId: string; userId: string; members: string[] }> {
  ctx.policy.require(actor, "disclosure.make");
  const input = parseInput(contracts.EndMemberInput, sent);
  return ctx.db.transaction(async (tx) => {
    const r = await loadCaseReport(tx, input.report);
    const now = ctx.clock.now().toISOString();
    const res = await cwdb(tx)
      .updateTable("family_report_members")
      .set({ ended_by: actor.id, ended_at: now })
      .where("report_id", "=", r.id)
      .where("user_id", "=", input.userId)
      .where("ended_at", "is", null)
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) !== 1) throw new NotFound(r.filed_by === input.userId ? say("families.notTiedFiler", { report: r.ref }) : say("families.notTied", { report: r.ref }));
    await ctx.log.append(tx, custody("metadata modification", actor, ctx.clock.now(), [{ id: r.id, role: "report" }], { action: "report.member-ended", user: input.userId }));
    return { reportId: r.id, userId: input.userId, members: await tiedUsers(tx, r) };
  });
}
