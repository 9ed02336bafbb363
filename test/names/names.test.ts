import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import {
  blockingKeys,
  compareNames,
  crossScriptKey,
  formatComparison,
  jaroWinkler,
  nameScore,
  nameSimilarity,
  parseNameChain,
  prepareName,
  type NameDecision,
} from "../../src/names/names.ts";

type Side = string | { name: string; father?: string; mother?: string };
interface Pair {
  a: Side;
  b: Side;
  label: "same" | "different" | "ambiguous";
  kind: string;
  why: string;
}
const pairs = (JSON.parse(readFileSync(fileURLToPath(new URL("../fixtures/name-pairs.json", import.meta.url)), "utf8")) as { pairs: Pair[] }).pairs;
const prep = (x: Side) => prepareName(typeof x === "string" ? x : parseNameChain(x.name, x));
const show = (x: Side): string => (typeof x === "string" ? x : JSON.stringify(x));

const slot = (a: string, b: string, name: string) => {
  const s = nameSimilarity(a, b).slots.find((c) => c.slot === name);
  assert.ok(s, `no ${name} slot comparing ${a} / ${b}`);
  return s;
};

// ----- Jaro-Winkler

test("Jaro-Winkler gives the textbook values", () => {
  assert.equal(jaroWinkler("MARTHA", "MARHTA").toFixed(3), "0.961");
  assert.equal(jaroWinkler("DWAYNE", "DUANE").toFixed(3), "0.840");
  assert.equal(jaroWinkler("DIXON", "DICKSONX").toFixed(3), "0.813");
  assert.equal(jaroWinkler("محمد", "محمد"), 1);
  assert.equal(jaroWinkler("", "abc"), 0);
  assert.equal(jaroWinkler("abc", "xyz"), 0);
});

// ----- parsing

test("a chain of four reads given, father, grandfather, family", () => {
  const s = parseNameChain("محمد أحمد علي الخطيب");
  assert.deepEqual([s.given, s.father, s.grandfather, s.family], ["محمد", "أحمد", "علي", "الخطيب"]);
  assert.equal(s.script, "ar");
  const l = parseNameChain("Mohammad Ahmad Ali Al-Khatib");
  assert.deepEqual([l.given, l.father, l.grandfather, l.family], ["Mohammad", "Ahmad", "Ali", "Al-Khatib"]);
});

test("three names are given, father, family; two are given and family, with a note; one is the given name", () => {
  const three = parseNameChain("خالد محمود الحموي");
  assert.deepEqual([three.given, three.father, three.grandfather, three.family], ["خالد", "محمود", undefined, "الحموي"]);
  const two = parseNameChain("محمد الخطيب");
  assert.deepEqual([two.given, two.father, two.family], ["محمد", undefined, "الخطيب"]);
  assert.match(two.notes.join(" "), /read as the family name/);
  const one = parseNameChain("أحمد");
  assert.deepEqual([one.given, one.family], ["أحمد", undefined]);
});

test("five or more names keep the further ancestors", () => {
  const s = parseNameChain("محمد أحمد علي حسن عمر الخطيب");
  assert.deepEqual(s.ancestors, ["حسن", "عمر"]);
  assert.equal(s.family, "الخطيب");
});

test("عبد and أبو join the next word: عبد الله, عبد الرحمن, أبو زيد", () => {
  const s = parseNameChain("عبد الله عبد الرحمن أبو زيد");
  assert.deepEqual([s.given, s.father, s.family], ["عبد الله", "عبد الرحمن", "أبو زيد"]);
  assert.equal(parseNameChain("عبدالله محمد").given, "عبدالله");
});

test("Abd/Abdul/Abu join the next word, with a Latin article written apart", () => {
  assert.equal(parseNameChain("Abd al Rahman Yusuf Haddad").given, "Abd al Rahman");
  assert.equal(parseNameChain("Abd al-Rahman Yusuf Haddad").given, "Abd al-Rahman");
  assert.equal(parseNameChain("Abdul Rahman Yusuf Haddad").given, "Abdul Rahman");
  assert.equal(parseNameChain("Omar Abu Bakr Haddad").father, "Abu Bakr");
  assert.equal(parseNameChain("Mustafa Abd el Kader Bitar").father, "Abd el Kader");
});

