import { createHash } from "node:crypto";
import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { canonicalJson } from "../core/canonical-json.ts";
import { Conflict, Forbidden, Invalid, NotFound } from "../core/errors.ts";
import { newId } from "../core/ids.ts";
import type { Tx } from "../db/database.ts";
import { custody, type EventObject } from "../ledger/index.ts";
import { bodiesHiddenFrom, findBodyRow, getBody, photosOfBodies, updateBodyInTx, Vocabularies, type ReviewStatus } from "../catalogue/index.ts";
import { setBlindProvider, type BlindScope } from "../access/index.ts";
import { rdb, type ReviewItemsTable, type ReviewsTable } from "./tables.ts";
import * as contracts from "./contracts.ts";
import { parseInput } from "../core/input.ts";
import type { z } from "zod";
import { say } from "../core/messages.ts";

/**
 * Structured findings, their signature, blind double review and the settling of disagreements.
 *
 * A submitted review is never changed: its canonical JSON (RFC 8785) is stored as signed and its SHA-256, the
 * reviewer's id and the time go into a custody event of type "review" in the same transaction. A correction is
 * a new version that names the one it supersedes and says why.
 *
 * Blindness: a forensic reviewer sees another reviewer's review of a body only once both reviews of that body
 * are in (or it is a single review). Those who organise the work (administrators, investigators) and
 * prosecutors read submitted reviews at any time; they do not review.
 */
export const REVIEW_FORMAT = "dalil.review/1";

export const CONFIDENCES = ["possible", "probable", "certain"] as const;
export type Confidence = (typeof CONFIDENCES)[number];

/**
 * Indicators of the cause of death a photograph can support. A closed list (code depends on it); the finding
 * taxonomy itself is the catalogue's `finding` vocabulary.
 */
export const CAUSE_INDICATORS = [
  "blunt_trauma",
  "asphyxia",
  "starvation",
  "untreated_injury_or_infection",
  "burns",
  "gunshot",
  "undetermined",
] as const;
export type CauseIndicator = (typeof CAUSE_INDICATORS)[number];

/** A region on a photo in normalised image coordinates: (0,0) top left, (1,1) bottom right. */
export type Region =
  | { photo: string; shape: "rect"; x: number; y: number; w: number; h: number }
  | { photo: string; shape: "polygon"; points: [number, number][] };

export type Finding = contracts.Finding;

export type Cause = contracts.Cause;

/** `correction`: required for a second or later version, why the earlier one was wrong. */
export type SubmitReview = z.input<typeof contracts.SubmitReviewInput>;

const UNBLINDED: readonly string[] = ["agreed", "disputed", "resolved"];

/** What is signed: the canonical JSON of this record. */
export type ReviewContent = contracts.ReviewContent;

export type ReviewView = contracts.ReviewView;

const UNIT = (v: number) => Number.isFinite(v) && v >= 0 && v <= 1;

function checkRegion(r: Region, photos: Set<string>, field: string): Region {
  if (!photos.has(r.photo)) throw new Invalid(say("review.regionPhoto", { photo: r.photo.slice(0, 12) }), field);
  if (r.shape === "rect") {
    if (![r.x, r.y, r.w, r.h].every(UNIT) || r.w <= 0 || r.h <= 0 || r.x + r.w > 1 + 1e-9 || r.y + r.h > 1 + 1e-9) {
      throw new Invalid(say("review.rectangle"), field);
    }
    return { photo: r.photo, shape: "rect", x: r.x, y: r.y, w: r.w, h: r.h };
  }
  if (r.points.length < 3 || r.points.length > 200 || !r.points.every((p) => p.length === 2 && UNIT(p[0]) && UNIT(p[1]))) {
    throw new Invalid(say("review.polygon"), field);
  }
  return { photo: r.photo, shape: "polygon", points: r.points.map((p) => [p[0], p[1]]) };
}

function byCode<T extends { code: string }>(a: T, b: T): number {
  return a.code < b.code ? -1 : a.code > b.code ? 1 : 0;
}

