import { test } from "node:test";
import assert from "node:assert/strict";
import { digitScriptOf, normaliseCardNumber, parseCardText, roleOfLabel } from "../../src/catalogue/card-numbers.ts";

test("Latin labels give each number its role, whatever the line order", () => {
  const n = parseCardText("Exam 1516/ب\nNo. 26335\nBranch 215");
  assert.equal(n.detainee, "26335");
  assert.equal(n.branch, "215");
  assert.equal(n.examiner, "1516/ب");
  assert.equal(n.digits, "latin");
  assert.equal(n.confidence, 1);
});

test("Arabic labels and Arabic-Indic digits are read into Latin digits, the suffix after the slash", () => {
  const n = parseCardText("رقم ١٢٠٤٣\nفرع ٢١٥\nطبيب ب/١٥٢٨");
  assert.deepEqual([n.detainee, n.branch, n.examiner], ["12043", "215", "1528/ب"]);
  assert.equal(n.digits, "arabic-indic");
});

test("bidi marks, a gap inside a number and a colon after a label do not get in the way", () => {
  const n = parseCardText("\u200fرقم: ٤٦٩ ٢٥\u200f\nفرع:٢٤٨\nالطبيب ١٥٢٠ / ح");
  assert.deepEqual([n.detainee, n.branch, n.examiner], ["46925", "248", "1520/ح"]);
});

test("OCR-misread labels are still recognised when they are nearer one role than any other", () => {
  assert.equal(roleOfLabel("Exarn"), "examiner");
  assert.equal(roleOfLabel("Brnch"), "branch");
  assert.equal(roleOfLabel("قرع"), "branch");
  assert.equal(roleOfLabel("No."), "detainee");
  assert.equal(roleOfLabel("Total"), null);
  assert.equal(roleOfLabel(""), null);
});

test("without labels, lines take the card's order, and a number with a slash suffix is the examiner's", () => {
  const ordered = parseCardText("46925\n248\n1520/ب");
  assert.deepEqual([ordered.detainee, ordered.branch, ordered.examiner], ["46925", "248", "1520/ب"]);
  // A role guessed from position is less sure than one a label names.
  assert.ok(ordered.confidence < 1);
  const suffixFirst = parseCardText("1520/ب\n46925");
  assert.equal(suffixFirst.examiner, "1520/ب");
  assert.equal(suffixFirst.detainee, "46925");
  assert.equal(suffixFirst.branch, undefined);
});

test("line confidences from the reader carry into the result", () => {
  const n = parseCardText("No. 26335\nBranch 215\nExam 1516", [0.9, 0.4, 0.8]);
  assert.equal(n.confidences?.branch, 0.4);
  assert.equal(n.confidence, 0.4);
});

test("a card with both kinds of digits is mixed", () => {
  const n = parseCardText("No. 26335\nفرع ٢١٥");
  assert.equal(n.digits, "mixed");
  assert.equal(digitScriptOf("12٣"), "mixed");
  assert.equal(digitScriptOf("abc"), null);
});

test("text without numbers gives no numbers and no confidence", () => {
  for (const raw of ["", "No.\nBranch\nExam", "رقم"]) {
    const n = parseCardText(raw);
    assert.equal(n.detainee, undefined);
    assert.equal(n.branch, undefined);
    assert.equal(n.examiner, undefined);
    assert.equal(n.confidence, 0);
    assert.equal(n.raw, raw);
  }
});

test("normaliseCardNumber keeps numbers and refuses what is not one", () => {
  assert.equal(normaliseCardNumber("١٥٢٨/ب"), "1528/ب");
  assert.equal(normaliseCardNumber("ب/١٥٢٨"), "1528/ب");
  assert.equal(normaliseCardNumber("1528\u2215ب"), "1528/ب");
  assert.equal(normaliseCardNumber("۱۲۳"), "123");
  assert.equal(normaliseCardNumber("12a4"), null);
  assert.equal(normaliseCardNumber("ب/12/ح"), null);
  assert.equal(normaliseCardNumber(""), null);
});
