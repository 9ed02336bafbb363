import { test } from "node:test";
import assert from "node:assert/strict";
import { BANDS, bandOf, scoreBody, strongThreshold, keysOf, type BodyFeatures, type Evidence, type ReportFeatures, type Scored } from "../../src/families/scoring.ts";
import { DEFAULT_POPULATION, FIELD_RATES, ageMatchDensity, ageMatchDensityPlain, populationOf } from "../../src/families/llr.ts";
import { blockingKeys, compareNames, parseNameChain, prepareName } from "../../src/names/names.ts";

/** The numbers below are worked out by hand from FIELD_RATES and DEFAULT_POPULATION (docs/families-matching.md). */

const body = (o: Partial<BodyFeatures> = {}): BodyFeatures => ({
  id: "b1", ref: "B-1", sex: "male", ageMin: 25, ageMax: 35, photoEarliest: "2012-09-03", photoLatest: "2012-09-03",
  branch: "215", marks: [], numbers: [], name: null, nameKeys: [], ...o,
});
const report = (o: Partial<ReportFeatures> = {}): ReportFeatures => ({
  sex: "male", birthYear: 1982, arrestEarliest: "2012-06-01", arrestLatest: "2012-06-30", branch: null, branchCertainty: null,
  marks: [], numbers: [], names: [], nameKeys: new Set(), ...o,
});
const ev = (s: Scored, f: Evidence["feature"]): Evidence => {
  const e = s.evidence.find((x) => x.feature === f);
  assert.ok(e, `evidence on ${f}`);
  return e;
};
const near = (a: number, b: number, msg?: string): void => assert.ok(Math.abs(a - b) <= 0.011, `${msg ?? ""} ${a} ≠ ${b}`);

test("sex: agreeing counts as much as the sex is rare; disagreeing excludes", () => {
  near(ev(scoreBody(report(), body()), "sex").points, 0.05); // −log 0.95
  near(ev(scoreBody(report({ sex: "female" }), body({ sex: "female" })), "sex").points, 3.0); // −log 0.05
  const s = scoreBody(report(), body({ sex: "female" }));
  assert.equal(s.excluded, true);
  assert.equal(s.band, "exclude");
  assert.match(ev(s, "sex").text, /^Excluded: the report says male, the body was recorded as female/);
  assert.equal(scoreBody(report({ sex: null }), body()).evidence.some((e) => e.feature === "sex"), false, "no term when unknown");
});

test("age: core, shoulder and tail of the body's range, an approximate birth year widens the core", () => {
  // born 1982, photographed 2012: 30; the range 25–35 is centred on 30, half-width 5, core ±3
  near(ev(scoreBody(report(), body()), "age").points, 1.9); // log((0.92/7)·51)
  assert.match(ev(scoreBody(report(), body()), "age").text, /^Age fits: born 1982, about 30 at the time of the photograph; the body was estimated 25–35/);
  near(ev(scoreBody(report({ birthYear: 1977 }), body()), "age").points, -0.81); // 5 years out: log((0.07/8)·51)
  near(ev(scoreBody(report({ birthYear: 1972 }), body()), "age").points, -3.45); // 10 years out: log(0.01·0.5/2·0.25·51)
  near(ev(scoreBody(report({ birthYear: 1940 }), body()), "age").points, -6); // a gross error is floored
  near(ev(scoreBody(report({ birthYear: 1978, birthApprox: true }), body()), "age").points, 1.45); // core ±5: log((0.92/11)·51)
  assert.match(ev(scoreBody(report({ birthYear: 1972 }), body()), "age").text, /^Age does not fit/);
  for (const d of [0, 2.5, 4, 6.5, 9, 14]) near(ageMatchDensity(d, 5, false), ageMatchDensityPlain(d, 5, false), `density at ${d}`);
});

/** The period density written out again: exponential gaps (mean 150 days) after an arrest spread over its month. */
function periodByHand(photo: number, e: number, l: number): number {
  const F = (x: number): number => (x <= 0 ? 0 : 1 - Math.exp(-x / 150));
  const g = (a: number, b: number): number => (F(photo - a) - F(photo - b)) / (b - a);
  const dens = 0.9 * g(e, l + 1) + 0.1 * g(e - 30, l + 31);
  const span = (Date.parse("2013-09-01") - Date.parse("2011-03-01")) / 86_400_000;
  return Math.log(dens * span);
}

