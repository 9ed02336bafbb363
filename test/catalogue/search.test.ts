import { test } from "node:test";
import assert from "node:assert/strict";
import { backends } from "../support/backends.ts";
import { freshArchive } from "../support/archive.ts";
import { editBody, mergeBodies, searchBodies, type NewBody, type SearchQuery, type SearchResult } from "../../src/catalogue/index.ts";
import { openArchive } from "../../src/app/open-archive.ts";
import { loadConfig } from "../../src/core/config.ts";
import { buildHttpApp } from "../../src/http/app.ts";
import { Forbidden, Invalid } from "../../src/core/errors.ts";
import type { Archive } from "../../src/app/context.ts";
import { cdb } from "../../src/catalogue/tables.ts";
import { as, investigator, seedBodies, typed } from "../support/catalogue.ts";

/**
 * Search with Arabic prose and name variants written for these tests: hamza forms (أحمد/احمد), taa marbuta
 * (فاطمة/فاطمه), alef maqsura (مصطفى/مصطفي), diacritics, tatweel, "عبد الله"/"عبدالله", the article, and
 * Arabic-Indic digits. The same expectations run on SQLite and PostgreSQL, and a last test compares both
 * databases' answers directly.
 */
const CORPUS: NewBody[] = [
  {
    // B-000001
    nameAr: "أحمد عبد الله الخطيب",
    notes: "وُجِدَت على الظَّهرِ آثارُ ضربٍ بأداةٍ راضّة، وحروقُ سجائرَ على الساعد الأيسر.",
    hospital: "601",
    photoDate: "2012-03-14",
    injuries: ["blunt_force", "burn_cigarette"],
    numbers: [typed("detainee", "١٢٣٤٥"), typed("branch", "215"), typed("examiner", "٣٠٤٥/ب")],
    sex: "male",
  },
  {
    // B-000002
    nameAr: "احمد عبدالله خطيب",
    notes: "هزال شديد وجروح ملتهبة غير معالجة",
    hospital: "Tishreen",
    photoDate: "2012-03-20",
    injuries: ["emaciation"],
    numbers: [typed("branch", "227"), typed("detainee", "8812")],
    sex: "male",
  },
  {
    // B-000003
    nameAr: "فاطمة الزهراء",
    notes: "آثار قيـــود على المعصمين",
    hospital: "مشفى المزة",
    photoDate: "2012-04-02",
    injuries: ["restraint_marks"],
    numbers: [typed("branch", "235")],
    sex: "female",
  },
  {
    // B-000004
    nameAr: "مُصْطَفَى علي",
    photoDate: "2013-01-05",
    numbers: [typed("branch", "215"), typed("detainee", "40017")],
    sex: "male",
  },
  {
    // B-000005
    nameLat: "Mohammad Al-Hamwi",
    notes: "Ligature marks around the neck",
    hospital: "harasta",
    photoDate: "2012-04-15",
    injuries: ["ligature"],
    identificationStatus: "identified",
    numbers: [typed("branch", "248"), typed("detainee", "7781")],
  },
  {
    // B-000006
    clothing: "قميص أزرق مخطط",
    marks: [{ type: "tattoo", region: "arm_right", description: "وشم مرساة على الذراع اليمنى" }],
    photoDate: "2012-03-30",
    numbers: [typed("branch", "٢١٥"), typed("detainee", "٥٥٥٠١")],
  },
  {
    // B-000007: no photo date, no branch
    nameAr: "علاء",
    notes: "لا إصابات ظاهرة",
    injuries: ["no_visible_injury"],
  },
];

const refs = (r: SearchResult) => r.items.map((i) => i.ref.replace(/^B-0*/, ""));

const TEXT_CASES: [string, string[]][] = [
  ["أحمد", ["1", "2"]],
  ["احمد", ["1", "2"]],
  ["أَحْمَد", ["1", "2"]],
  ["احـــمد", ["1", "2"]],
  ["عبد الله", ["1", "2"]],
  ["عبدالله", ["1", "2"]],
  ["الخطيب", ["1", "2"]],
  ["احمد الخطيب", ["1", "2"]],
  ["فاطمه", ["3"]],
  ["فاطمة", ["3"]],
  ["مصطفي", ["4"]],
  ["مصطفى", ["4"]],
  ["12345", ["1"]],
  ["١٢٣٤٥", ["1"]],
  ["3045/ب", ["1"]],
  ["٣٠٤٥", ["1"]],
  ["قيود", ["3"]],
  ["حروق سجائر", ["1"]],
  ["ضرب", ["1"]],
  ["hamwi", ["5"]],
  ["al hamwi", ["5"]],
  ["Mohammad", ["5"]],
  ["ligature", ["5"]],
  ["Tishreen", ["2"]],
  ["تشرين", ["2"]],
  ["B-000003", ["3"]],
  ["مرساة", ["6"]],
  ["215", ["1", "4", "6"]],
  ["مصط*", ["4"]],
  ["علاء", ["7"]],
  // a word is not its beginning without *: مصط finds nothing; علا does find علاء, as a name: the names module
  // reads it as علاء written without its hamza (a spelling the families' table lists), not as a prefix
  ["مصط", []],
  ["علا", ["7"]],
  ["احمد فاطمه", []],
];

