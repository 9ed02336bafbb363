import { test } from "node:test";
import assert from "node:assert/strict";
import { backends } from "../support/backends.ts";
import { freshArchive } from "../support/archive.ts";
import { investigator, seedBodies, typed, as } from "../support/catalogue.ts";
import { bodiesStamp, getBody, importBodyDocuments, mergeBodies, searchBodies } from "../../src/catalogue/index.ts";
import { Forbidden, Invalid } from "../../src/core/errors.ts";
import { isCommitment } from "../../src/ledger/openings.ts";
import { loadBodyFeatures } from "../../src/families/matching.ts";
import { rankBodies, type ReportFeatures } from "../../src/families/scoring.ts";

const SOURCE = "Register 601";
const card = (examiner: string, branch: string) => [typed("examiner", examiner), typed("branch", branch)];

for (const { backend, skip } of await backends()) {
  test(`documents attach numbers and names to the bodies their rows name, with the source; unmatched and ambiguous rows are refused by row (${backend.name})`, { skip, timeout: 60_000 }, async () => {
    const t = await freshArchive(backend);
    const a = t.archive;
    try {
      const [b1, b2, b3, b4, b5] = await seedBodies(a, investigator, [
        { sex: "male", photoDate: "2013-05-01", numbers: card("101", "215") },
        { sex: "male", photoDate: "2013-05-01", numbers: card("102", "215") },
        { sex: "male", photoDate: "2013-05-01", numbers: card("103", "227") },
        { sex: "male", photoDate: "2013-05-01", numbers: card("103", "227") },
        { sex: "male", photoDate: "2013-05-01", externalRef: "P-9" },
      ]);
      // Arabic headers; Arabic-Indic digits; the examiner/branch pair of rows 4 is on two cards, row 5's on none
      const csv = [
        "المرجع,رقم الطبيب الشرعي,رقم الفرع,رقم المعتقل,رقم المشفى,الاسم",
        ",١٠١,٢١٥,٥٣١١,,محمد أحمد الخطيب",
        `${b2!.ref},,,,H-77,`,
        ",103,227,4400,,",
        ",999,215,4401,,",
        ",,,,,سامر",
      ].join("\n");
      const refused = await importBodyDocuments(a, investigator, { csv, source: SOURCE });
      assert.equal(refused.ok, false);
      assert.deepEqual(refused.rejected.map((r) => r.row), [4, 5, 6]);
      assert.match(refused.rejected[0]!.message, new RegExp(`on the cards of 2 bodies \\(${[b3!.ref, b4!.ref].sort().join(", ")}\\)`));
      assert.match(refused.rejected[1]!.message, /no body's card gives examiner number 999 with branch 215/);
      assert.deepEqual([refused.rejected[1]!.key, refused.rejected[1]!.params], ["documents.examinerNone", { examiner: "999", branch: "215" }], "the row's problem travels as a key the reader's language words");
      assert.match(refused.rejected[2]!.message, /names no body/);
      assert.equal(refused.attached, 0);
      assert.deepEqual((await getBody(a, investigator, b1!.id)).documents, [], "all or nothing: the good rows wait for the file to be right");

      const withExt = [
        "المرجع,partner ref,رقم الطبيب الشرعي,رقم الفرع,رقم المعتقل,رقم المشفى,الاسم",
        ",,١٠١,٢١٥,٥٣١١,,محمد أحمد الخطيب",
        `${b2!.ref},,,,,H-77,`,
        ",P-9,,,,,Samer Haddad",
      ].join("\r\n");
      const stamp = await bodiesStamp(a.db.db);
      const version = (await getBody(a, investigator, b1!.id)).version;
      const r = await importBodyDocuments(a, investigator, { csv: withExt, source: SOURCE });
      assert.ok((await bodiesStamp(a.db.db)) > stamp, "the bodies' stamp moves, so families re-rank");
      assert.equal((await getBody(a, investigator, b1!.id)).version, version + 1);
      assert.deepEqual(r.rejected, []);
      assert.equal(r.ok, true);
      assert.equal(r.bodies, 3);
      assert.equal(r.attached, 6, "b1: examiner, branch, detainee, name; b2: hospital; b5: name");
      const d1 = (await getBody(a, investigator, b1!.id)).documents;
      const byKind = (x: { kind: string }, y: { kind: string }) => (x.kind < y.kind ? -1 : 1);
      assert.deepEqual([...d1].sort(byKind).map((d) => [d.kind, d.value, d.valueNorm, d.source, d.row]), [
        ["branch", "٢١٥", "215", SOURCE, 2],
        ["detainee", "٥٣١١", "5311", SOURCE, 2],
        ["examiner", "١٠١", "101", SOURCE, 2],
        ["name", "محمد أحمد الخطيب", "mhmd hmd xtb", SOURCE, 2],
      ]);
      assert.deepEqual((await getBody(a, investigator, b2!.id)).documents.map((d) => [d.kind, d.value, d.valueNorm]), [["hospital", "H-77", "h/77"]]);
      assert.equal((await getBody(a, investigator, b5!.id)).documents[0]!.value, "Samer Haddad");

      // the same file again attaches nothing new
      const again = await importBodyDocuments(a, investigator, { csv: withExt, source: SOURCE });
      assert.equal(again.attached, 0);
      assert.equal(again.alreadyAttached, 6);

      // one custody event per file; the source typed is a commitment in the leaf, never in the clear
      const ev = (await a.log.eventsFor(r.importId)).map((e) => e.event).find((e) => e.detail.action === "catalogue.documents-import")!;
      assert.ok(ev, "the import is logged");
      assert.ok(isCommitment(ev.detail.document));
      assert.equal(ev.detail.attached, 6);

      // the search finds a body by a document's number and by its name in the other script
      const refs = async (q: string) => (await searchBodies(a, investigator, { q })).items.map((i) => i.ref);
      assert.deepEqual(await refs("5311"), [b1!.ref]);
      assert.deepEqual(await refs("Mohammad al-Khatib"), [b1!.ref]);

      // the families ranking finds the body by a number only the document gives
      const report: ReportFeatures = { sex: "male", birthYear: null, arrestEarliest: "2013-01-01", arrestLatest: "2013-01-31", branch: null, branchCertainty: null, marks: [], numbers: [{ role: "detainee", value: "5311" }], names: [], nameKeys: new Set() };
      const ranked = rankBodies(report, await loadBodyFeatures(a, investigator));
      assert.equal(ranked[0]!.ref, b1!.ref);
      assert.ok(ranked[0]!.evidence.some((e) => e.key === "numberHit"));

      // a merge carries the facts to the kept body
      await mergeBodies(a, investigator, { keep: b3!.id, absorb: b2!.id });
      assert.equal((await getBody(a, investigator, b3!.id)).documents[0]!.value, "H-77");

      // a role that may not import is refused
      await assert.rejects(importBodyDocuments(a, as("forensic_reviewer"), { csv: withExt, source: SOURCE }), Forbidden);
    } finally {
      await t.close();
    }
  });

  test(`hostile document files are refused with a sentence: formulas, bytes that are not UTF-8, a file too large, no source (${backend.name})`, { skip, timeout: 60_000 }, async () => {
    const t = await freshArchive(backend);
    const a = t.archive;
    try {
      const [b] = await seedBodies(a, investigator, [{ numbers: card("101", "215") }]);
      const formula = await importBodyDocuments(a, investigator, { csv: `ref,name,detainee_no\n${b!.ref},"=HYPERLINK(""http://x"",""y"")",1\n${b!.ref},x,@SUM(1)\n${b!.ref},'+cmd,5`, source: SOURCE });
      assert.equal(formula.ok, false);
      assert.deepEqual(formula.rejected.map((r) => [r.row, r.column]), [[2, "name"], [3, "detainee_no"], [4, "name"]]);
      assert.match(formula.rejected[0]!.message, /starts with "=": a spreadsheet formula/);
      assert.deepEqual((await getBody(a, investigator, b!.id)).documents, []);

      const latin1 = Buffer.from(`ref,name\n${b!.ref},J\xe9r\xf4me\n`, "latin1").toString("utf8");
      await assert.rejects(importBodyDocuments(a, investigator, { csv: latin1, source: SOURCE }), (e: unknown) => e instanceof Invalid && /not UTF-8/.test(e.message));
      await assert.rejects(importBodyDocuments(a, investigator, { csv: `ref,name\n${b!.ref},${"x".repeat(50 * 1024 * 1024)}`, source: SOURCE }), (e: unknown) => e instanceof Invalid && /at most 50 MB/.test(e.message));
      await assert.rejects(importBodyDocuments(a, investigator, { csv: `ref,name\n${b!.ref},x`, source: "  " }), (e: unknown) => e instanceof Invalid && e.field === "source");
      await assert.rejects(importBodyDocuments(a, investigator, { csv: `ref,colour\n${b!.ref},x`, source: SOURCE }), (e: unknown) => e instanceof Invalid && /"colour"/.test(e.message));
      await assert.rejects(importBodyDocuments(a, investigator, { csv: `ref\n${b!.ref}`, source: SOURCE }), (e: unknown) => e instanceof Invalid && /no number or name to attach/.test(e.message));
    } finally {
      await t.close();
    }
  });
}