test("period: an arrest known to the month, the usual interval, a long one, and a date a little off", () => {
  const day = (s: string): number => Date.parse(s) / 86_400_000;
  const e = day("2012-06-01");
  const l = day("2012-06-30");
  const s = scoreBody(report(), body());
  near(ev(s, "period").points, periodByHand(day("2012-09-03"), e, l));
  assert.ok(ev(s, "period").points > 1);
  assert.match(ev(s, "period").text, /^Photographed about 2 months after the arrest, a usual interval/);
  const late = ev(scoreBody(report(), body({ photoEarliest: "2013-08-20", photoLatest: "2013-08-20" })), "period");
  near(late.points, periodByHand(day("2013-08-20"), e, l));
  assert.ok(late.points < -1);
  assert.match(late.text, /a long interval/);
  const year = ev(scoreBody(report({ arrestEarliest: "2012-01-01", arrestLatest: "2012-12-31" }), body()), "period");
  assert.ok(year.points < ev(s, "period").points, "a year-only arrest date says less than a month");
  assert.match(year.text, /^Photographed within the time the arrest is reported in \(2012-01-01 to 2012-12-31\)/);
});

test("dates: photographed before the arrest is a hard exclusion beyond a month's tolerance", () => {
  const twoWeeks = scoreBody(report(), body({ photoEarliest: "2012-05-18", photoLatest: "2012-05-18" }));
  assert.equal(twoWeeks.excluded, false, "a family's date may be a couple of weeks off");
  assert.ok(ev(twoWeeks, "period").points < -2);
  assert.match(ev(twoWeeks, "period").text, /^Photographed about 14 days before the reported arrest: possible only if the family's date is a little off/);
  const before = scoreBody(report(), body({ photoEarliest: "2012-03-01", photoLatest: "2012-03-01" }));
  assert.equal(before.excluded, true);
  assert.equal(before.band, "exclude");
  assert.match(ev(before, "dates").text, /^Excluded: the body was photographed by 2012-03-01, more than a month before the arrest/);
});

test("branch: agreement and disagreement weighed by how sure the family is and how common the branch is", () => {
  near(ev(scoreBody(report({ branch: "215", branchCertainty: "certain" }), body()), "branch").points, 1.97); // log(0.9/(1/8))
  near(ev(scoreBody(report({ branch: "227", branchCertainty: "certain" }), body()), "branch").points, -2.17); // log(0.1/(7/8))
  near(ev(scoreBody(report({ branch: "215", branchCertainty: "rumoured" }), body()), "branch").points, 1.57);
  near(ev(scoreBody(report({ branch: "227", branchCertainty: "rumoured" }), body()), "branch").points, -0.78);
  assert.match(ev(scoreBody(report({ branch: "227", branchCertainty: "rumoured" }), body()), "branch").text, /^Branch differs: the family named 227 \(the family is repeating what they heard\), the body's card says 215/);
  assert.match(ev(scoreBody(report({ branch: "215", branchCertainty: "certain" }), body()), "branch").text, /^Branch agrees: 215 \(the family is sure\)/);
});

test("marks: same place, type only, a mirrored place, and a mark the body does not show", () => {
  const scar = (region: string | null) => ({ type: "scar", region });
  const b = body({ marks: [scar("arm_left")] });
  near(ev(scoreBody(report({ marks: [scar("arm_left")] }), b), "marks").points, 4.46); // log(0.8·0.9·120)
  assert.match(ev(scoreBody(report({ marks: [scar("arm_left")] }), b), "marks").text, /^Marks: scar on the arm_left on both/);
  near(ev(scoreBody(report({ marks: [scar(null)] }), b), "marks").points, 2.08); // log(0.8/0.1)
  near(ev(scoreBody(report({ marks: [scar("arm_right")] }), b), "marks").points, 0); // log((0.8·0.1 + 0.2·0.1)/0.1)
  assert.match(ev(scoreBody(report({ marks: [scar("arm_right")] }), b), "marks").text, /scar, but on the arm_right in the report and the arm_left on the body/);
  near(ev(scoreBody(report({ marks: [scar("chest")] }), b), "marks").points, -1.61, "a far place is another mark"); // log(0.2)
  const none = ev(scoreBody(report({ marks: [{ type: "tattoo", region: "chest" }] }), body()), "marks");
  near(none.points, -1.61);
  assert.match(none.text, /the reported tattoo on the chest was not recorded on the body \(none recorded on the body/);
  const two = ev(scoreBody(report({ marks: [scar("arm_left"), scar("arm_left")] }), b), "marks");
  near(two.points, 4.46 - 1.61, "one body mark answers one reported mark");
});

test("numbers: the same number from a document is near-certain; a different one counts against", () => {
  const b = body({ numbers: [{ role: "detainee", value: "1234" }] });
  const hit = ev(scoreBody(report({ numbers: [{ role: "detainee", value: "1234" }] }), b), "numbers");
  near(hit.points, 9.16); // log(0.95 · 10,000)
  assert.match(hit.text, /The detainee number 1234 in the family's documents is on the body's card/);
  const clash = ev(scoreBody(report({ numbers: [{ role: "detainee", value: "999" }] }), b), "numbers");
  near(clash.points, -3.0); // log 0.05
  assert.match(clash.text, /differs from the body's \(1234\)/);
});

test("names: counted only where a document names the body, by the comparison's decision", () => {
  const names = [prepareName(parseNameChain("محمد أحمد الخطيب"))];
  const r = report({ names, nameKeys: keysOf(names) });
  const named = (n: string): BodyFeatures => body({ name: prepareName(n), nameKeys: blockingKeys(n) });
  const same = ev(scoreBody(r, named("Mohammad Ahmad al-Khatib")), "name");
  assert.equal(same.points, 10);
  assert.match(same.text, /^A document names the body; the names read as the same person/);
  const other = ev(scoreBody(r, named("خالد حسن النجار")), "name");
  near(other.points, Math.log(FIELD_RATES.nameKeyMiss));
  assert.match(other.text, /do not agree with the report's/);
  assert.equal(scoreBody(r, body()).evidence.some((e) => e.feature === "name"), false, "an unnamed body says nothing");
  // a fused article before a vowel is the article when a known name remains (Alomar = al-Omar), not otherwise (Alaa)
  assert.equal(compareNames("Mostafa Jamal Alomar", "مصطفى جمال العمر").decision, "same");
  assert.equal(compareNames("Alaa Hasan Haddad", "علاء حسن حداد").decision, "same");
});

test("names: identical names are worded as the same, never as partly the same, even when too short to decide", () => {
  const names = [prepareName(parseNameChain("محمد الخطيب"))];
  const r = report({ names, nameKeys: keysOf(names) });
  const e = ev(scoreBody(r, body({ name: prepareName("محمد الخطيب"), nameKeys: blockingKeys("محمد الخطيب") })), "name");
  // two names are not enough for "same person", but what the two documents give is identical
  assert.equal(compareNames("محمد الخطيب", "محمد الخطيب").decision, "unsure");
  assert.equal(e.key, "nameSameNotEnough");
  assert.deepEqual(e.params, { similarity: "1.00" });
  assert.doesNotMatch(e.text, /partly/);
  assert.match(e.text, /^A document names the body; the names are the same, but that alone is not enough to say one person \(similarity 1\.00\)/);
});

test("bands: strong at 99:1 posterior odds for 11,000 bodies, exclude at 99:1 against; the score is its evidence", () => {
  assert.equal(BANDS.strong, 14.3);
  assert.equal(strongThreshold(11_000), 14.3);
  assert.ok(strongThreshold(1_000) < BANDS.strong);
  assert.equal(BANDS.exclude, -4.6);
  assert.equal(BANDS.likely, 9.7, "even posterior odds for 11,000 bodies");
  assert.equal(BANDS.unlikely, -2.2, "9:1 against");
  // Five bands that separate: each threshold puts a score on its side.
  assert.deepEqual(
    [20, 14.3, 14.2, 9.7, 9.6, 0, -2.1, -2.2, -4.5, -4.6].map((s) => bandOf(s, false)),
    ["strong", "strong", "likely", "likely", "review", "review", "review", "unlikely", "unlikely", "exclude"],
  );
  assert.equal(bandOf(30, true), "exclude", "a hard exclusion whatever the score");
  const names = [prepareName(parseNameChain("محمد أحمد الخطيب"))];
  const strong = scoreBody(
    report({ names, nameKeys: keysOf(names), branch: "215", branchCertainty: "certain", marks: [{ type: "scar", region: "arm_left" }] }),
    body({ name: prepareName("Mohammad Ahmad al-Khatib"), nameKeys: blockingKeys("Mohammad Ahmad al-Khatib"), marks: [{ type: "scar", region: "arm_left" }] }),
  );
  assert.equal(strong.band, "strong");
  const review = scoreBody(report(), body());
  assert.equal(review.band, "review");
  const against = scoreBody(report({ birthYear: 1940, branch: "227", branchCertainty: "certain" }), body({ photoEarliest: "2013-08-20", photoLatest: "2013-08-20" }));
  assert.ok(against.score <= BANDS.exclude);
  assert.equal(against.band, "exclude");
  assert.equal(against.excluded, false, "excluded by the evidence, not a hard exclusion");
  for (const s of [strong, review, against]) {
    near(s.score, s.evidence.reduce((a, e) => a + e.points, 0));
    for (const e of s.evidence) assert.ok(e.text.length > 10, e.feature);
  }
});

test("population: the someone-else side is counted from the catalogue", () => {
  const bodies = Array.from({ length: 400 }, (_, i) =>
    body({ id: `b${i}`, ref: `B-${i}`, branch: i % 4 === 0 ? "215" : "227", sex: i % 10 === 0 ? "female" : "male", marks: i % 5 === 0 ? [{ type: "scar", region: "chest" }] : [] }),
  );
  const pop = populationOf(bodies);
  near(pop.branchShare.get("215")!, 0.25);
  near(pop.sexShare.female, 0.1);
  near(pop.markTypeShare.get("scar")!, 0.2);
  near(pop.markShare.get("scar@chest")!, 0.2);
  near(ev(scoreBody(report({ branch: "215", branchCertainty: "certain" }), body(), true, pop), "branch").points, Math.log(0.9 / 0.25));
  near(ev(scoreBody(report({ branch: "215", branchCertainty: "certain" }), body(), true, DEFAULT_POPULATION), "branch").points, Math.log(0.9 / 0.125));
});

test("every term has a message key whose params carry the English sentence's numbers and codes", () => {
  const names = [prepareName(parseNameChain("محمد أحمد الخطيب"))];
  const scar = (region: string | null) => ({ type: "scar", region });
  const cases: [ReportFeatures, BodyFeatures][] = [
    [report(), body()],
    [report({ sex: "female" }), body()],
    [report({ birthYear: 1977, birthApprox: true }), body()],
    [report({ birthYear: 1950 }), body()],
    [report({ arrestEarliest: "2013-01-01", arrestLatest: "2013-01-31" }), body()],
    [report({ arrestEarliest: "2012-09-10", arrestLatest: "2012-09-10" }), body()],
    [report({ arrestEarliest: "2012-09-01", arrestLatest: "2012-09-30" }), body()],
    [report({ arrestEarliest: "2012-08-10", arrestLatest: "2012-08-10" }), body()],
    [report({ arrestEarliest: "2012-07-25", arrestLatest: "2012-07-25" }), body()],
    [report({ arrestEarliest: "2009-01-01", arrestLatest: "2009-01-01" }), body()],
    [report({ branch: "215", branchCertainty: "certain" }), body()],
    [report({ branch: "227", branchCertainty: null }), body()],
    [report({ marks: [scar("arm_left"), scar(null), scar("arm_right"), scar("chest")] }), body({ marks: [scar("arm_left"), scar("arm_left"), scar("arm_left")] })],
    [report({ marks: [scar("chest")] }), body()],
    [report({ numbers: [{ role: "detainee", value: "1234" }, { role: "branch", value: "77" }] }), body({ numbers: [{ role: "detainee", value: "1234" }, { role: "branch", value: "78" }] })],
    [report({ names, nameKeys: keysOf(names) }), body({ name: prepareName("Mohammad Ahmad al-Khatib"), nameKeys: blockingKeys("Mohammad Ahmad al-Khatib") })],
    [report({ names, nameKeys: keysOf(names) }), body({ name: prepareName("خالد حسن النجار"), nameKeys: blockingKeys("خالد حسن النجار") })],
  ];
  const keys = new Set<string>();
  for (const [r, b] of cases) {
    for (const e of scoreBody(r, b).evidence) {
      assert.match(e.key, /^[a-zA-Z]+$/, e.text);
      keys.add(e.key);
      const values = Object.values(e.params).map(String);
      // every number of the sentence (years, days, shares, similarity, card numbers, dates) is in the params
      for (const n of e.text.match(/\d{4}-\d{2}-\d{2}|\d+(\.\d+)?/g) ?? []) {
        if (/^\d{4}-\d{2}-\d{2}$/.test(n) || !e.text.includes(`${n}-`)) assert.ok(values.includes(n), `${e.key}: ${n} of "${e.text}" in ${JSON.stringify(e.params)}`);
      }
      if (e.key === "marks") {
        assert.equal(e.parts?.length, r.marks.length, "a part for each reported mark");
        for (const p of e.parts!) assert.ok(e.text.includes(p.type));
      }
      // not kept: no words, the same key and points
      const bare = scoreBody(r, b, false).evidence.find((x) => x.key === e.key && x.points === e.points);
      assert.ok(bare && bare.text === "" && Object.keys(bare.params).length === 0, `${e.key} without words`);
    }
  }
  for (const k of ["sexAgrees", "sexExcluded", "ageFits", "ageOff", "datesExcluded", "periodBefore", "periodWithin", "periodDaysAfterFits", "periodMonthsUsual", "periodMonthsLong", "branchAgrees", "branchDiffers", "marks", "numberHit", "numberClash", "nameSame", "nameNoKey"]) {
    assert.ok(keys.has(k), `a case says ${k}`);
  }
});