test("الدين and الله join the previous word: نور الدين, نصر الله, Nour al Din", () => {
  assert.equal(parseNameChain("نور الدين محمد الشامي").given, "نور الدين");
  assert.equal(parseNameChain("حسن نصر الله").family, "نصر الله");
  assert.equal(parseNameChain("ماهر سليمان العبد الله").family, "العبد الله");
  assert.equal(parseNameChain("Nour al Din Mohamed Chami").given, "Nour al Din");
  assert.equal(parseNameChain("Salah ad-Din Omar Homsi").given, "Salah ad-Din");
  assert.equal(parseNameChain("Nour Eddine Mohamed Chami").given, "Nour Eddine");
});

test("titles at the front are dropped and kept aside; the same word later is a name", () => {
  for (const raw of ["الحاج محمود حسن العمر", "الدكتور محمود حسن العمر", "د. محمود حسن العمر", "الشهيد محمود حسن العمر", "الملازم أول محمود حسن العمر"]) {
    const s = parseNameChain(raw);
    assert.equal(s.given, "محمود", raw);
    assert.equal(s.family, "العمر", raw);
    assert.ok(s.titles.length >= 1, raw);
  }
  for (const raw of ["Dr. Samer Nizar Haddad", "Hajj Samer Nizar Haddad", "Sheikh Samer Nizar Haddad"]) {
    assert.equal(parseNameChain(raw).given, "Samer", raw);
  }
  const s = parseNameChain("Sheikh Omar Farouk Al-Sheikh");
  assert.deepEqual([s.titles, s.given, s.family], [["Sheikh"], "Omar", "Al-Sheikh"]);
});

test("بن/ابن/بنت and bin/ibn/bint mark the next name as the father's", () => {
  const s = parseNameChain("محمد بن أحمد بن علي الحسن");
  assert.deepEqual([s.given, s.father, s.grandfather, s.family], ["محمد", "أحمد", "علي", "الحسن"]);
  const two = parseNameChain("محمد بن أحمد");
  assert.deepEqual([two.given, two.father, two.family], ["محمد", "أحمد", undefined], "a name after بن is never the family name");
  const bint = parseNameChain("فاطمة بنت علي");
  assert.deepEqual([bint.given, bint.father], ["فاطمة", "علي"]);
  const lat = parseNameChain("Mohammad bin Ahmad");
  assert.deepEqual([lat.given, lat.father, lat.family], ["Mohammad", "Ahmad", undefined]);
});

test("one comma means family first: KHATIB, Mohammad Ahmad and الخطيب، محمد أحمد", () => {
  const l = parseNameChain("KHATIB, Mohammad Ahmad");
  assert.deepEqual([l.given, l.father, l.family], ["Mohammad", "Ahmad", "KHATIB"]);
  const a = parseNameChain("الخطيب، محمد أحمد");
  assert.deepEqual([a.given, a.father, a.family], ["محمد", "أحمد", "الخطيب"]);
});

test("a first name with the article is read as a family name put first, but a known given name is not", () => {
  const s = parseNameChain("Al-Khatib Mohammad Ahmad");
  assert.deepEqual([s.given, s.father, s.family], ["Mohammad", "Ahmad", "Al-Khatib"]);
  assert.match(s.notes.join(" "), /surname-first/);
  assert.equal(parseNameChain("الياس خليل حداد").given, "الياس");
});

test("names in parentheses or quotes are aliases", () => {
  const s = parseNameChain("محمد أحمد الخطيب (أبو خالد)");
  assert.deepEqual(s.aliases, ["أبو خالد"]);
  assert.equal(s.family, "الخطيب");
  assert.deepEqual(parseNameChain('Mahmoud "Hamoudeh" Ali').aliases, ["Hamoudeh"]);
});

test("a father's and mother's name recorded in their own fields fill their slots", () => {
  const s = parseNameChain("سامر الحداد", { father: "نزار", mother: "مريم" });
  assert.deepEqual([s.given, s.father, s.family, s.mother], ["سامر", "نزار", "الحداد", "مريم"]);
  const shifted = parseNameChain("محمد أحمد", { father: "أحمد" });
  assert.deepEqual([shifted.given, shifted.father, shifted.family], ["محمد", "أحمد", undefined], "the second name was the father's");
});

// ----- cross-script keys

test("crossScriptKey: محمد, Mohammad, Muhammad, Mohamed, Mohammed and Mhd meet", () => {
  for (const n of ["محمد", "مُحَمَّد", "Mohammad", "Muhammad", "Mohamed", "Mohammed", "Mhd", "Mouhamad"]) assert.equal(crossScriptKey(n), "mhmd", n);
});