function statusForBody(item: Pick<ReviewItemsTable, "status">): ReviewStatus {
  switch (item.status) {
    case "sampled":
    case "assigned":
      return "sampled";
    case "in_review":
      return "in_review";
    case "disputed":
      return "disputed";
    default:
      return "reviewed";
  }
}

/**
 * The item, locked for the rest of the transaction. On PostgreSQL two reviewers submitting the two halves of a
 * double review at the same moment would otherwise each see only their own and leave the item "in review" for
 * ever; SQLite transactions already run one at a time (BEGIN IMMEDIATE).
 */
async function lockItem(ctx: Ctx, tx: Tx, id: string): Promise<ReviewItemsTable | undefined> {
  let q = rdb(tx).selectFrom("review_items").selectAll().where("id", "=", id);
  if (ctx.db.dialect === "postgres") q = q.forUpdate();
  return q.executeTakeFirst();
}

/** The latest version of each slot's review of an item. */
async function latestBySlot(tx: Tx, itemId: string): Promise<Map<number, ReviewsTable>> {
  const db = rdb(tx);
  const rows = await db
    .selectFrom("reviews")
    .innerJoin("review_assignments", "review_assignments.id", "reviews.assignment_id")
    .selectAll("reviews")
    .select("review_assignments.slot")
    .where("reviews.item_id", "=", itemId)
    .orderBy("reviews.version")
    .execute();
  const out = new Map<number, ReviewsTable>();
  for (const r of rows) if (r.slot <= 2) out.set(r.slot, r);
  return out;
}

function contentOf(r: ReviewsTable): ReviewContent {
  return JSON.parse(r.content) as ReviewContent;
}

export type Disagreement = contracts.Disagreement;

export type ReviewMark = contracts.ReviewMark;

const markKey = (m: Pick<ReviewMark, "type" | "region">): string => `${m.type}|${m.region ?? ""}`;

/** Marks as a reviewer gave them, checked against the catalogue's mark_type and body_region vocabularies, in order. */
function checkMarks(sent: { type: string; region?: string | null; description?: string }[], vocab: Vocabularies, field: string): ReviewMark[] {
  const seen = new Set<string>();
  const out = sent.map((m, i) => {
    const type = vocab.require("mark_type", m.type, `${field}.${i}.type`).code;
    const region = m.region ? vocab.require("body_region", m.region, `${field}.${i}.region`).code : null;
    if (seen.has(markKey({ type, region }))) throw new Invalid(say("review.markTwice", { type, region: region ?? "—" }), `${field}.${i}`);
    seen.add(markKey({ type, region }));
    return { type, region, description: (m.description ?? "").trim() };
  });
  return out.sort((a, b) => (markKey(a) < markKey(b) ? -1 : markKey(a) > markKey(b) ? 1 : 0));
}

/**
 * What two reviews agree on beyond the findings: the marks both recorded (same type and region; the first
 * reviewer's words, or the second's when the first gave none) and the clothing when both described it (both
 * descriptions, once each). A mark only one reviewer saw is not written onto the body.
 */
export function agreedObservations(a: Pick<ReviewContent, "marks" | "clothing">, b: Pick<ReviewContent, "marks" | "clothing">): { marks: ReviewMark[]; clothing: string | null } {
  const other = new Map((b.marks ?? []).map((m) => [markKey(m), m]));
  const marks = (a.marks ?? []).filter((m) => other.has(markKey(m))).map((m) => ({ ...m, description: m.description || other.get(markKey(m))!.description }));
  const [ca, cb] = [a.clothing?.trim() ?? "", b.clothing?.trim() ?? ""];
  const clothing = ca && cb ? (ca.toLowerCase() === cb.toLowerCase() ? ca : `${ca}; ${cb}`) : null;
  return { marks, clothing };
}

export function compareReviews(a: ReviewContent, b: ReviewContent): Disagreement {
  const diff = (x: string[], y: string[]) => [...new Set([...x, ...y])].filter((c) => x.includes(c) !== y.includes(c)).sort();
  return {
    codes: diff(a.findings.map((f) => f.code), b.findings.map((f) => f.code)),
    causes: diff(a.causes.map((c) => c.code), b.causes.map((c) => c.code)),
  };
}

