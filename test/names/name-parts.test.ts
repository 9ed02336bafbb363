import { test } from "node:test";
import assert from "node:assert/strict";
import { nameParts, namePartsFound, namePartsMatcher } from "../../src/names/index.ts";

/** What a search checks of each body its name keys found: every part of the query is a part of the name. */
test("every part of the query must be some part of the name, in either script and any order", () => {
  assert.equal(namePartsFound("محمد", "محمد أحمد الخطيب"), true);
  assert.equal(namePartsFound("Mohammad al-Khatib", "محمد أحمد الخطيب"), true);
  assert.equal(namePartsFound("الخطيب محمد", "محمد أحمد الخطيب"), true);
  // same skeleton, another name: the keys find them, the comparison refuses them
  assert.equal(namePartsFound("محمد", "محمود أحمد الخطيب"), false);
  assert.equal(namePartsFound("علاء", "علي حسن"), false);
  assert.equal(namePartsFound("محمد الحلبي", "محمد أحمد الخطيب"), false);
  assert.equal(namePartsFound("", "محمد"), false);
});

test("a matcher reused over many names answers as a fresh comparison does, repeated names included", () => {
  const names = ["محمد أحمد الخطيب", "محمود أحمد الخطيب", "Mohamed Ahmad al-Khatib", "علي محمد", "محمد أحمد الخطيب", "أحمد محمود", "Mahmoud Ali"];
  for (const q of ["محمد", "محمد الخطيب", "Mahmoud", "أحمد"]) {
    const found = namePartsMatcher(q);
    for (const n of [...names, ...names]) {
      assert.equal(found(n), namePartsFound(q, n), `${q} / ${n}`);
      // a name split once and held (as a search holds its bodies' names) answers the same
      assert.equal(found.parts(nameParts(n)), namePartsFound(q, n), `${q} / parts of ${n}`);
    }
  }
});
