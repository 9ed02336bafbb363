import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { canonicalJson } from "../core/canonical-json.ts";
import { Conflict, Invalid, NotFound } from "../core/errors.ts";
import { say } from "../core/messages.ts";
import { newId } from "../core/ids.ts";
import type { Tx } from "../db/database.ts";
import { getSetting, setSetting } from "../db/settings.ts";
import { custody } from "../ledger/index.ts";
import { recordPersonalDataRead } from "../access/index.ts";
import { Vocabularies, type Mark } from "../catalogue/index.ts";
import { nameScore, type PreparedName } from "../names/index.ts";
import { keysOf } from "./scoring.ts";
import { reportNames } from "./matching.ts";
import { enqueueRerank } from "./rerank-requests.ts";
import { inputOf, reportColumns, toReportView, type ReportInput, type ReportView } from "./reports.ts";
import { cwdb, type CaseReportsTable, type DuplicatesTable } from "./casework-tables.ts";
import { carryIdentificationOnMerge } from "./identification.ts";
import * as contracts from "./contracts.ts";
import { parseInput } from "../core/input.ts";
import type { z } from "zod";

/**
 * Duplicate reports: the same missing person reported by several relatives, spelled differently, in Arabic or
 * Latin letters. Pairs are found by the names' blocking keys (so محمد and Mohammad meet), scored by the names
 * and by what else the reports say (sex, birth year, arrest date and place, branch, numbers), and proposed to a
 * caseworker. Accepting merges: the survivor keeps both reporters and every piece of data, the merged report
 * stays on file pointing to it. Rejecting is remembered: the pair is never proposed again.
 */

export const DUPLICATE_THRESHOLD = 4;
const SCANNED_AT = "families.duplicates_scanned_at";
const MAX_BIRTH_GAP = 10;

export interface Reporter {
  reportId: string;
  ref: string;
  name: string | null;
  relationship: string | null;
  contact: string | null;
  filedBy: string | null;
  consent: unknown;
}

export type DuplicateView = contracts.DuplicateView;

export interface Side {
  row: CaseReportsTable;
  view: ReportView;
  names: PreparedName[];
}

function year(d: string | null): number | null {
  return d ? Number(d.slice(0, 4)) : null;
}

function days(a: string, b: string): number {
  return (Date.parse(b) - Date.parse(a)) / 86_400_000;
}

export type ReasonKey =
  | "namesSame"
  | "namesPossibly"
  | "motherAgree"
  | "motherDiffer"
  | "sameSex"
  | "birthWithin"
  | "birthApart"
  | "arrestOverlap"
  | "arrestApart"
  | "sameGovernorate"
  | "otherGovernorates"
  | "sameBranch"
  | "sameNumber";

/** A reason for the web app to word in the reader's language; `points` is signed ("+1.5"). */
export type ReasonWords = contracts.ReasonWords;

export interface DuplicateEvidence {
  score: number;
  reasons: string[];
  words: ReasonWords[];
}