export async function submitReview(ctx: Ctx, actor: Actor, sent: SubmitReview): Promise<ReviewView> {
  ctx.policy.require(actor, "review.submit");
  const input = parseInput(contracts.SubmitReviewInput, sent);
  const pre = await rdb(ctx.db.db).selectFrom("review_assignments").innerJoin("review_items", "review_items.id", "review_assignments.item_id").select(["review_assignments.reviewer_id", "review_items.body_id"]).where("review_assignments.id", "=", input.assignmentId).executeTakeFirst();
  if (!pre) throw new NotFound(say("review.noAssignment", { id: input.assignmentId }));
  if (pre.reviewer_id !== actor.id) throw new Forbidden(say("review.notYours"));
  const body = await getBody(ctx, actor, pre.body_id);
  const photos = new Set(body.photos.map((p) => p.sha256));

  return ctx.db.transaction(async (tx) => {
    const db = rdb(tx);
    const asg = await db.selectFrom("review_assignments").selectAll().where("id", "=", input.assignmentId).executeTakeFirstOrThrow();
    const item = await lockItem(ctx, tx, asg.item_id);
    if (!item) throw new NotFound(say("review.noItem", { id: asg.item_id }));
    const vocab = await Vocabularies.load(tx);
    const seen = new Set<string>();
    const findings: Finding[] = input.findings.map((f, i) => {
      const field = `findings.${i}`;
      const term = vocab.require("finding", f.code, `${field}.code`);
      if (term.retired) throw new Invalid(say("review.findingRetired", { code: term.code }), `${field}.code`);
      if (seen.has(term.code)) throw new Invalid(say("review.findingTwice", { code: term.code }), field);
      seen.add(term.code);
      const note = f.note?.trim();
      return {
        code: term.code,
        confidence: f.confidence,
        regions: (f.regions ?? []).map((r, j) => checkRegion(r, photos, `${field}.regions.${j}`)),
        ...(note ? { note } : {}),
      };
    });
    findings.sort(byCode);
    const causeSeen = new Set<string>();
    const causes: Cause[] = (input.causes ?? []).map((c, i) => {
      if (!(CAUSE_INDICATORS as readonly string[]).includes(c.code)) throw new Invalid(say("review.notIndicator", { code: c.code, values: CAUSE_INDICATORS.join(", ") }), `causes.${i}.code`);
      if (causeSeen.has(c.code)) throw new Invalid(say("review.indicatorTwice", { code: c.code }), `causes.${i}`);
      causeSeen.add(c.code);
      if (!(CONFIDENCES as readonly string[]).includes(c.confidence)) throw new Invalid(say("review.confidence", { values: CONFIDENCES.join(", ") }), `causes.${i}.confidence`);
      return { code: c.code, confidence: c.confidence };
    });
    causes.sort(byCode);
    if (findings.length === 0) throw new Invalid(say("review.findingNeeded"), "findings");
    const marks = checkMarks(input.marks ?? [], vocab, "marks");
    const clothing = input.clothing?.trim() || null;
    const notes = input.notes?.trim() || null;
    if (notes && notes.length > 20000) throw new Invalid(say("review.notesTooLong"), "notes");

    const prev = await db.selectFrom("reviews").selectAll().where("assignment_id", "=", asg.id).orderBy("version", "desc").executeTakeFirst();
    const correction = input.correction?.trim() || null;
    if (prev && !correction) throw new Conflict(say("review.submitted"));
    const at = ctx.clock.now();
    const id = newId("rev");
    const afterUnblinding = Boolean(prev) && item.double_review === 1 && UNBLINDED.includes(item.status);
    const content: ReviewContent = {
      v: REVIEW_FORMAT,
      review: id,
      version: (prev?.version ?? 0) + 1,
      supersedes: prev?.id ?? null,
      correction: prev ? correction : null,
      ...(afterUnblinding ? { afterUnblinding: true as const } : {}),
      sample: item.sample_id,
      item: item.id,
      assignment: asg.id,
      body: item.body_id,
      bodyRef: body.ref,
      reviewer: actor.id,
      submittedAt: at.toISOString(),
      findings,
      causes,
      ...(marks.length ? { marks } : {}),
      ...(clothing ? { clothing } : {}),
      notes,
    };
    const text = canonicalJson(content);
    const sha256 = createHash("sha256").update(text, "utf8").digest("hex");
    const examined = [...new Set(findings.flatMap((f) => (f.regions ?? []).map((r) => r.photo)))].sort();
    const objects: EventObject[] = [{ id: item.body_id, role: "body" }, { id, role: "review" }, ...examined.map((s) => ({ sha256: s, role: "examined photo" }))];
    const { seq } = await ctx.log.append(
      tx,
      custody("review", actor, at, objects, {
        action: "review.submit",
        review: id,
        format: REVIEW_FORMAT,
        sha256,
        reviewer: actor.id,
        submittedAt: content.submittedAt,
        version: content.version,
        ...(prev ? { supersedes: prev.id } : {}),
        ...(afterUnblinding ? { afterUnblinding: true } : {}),
      }),
    );
    await db
      .insertInto("reviews")
      .values({ id, assignment_id: asg.id, item_id: item.id, body_id: item.body_id, reviewer_id: actor.id, version: content.version, supersedes: content.supersedes, content: text, sha256, submitted_at: content.submittedAt, event_seq: seq })
      .execute();
    if (!asg.submitted_at) await db.updateTable("review_assignments").set({ submitted_at: content.submittedAt }).where("id", "=", asg.id).execute();
    if (asg.slot <= 2) await settleItem(ctx, tx, actor, item, id, afterUnblinding);
    return { id, sha256, eventSeq: seq, content };
  });
}