async function seeded(backendName: string, a: Archive): Promise<void> {
  const rows = await seedBodies(a, investigator, CORPUS);
  assert.equal(rows.length, CORPUS.length, backendName);
}

for (const { backend, skip } of await backends()) {
  test(`Arabic spelling variants, diacritics, tatweel and Arabic-Indic digits find the same bodies (${backend.name})`, { skip }, async () => {
    const t = await freshArchive(backend);
    try {
      await seeded(backend.name, t.archive);
      for (const [q, expected] of TEXT_CASES) {
        const r = await searchBodies(t.archive, investigator, { q });
        assert.deepEqual(refs(r), expected, `query ${q}`);
        assert.equal(r.total, expected.length, `total for ${q}`);
      }
    } finally {
      await t.close();
    }
  });

  test(`a hit says which of its numbers matched, as transcribed, with its role and whether it was checked (${backend.name})`, { skip }, async () => {
    const t = await freshArchive(backend);
    try {
      await seeded(backend.name, t.archive);
      // Latin digits find a number written in Arabic-Indic digits; the hit names that number as it was written.
      const r = await searchBodies(t.archive, investigator, { q: "12345" });
      assert.deepEqual(r.items.map((h) => [h.ref, h.matchedNumbers]), [["B-000001", [{ role: "detainee", value: "١٢٣٤٥", checked: false }]]]);
      const branch = await searchBodies(t.archive, investigator, { q: "215" });
      assert.ok(branch.items.length > 0);
      const latin = (v: string) => v.replace(/[٠-٩]/g, (d) => String(d.charCodeAt(0) - 0x660));
      for (const h of branch.items) assert.deepEqual(h.matchedNumbers.map((n) => [n.role, latin(n.value)]), [["branch", "215"]], `${h.ref} matched by its branch number (215 or ٢١٥)`);
      const byName = await searchBodies(t.archive, investigator, { q: "احمد" });
      assert.ok(byName.items.length > 0 && byName.items.every((h) => h.matchedNumbers.length === 0), "a name matches no number");
    } finally {
      await t.close();
    }
  });

  test(`facets count every value, each facet ignoring only its own filter (${backend.name})`, { skip }, async () => {
    const t = await freshArchive(backend);
    try {
      await seeded(backend.name, t.archive);
      const all = await searchBodies(t.archive, investigator, {});
      const counts = (f: keyof SearchResult["facets"], r = all) => Object.fromEntries((r.facets[f] ?? []).map((b) => [b.value ?? "unknown", b.count]));
      assert.equal(all.total, 7);
      assert.deepEqual(counts("branch"), { "215": 3, "227": 1, "235": 1, "248": 1, unknown: 1 });
      assert.deepEqual(counts("hospital"), { "601": 2, tishreen: 1, harasta: 1, unknown: 3 });
      assert.deepEqual(counts("period"), { "2012-03": 3, "2012-04": 2, "2013-01": 1, unknown: 1 });
      assert.deepEqual(counts("finding"), { blunt_force: 1, burn_cigarette: 1, emaciation: 1, restraint_marks: 1, ligature: 1, no_visible_injury: 1 });
      assert.deepEqual(counts("identification"), { unidentified: 6, identified: 1 });
      assert.deepEqual(counts("review"), { unreviewed: 7 });
      assert.deepEqual(counts("sex"), { male: 3, female: 1, unknown: 3 });
      // Buckets come largest first, ties by value, unknown last; labels in both languages where a vocabulary has them.
      assert.deepEqual(
        all.facets.branch!.map((b) => b.value),
        ["215", "227", "235", "248", null],
      );
      assert.equal(all.facets.branch![0]!.labelAr, "فرع المداهمة (215)");
      assert.equal(all.facets.hospital!.find((b) => b.value === "601")!.labelEn, "Military Hospital 601 (Mezzeh)");

      const b215 = await searchBodies(t.archive, investigator, { branch: ["215"] });
      assert.deepEqual(refs(b215), ["1", "4", "6"]);
      assert.deepEqual(counts("branch", b215), { "215": 3, "227": 1, "235": 1, "248": 1, unknown: 1 }, "the branch facet ignores the branch filter");
      assert.deepEqual(counts("hospital", b215), { "601": 1, unknown: 2 }, "other facets apply it");
      assert.deepEqual(refs(await searchBodies(t.archive, investigator, { branch: ["٢١٥", "227"] })), ["1", "2", "4", "6"], "values of one facet are ORed");
      assert.deepEqual(refs(await searchBodies(t.archive, investigator, { branch: ["215"], period: ["2012-03"] })), ["1", "6"], "facets are ANDed");
      assert.deepEqual(refs(await searchBodies(t.archive, investigator, { period: ["2012"] })), ["1", "2", "3", "5", "6"], "a year takes its months");
      assert.deepEqual(refs(await searchBodies(t.archive, investigator, { finding: ["burn"] })), ["1"], "a parent finding takes its children");
      assert.deepEqual(refs(await searchBodies(t.archive, investigator, { hospital: ["unknown"] })), ["4", "6", "7"]);
      assert.deepEqual(refs(await searchBodies(t.archive, investigator, { hospital: ["Harasta Military Hospital"] })), ["5"], "a label selects its code");
      assert.deepEqual(refs(await searchBodies(t.archive, investigator, { q: "احمد", hospital: ["تشرين"] })), ["2"]);
      assert.deepEqual(refs(await searchBodies(t.archive, investigator, { identification: ["identified"], sex: ["unknown"] })), ["5"]);
      await assert.rejects(searchBodies(t.archive, investigator, { review: ["finished"] }), (e: unknown) => e instanceof Invalid && /"finished" is not a value review takes/.test(e.message));
      await assert.rejects(searchBodies(t.archive, investigator, { period: ["March 2012"] }), (e: unknown) => e instanceof Invalid && /YYYY-MM/.test(e.message));
    } finally {
      await t.close();
    }
  });

  test(`keyset pages walk every sort order without gaps or repeats (${backend.name})`, { skip }, async () => {
    const t = await freshArchive(backend);
    try {
      await seeded(backend.name, t.archive);
      const expected: Record<string, string[]> = {
        ref: ["1", "2", "3", "4", "5", "6", "7"],
        "-ref": ["7", "6", "5", "4", "3", "2", "1"],
        photo_date: ["1", "2", "6", "3", "5", "4", "7"],
        "-photo_date": ["4", "5", "3", "6", "2", "1", "7"],
      };
      for (const [sort, want] of Object.entries(expected)) {
        const seen: string[] = [];
        let after: string | undefined;
        for (let pages = 0; pages < 10; pages++) {
          const r = await searchBodies(t.archive, investigator, { sort: sort as SearchQuery["sort"], limit: 2, after, facets: false });
          seen.push(...refs(r));
          assert.equal(r.total, 7);
          if (!r.next) break;
          after = r.next;
        }
        assert.deepEqual(seen, want, `sort ${sort}`);
      }
      const first = await searchBodies(t.archive, investigator, { sort: "ref", limit: 2 });
      await assert.rejects(searchBodies(t.archive, investigator, { sort: "photo_date", after: first.next! }), /cursor does not belong/);
    } finally {
      await t.close();
    }
  });

  test(`search is refused to roles without catalogue.read, with the reason, and hides records above clearance (${backend.name})`, { skip }, async () => {
    const t = await freshArchive(backend);
    try {
      await seeded(backend.name, t.archive);
      for (const role of ["curator", "family_member", "public"] as const) {
        await assert.rejects(searchBodies(t.archive, as(role), { q: "احمد" }), (e: unknown) => e instanceof Forbidden && e.message.includes(`(${role})`) && e.message.includes("catalogue.read"));
      }
      // A body marked confidential is seen by administrators only.
      await cdb(t.archive.db.db).updateTable("bodies").set({ sensitivity: "confidential" }).where("ref", "=", "B-000003").execute();
      assert.deepEqual(refs(await searchBodies(t.archive, investigator, { q: "فاطمه" })), []);
      assert.deepEqual(refs(await searchBodies(t.archive, as("admin"), { q: "فاطمه" })), ["3"]);
      assert.equal((await searchBodies(t.archive, investigator, {})).total, 6);
    } finally {
      await t.close();
    }
  });

  test(`the in-memory facet index follows every change, made by this process or another (${backend.name})`, { skip }, async () => {
    const t = await freshArchive(backend);
    const other = await openArchive(loadConfig({ data: t.dataDir }, t.env));
    try {
      await seeded(backend.name, t.archive);
      const counts = (r: SearchResult, f: keyof SearchResult["facets"]) => Object.fromEntries((r.facets[f] ?? []).map((b) => [b.value ?? "unknown", b.count]));
      const before = await searchBodies(t.archive, investigator, {});
      assert.equal(before.total, 7);
      assert.equal((await searchBodies(other, investigator, {})).total, 7, "the second process builds its own index");
      const [b1, b2, b3] = (await searchBodies(t.archive, investigator, { limit: 3 })).items;
      // This process: an edit and a merge. The other process: a new body.
      await editBody(t.archive, investigator, { id: b1!.id, hospital: "harasta" });
      await mergeBodies(t.archive, investigator, { keep: b2!.id, absorb: b3!.id });
      await seedBodies(other, investigator, [{ numbers: [typed("branch", "251")], photoDate: "2013-06-01" }]);
      for (const [who, a] of [["this", t.archive], ["the other", other]] as const) {
        const r = await searchBodies(a, investigator, {});
        assert.equal(r.total, 7, `${who} process: 7 - 1 merged + 1 new`);
        assert.deepEqual(counts(r, "hospital"), { tishreen: 1, harasta: 2, unknown: 4 }, `${who} process: B-000003 (601) merged away, B-000001 now Harasta`);
        assert.equal(counts(r, "branch")["251"], 1, `${who} process`);
        assert.ok(!refs(r).includes("3"), `${who} process: the merged body is gone`);
        assert.deepEqual(refs(await searchBodies(a, investigator, { sort: "-photo_date", limit: 1 })), ["8"], `${who} process: new sort order`);
      }
    } finally {
      await other.close();
      await t.close();
    }
  });

  test(`GET /api/search answers with facets and pages, and the same as the use case (${backend.name})`, { skip }, async () => {
    const t = await freshArchive(backend);
    const http = await buildHttpApp(t.archive, { actorFor: (req) => (req.headers["x-test-role"] === "curator" ? as("curator") : investigator) });
    try {
      await seeded(backend.name, t.archive);
      const r = await http.app.inject({ method: "GET", url: `/api/search?q=${encodeURIComponent("أحمد")}&branch=215&branch=227&limit=1` });
      assert.equal(r.statusCode, 200, r.body);
      const body = r.json() as SearchResult;
      assert.equal(body.total, 2);
      assert.deepEqual(refs(body), ["1"]);
      assert.ok(body.next);
      const r2 = await http.app.inject({ method: "GET", url: `/api/search?q=${encodeURIComponent("أحمد")}&branch=215,227&limit=1&after=${body.next}` });
      assert.deepEqual(refs(r2.json() as SearchResult), ["2"]);
      const direct = await searchBodies(t.archive, investigator, { q: "أحمد", branch: ["215", "227"], limit: 1 });
      assert.deepEqual(body, JSON.parse(JSON.stringify(direct)));
      const bad = await http.app.inject({ method: "GET", url: "/api/search?sort=relevance" });
      assert.equal(bad.statusCode, 422);
      const refused = await http.app.inject({ method: "GET", url: "/api/search?q=x", headers: { "x-test-role": "curator" } });
      assert.equal(refused.statusCode, 403);
      assert.match(refused.body, /curator/);
    } finally {
      await http.app.close();
      await t.close();
    }
  });
}

const legs = await backends();
test("SQLite and PostgreSQL give identical answers: items, order, totals, facets, cursors", { skip: legs[1]!.skip }, async () => {
  const [s, p] = await Promise.all([freshArchive(legs[0]!.backend), freshArchive(legs[1]!.backend)]);
  try {
    await seeded("sqlite", s.archive);
    await seeded("postgres", p.archive);
    const queries: SearchQuery[] = [
      ...TEXT_CASES.map(([q]) => ({ q })),
      {},
      { branch: ["215"] },
      { q: "احمد", sort: "-photo_date" },
      { period: ["2012-03", "2013"], sort: "photo_date", limit: 2 },
      { finding: ["burn", "ligature"], hospital: ["unknown", "601"] },
    ];
    const strip = (r: SearchResult) => ({ ...r, items: r.items.map((i) => ({ ...i, id: "" })) });
    for (const q of queries) {
      const [a, b] = await Promise.all([searchBodies(s.archive, investigator, q), searchBodies(p.archive, investigator, q)]);
      assert.deepEqual(strip(a), strip(b), JSON.stringify(q));
    }
  } finally {
    await s.close();
    await p.close();
  }
});