/** The evidence that two reports are about one person; null when something rules it out. */
export function duplicateEvidence(a: Side, b: Side): DuplicateEvidence | null {
  if (a.view.sex && b.view.sex && a.view.sex !== b.view.sex) return null;
  const ya = year(a.view.birthDate);
  const yb = year(b.view.birthDate);
  // relatives know an age within a few years: more than ten apart is two people (a father and son share names)
  if (ya !== null && yb !== null && Math.abs(ya - yb) > MAX_BIRTH_GAP) return null;
  let best: { points: number; decision: string } | null = null;
  // names in the same script where both reports have one (cheaper, and what a person would compare), else across
  const same = a.names.flatMap((x) => b.names.filter((y) => y.slots.script === x.slots.script).map((y) => [x, y] as const));
  const pairs = same.length ? same : a.names.flatMap((x) => b.names.map((y) => [x, y] as const));
  for (const [x, y] of pairs) {
    const s = nameScore(x, y);
    if (!best || s.points > best.points) best = s;
  }
  if (!best || best.decision === "different") return null;
  const reasons = [`the names read as ${best.decision === "same" ? "the same person" : "possibly the same person"} (${best.points.toFixed(1)} points)`];
  const words: ReasonWords[] = [{ key: best.decision === "same" ? "namesSame" : "namesPossibly", params: { points: best.points.toFixed(1) } }];
  let score = best.points;
  const add = (points: number, key: ReasonKey, why: string, params: Record<string, string | number> = {}): void => {
    score += points;
    const signed = `${points > 0 ? "+" : ""}${points.toFixed(1)}`;
    reasons.push(`${why} (${signed})`);
    words.push({ key, params: { ...params, points: signed } });
  };
  if (a.view.motherName && b.view.motherName) {
    const m = nameScore(a.view.motherName, b.view.motherName);
    if (m.decision !== "different" && m.points > 0) add(1.5, "motherAgree", "the mother's names agree");
    else if (m.decision === "different") add(-2, "motherDiffer", "the mother's names differ");
  }
  if (a.view.sex && a.view.sex === b.view.sex) add(0.3, "sameSex", "same sex");
  if (ya !== null && yb !== null) {
    const d = Math.abs(ya - yb);
    if (d <= 2) add(1, "birthWithin", `birth years within ${d} year${d === 1 ? "" : "s"}`, { years: d });
    else if (d > 5) add(-3, "birthApart", `birth years ${d} years apart`, { years: d });
  }
  if (a.view.arrestEarliest && a.view.arrestLatest && b.view.arrestEarliest && b.view.arrestLatest) {
    const gap = Math.max(days(a.view.arrestLatest, b.view.arrestEarliest), days(b.view.arrestLatest, a.view.arrestEarliest), 0);
    if (gap === 0) add(1, "arrestOverlap", "the arrest dates overlap");
    else if (gap > 365) add(-1.5, "arrestApart", `the arrest dates are ${Math.round(gap / 30)} months apart`, { months: Math.round(gap / 30) });
  }
  if (a.view.arrestGovernorate && b.view.arrestGovernorate) {
    if (a.view.arrestGovernorate === b.view.arrestGovernorate) add(0.5, "sameGovernorate", "arrested in the same governorate");
    else add(-0.5, "otherGovernorates", "arrested in different governorates");
  }
  if (a.view.branch && b.view.branch && a.view.branch === b.view.branch) add(0.5, "sameBranch", "the same branch is named");
  const numsA = new Set(a.view.numbers.map((n) => `${n.role}:${n.value}`));
  if (b.view.numbers.some((n) => numsA.has(`${n.role}:${n.value}`))) add(4, "sameNumber", "the same number from a document");
  return { score: Math.round(score * 100) / 100, reasons, words };
}

/**
 * Pairs of reports (ids in the order given, which is by id) worth proposing: they share a name blocking key,
 * are not in `seen` ("a|b"), at least one of them `changed`, and their evidence reaches DUPLICATE_THRESHOLD.
 */
export function findPairs(
  sides: readonly Side[],
  seen: Set<string> = new Set(),
  changed: (s: Side) => boolean = () => true,
): ({ a: string; b: string } & DuplicateEvidence)[] {
  const byKey = new Map<string, number[]>();
  sides.forEach((s, i) => {
    for (const k of keysOf(s.names)) {
      const list = byKey.get(k) ?? [];
      list.push(i);
      byKey.set(k, list);
    }
  });
  const out: ({ a: string; b: string } & DuplicateEvidence)[] = [];
  for (const list of byKey.values()) {
    for (let i = 0; i < list.length; i++) {
      for (let j = i + 1; j < list.length; j++) {
        const [a, b] = [sides[list[i]!]!, sides[list[j]!]!];
        const key = `${a.row.id}|${b.row.id}`;
        if (seen.has(key)) continue;
        seen.add(key);
        // a pair neither of which changed since the last scan was weighed then
        if (!changed(a) && !changed(b)) continue;
        const ev = duplicateEvidence(a, b);
        if (ev && ev.score >= DUPLICATE_THRESHOLD) out.push({ a: a.row.id, b: b.row.id, ...ev });
      }
    }
  }
  return out;
}

export function sideOf(row: CaseReportsTable): Side {
  const view = toReportView(row);
  return { row, view, names: reportNames(view) };
}

async function openReports(tx: Tx): Promise<CaseReportsTable[]> {
  return cwdb(tx).selectFrom("family_reports").selectAll().where("status", "=", "open").where("merged_into", "is", null).orderBy("id").execute();
}

/**
 * Finds new duplicate pairs among open reports and stores them as proposals. Pairs already proposed, accepted,
 * rejected or superseded are not proposed again. One custody event names the pairs (report ids only).
 */