/** The marks and clothing a settled review writes onto the body (through the catalogue, added to what it has). */
function observed(seen: { marks: ReviewMark[]; clothing: string | null }): { reviewMarks?: ReviewMark[]; reviewClothing?: string } {
  return { ...(seen.marks.length ? { reviewMarks: seen.marks } : {}), ...(seen.clothing ? { reviewClothing: seen.clothing } : {}) };
}

/** Moves an item (and its body) on after a review of slot 1 or 2 arrives. A resolved item stays resolved. */
async function settleItem(ctx: Ctx, tx: Tx, actor: Actor, item: ReviewItemsTable, reviewId: string, afterUnblinding: boolean): Promise<void> {
  if (item.status === "resolved") return;
  // a reviewer who has seen the other review cannot make a dispute go away by correcting towards it: it is settled
  // by a third reviewer or a recorded consensus
  if (afterUnblinding && item.status === "disputed") return;
  const latest = await latestBySlot(tx, item.id);
  let status: string;
  let disagreement: Disagreement | null = null;
  let findings: string[] | undefined;
  let seen: { marks: ReviewMark[]; clothing: string | null } = { marks: [], clothing: null };
  if (item.double_review === 0) {
    status = "reviewed";
    const only = contentOf(latest.get(1)!);
    findings = only.findings.map((f) => f.code);
    seen = { marks: only.marks ?? [], clothing: only.clothing ?? null };
  } else if (latest.size < 2) {
    status = "in_review";
  } else {
    const a = contentOf(latest.get(1)!);
    const b = contentOf(latest.get(2)!);
    disagreement = compareReviews(a, b);
    const agreed = disagreement.codes.length === 0 && disagreement.causes.length === 0;
    status = agreed ? "agreed" : "disputed";
    if (agreed) {
      findings = a.findings.map((f) => f.code);
      seen = agreedObservations(a, b);
    }
  }
  await rdb(tx)
    .updateTable("review_items")
    .set({ status, disagreement: disagreement && status === "disputed" ? canonicalJson(disagreement) : null })
    .where("id", "=", item.id)
    .execute();
  await updateBodyInTx(
    ctx,
    tx,
    actor,
    item.body_id,
    { reviewStatus: statusForBody({ status }), ...(findings ? { reviewFindings: findings } : {}), ...observed(seen) },
    { action: "review.status", objects: [{ id: reviewId, role: "review" }] },
  );
}

