import { test } from "node:test";
import assert from "node:assert/strict";
import { backends } from "../support/backends.ts";
import { freshArchive } from "../support/archive.ts";
import { seedBodies, investigator } from "../support/catalogue.ts";
import { createReport, listCandidates } from "../../src/families/index.ts";
import { rerank } from "../../src/families/matching.ts";
import { rankBodies, rankBodiesNaive, type Scored } from "../../src/families/scoring.ts";
import { rankAll } from "../../src/families/rank-pool.ts";
import { FIELD_RATES } from "../../src/families/llr.ts";
import { generateSynthetic, syntheticBodyFeatures, syntheticReportFeatures } from "../../src/families/synthetic.ts";
import { Forbidden } from "../../src/core/errors.ts";
import type { Actor } from "../../src/core/actor.ts";

const line = (s: Scored[]): string => s.map((c) => `${c.ref}:${c.score}:${c.band}`).join(" ");

test("the fast ranking (index, skipped name comparisons) gives exactly the full scoring's list", () => {
  const { bodies, reports } = generateSynthetic({ bodies: 1500, reports: 30, named: 0.5, seed: 21 });
  const fs = bodies.map(syntheticBodyFeatures);
  for (const r of reports) {
    const f = syntheticReportFeatures(r.input);
    assert.equal(line(rankBodies(f, fs, 25)), line(rankBodiesNaive(f, fs, 25)), r.input.ref);
  }
  // asking for every body puts the excluded last, in the same order as the full scoring
  const f = syntheticReportFeatures(reports[0]!.input);
  assert.equal(line(rankBodies(f, fs)), line(rankBodiesNaive(f, fs)));
});

test("ranking on worker threads gives what ranking in this thread gives", async () => {
  const { bodies, reports } = generateSynthetic({ bodies: 400, reports: 40, seed: 22 });
  const fs = bodies.map(syntheticBodyFeatures);
  const rf = reports.map((r) => syntheticReportFeatures(r.input));
  const got: string[] = new Array<string>(rf.length);
  const pool = await rankAll(fs, rf, { top: 10, threads: 2, chunk: 7, onChunk: async (start, ranked) => void ranked.forEach((s, k) => (got[start + k] = line(s))) });
  assert.equal(pool.threads, 2);
  rf.forEach((f, k) => assert.equal(got[k], line(rankBodies(f, fs, 10)), `report ${k}`));
});

test("the generator's noise is the noise FIELD_RATES says the model expects", () => {
  const { bodies, reports } = generateSynthetic({ bodies: 6000, reports: 6000, absent: 0, seed: 23 });
  const byKey = new Map(bodies.map((b) => [b.key, b]));
  const right = { certain: { ok: 0, n: 0 }, probable: { ok: 0, n: 0 }, rumoured: { ok: 0, n: 0 } };
  let given = 0;
  let marks = 0;
  let reported = 0;
  for (const r of reports) {
    const b = byKey.get(r.truth!)!;
    if (r.input.branch) {
      given++;
      const c = right[r.input.branchCertainty!];
      c.n++;
      if (r.input.branch === b.branch) c.ok++;
    }
    marks += b.marks.length;
    reported += (r.input.marks ?? []).filter((m) => b.marks.some((x) => x.type === m.type)).length;
  }
  const near = (a: number, b: number, what: string): void => assert.ok(Math.abs(a - b) < 0.03, `${what}: ${a.toFixed(3)} vs ${b}`);
  near(given / reports.length, FIELD_RATES.branchGiven, "branch given");
  for (const c of ["certain", "probable", "rumoured"] as const) near(right[c].ok / right[c].n, FIELD_RATES.branchRight[c], `${c} branch right`);
  near(reported / marks, FIELD_RATES.markReported, "marks reported");
});

test("on synthetic data every report whose body is named finds it first, and strong candidates are right", () => {
  const { bodies, reports } = generateSynthetic({ bodies: 2000, reports: 150, named: 1, seed: 24 });
  const fs = bodies.map(syntheticBodyFeatures);
  let first = 0;
  let present = 0;
  for (const r of reports) {
    const ranked = rankBodies(syntheticReportFeatures(r.input), fs, 10);
    for (const c of ranked) if (c.band === "strong") assert.equal(c.bodyId, r.truth, `${r.input.ref}: a strong candidate that is not the person`);
    if (!r.truth) continue;
    present++;
    if (ranked[0]?.bodyId === r.truth) first++;
  }
  assert.ok(first / present >= 0.95, `${first} of ${present} first`);
});

const caseworker: Actor = { kind: "user", id: "usr_cw", role: "family_caseworker" };
const mother: Actor = { kind: "user", id: "usr_mother", role: "family_member" };

for (const { backend, skip } of await backends()) {
  test(`rerank stores each report's candidates with bands and evidence in words (${backend.name})`, { skip }, async () => {
    const t = await freshArchive(backend);
    const a = t.archive;
    try {
      const [right, before] = await seedBodies(a, investigator, [
        { sex: "male", ageMin: 25, ageMax: 35, photoDate: "2012-09-03", marks: [{ type: "scar", region: "arm_left", description: "scar" }], nameLat: "Mohammad Ahmad al-Khatib" },
        { sex: "male", ageMin: 25, ageMax: 35, photoDate: "2012-01-10" },
        { sex: "male", ageMin: 50, ageMax: 60, photoDate: "2013-08-01" },
      ]);
      await createReport(a, caseworker, { ref: "F-9", nameAr: "محمد أحمد الخطيب", sex: "male", birthDate: "1982", arrestDate: "2012-06", marks: [{ type: "scar", region: "arm_left", description: "on his left arm" }] });
      await assert.rejects(rerank(a, mother), Forbidden);
      const done = await rerank(a, caseworker);
      assert.equal(done.reports, 1);
      assert.equal(done.bodies, 3);
      const c = await listCandidates(a, caseworker, "F-9", { top: 3 });
      assert.equal(c.candidates[0]?.ref, right!.ref);
      assert.equal(c.candidates[0]?.band, "strong", "name, mark, age and period together pass 14.3");
      assert.ok(c.candidates[0]!.score > c.candidates[1]!.score);
      const words = c.candidates[0]!.evidence.map((e) => e.text).join(" ");
      assert.match(words, /names read as the same person/);
      assert.match(words, /scar on the arm_left on both/);
      assert.match(words, /Age fits: born 1982/);
      const excluded = c.candidates.find((x) => x.ref === before!.ref)!;
      assert.equal(excluded.band, "exclude");
      assert.match(excluded.evidence.map((e) => e.text).join(" "), /more than a month before the arrest/);
      assert.equal(c.candidates[c.candidates.length - 1]?.ref, before!.ref, "the excluded come last");
    } finally {
      await t.close();
    }
  });
}