export async function proposeDuplicates(ctx: Ctx, actor: Actor, sent: z.input<typeof contracts.ScanDuplicatesInput> = {}): Promise<{ proposed: number; proposals: DuplicateView[] }> {
  ctx.policy.require(actor, "family.match");
  ctx.policy.require(actor, "personal.read");
  const input = parseInput(contracts.ScanDuplicatesInput, sent);
  const created = await ctx.db.transaction(async (tx) => {
    const seen = new Set(
      (await cwdb(tx).selectFrom("family_duplicates").select(["report_a", "report_b"]).execute()).map((d) => `${d.report_a}|${d.report_b}`),
    );
    const now = ctx.clock.now().toISOString();
    // incremental: after the first scan only pairs with a report created or changed since the last one are weighed
    const since = (input.full ? null : await getSetting(tx, SCANNED_AT)) ?? "";
    const found = findPairs((await openReports(tx)).map(sideOf), seen, (s) => s.row.updated_at >= since);
    await setSetting(tx, SCANNED_AT, now);
    const rows: DuplicatesTable[] = found.map((p) => ({
      id: newId("dup"), report_a: p.a, report_b: p.b, score: p.score, reasons: canonicalJson(p.reasons.map((text, i) => ({ text, ...p.words[i]! }))), status: "proposed",
      survivor_id: null, decided_by: null, decided_at: null, reason: null, created_at: now,
    }));
    for (let i = 0; i < rows.length; i += 200) await cwdb(tx).insertInto("family_duplicates").values(rows.slice(i, i + 200)).execute();
    if (rows.length) {
      const objects = [...new Set(rows.flatMap((r) => [r.report_a, r.report_b]))].map((id) => ({ id, role: "report" }));
      await ctx.log.append(tx, custody("metadata modification", actor, ctx.clock.now(), objects, { action: "report.duplicates-proposed", proposals: rows.map((r) => r.id) }));
    }
    return rows.map((r) => r.id);
  });
  const proposals = (await listDuplicates(ctx, actor, { status: "proposed" })).filter((p) => created.includes(p.id));
  return { proposed: created.length, proposals };
}

/** Proposals (by default those waiting for a caseworker), best first. Listing them is a recorded read. */
export async function listDuplicates(ctx: Ctx, actor: Actor, input: { status?: DuplicateView["status"] } = {}): Promise<DuplicateView[]> {
  ctx.policy.require(actor, "family.match");
  ctx.policy.require(actor, "personal.read");
  return ctx.db.transaction(async (tx) => {
    const rows = await cwdb(tx)
      .selectFrom("family_duplicates")
      .selectAll()
      .where("status", "=", input.status ?? "proposed")
      .orderBy("score", "desc")
      .orderBy("id")
      .limit(1000)
      .execute();
    const ids = [...new Set(rows.flatMap((r) => [r.report_a, r.report_b]))];
    const reports = ids.length ? await cwdb(tx).selectFrom("family_reports").select(["id", "ref", "name_ar", "name_lat"]).where("id", "in", ids).execute() : [];
    const by = new Map(reports.map((r) => [r.id, { id: r.id, ref: r.ref, nameAr: r.name_ar, nameLat: r.name_lat }]));
    if (ids.length) {
      await recordPersonalDataRead(ctx, tx, actor, ids.map((id) => ({ id, role: "report" })), { read: "duplicate proposals" });
    }
    return rows.map((r) => toView(r, by));
  });
}

/** The stored reasons: `{ text, key, params }` objects, or the English strings of rows stored before keys. */
function reasonsOf(json: string): Pick<DuplicateView, "reasons" | "words"> {
  const stored = JSON.parse(json) as (string | ({ text: string } & ReasonWords))[];
  return {
    reasons: stored.map((x) => (typeof x === "string" ? x : x.text)),
    words: stored.map((x) => (typeof x === "string" ? null : { key: x.key, params: x.params })),
  };
}

function toView(r: DuplicatesTable, by: Map<string, DuplicateView["a"]>): DuplicateView {
  const missing = (id: string) => ({ id, ref: id, nameAr: null, nameLat: null });
  return {
    id: r.id,
    status: r.status as DuplicateView["status"],
    score: Number(r.score),
    ...reasonsOf(r.reasons),
    a: by.get(r.report_a) ?? missing(r.report_a),
    b: by.get(r.report_b) ?? missing(r.report_b),
    survivorId: r.survivor_id,
    decidedBy: r.decided_by,
    decidedAt: r.decided_at,
    reason: r.reason,
    createdAt: r.created_at,
  };
}