test("crossScriptKey: عبدالرحمن, Abd al-Rahman, Abdulrahman, Abdelrahman, Abdurrahman meet", () => {
  for (const n of ["عبدالرحمن", "عبد الرحمن", "Abd al-Rahman", "Abdulrahman", "Abdelrahman", "Abdurrahman", "Abdul Rahman", "Abd el Rahman"]) {
    assert.equal(crossScriptKey(n), "bdrhmn", n);
  }
});

test("crossScriptKey: transliteration variants of other names meet (article, vowels, digraphs, q/k, apostrophes)", () => {
  const groups = [
    ["الخطيب", "Al-Khatib", "Alkhateeb", "El Khatib", "Khatib"],
    ["نور الدين", "Noureddine", "Nour al-Din", "Nureddin", "Nour Eddine"],
    ["يوسف", "Yousef", "Youssef", "Yusuf", "Yossef"],
    ["قاسم", "Qassem", "Kassem", "Qasim", "Kasim"],
    ["الزعبي", "Al-Zoubi", "Zoubi", "Al-Zu'bi", "Azzoubi"],
    ["شادي", "Shadi", "Chadi"],
    ["عثمان", "Othman", "Uthman"],
  ];
  for (const g of groups) {
    const keys = g.map((n) => crossScriptKey(n));
    assert.equal(new Set(keys).size, 1, `${g.join(", ")} → ${keys.join(", ")}`);
  }
  assert.equal(crossScriptKey("محمد أحمد الخطيب"), "mhmd hmd xtb", "one skeleton per name, in slot order");
});

test("crossScriptKey reads Arabizi digits and scholarly transliteration", () => {
  assert.equal(crossScriptKey("3omar 7asan"), crossScriptKey("عمر حسن"));
  assert.equal(crossScriptKey("ʿAbd al-Raḥmān"), "bdrhmn");
  assert.equal(crossScriptKey("Ouael"), crossScriptKey("وائل"));
});

test("crossScriptKey is for finding candidates: محمود shares محمد's skeleton, the comparison tells them apart", () => {
  assert.equal(crossScriptKey("محمود"), crossScriptKey("محمد"));
  assert.equal(slot("محمود", "Mohammad", "given").how, "known-different");
});

// ----- comparing names

test("Arabic spelling variants compare as the same name", () => {
  const cases: [string, string][] = [
    ["أحمد", "احمد"],
    ["فاطمة", "فاطمه"],
    ["مصطفى", "مصطفي"],
    ["مُحَمَّد", "محمد"],
    ["محـــمد", "محمد"],
    ["عبد الله", "عبدالله"],
    ["إسماعيل", "اسمعيل"],
    ["عثمان", "عتمان"],
    ["ظاهر", "ضاهر"],
    ["الخطيب", "خطيب"],
  ];
  for (const [a, b] of cases) assert.ok(slot(a, b, "given").score >= 0.9, `${a} ~ ${b}: ${slot(a, b, "given").score}`);
});

test("Latin spelling variants compare as the same name", () => {
  const cases: [string, string][] = [
    ["Mohammad", "Muhammad"],
    ["Mohamed", "Mohammed"],
    ["Abd al-Rahman", "Abdulrahman"],
    ["Abdelrahman", "Abdurrahman"],
    ["Hussein", "Husain"],
    ["Khaled", "Khalid"],
    ["Mamdouh", "Mamduh"],
    ["Huthaifa", "Hudhayfa"],
    ["Hamwi", "Hamoui"],
  ];
  for (const [a, b] of cases) assert.ok(slot(a, b, "given").score >= 0.9, `${a} ~ ${b}: ${slot(a, b, "given").score}`);
});

test("names across scripts compare through the spelling table and the skeleton", () => {
  const known = slot("محمد", "Mohammad", "given");
  assert.deepEqual([known.score, known.how], [1, "known"]);
  for (const [a, b] of [["الخطيب", "Al-Khatib"], ["ممدوح", "Mamdouh"], ["الشهابي", "Shehabi"], ["حذيفة", "Hudhayfa"], ["العظمة", "Azmeh"]] as const) {
    assert.ok(slot(a, b, "given").score >= 0.9, `${a} ~ ${b}: ${slot(a, b, "given").score}`);
  }
});

