import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { cohensKappa, presenceKappa } from "../../src/review/kappa.ts";
import { allocate, drawSample, SeededStream, type Member } from "../../src/review/sampling.ts";

test("kappa of the textbook 2×2 example is 0.4 (po 0.7, pe 0.5)", () => {
  // The worked example of the Wikipedia article "Cohen's kappa" (section "Simple example"): 50 grant proposals
  // read by two readers A and B; both yes 20, A yes / B no 5, A no / B yes 10, both no 15. p_o = 0.7,
  // p_e = 0.5·0.6 + 0.5·0.4 = 0.5, κ = 0.4. Cohen, J. (1960), Educ. Psychol. Meas. 20(1) 37–46, gives the formula.
  const k = presenceKappa({ both: 20, onlyA: 5, onlyB: 10, neither: 15 });
  assert.equal(k.n, 50);
  assert.ok(Math.abs(k.observed - 0.7) < 1e-12);
  assert.ok(Math.abs(k.expected - 0.5) < 1e-12);
  assert.ok(Math.abs(k.kappa! - 0.4) < 1e-12);
});

test("kappa of the second textbook example (same p_o 0.6, different marginals) is 0.1304 and 0.2593", () => {
  // Wikipedia "Cohen's kappa", "Same percentages but different numbers": tables [[45,15],[25,15]] → κ = 0.1304
  // and [[25,35],[5,35]] → κ = 0.2593, both with p_o = 0.60: kappa depends on the marginals, not only agreement.
  const a = cohensKappa([
    [45, 15],
    [25, 15],
  ]);
  const b = cohensKappa([
    [25, 35],
    [5, 35],
  ]);
  assert.ok(Math.abs(a.observed - 0.6) < 1e-12 && Math.abs(b.observed - 0.6) < 1e-12);
  assert.equal(a.kappa!.toFixed(4), "0.1304");
  assert.equal(b.kappa!.toFixed(4), "0.2593");
});

test("kappa is 1 for perfect agreement, undefined when both raters use one category only", () => {
  assert.equal(presenceKappa({ both: 3, onlyA: 0, onlyB: 0, neither: 7 }).kappa, 1);
  const none = presenceKappa({ both: 0, onlyA: 0, onlyB: 0, neither: 9 });
  assert.equal(none.kappa, null);
  assert.equal(none.observed, 1);
  assert.equal(cohensKappa([[0]]).kappa, null);
  assert.throws(() => cohensKappa([[1, 2]]), /square/);
});

test("proportional allocation with largest remainders sums to n and follows the strata sizes", () => {
  const a = allocate(new Map([["a", 50], ["b", 30], ["c", 20]]), 10);
  assert.deepEqual([...a], [["a", 5], ["b", 3], ["c", 2]]);
  // 7 × (1/3 each): 2.333 each, one seat left, tie → the key that sorts first.
  const b = allocate(new Map([["y", 3], ["x", 3], ["z", 3]]), 7);
  assert.deepEqual(Object.fromEntries(b), { x: 3, y: 2, z: 2 });
  assert.throws(() => allocate(new Map([["a", 2]]), 3), /cannot be larger/);
});

function population(): Member[] {
  const out: Member[] = [];
  const branches = ["215", "227", "235", null];
  for (let i = 0; i < 1000; i++) out.push({ id: `bod_${String(i).padStart(4, "0")}`, branch: branches[i % 4] ?? null, period: i % 10 < 7 ? "2012-05" : "2013-01" });
  return out;
}

test("a draw is reproducible from its seed, stratified proportionally, and the double share is exact", () => {
  const pop = population();
  const d1 = drawSample(pop, 60, "2014-experts", 0.2);
  const d2 = drawSample([...pop].reverse(), 60, "2014-experts", 0.2);
  assert.deepEqual(d1, d2, "same seed and population (in any order) → same sample");
  const d3 = drawSample(pop, 60, "another seed", 0.2);
  assert.notDeepEqual(d1.chosen.map((c) => c.id), d3.chosen.map((c) => c.id));
  assert.equal(d1.chosen.length, 60);
  assert.equal(new Set(d1.chosen.map((c) => c.id)).size, 60);
  assert.equal(d1.chosen.filter((c) => c.double).length, 12);
  // 8 strata: 4 branches × 2 months, 175 and 75 members → 10.5 and 4.5 seats each.
  assert.equal(d1.strata.length, 8);
  for (const s of d1.strata) assert.ok(s.allocated === Math.floor((60 * s.population) / 1000) || s.allocated === Math.ceil((60 * s.population) / 1000), s.key);
  for (const c of d1.chosen) assert.equal(c.stratum, `${pop.find((m) => m.id === c.id)!.branch ?? "unknown"}|${pop.find((m) => m.id === c.id)!.period}`);
  assert.match(d1.populationSha256, /^[0-9a-f]{64}$/);
});

test("the seeded stream is SHA-256 in counter mode (documented, so another language can repeat it)", () => {
  const s = new SeededStream("seed", "label");
  const first = s.nextUint32();
  // SHA-256("seed\nlabel\n0"), first four bytes big-endian.
  assert.equal(first, createHash("sha256").update("seed\nlabel\n0").digest().readUInt32BE(0));
  const counts = new Array<number>(5).fill(0);
  for (let i = 0; i < 5000; i++) counts[s.below(5)]!++;
  for (const c of counts) assert.ok(c > 850 && c < 1150, `uniform-ish: ${counts.join(",")}`);
});