async function loadProposal(tx: Tx, id: string): Promise<DuplicatesTable> {
  const row = await cwdb(tx).selectFrom("family_duplicates").selectAll().where("id", "=", id).executeTakeFirst();
  if (!row) throw new NotFound(say("families.noDuplicate"));
  if (row.status !== "proposed") throw new Conflict(row.status === "accepted" ? say("families.duplicateAccepted") : row.status === "rejected" ? say("families.duplicateRejected") : say("families.duplicateSuperseded"));
  return row;
}

function union<T>(a: T[], b: T[]): T[] {
  const seen = new Set(a.map((x) => canonicalJson(x)));
  return [...a, ...b.filter((x) => !seen.has(canonicalJson(x)))];
}

const REPORTER_FIELDS = new Set<keyof ReportInput>(["reporterName", "reporterRelationship", "reporterContact"]);

/** The survivor's fields with every empty one filled from the other report and every list joined. */
function mergedInput(keep: ReportView, other: ReportView): ReportInput {
  const k = inputOf(keep);
  const o = inputOf(other);
  const out: ReportInput = { ...k };
  for (const f of Object.keys(o) as (keyof ReportInput)[]) {
    // the reporter is a family, not a fact about the missing person: one family's name, relationship and contact
    // never fill another's report (the merged report keeps them, and other_reporters lists them for caseworkers)
    if (REPORTER_FIELDS.has(f)) continue;
    if ((k[f] === null || k[f] === undefined || k[f] === "") && o[f] !== null && o[f] !== undefined) (out as Record<string, unknown>)[f] = o[f];
  }
  // the other report's spellings of the name become aliases, so matching keeps finding the person by them
  const spellings = [other.nameAr, other.nameLat].filter((n): n is string => !!n && n !== out.nameAr && n !== out.nameLat);
  out.aliases = union(k.aliases ?? [], [...(o.aliases ?? []), ...spellings]);
  out.marks = union<Mark>(k.marks ?? [], o.marks ?? []);
  out.numbers = union(k.numbers ?? [], o.numbers ?? []);
  out.seenInDetention = union(k.seenInDetention ?? [], o.seenInDetention ?? []);
  return out;
}

function reporterOf(r: CaseReportsTable): Reporter {
  return { reportId: r.id, ref: r.ref, name: r.reporter_name, relationship: r.reporter_relationship, contact: r.reporter_contact, filedBy: r.filed_by, consent: JSON.parse(r.consent) as unknown };
}

/**
 * Accepts a proposal: merges one report into the other (by default the later into the earlier). The survivor
 * takes the merged report's reporters, family members, empty fields and lists; the merged report keeps all it
 * had, with status "merged" and a pointer. One custody event names both reports and the fields changed.
 */
