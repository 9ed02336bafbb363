import { test } from "node:test";
import assert from "node:assert/strict";
import { hasArabic, normaliseArabic, searchText, searchTokens, toLatinDigits } from "../../src/core/arabic.ts";

test("Arabic-Indic and Persian digits become 0-9, nothing else changes", () => {
  assert.equal(toLatinDigits("٠١٢٣٤٥٦٧٨٩"), "0123456789");
  assert.equal(toLatinDigits("۰۱۲۳۴۵۶۷۸۹"), "0123456789");
  assert.equal(toLatinDigits("فرع ٢١٥ / 227 / ۲۳۵"), "فرع 215 / 227 / 235");
  assert.equal(toLatinDigits("abc"), "abc");
});

test("hasArabic looks for Arabic letters, not Arabic digits or punctuation", () => {
  assert.equal(hasArabic("محمد"), true);
  assert.equal(hasArabic("Mohammad محمد"), true);
  assert.equal(hasArabic("ﻣﺤﻤﺪ"), true, "presentation forms are Arabic letters");
  assert.equal(hasArabic("١٢٣٤"), false);
  assert.equal(hasArabic("، ؟"), false);
  assert.equal(hasArabic("Mohammad"), false);
  assert.equal(hasArabic(""), false);
});

test("hamza seats and alef forms fold: أحمد/احمد, إبراهيم, آمنة, ٱلله, مؤيد, وائل", () => {
  assert.equal(normaliseArabic("أحمد"), "احمد");
  assert.equal(normaliseArabic("إبراهيم"), "ابراهيم");
  assert.equal(normaliseArabic("آمنة"), "امنه");
  assert.equal(normaliseArabic("ٱلله"), "الله");
  assert.equal(normaliseArabic("مؤيد"), "مويد");
  assert.equal(normaliseArabic("وائل"), "وايل");
});

test("taa marbuta folds to ha and alef maqsura to ya", () => {
  assert.equal(normaliseArabic("فاطمة"), normaliseArabic("فاطمه"));
  assert.equal(normaliseArabic("حمزة"), "حمزه");
  assert.equal(normaliseArabic("مصطفى"), normaliseArabic("مصطفي"));
  assert.equal(normaliseArabic("يحيى"), "يحيي");
});

test("diacritics (harakat, tanwin, shadda, sukun, superscript alef) and tatweel are removed", () => {
  assert.equal(normaliseArabic("مُحَمَّد"), "محمد");
  assert.equal(normaliseArabic("شُكْرًا"), "شكرا");
  assert.equal(normaliseArabic("هٰذا"), "هذا");
  assert.equal(normaliseArabic("زكريّا السيّد"), "زكريا السيد");
  assert.equal(normaliseArabic("محـــمد خـالد"), "محمد خالد");
});

test("invisible controls pasted with names are removed: bidi marks, zero-width characters, BOM", () => {
  assert.equal(normaliseArabic("جهاد\u200f ناصر"), "جهاد ناصر");
  assert.equal(normaliseArabic("\u202bمحمد\u202c"), "محمد");
  assert.equal(normaliseArabic("\ufeffعلي\u200c\u200d"), "علي");
  assert.equal(normaliseArabic("\u2067حسن\u2069"), "حسن");
});

test("presentation forms and ligatures unfold: ﻣﺤﻤﺪ, ﷲ, ﻻ", () => {
  assert.equal(normaliseArabic("ﻣﺤﻤﺪ ﻋﻠﻲ"), "محمد علي");
  assert.equal(normaliseArabic("ﷲ"), "الله");
  assert.equal(normaliseArabic("ﻻ ﻷ"), "لا لا");
});

test("Persian keheh and yeh fold to Arabic kaf and ya", () => {
  assert.equal(normaliseArabic("کمال علی"), "كمال علي");
});

test("digits, Arabic punctuation and Latin text are normalised too", () => {
  assert.equal(normaliseArabic("رقم ١٢٣٤، فرع ۲۱۵"), "رقم 1234, فرع 215");
  assert.equal(normaliseArabic("٣٫٥٪"), "3.5%");
  assert.equal(normaliseArabic("Muḥammad ʿAbd al-Raḥmān"), "muhammad abd al-rahman");
  assert.equal(normaliseArabic("Sa'id Wa’il"), "said wail");
  assert.equal(normaliseArabic("  MOHAMMAD \t\n  Khatib "), "mohammad khatib");
});

test("standalone hamza is kept: علاء and علا stay different", () => {
  assert.notEqual(normaliseArabic("علاء"), normaliseArabic("علا"));
});

test("normalisation is idempotent", () => {
  for (const s of ["أحمد", "مُحَمَّد", "ﷲ", "Muḥammad", "فاطمة", "١٢٣", "کمال", "جهاد\u200f", "Sa'id"]) {
    const once = normaliseArabic(s);
    assert.equal(normaliseArabic(once), once, s);
  }
});

test("search tokens: the same tokens for every spelling variant of a name", () => {
  const variants = ["أحمد محمد الخطيب", "احمد محمد الخطيب", "أَحْمَد مُحَمَّد الخَطِيب", "احمـــد محمد خطيب", "\u200fأحمد محمد الخطيب"];
  const expected = searchTokens(variants[0] as string);
  assert.deepEqual(expected, ["احمد", "محمد", "خطيب"]);
  for (const v of variants) assert.deepEqual(searchTokens(v), expected, v);
});

test("search tokens: ال, وال, بال, لل come off when three letters remain; الله and والد keep theirs", () => {
  assert.deepEqual(searchTokens("الخطيب والحلبي بالمستشفى للتحقيق"), ["خطيب", "حلبي", "مستشفي", "تحقيق"]);
  assert.deepEqual(searchTokens("الله والد"), ["الله", "والد"]);
});

test("search tokens: عبد الله and عبدالله give the same token", () => {
  assert.deepEqual(searchTokens("عبد الله"), ["عبدالله"]);
  assert.deepEqual(searchTokens("عبدالله"), ["عبدالله"]);
  assert.deepEqual(searchTokens("أبو زيد"), searchTokens("ابوزيد"));
});

test("search tokens: Latin articles al-/el-/as- and standalone al are dropped", () => {
  assert.deepEqual(searchTokens("Mohammad al-Khatib"), ["mohammad", "khatib"]);
  assert.deepEqual(searchTokens("As-Suwayda, El Khoury, Al Hasakah"), ["suwayda", "khoury", "hasakah"]);
});

test("search tokens: numbers written in Arabic-Indic digits are found by Latin digits", () => {
  assert.deepEqual(searchTokens("رقم المعتقل ١٢٣٤/ب"), ["رقم", "معتقل", "1234", "ب"]);
  assert.deepEqual(searchTokens("1234"), searchTokens("١٢٣٤"));
});

test("searchText is the tokens joined by single spaces", () => {
  assert.equal(searchText("  الحاج  أحمد، الخطيب "), "حاج احمد خطيب");
  assert.equal(searchText(""), "");
});