/** May this actor see this review now? (Blind double review: not another reviewer's, until both are in.) */
function mayRead(ctx: Ctx, actor: Actor, review: Pick<ReviewsTable, "reviewer_id">, item: Pick<ReviewItemsTable, "double_review" | "status">): boolean {
  if (!ctx.policy.stands(actor, "review.blind") || review.reviewer_id === actor.id || item.double_review === 0) return true;
  return UNBLINDED.includes(item.status);
}

const BLIND = say("review.blind");

export async function getReview(ctx: Ctx, actor: Actor, id: string): Promise<ReviewView> {
  ctx.policy.require(actor, "review.read");
  const db = rdb(ctx.db.db);
  const r = await db.selectFrom("reviews").selectAll().where("id", "=", id).executeTakeFirst();
  if (!r) throw new NotFound(say("review.notFound", { id }));
  const item = await db.selectFrom("review_items").selectAll().where("id", "=", r.item_id).executeTakeFirstOrThrow();
  // a review of a body above the reader's clearance follows the body: it does not exist for them
  if ((await bodiesHiddenFrom(ctx, actor, [r.body_id])).size) throw new NotFound(say("review.notFound", { id }));
  if (!mayRead(ctx, actor, r, item)) throw new Forbidden(BLIND);
  return { id: r.id, sha256: r.sha256, eventSeq: r.event_seq, content: contentOf(r) };
}

/** Every review of a body that the actor may see now, all versions, oldest first; hidden ones are counted. */
export async function reviewsOfBody(ctx: Ctx, actor: Actor, bodyId: string): Promise<{ reviews: ReviewView[]; hidden: number }> {
  ctx.policy.require(actor, "review.read");
  if ((await bodiesHiddenFrom(ctx, actor, [bodyId])).size) return { reviews: [], hidden: 0 };
  const db = rdb(ctx.db.db);
  const items = await db.selectFrom("review_items").selectAll().where("body_id", "=", bodyId).execute();
  const byId = new Map(items.map((i) => [i.id, i]));
  const rows = await db.selectFrom("reviews").selectAll().where("body_id", "=", bodyId).orderBy("submitted_at").orderBy("version").execute();
  const visible = rows.filter((r) => mayRead(ctx, actor, r, byId.get(r.item_id)!));
  return { reviews: visible.map((r) => ({ id: r.id, sha256: r.sha256, eventSeq: r.event_seq, content: contentOf(r) })), hidden: rows.length - visible.length };
}

export type AssignmentView = contracts.AssignmentView;

/** The actor's own work list: what they are assigned, never who else reviews the same body. */
export async function myAssignments(ctx: Ctx, actor: Actor, opts: { open?: boolean } = {}): Promise<AssignmentView[]> {
  ctx.policy.require(actor, "review.submit");
  let q = rdb(ctx.db.db)
    .selectFrom("review_assignments")
    .innerJoin("review_items", "review_items.id", "review_assignments.item_id")
    .select(["review_assignments.id", "review_assignments.item_id", "review_assignments.slot", "review_assignments.submitted_at", "review_items.sample_id", "review_items.body_id", "review_items.double_review", "review_items.status", "review_items.position"])
    .where("review_assignments.reviewer_id", "=", actor.id);
  if (opts.open) q = q.where("review_assignments.submitted_at", "is", null);
  const all = await q.orderBy("review_items.sample_id").orderBy("review_items.position").execute();
  const hidden = await bodiesHiddenFrom(ctx, actor, all.map((r) => r.body_id));
  const rows = all.filter((r) => !hidden.has(r.body_id));
  return rows.map((r) => ({ id: r.id, itemId: r.item_id, sampleId: r.sample_id, bodyId: r.body_id, slot: r.slot, double: r.double_review === 1, submittedAt: r.submitted_at, itemStatus: r.status }));
}

export type DisputeView = contracts.DisputeView;

