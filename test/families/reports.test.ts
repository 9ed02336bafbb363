import { test } from "node:test";
import assert from "node:assert/strict";
import { backends } from "../support/backends.ts";
import { freshArchive } from "../support/archive.ts";
import { seedBodies, investigator } from "../support/catalogue.ts";
import { createReport, getReport, importReportsCsv, listCandidates, listReports, matchAll, setConsent } from "../../src/families/index.ts";
import { scoreBody } from "../../src/families/scoring.ts";
import { generateSynthetic, syntheticBodyFeatures, syntheticReportFeatures } from "../../src/families/synthetic.ts";
import { Forbidden, Invalid, NotFound } from "../../src/core/errors.ts";
import type { Actor } from "../../src/core/actor.ts";

const caseworker: Actor = { kind: "user", id: "usr_cw", role: "family_caseworker" };
const mother: Actor = { kind: "user", id: "usr_mother", role: "family_member" };
const otherFamily: Actor = { kind: "user", id: "usr_other", role: "family_member" };

const CSV = [
  "ref,name_ar,name_lat,father_name,mother_name,sex,birth_year,arrest_date,arrest_governorate,branch,marks",
  "F-1,محمد أحمد الخطيب,Mohammad al-Khatib,أحمد,فاطمة,M,1985,2012-05,Damascus,215,scar left forearm",
  "F-2,خالد حسن النجار,,حسن,,male,1970,2012,حمص,,",
].join("\n");

test("a body photographed before the arrest is excluded, whatever else agrees", () => {
  const { bodies, reports } = generateSynthetic({ bodies: 1, reports: 1, absent: 0, seed: 3 });
  const b = syntheticBodyFeatures(bodies[0]!);
  const r = syntheticReportFeatures({ ...reports[0]!.input, arrestDate: "2014-01" });
  const s = scoreBody(r, b);
  assert.equal(s.excluded, true);
  assert.equal(s.band, "exclude");
  assert.match(s.evidence.find((e) => e.feature === "dates")!.text, /before the arrest/);
  const ok = scoreBody(syntheticReportFeatures(reports[0]!.input), b);
  assert.equal(ok.excluded, false);
});

test("every score is the sum of its evidence, each said in words", () => {
  const { bodies, reports } = generateSynthetic({ bodies: 50, reports: 20, absent: 0, seed: 5 });
  const fs = bodies.map(syntheticBodyFeatures);
  for (const r of reports) {
    for (const b of fs.slice(0, 10)) {
      const s = scoreBody(syntheticReportFeatures(r.input), b);
      const sum = Math.round(s.evidence.reduce((a, e) => a + e.points, 0) * 100) / 100;
      assert.ok(Math.abs(sum - s.score) < 0.02, `${s.score} vs ${sum}`);
      for (const e of s.evidence) assert.ok(e.text.length > 5);
    }
  }
});

