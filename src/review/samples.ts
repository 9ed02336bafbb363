import { createHash } from "node:crypto";
import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { canonicalJson } from "../core/canonical-json.ts";
import { Conflict, Invalid, NotFound } from "../core/errors.ts";
import { newId } from "../core/ids.ts";
import { custody } from "../ledger/index.ts";
import { secret } from "../ledger/index.ts";
import { findAccountOfRole } from "../access/index.ts";
import { readBodies, updateBodyInTx, Vocabularies, type BodyView, bodiesHiddenFrom, findBodyRow } from "../catalogue/index.ts";
import { drawSample, type Member, type Stratum } from "./sampling.ts";
import { rdb, type ReviewItemsTable } from "./tables.ts";
import * as contracts from "./contracts.ts";
import { parseInput } from "../core/input.ts";
import type { z } from "zod";
import { say } from "../core/messages.ts";

/**
 * Samples and assignments. The frame a sample is drawn from is every body not yet in review (catalogue review
 * status "unreviewed", not merged), stratified by branch number and photo month; the draw is recorded with its
 * seed, strata and a hash of the frame so anyone can repeat it (sampling.ts says how).
 */
export type DrawSampleInput = z.input<typeof contracts.DrawSampleInput>;

export type SampleView = contracts.SampleView;

async function frame(ctx: Ctx, actor: Actor): Promise<BodyView[]> {
  const out: BodyView[] = [];
  let after: number | undefined;
  for (;;) {
    const page = await readBodies(ctx, actor, { limit: 5000, ...(after !== undefined ? { after } : {}) });
    out.push(...page.items.filter((b) => b.reviewStatus === "unreviewed" && !b.mergedInto));
    if (page.next === null) return out;
    after = page.next;
  }
}

export async function drawReviewSample(ctx: Ctx, actor: Actor, sent: DrawSampleInput): Promise<SampleView> {
  ctx.policy.require(actor, "review.sample");
  const input = parseInput(contracts.DrawSampleInput, sent);
  const doubleShare = input.doubleShare ?? 0;
  const bodies = await frame(ctx, actor);
  if (bodies.length === 0) throw new Invalid(say("sample.noBodies"), "size");
  const members: Member[] = bodies.map((b) => ({ id: b.id, branch: b.branchNoNorm, period: b.photoMonth }));
  const draw = drawSample(members, input.size, input.seed, doubleShare);
  const id = newId("smp");
  const now = ctx.clock.now().toISOString();
  const view: SampleView = {
    id,
    seed: input.seed,
    size: input.size,
    population: members.length,
    populationSha256: draw.populationSha256,
    doubleShare,
    doubles: draw.chosen.filter((c) => c.double).length,
    strata: draw.strata,
    drawnBy: actor.id,
    drawnAt: now,
  };
  await ctx.db.transaction(async (tx) => {
    const db = rdb(tx);
    await db
      .insertInto("review_samples")
      .values({
        id,
        seed: input.seed,
        size: input.size,
        population: members.length,
        population_sha256: draw.populationSha256,
        double_share: String(doubleShare),
        strata: canonicalJson(draw.strata),
        drawn_by: actor.id,
        drawn_at: now,
      })
      .execute();
    const items: ReviewItemsTable[] = draw.chosen.map((c, i) => ({
      id: newId("rvi"),
      sample_id: id,
      body_id: c.id,
      position: i,
      stratum: c.stratum,
      double_review: c.double ? 1 : 0,
      status: "sampled",
      disagreement: null,
      resolution: null,
    }));
    for (let i = 0; i < items.length; i += 200) await db.insertInto("review_items").values(items.slice(i, i + 200)).execute();
    const chosen = createHash("sha256").update(canonicalJson(draw.chosen)).digest("hex");
    await ctx.log.append(
      tx,
      custody("review", actor, new Date(now), [{ id, role: "review sample" }], {
        action: "review.sample",
        seed: secret(input.seed),
        size: input.size,
        doubleShare,
        population: members.length,
        populationSha256: draw.populationSha256,
        strata: secret(draw.strata.map((s) => ({ key: s.key, population: s.population, allocated: s.allocated }))),
        chosenSha256: chosen,
      }),
    );
    // Loaded once: each body's update would otherwise read the vocabularies again.
    const vocab = await Vocabularies.load(tx);
    for (const item of items) {
      await updateBodyInTx(ctx, tx, actor, item.body_id, { reviewStatus: "sampled" }, { action: "review.sample", objects: [{ id, role: "review sample" }], vocab });
    }
  });
  return view;
}