test("different names stay apart even when their consonants are alike", () => {
  const cases: [string, string][] = [
    ["محمد", "محمود"],
    ["Mohammad", "Mahmoud"],
    ["حسن", "حسين"],
    ["Hassan", "Hussein"],
    ["سامر", "Samir"],
    ["هادي", "Huda"],
    ["نايف", "نواف"],
    ["Nayef", "Nawaf"],
    ["نايف", "Nawaf"],
    ["Safwan", "Sufyan"],
    ["ليث", "غيث"],
    ["Laith", "Ghaith"],
    ["Tawfiq", "Rafik"],
    ["الأحمد", "Al-Hammoud"],
    ["السعدي", "Al-Asaad"],
  ];
  for (const [a, b] of cases) assert.ok(slot(a, b, "given").score < 0.75, `${a} vs ${b}: ${slot(a, b, "given").score}`);
});

test("same person across scripts: decision, evidence and sentences a caseworker can read", () => {
  const r = nameSimilarity("محمد أحمد الخطيب", "Mohammad Ahmad Al-Khatib");
  assert.equal(r.decision, "same");
  assert.ok(r.score > 0.95);
  assert.ok(r.reasons.includes("Given names match across scripts: محمد ~ Mohammad (known spellings of the same name)."), r.reasons.join("\n"));
  assert.match(r.reasons.join("\n"), /Decision: same person/);
});

test("brothers are different people, and the reason names the slot that differs", () => {
  const r = nameSimilarity("محمد أحمد الخطيب", "محمود أحمد الخطيب");
  assert.equal(r.decision, "different");
  assert.ok(r.reasons.includes("Given names differ: محمد vs محمود are different names."), r.reasons.join("\n"));
  assert.match(r.reasons.join("\n"), /Decision: different people — the given names contradict/);
});