export async function listDisagreements(ctx: Ctx, actor: Actor): Promise<DisputeView[]> {
  ctx.policy.require(actor, "review.resolve");
  const db = rdb(ctx.db.db);
  const disputed = await db.selectFrom("review_items").selectAll().where("status", "=", "disputed").orderBy("sample_id").orderBy("position").execute();
  const hidden = await bodiesHiddenFrom(ctx, actor, disputed.map((i) => i.body_id));
  const items = disputed.filter((i) => !hidden.has(i.body_id));
  const out: DisputeView[] = [];
  for (const i of items) {
    const asg = await db.selectFrom("review_assignments").select("reviewer_id").where("item_id", "=", i.id).where("slot", "<=", 2).orderBy("slot").execute();
    const { ref } = await findBodyRow(ctx.db.db, i.body_id);
    out.push({ itemId: i.id, sampleId: i.sample_id, bodyId: i.body_id, bodyRef: ref, disagreement: JSON.parse(i.disagreement ?? "{}") as Disagreement, reviewers: asg.map((a) => a.reviewer_id) });
  }
  return out;
}

export const RESOLUTION_METHODS = ["third_reviewer", "consensus"] as const;
export type ResolutionMethod = (typeof RESOLUTION_METHODS)[number];

export type ResolveInput = z.input<typeof contracts.ResolveInput>;

export type Resolution = contracts.Resolution;

/**
 * Settles a disputed double review. A third reviewer is a forensic reviewer who did not review the body; a
 * consensus is recorded by one of the two reviewers (or an administrator) for both. Signed like a review.
 */
export async function resolveDisagreement(ctx: Ctx, actor: Actor, sent: ResolveInput): Promise<{ resolution: Resolution; sha256: string }> {
  ctx.policy.require(actor, "review.resolve");
  const input = parseInput(contracts.ResolveInput, sent);
  const note = input.note.trim();
  if (!note) throw new Invalid(say("review.settleNote"), "note");
  return ctx.db.transaction(async (tx) => {
    const db = rdb(tx);
    const item = await lockItem(ctx, tx, input.itemId);
    if (!item || (await bodiesHiddenFrom(ctx, actor, [item.body_id], tx)).size) throw new NotFound(say("review.noItem", { id: input.itemId }));
    if (item.status !== "disputed") throw new Conflict(say("review.notInDispute", { status: item.status }));
    const asg = await db.selectFrom("review_assignments").select(["reviewer_id", "slot"]).where("item_id", "=", item.id).where("slot", "<=", 2).execute();
    const pair = asg.map((a) => a.reviewer_id);
    if (input.method === "third_reviewer") {
      if (!ctx.policy.stands(actor, "review.third")) throw new Forbidden(say("review.thirdForensic"));
      if (pair.includes(actor.id)) throw new Forbidden(say("review.thirdSomeoneElse"));
    } else if (!ctx.policy.stands(actor, "review.consensus.any") && !pair.includes(actor.id)) {
      throw new Forbidden(say("review.consensusByReviewer"));
    }
    const vocab = await Vocabularies.load(tx);
    const findings = [...new Set(input.findings.map((c, i) => vocab.require("finding", c, `findings.${i}`).code))].sort();
    if (findings.length === 0) throw new Invalid(say("review.findingsStand"), "findings");
    const causes = [...new Set(input.causes ?? [])].sort();
    for (const c of causes) if (!(CAUSE_INDICATORS as readonly string[]).includes(c)) throw new Invalid(say("review.notIndicatorShort", { code: c }), "causes");
    const latest = await latestBySlot(tx, item.id);
    const [a, b] = [latest.get(1), latest.get(2)].map((r) => (r ? contentOf(r) : {}));
    const both = agreedObservations(a ?? {}, b ?? {});
    const marks = input.marks ? checkMarks(input.marks, vocab, "marks") : both.marks;
    const clothing = input.clothing !== undefined ? input.clothing.trim() || null : both.clothing;
    const at = ctx.clock.now();
    const resolution: Resolution = {
      v: "dalil.review-resolution/1",
      item: item.id,
      body: item.body_id,
      method: input.method,
      by: actor.id,
      participants: input.method === "consensus" ? [...pair].sort() : [],
      reviews: [...latest.values()].map((r) => r.id).sort(),
      at: at.toISOString(),
      findings,
      causes,
      ...(marks.length ? { marks } : {}),
      ...(clothing ? { clothing } : {}),
      note,
    };
    const sha256 = createHash("sha256").update(canonicalJson(resolution), "utf8").digest("hex");
    await ctx.log.append(
      tx,
      custody("review", actor, at, [{ id: item.body_id, role: "body" }, ...resolution.reviews.map((r) => ({ id: r, role: "review" }))], {
        action: "review.resolve",
        item: item.id,
        method: input.method,
        sha256,
        by: actor.id,
        at: resolution.at,
      }),
    );
    await db.updateTable("review_items").set({ status: "resolved", resolution: canonicalJson({ ...resolution, sha256 }) }).where("id", "=", item.id).execute();
    await updateBodyInTx(ctx, tx, actor, item.body_id, { reviewStatus: "reviewed", reviewFindings: findings, ...observed({ marks, clothing }) }, { action: "review.resolve", detail: { item: item.id } });
    return { resolution, sha256 };
  });
}