export async function getSample(ctx: Ctx, actor: Actor, id: string): Promise<SampleView & { items: { id: string; bodyId: string; bodyRef: string; stratum: string; double: boolean; status: string }[] }> {
  ctx.policy.require(actor, "review.read");
  const db = rdb(ctx.db.db);
  const s = await db.selectFrom("review_samples").selectAll().where("id", "=", id).executeTakeFirst();
  if (!s) throw new NotFound(say("sample.notFound", { id }));
  const drawn = await db.selectFrom("review_items").selectAll().where("sample_id", "=", id).orderBy("position").execute();
  // bodies above the reader's clearance are left out of the items and of the counts made from them
  const hidden = await bodiesHiddenFrom(ctx, actor, drawn.map((i) => i.body_id));
  const items = drawn.filter((i) => !hidden.has(i.body_id));
  // bodies by reference on the screen, never by id
  const refs = new Map((await Promise.all(items.map((i) => findBodyRow(ctx.db.db, i.body_id)))).map((b) => [b.id, b.ref]));
  return {
    id: s.id,
    seed: s.seed,
    size: s.size,
    population: s.population,
    populationSha256: s.population_sha256,
    doubleShare: Number(s.double_share),
    doubles: items.filter((i) => i.double_review === 1).length,
    strata: JSON.parse(s.strata) as Stratum[],
    drawnBy: s.drawn_by,
    drawnAt: s.drawn_at,
    items: items.map((i) => ({ id: i.id, bodyId: i.body_id, bodyRef: refs.get(i.body_id) ?? "", stratum: i.stratum, double: i.double_review === 1, status: i.status })),
  };
}

/** `reviewers`: two at least when the sample has double reviews. */
export type AssignInput = z.input<typeof contracts.AssignSampleInput>;

export type AssignResult = contracts.AssignResult;

/**
 * Deals the sample's unassigned bodies to the reviewers in draw order, one slot at a time round the list, so
 * each reviewer's load differs by at most one and the two slots of a double review always go to two people.
 */
export async function assignSample(ctx: Ctx, actor: Actor, sent: AssignInput): Promise<AssignResult> {
  ctx.policy.require(actor, "review.assign");
  const input = parseInput(contracts.AssignSampleInput, sent);
  return ctx.db.transaction(async (tx) => {
    const db = rdb(tx);
    const sample = input.sampleId
      ? await db.selectFrom("review_samples").selectAll().where("id", "=", input.sampleId).executeTakeFirst()
      : await db.selectFrom("review_samples").selectAll().orderBy("drawn_at", "desc").orderBy("id").executeTakeFirst();
    if (!sample) throw new NotFound(input.sampleId ? say("sample.notFound", { id: input.sampleId }) : say("sample.noneDrawn"));
    const reviewers: string[] = [];
    for (const ref of input.reviewers) {
      const u = await findAccountOfRole(tx, ref, "forensic_reviewer", "reviewers");
      if (!reviewers.includes(u.id)) reviewers.push(u.id);
    }
    const items = await db.selectFrom("review_items").selectAll().where("sample_id", "=", sample.id).where("status", "=", "sampled").orderBy("position").execute();
    if (items.length === 0) throw new Conflict(say("sample.allAssigned", { id: sample.id }));
    if (reviewers.length < 2 && items.some((i) => i.double_review === 1)) {
      throw new Invalid(say("sample.blindNeedsTwo"), "reviewers");
    }
    const now = ctx.clock.now().toISOString();
    const perReviewer: Record<string, number> = Object.fromEntries(reviewers.map((r) => [r, 0]));
    const rows: { id: string; item_id: string; slot: number; reviewer_id: string; assigned_by: string; assigned_at: string; submitted_at: null }[] = [];
    let turn = 0;
    for (const item of items) {
      const slots = item.double_review === 1 ? 2 : 1;
      for (let slot = 1; slot <= slots; slot++) {
        const reviewer = reviewers[turn++ % reviewers.length]!;
        perReviewer[reviewer] = (perReviewer[reviewer] ?? 0) + 1;
        rows.push({ id: newId("rva"), item_id: item.id, slot, reviewer_id: reviewer, assigned_by: actor.id, assigned_at: now, submitted_at: null });
      }
    }
    for (let i = 0; i < rows.length; i += 200) await db.insertInto("review_assignments").values(rows.slice(i, i + 200)).execute();
    await db.updateTable("review_items").set({ status: "assigned" }).where("sample_id", "=", sample.id).where("status", "=", "sampled").execute();
    const list = rows.map((r) => ({ assignment: r.id, item: r.item_id, slot: r.slot, reviewer: r.reviewer_id }));
    await ctx.log.append(
      tx,
      custody("review", actor, new Date(now), [{ id: sample.id, role: "review sample" }], {
        action: "review.assign",
        assignments: rows.length,
        perReviewer,
        assignmentsSha256: createHash("sha256").update(canonicalJson(list)).digest("hex"),
      }),
    );
    return { sampleId: sample.id, assigned: rows.length, perReviewer };
  });
}