test("cousins (fathers differ) are different people", () => {
  const r = nameSimilarity("محمد أحمد الخطيب", "Mohammad Khaled Khatib");
  assert.equal(r.decision, "different");
  assert.match(r.reasons.join("\n"), /Father's names differ: أحمد vs Khaled/);
});

test("too few names to decide is unsure, and says what would decide", () => {
  const r = nameSimilarity("محمد الخطيب", "Muhammad Ahmad Khatib");
  assert.equal(r.decision, "unsure");
  assert.match(r.reasons.join("\n"), /Father's name: only the second record has one \("Ahmad"\); not counted\./);
  assert.match(r.reasons.join("\n"), /a father's, grandfather's or mother's name would decide/);
  assert.equal(nameSimilarity("أحمد", "Ahmad").decision, "unsure");
});

test("a slot only one side has neither helps nor hurts", () => {
  const with4 = nameSimilarity("محمد خالد عبد الله الخطيب", "محمد خالد الخطيب");
  const with3 = nameSimilarity("محمد خالد الخطيب", "محمد خالد الخطيب");
  assert.equal(with4.points, with3.points);
  assert.equal(with4.decision, "same");
});

test("a second name that was the father's, not a family name, is read that way, and the result is at most unsure", () => {
  const r = nameSimilarity("محمد أحمد", "محمد أحمد الخطيب");
  assert.equal(r.decision, "unsure");
  assert.match(r.reasons.join("\n"), /Read "أحمد" in the first name as the father's name rather than a family name/);
  const grand = nameSimilarity("محمود شريف حسين", "محمود شريف حسين الحلبي");
  assert.equal(grand.decision, "unsure", "a family name read as a grandfather's never makes 'same' alone");
});

test("names that only agree in another order are unsure", () => {
  const r = nameSimilarity("Khatib Mohammad Ahmad", "محمد أحمد الخطيب");
  assert.equal(r.decision, "unsure");
  assert.match(r.reasons.join("\n"), /different order/);
});

test("mothers' names, when both records have one, count: agreeing supports, differing separates", () => {
  const same = nameSimilarity(prep({ name: "محمد أحمد الخطيب", mother: "فاطمة" }), prep({ name: "Mohammad Ahmad Khatib", mother: "Fatmeh" }));
  assert.equal(same.decision, "same");
  const diff = nameSimilarity(prep({ name: "محمد أحمد الخطيب", mother: "فاطمة" }), prep({ name: "Mohammad Ahmad Khatib", mother: "Khadija" }));
  assert.equal(diff.decision, "different");
  assert.match(diff.reasons.join("\n"), /Mother's names differ/);
});

test("an alias can stand for the given name", () => {
  const r = nameSimilarity("محمد (حمودة) أحمد الخطيب", "حمودة أحمد الخطيب");
  assert.ok((r.slots.find((s) => s.slot === "given")?.how ?? "").startsWith("alias/"), JSON.stringify(r.slots));
});

test("a record missing its given name does not shift its father into the given slot", () => {
  const p = prepareName({ raw: "", script: "ar", father: "أحمد", family: "الخطيب", ancestors: [], aliases: [], titles: [], notes: [] });
  const r = nameSimilarity(p, "محمد أحمد الخطيب");
  const given = r.slots.find((s) => s.slot === "given");
  assert.equal(given?.compared, false);
  assert.equal(r.slots.find((s) => s.slot === "father")?.score, 1);
});

// ----- the labelled pairs

test("labelled pairs: no 'same' for different people, no 'different' for one person, ambiguous ones unsure", () => {
  let sameRight = 0;
  let sameTotal = 0;
  const wrong: string[] = [];
  for (const p of pairs) {
    const d = nameSimilarity(prep(p.a), prep(p.b)).decision;
    if (p.label === "same") {
      sameTotal++;
      if (d === "same") sameRight++;
      if (d === "different") wrong.push(`same called different: ${show(p.a)} | ${show(p.b)}`);
    } else if (p.label === "different") {
      if (d === "same") wrong.push(`different called same: ${show(p.a)} | ${show(p.b)}`);
    } else if (d !== "unsure") wrong.push(`ambiguous called ${d}: ${show(p.a)} | ${show(p.b)}`);
  }
  assert.deepEqual(wrong, []);
  assert.ok(sameRight / sameTotal >= 0.95, `recall of "same" ${sameRight}/${sameTotal}`);
  assert.ok(pairs.length >= 150);
});

test("comparison is symmetric and nameScore agrees with nameSimilarity", () => {
  for (const p of pairs) {
    const ab = nameSimilarity(prep(p.a), prep(p.b));
    const ba = nameSimilarity(prep(p.b), prep(p.a));
    assert.equal(ab.decision, ba.decision, `${show(p.a)} | ${show(p.b)}`);
    assert.ok(Math.abs(ab.points - ba.points) < 1e-6, `${show(p.a)} | ${show(p.b)}: ${ab.points} vs ${ba.points}`);
    const fast = nameScore(prep(p.a), prep(p.b));
    assert.deepEqual([fast.decision, fast.points, fast.score], [ab.decision as NameDecision, ab.points, ab.score]);
  }
});

test("variants of one person share a blocking key", () => {
  const same = pairs.filter((p) => p.label === "same" && typeof p.a === "string" && typeof p.b === "string");
  let shared = 0;
  for (const p of same) {
    const ka = blockingKeys(p.a as string);
    if (blockingKeys(p.b as string).some((k) => ka.includes(k))) shared++;
  }
  assert.ok(shared / same.length >= 0.97, `${shared}/${same.length}`);
  const ar = blockingKeys("محمد أحمد الخطيب");
  assert.deepEqual(ar, ["mhmd|hmd", "mhmd|xtb"]);
  assert.ok(blockingKeys("Mhd Ahmed Alkhateeb").includes("mhmd|xtb"));
  assert.ok(!blockingKeys("Mahmoud Ahmad Khatib").some((k) => k.startsWith("hmd|")), "a given name in the table blocks under the table's skeleton");
});

// ----- for the CLI

test("compareNames returns plain JSON a caseworker can read, and formatComparison prints it", () => {
  const c = compareNames("الحاج محمد بن أحمد الخطيب", "Mohammad Ahmad Al-Khatib");
  assert.deepEqual(JSON.parse(JSON.stringify(c)), c);
  assert.equal(c.decision, "same");
  assert.equal(c.verdict, "same person");
  assert.deepEqual(c.a.titles, ["الحاج"]);
  assert.deepEqual(c.keys, { a: "mhmd hmd xtb", b: "mhmd hmd xtb" });
  const text = formatComparison(c);
  assert.match(text, /^A: الحاج محمد بن أحمد الخطيب$/m);
  assert.match(text, /same person/);
  assert.match(text, /- Given names match across scripts/);
  assert.equal(compareNames("Hassan Ali", "Hussein Ali").verdict, "different people");
});