export async function acceptDuplicate(ctx: Ctx, actor: Actor, sent: z.input<typeof contracts.AcceptDuplicateInput>): Promise<{ survivor: ReportView; merged: ReportView }> {
  ctx.policy.require(actor, "report.edit");
  ctx.policy.require(actor, "personal.read");
  const input = parseInput(contracts.AcceptDuplicateInput, sent);
  const reason = (input.reason ?? "").trim();
  const out = await ctx.db.transaction(async (tx) => {
    const dup = await loadProposal(tx, input.id);
    const pair = await cwdb(tx).selectFrom("family_reports").selectAll().where("id", "in", [dup.report_a, dup.report_b]).execute();
    const [a, b] = [pair.find((r) => r.id === dup.report_a), pair.find((r) => r.id === dup.report_b)];
    if (!a || !b) throw new NotFound(say("families.duplicateReportMissing"));
    for (const r of [a, b]) if (r.merged_into || r.status !== "open") throw new Conflict(say("families.notMergeable", { report: r.ref }));
    let keep = a.created_at <= b.created_at ? a : b;
    if (input.survivor) {
      const s = [a, b].find((r) => r.id === input.survivor || r.ref === input.survivor);
      if (!s) throw new Invalid(say("families.survivorOneOf", { report: a.ref, report2: b.ref }), "survivor");
      keep = s;
    }
    const gone = keep === a ? b : a;
    // a confirmed identification goes with the person to the report kept, or the merge is refused (0024)
    const carried = await carryIdentificationOnMerge(ctx, tx, actor, keep, gone);
    const cols = reportColumns(mergedInput(toReportView(keep), toReportView(gone)), await Vocabularies.load(tx));
    const changed = (Object.keys(cols) as (keyof typeof cols)[]).filter((k) => cols[k] !== keep[k]);
    const reporters = [...(JSON.parse(keep.other_reporters) as Reporter[]), reporterOf(gone), ...(JSON.parse(gone.other_reporters) as Reporter[])];
    const now = ctx.clock.now().toISOString();
    const survivor: CaseReportsTable = { ...keep, ...cols, other_reporters: canonicalJson(reporters), version: keep.version + 1, updated_at: now };
    const merged: CaseReportsTable = { ...gone, status: "merged", merged_into: keep.id, version: gone.version + 1, updated_at: now };
    await cwdb(tx).updateTable("family_reports").set(survivor).where("id", "=", keep.id).execute();
    await cwdb(tx).updateTable("family_reports").set({ status: "merged", merged_into: keep.id, version: merged.version, updated_at: now }).where("id", "=", gone.id).execute();
    // the merged report's family keeps seeing their case: they become members of the survivor
    const members = await cwdb(tx).selectFrom("family_report_members").selectAll().where("report_id", "=", gone.id).where("ended_at", "is", null).execute();
    const already = new Set((await cwdb(tx).selectFrom("family_report_members").select("user_id").where("report_id", "=", keep.id).execute()).map((m) => m.user_id));
    const incoming = [...members.map((m) => ({ user: m.user_id, rel: m.relationship })), ...(gone.filed_by ? [{ user: gone.filed_by, rel: gone.reporter_relationship }] : [])];
    for (const m of incoming) {
      if (already.has(m.user) || m.user === keep.filed_by) continue;
      already.add(m.user);
      await cwdb(tx).insertInto("family_report_members").values({ report_id: keep.id, user_id: m.user, relationship: m.rel, linked_by: actor.id, linked_at: now, ended_by: null, ended_at: null }).execute();
    }
    await cwdb(tx).updateTable("family_duplicates").set({ status: "accepted", survivor_id: keep.id, decided_by: actor.id, decided_at: now, reason }).where("id", "=", dup.id).execute();
    await cwdb(tx)
      .updateTable("family_duplicates")
      .set({ status: "superseded", decided_by: actor.id, decided_at: now, reason: `report merged by ${dup.id}` })
      .where("status", "=", "proposed")
      .where((eb) => eb.or([eb("report_a", "=", gone.id), eb("report_b", "=", gone.id)]))
      .execute();
    await ctx.log.append(
      tx,
      custody("metadata modification", actor, ctx.clock.now(), [{ id: keep.id, role: "report kept" }, { id: gone.id, role: "report merged" }], {
        action: "report.merge",
        duplicate: dup.id,
        fields: [...changed.map(String), "otherReporters"].sort(),
        ...(carried ? { decision: carried.id } : {}),
      }),
    );
    return { survivor: toReportView(survivor), merged: toReportView(merged) };
  });
  await enqueueRerank(ctx, { reportId: out.survivor.id });
  return out;
}

/** Rejects a proposal: the pair is remembered and never proposed again. */
export async function rejectDuplicate(ctx: Ctx, actor: Actor, sent: z.input<typeof contracts.RejectDuplicateInput>): Promise<DuplicateView> {
  ctx.policy.require(actor, "report.edit");
  ctx.policy.require(actor, "personal.read");
  const input = parseInput(contracts.RejectDuplicateInput, sent);
  const reason = (input.reason ?? "").trim();
  return ctx.db.transaction(async (tx) => {
    const dup = await loadProposal(tx, input.id);
    const now = ctx.clock.now().toISOString();
    await cwdb(tx).updateTable("family_duplicates").set({ status: "rejected", decided_by: actor.id, decided_at: now, reason }).where("id", "=", dup.id).execute();
    await ctx.log.append(
      tx,
      custody("metadata modification", actor, ctx.clock.now(), [{ id: dup.report_a, role: "report" }, { id: dup.report_b, role: "report" }], { action: "report.duplicate-rejected", duplicate: dup.id }),
    );
    const reports = await cwdb(tx).selectFrom("family_reports").select(["id", "ref", "name_ar", "name_lat"]).where("id", "in", [dup.report_a, dup.report_b]).execute();
    return toView({ ...dup, status: "rejected", decided_by: actor.id, decided_at: now, reason }, new Map(reports.map((r) => [r.id, { id: r.id, ref: r.ref, nameAr: r.name_ar, nameLat: r.name_lat }])));
  });
}