for (const { backend, skip } of await backends()) {
  test(`reports: CSV import is all or nothing, reads are recorded, families see only their own (${backend.name})`, { skip }, async () => {
    const t = await freshArchive(backend);
    const a = t.archive;
    try {
      // Every problem of every row is named at once, not the first of the first row only.
      const bad = await importReportsCsv(a, caseworker, { csv: `${CSV}\nF-3,,,,,X,19x5,,,,\nF-1,سامر,,,,M,1990,2099-13,Atlantis,,` });
      assert.equal(bad.ok, false);
      assert.equal(bad.created, 0);
      assert.deepEqual(
        bad.rejected.map((r) => [r.row, r.column]),
        [
          [4, "sex"],
          [4, "name_ar"],
          [4, "birth_year"],
          [5, "ref"],
          [5, "arrest_date"],
          [5, "arrest_governorate"],
        ],
      );
      assert.match(bad.rejected[0]!.message, /not "X"/);
      assert.match(bad.rejected[3]!.message, /F-1 appears twice/);
      assert.equal((await listReports(a, caseworker)).length, 0, "nothing stored when a row is rejected");

      const ok = await importReportsCsv(a, caseworker, { csv: CSV });
      assert.equal(ok.ok, true);
      assert.equal(ok.created, 2);
      const r1 = await getReport(a, caseworker, "F-1");
      assert.equal(r1.slots.given, "محمد");
      assert.equal(r1.slots.father, "أحمد");
      assert.equal(r1.motherName, "فاطمة");
      assert.equal(r1.arrestEarliest, "2012-05-01");
      assert.equal(r1.arrestLatest, "2012-05-31");
      assert.equal(r1.arrestGovernorate, "SY-DI");
      assert.equal(r1.marks[0]?.type, "scar");
      const events = (await a.log.eventsFor(r1.id)).map((e) => e.event);
      assert.ok(events.some((e) => e.type === "viewed personal data" && e.actor.id === caseworker.id), "the read is a custody event");
      assert.ok(events.some((e) => e.type === "metadata modification" && e.detail.action === "report.create"));
      assert.ok(!JSON.stringify(events).includes("الخطيب"), "no personal data in the public log");

      // a family member files their own report, sees it, and nothing else
      const own = await createReport(a, mother, { nameAr: "سامر يوسف الحلبي", sex: "male", birthDate: "~1990", arrestDate: "2012-03-14", consent: { dataSharing: true, viewingPhotos: false } });
      assert.equal(own.filedBy, mother.id);
      assert.equal(own.birthPrecision, "approximate");
      assert.equal((await getReport(a, mother, own.ref)).id, own.id);
      await assert.rejects(getReport(a, mother, "F-1"), NotFound);
      await assert.rejects(getReport(a, otherFamily, own.ref), NotFound);
      assert.deepEqual((await listReports(a, mother)).map((r) => r.ref), [own.ref]);
      assert.deepEqual(await listReports(a, otherFamily), []);
      await assert.rejects(listCandidates(a, mother, own.ref), Forbidden, "a family member never sees candidates");
      await assert.rejects(matchAll(a, mother), Forbidden);

      // consent is withdrawable by the filer; the change is an event naming the field
      const w = await setConsent(a, mother, own.ref, "dataSharing", false);
      assert.equal(w.consent.dataSharing?.given, false);
      const ev = (await a.log.eventsFor(own.id)).map((e) => e.event).filter((e) => e.detail.action === "report.edit");
      assert.deepEqual(ev[0]?.detail.fields, ["consent"]);
      await assert.rejects(setConsent(a, otherFamily, own.ref, "recontact", true), NotFound);
    } finally {
      await t.close();
    }
  });

  test(`a family member choosing a report's ref (a partner's reference, or a probe for one) is refused; the archive gives it (${backend.name})`, { skip }, async () => {
    const t = await freshArchive(backend);
    const a = t.archive;
    try {
      assert.equal((await importReportsCsv(a, caseworker, { csv: CSV })).ok, true);
      // a ref that exists and one that does not get the same refusal: it tells nothing about the partner's file
      for (const ref of ["F-1", "F-404"]) {
        await assert.rejects(createReport(a, mother, { ref, nameAr: "سامر يوسف الحلبي" }), (e: unknown) => e instanceof Invalid && e.field === "ref" && /archive gives/.test(e.message));
      }
      // the server's numbering steps over a ref an import already holds
      await importReportsCsv(a, caseworker, { csv: CSV.replace(/F-1/g, "R-000005").replace(/F-2/g, "F-9") });
      const own = await createReport(a, mother, { nameAr: "سامر يوسف الحلبي" });
      assert.match(own.ref, /^R-\d{6}$/);
      assert.notEqual(own.ref, "R-000005");
      assert.equal((await createReport(a, caseworker, { ref: "P-7", nameAr: "خالد" })).ref, "P-7", "a caseworker may still enter a partner's reference");
    } finally {
      await t.close();
    }
  });

  test(`candidates: the right body ranks first with its evidence; match prints refs, scores and bands (${backend.name})`, { skip }, async () => {
    const t = await freshArchive(backend);
    const a = t.archive;
    try {
      const [right, wrongSex, before] = await seedBodies(a, investigator, [
        { sex: "male", ageMin: 22, ageMax: 32, photoDate: "2012-09-03", marks: [{ type: "scar", region: "arm_left", description: "scar left forearm" }], nameAr: "محمد احمد الخطيب" },
        { sex: "female", ageMin: 22, ageMax: 32, photoDate: "2012-09-03" },
        { sex: "male", ageMin: 22, ageMax: 32, photoDate: "2012-01-10" },
      ]);
      await importReportsCsv(a, caseworker, { csv: CSV });
      const lines = await matchAll(a, caseworker, { top: 3 });
      const f1 = lines.find((l) => l.ref === "F-1")!;
      assert.equal(f1.candidates[0]?.ref, right!.ref);
      assert.notEqual(f1.candidates[0]?.band, "exclude");
      const byRef = new Map(f1.candidates.map((c) => [c.ref, c]));
      assert.equal(byRef.get(before!.ref)?.band, "exclude");
      assert.equal(byRef.get(wrongSex!.ref)?.band, "exclude");
      const c = await listCandidates(a, caseworker, "F-1", { top: 3 });
      assert.equal(c.candidates[0]?.ref, right!.ref);
      const features = c.candidates[0]!.evidence.map((e) => e.feature);
      for (const f of ["sex", "age", "period", "marks", "name"]) assert.ok(features.includes(f as never), `evidence on ${f}`);
    } finally {
      await t.close();
    }
  });
}
