import { test } from "node:test";
import assert from "node:assert/strict";
import { parseFuzzyDate, monthOf } from "../../src/catalogue/dates.ts";
import { normaliseNumber } from "../../src/catalogue/numbers.ts";
import { formatMarks, inferMark, parseMarks } from "../../src/catalogue/marks.ts";
import { Vocabularies, type Term } from "../../src/catalogue/vocabularies.ts";
import { SEED, VOCABULARY_NAMES } from "../../src/db/migrations/0003-vocabulary-seed.ts";
import { bodySearchText } from "../../src/catalogue/search-index.ts";
import { Invalid } from "../../src/core/errors.ts";

const vocab = new Vocabularies(
  VOCABULARY_NAMES.flatMap((v) =>
    SEED[v].map((t, i): Term => ({ vocabulary: v, code: t.code, labelAr: t.ar, labelEn: t.en, parent: t.parent ?? null, extra: t.extra ?? {}, sort: i, retired: false })),
  ),
);

test("dates as people know them: days, months, years, seasons, ranges, Syrian day-first order, Arabic-Indic digits", () => {
  const cases: [string, string, string, string][] = [
    ["2012-05-03", "2012-05-03", "2012-05-03", "2012-05-03"],
    ["03/05/2012", "2012-05-03", "2012-05-03", "2012-05-03"],
    ["٣/٥/٢٠١٢", "2012-05-03", "2012-05-03", "2012-05-03"],
    ["2012-02", "2012-02", "2012-02-01", "2012-02-29"],
    ["2013", "2013", "2013-01-01", "2013-12-31"],
    ["spring 2012", "2012-spring", "2012-03-01", "2012-05-31"],
    ["ربيع ٢٠١٢", "2012-spring", "2012-03-01", "2012-05-31"],
    ["winter 2013", "2013-winter", "2012-12-01", "2013-02-28"],
    ["2012-03 to 2012-06", "2012-03/2012-06", "2012-03-01", "2012-06-30"],
    ["2012-spring/2012", "2012-spring/2012", "2012-03-01", "2012-12-31"],
  ];
  for (const [raw, text, earliest, latest] of cases) assert.deepEqual(parseFuzzyDate(raw), { text, earliest, latest }, raw);
  assert.equal(parseFuzzyDate("  "), null);
  assert.equal(monthOf(parseFuzzyDate("2012-05-03")), "2012-05");
  assert.equal(monthOf(parseFuzzyDate("2012")), null);
  for (const bad of ["2012-13", "31/02/2012", "1850", "yesterday", "2012-06/2012-03"]) {
    assert.throws(() => parseFuzzyDate(bad), Invalid, bad);
  }
});

test("numbers: matching forms fold digits, letters, spaces and separators, and nothing else", () => {
  assert.equal(normaliseNumber("١٢٣٤ / ب"), "1234/ب");
  assert.equal(normaliseNumber("1234-ب"), "1234/ب");
  assert.equal(normaliseNumber("۱۲۳"), "123");
  assert.equal(normaliseNumber(" 12 345 "), "12345");
  assert.equal(normaliseNumber("AFI"), "afi");
  assert.notEqual(normaliseNumber("0123"), normaliseNumber("123"), "leading zeros are kept: they may be what was written");
});

test("marks: free text gets its type and region, the structured form round-trips, unknown codes are refused", () => {
  assert.deepEqual(inferMark("scar left forearm", vocab), { type: "scar", region: "arm_left", description: "scar left forearm" });
  assert.deepEqual(inferMark("old healed fracture right little finger", vocab), { type: "old_fracture", region: "hand_right", description: "old healed fracture right little finger" });
  assert.deepEqual(inferMark("gold crown lower left molar", vocab), { type: "dental_work", region: "mouth", description: "gold crown lower left molar" });
  assert.deepEqual(inferMark("وشم على الذراع اليمنى", vocab), { type: "tattoo", region: "arm_right", description: "وشم على الذراع اليمنى" });
  assert.deepEqual(inferMark("something odd", vocab), { type: "other", region: null, description: "something odd" });
  const marks = parseMarks("mole:face:mole left cheek; tattoo::three dots؛ندبة في البطن", vocab);
  assert.deepEqual(marks, [
    { type: "mole", region: "face", description: "mole left cheek" },
    { type: "tattoo", region: null, description: "three dots" },
    { type: "scar", region: "abdomen", description: "ندبة في البطن" },
  ]);
  assert.deepEqual(parseMarks(formatMarks(marks), vocab), marks);
  assert.throws(() => parseMarks("tattoo:elbow:x", vocab), (e: unknown) => e instanceof Invalid && /"elbow" is not a body region/.test(e.message));
});

test("the search text holds normalised tokens once each, labels in both languages, photo hash, date and model", () => {
  const text = bodySearchText(
    {
      body: {
        ref: "B-000042", ref_no: 42, external_ref: "P-7", hospital: "tishreen", branch_no: "٢١٥", photo_date: "2012-05-03", death_date: null,
        name_ar: "أَحْمَد الخطيب", name_lat: null, notes: "آثار قيـــود", clothing: null, marks: "[]",
      },
      numbers: ["٣٠٤٥/ب"],
      findings: ["burn_cigarette"],
      photos: [{ sha256: "ab".repeat(32), captureTime: "2012-05-03T10:00:00+03:00", cameraModel: "D90" }],
    },
    vocab,
  );
  const toks = text.split(" ");
  assert.equal(new Set(toks).size, toks.length, "no token twice");
  for (const t of ["b", "000042", "b000042", "42", "p7", "احمد", "خطيب", "قيود", "3045", "ب", "3045ب", "تشرين", "tishreen", "215", "mudahama", "حروق", "cigarette", "ab".repeat(32), "d90"]) {
    assert.ok(toks.includes(t), `has ${t}: ${text}`);
  }
  assert.ok(!toks.includes("أَحْمَد") && !toks.includes("قيـــود"), "only matching forms");
});