/** The first submitted review of each slot of an item: what each reviewer found while still blind. */
async function firstBySlot(tx: Tx, itemId: string): Promise<Map<number, ReviewsTable>> {
  const rows = await rdb(tx)
    .selectFrom("reviews")
    .innerJoin("review_assignments", "review_assignments.id", "reviews.assignment_id")
    .selectAll("reviews")
    .select("review_assignments.slot")
    .where("reviews.item_id", "=", itemId)
    .where("reviews.version", "=", 1)
    .execute();
  return new Map(rows.filter((r) => r.slot <= 2).map((r) => [r.slot, r]));
}

/**
 * For stats: the first submitted slot-1 and slot-2 reviews of every double-reviewed item with both in. Agreement
 * is measured on the two independent (blind) findings: a correction, above all one made after seeing the other
 * review, would make two reviewers look more alike than they were.
 */
export async function doublePairs(tx: Tx, sampleId?: string): Promise<[ReviewContent, ReviewContent][]> {
  const db = rdb(tx);
  let q = db.selectFrom("review_items").select("id").where("double_review", "=", 1).where("status", "in", ["agreed", "disputed", "resolved"]);
  if (sampleId) q = q.where("sample_id", "=", sampleId);
  const items = await q.orderBy("id").execute();
  const out: [ReviewContent, ReviewContent][] = [];
  for (const i of items) {
    const latest = await firstBySlot(tx, i.id);
    const a = latest.get(1);
    const b = latest.get(2);
    if (a && b) out.push([contentOf(a), contentOf(b)]);
  }
  return out;
}

/**
 * Who is blind to whom now: for a forensic reviewer, each body of a double review they are part of that is not yet
 * unblinded, and its photos, mapped to the other reviewers of it. Registered with the access module's blind scope
 * (see access/blind.ts) so the custody-history views hide the other's acts on them.
 */
export async function blindScopeOf(ctx: Ctx, actor: Actor): Promise<BlindScope> {
  const hidden = new Map<string, Set<string>>();
  const db = rdb(ctx.db.db);
  const mine = await db
    .selectFrom("review_assignments")
    .innerJoin("review_items", "review_items.id", "review_assignments.item_id")
    .select(["review_items.id as item", "review_items.body_id as body"])
    .where("review_assignments.reviewer_id", "=", actor.id)
    .where("review_assignments.slot", "<=", 2)
    .where("review_items.double_review", "=", 1)
    .where("review_items.status", "not in", [...UNBLINDED])
    .execute();
  if (mine.length === 0) return { hidden };
  const others = await db.selectFrom("review_assignments").select(["item_id", "reviewer_id"]).where("item_id", "in", mine.map((m) => m.item)).where("reviewer_id", "!=", actor.id).execute();
  const photos = await photosOfBodies(ctx.db.db, mine.map((m) => m.body));
  const add = (key: string, who: string) => hidden.set(key, (hidden.get(key) ?? new Set()).add(who));
  for (const m of mine) {
    for (const o of others.filter((x) => x.item_id === m.item)) {
      add(m.body, o.reviewer_id);
      for (const p of photos.filter((x) => x.bodyId === m.body)) add(p.sha256, o.reviewer_id);
    }
  }
  return { hidden };
}

/** Tells the access module who is blind to whom (called once when the archive opens). */
export function registerReviewBlinding(): void {
  setBlindProvider(blindScopeOf);
}
