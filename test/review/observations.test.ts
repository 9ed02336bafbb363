import { test } from "node:test";
import assert from "node:assert/strict";
import { backends } from "../support/backends.ts";
import { freshAccessArchive, readyUser } from "../support/accounts.ts";
import { seedBodies, typed, investigator, admin } from "../support/catalogue.ts";
import { editBody, getBody, recordHistory, readBodies } from "../../src/catalogue/index.ts";
import { assignSample, drawReviewSample, myAssignments, resolveDisagreement, submitReview, type Finding } from "../../src/review/index.ts";
import { Invalid } from "../../src/core/errors.ts";
import { bodyFeatures } from "../../src/families/matching.ts";
import { rankBodies, type ReportFeatures } from "../../src/families/scoring.ts";

const find = (code: string): Finding => ({ code, confidence: "probable" });

/** A report that leans on sex, dates, branch and one remembered mark: a tattoo on the right arm. */
const report: ReportFeatures = {
  sex: "male", birthYear: null, arrestEarliest: "2012-03-01", arrestLatest: "2012-03-31", branch: "215", branchCertainty: "probable",
  marks: [{ type: "tattoo", region: "arm_right" }], numbers: [], names: [], nameKeys: new Set(),
};

async function ranking(t: Awaited<ReturnType<typeof freshAccessArchive>>): Promise<string[]> {
  const bodies = (await readBodies(t.ctx, admin, { limit: 100 })).items.map((b) => bodyFeatures(b));
  return rankBodies(report, bodies).map((s) => s.ref);
}

for (const { backend, skip } of await backends()) {
  test(`marks and clothing agreed in a double review are written onto the body, marked as from review, and lift its rank (${backend.name})`, { skip, timeout: 60_000 }, async () => {
    const t = await freshAccessArchive(backend);
    try {
      const r1 = await readyUser(t.ctx, "forensic_reviewer");
      const r2 = await readyUser(t.ctx, "forensic_reviewer");
      const r3 = await readyUser(t.ctx, "forensic_reviewer");
      const same = { photoDate: "2012-05-10", sex: "male" as const, numbers: [typed("branch", "215")] };
      const bodies = await seedBodies(t.ctx, investigator, [
        { ...same },
        { ...same, marks: [{ type: "scar", region: "chest", description: "long scar" }], clothing: "grey trousers" },
        { ...same },
      ]);
      const [first, second, third] = bodies.map((b) => b.ref) as [string, string, string];
      assert.deepEqual(await ranking(t), [first, second, third], "before review the three are alike: order by reference");

      const sample = await drawReviewSample(t.ctx, investigator, { size: 3, seed: "marks", doubleShare: 1 });
      await assignSample(t.ctx, investigator, { sampleId: sample.id, reviewers: [r1.id, r2.id] });
      const mine = async (u: typeof r1, bodyId: string) => (await myAssignments(t.ctx, u.actor)).find((a) => a.bodyId === bodyId)!.id;

      // a mark named twice, or outside the vocabulary, is refused with a sentence
      await assert.rejects(
        submitReview(t.ctx, r1.actor, { assignmentId: await mine(r1, bodies[1]!.id), findings: [find("emaciation")], marks: [{ type: "tattoo", region: "arm_right" }, { type: "tattoo", region: "arm_right" }] }),
        (e: unknown) => e instanceof Invalid && /listed twice/.test(e.message),
      );
      await assert.rejects(
        submitReview(t.ctx, r1.actor, { assignmentId: await mine(r1, bodies[1]!.id), findings: [find("emaciation")], marks: [{ type: "tattoo", region: "elbow" }] }),
        (e: unknown) => e instanceof Invalid && e.field === "marks.0.region",
      );

      // body 2: both reviewers see the tattoo; only the first sees a mole; both see the scar the catalogue has
      await submitReview(t.ctx, r1.actor, {
        assignmentId: await mine(r1, bodies[1]!.id),
        findings: [find("emaciation")],
        marks: [{ type: "tattoo", region: "arm_right", description: "anchor" }, { type: "mole", region: "face" }, { type: "scar", region: "chest", description: "scar" }],
        clothing: "blue shirt",
      });
      assert.deepEqual((await getBody(t.ctx, admin, bodies[1]!.id)).marks.length, 1, "nothing is written before the second review is in");
      await submitReview(t.ctx, r2.actor, {
        assignmentId: await mine(r2, bodies[1]!.id),
        findings: [find("emaciation")],
        marks: [{ type: "scar", region: "chest" }, { type: "tattoo", region: "arm_right" }],
        clothing: "Blue shirt",
      });
      const b2 = await getBody(t.ctx, admin, bodies[1]!.id);
      assert.equal(b2.reviewStatus, "reviewed");
      assert.deepEqual(b2.marks, [
        { type: "scar", region: "chest", description: "long scar" },
        { type: "tattoo", region: "arm_right", description: "anchor", source: "review" },
      ], "the catalogue's scar is kept and not repeated; the mole only one reviewer saw is left out");
      assert.equal(b2.clothing, "grey trousers; blue shirt");
      const history = await recordHistory(t.ctx, admin, bodies[1]!.id);
      assert.ok(history.some((h) => h.field === "marks" && Array.isArray(h.new) && (h.new as unknown[]).length === 2), "the change is in the body's history");
      assert.deepEqual(await ranking(t), [second, first, third], "the report's tattoo now lifts the reviewed body to the top");

      // an edit that keeps the mark keeps where it came from
      await editBody(t.ctx, investigator, { id: b2.id, marks: b2.marks.map(({ type, region, description }) => ({ type, region, description })) });
      assert.equal((await getBody(t.ctx, admin, b2.id)).marks[1]!.source, "review");

      // body 3: a dispute on findings, settled by a third reviewer; the marks both recorded are written
      await submitReview(t.ctx, r1.actor, { assignmentId: await mine(r1, bodies[2]!.id), findings: [find("burn")], marks: [{ type: "tattoo", region: "arm_left" }] });
      await submitReview(t.ctx, r2.actor, { assignmentId: await mine(r2, bodies[2]!.id), findings: [find("emaciation")], marks: [{ type: "tattoo", region: "arm_left" }], clothing: "barefoot" });
      const b3 = await getBody(t.ctx, admin, bodies[2]!.id);
      assert.equal(b3.reviewStatus, "disputed");
      assert.deepEqual(b3.marks, [], "a dispute writes nothing");
      const item = (await myAssignments(t.ctx, r1.actor)).find((a) => a.bodyId === bodies[2]!.id)!.itemId;
      const res = await resolveDisagreement(t.ctx, r3.actor, { itemId: item, method: "third_reviewer", findings: ["emaciation"], note: "no burn" });
      assert.deepEqual(res.resolution.marks, [{ type: "tattoo", region: "arm_left", description: "" }]);
      const settled = await getBody(t.ctx, admin, bodies[2]!.id);
      assert.deepEqual(settled.marks, [{ type: "tattoo", region: "arm_left", description: "", source: "review" }]);
      assert.equal(settled.clothing, null, "clothing only one reviewer described is not written");
    } finally {
      await t.close();
    }
  });
}
