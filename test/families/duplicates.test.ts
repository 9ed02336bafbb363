import { test } from "node:test";
import assert from "node:assert/strict";
import { backends } from "../support/backends.ts";
import { freshArchive } from "../support/archive.ts";
import { createReport, getReport, listReports } from "../../src/families/index.ts";
import { acceptDuplicate, listDuplicates, proposeDuplicates, rejectDuplicate } from "../../src/families/duplicates.ts";
import { linkMember } from "../../src/families/members.ts";
import { portalConsent, portalImage, portalReport, portalReports } from "../../src/families/portal.ts";
import { decide, disclose } from "../../src/families/disclosure.ts";
import { rerank } from "../../src/families/index.ts";
import { Conflict, Forbidden } from "../../src/core/errors.ts";
import { cwdb } from "../../src/families/casework-tables.ts";
import { caseworker, familyMember, REPORT, seedMatchingBody, seenFace, fileAsFamily } from "../support/casework.ts";

for (const { backend, skip } of await backends()) {
  test(`a family member reading a merged report sees no other family's contact, and each family's own consent governs what it is shown (${backend.name})`, { skip }, async () => {
    const t = await freshArchive(backend);
    const a = t.archive;
    try {
      const body = await seedMatchingBody(a);
      const mother = await familyMember(a, "mother");
      const brother = await familyMember(a, "brother");
      // the mother files first, with no contact and no consent to photos; the brother with both
      const r1 = await fileAsFamily(a, mother, { ...REPORT, reporterName: "Fatima", reporterRelationship: "mother", consent: { viewingPhotos: false } });
      const r2 = await fileAsFamily(a, brother, { ...REPORT, reporterName: "Omar", reporterRelationship: "brother", reporterContact: "+46 70 000 0000", consent: { viewingPhotos: true } });
      const p = (await proposeDuplicates(a, caseworker)).proposals.find((x) => new Set([x.a.id, x.b.id]).has(r2.id))!;
      const { survivor } = await acceptDuplicate(a, caseworker, { id: p.id, survivor: r1.id });
      assert.equal(survivor.reporterContact, null, "the merge did not copy the brother's contact onto the mother's report");
      assert.equal(survivor.reporterName, "Fatima");

      const seenByMother = JSON.stringify(await portalReport(a, mother, r1.ref));
      for (const theirs of ["+46 70 000 0000", "Omar", '"brother"', brother.id]) assert.ok(!seenByMother.includes(theirs), `the mother is not shown ${theirs}`);
      const seenByBrother = await portalReport(a, brother, r1.ref);
      for (const theirs of ["Fatima", '"mother"', mother.id]) assert.ok(!JSON.stringify(seenByBrother).includes(theirs), `the brother is not shown ${theirs}`);
      assert.equal(seenByBrother.report.reporterContact, "+46 70 000 0000", "the brother sees his own contact");
      assert.equal(seenByBrother.report.consent.viewingPhotos?.given, true, "and his own consent");
      assert.equal((await portalReport(a, mother, r1.ref)).report.consent.viewingPhotos?.given, false);

      // the brother consented to photos, the mother did not: a blurred face goes to him, not to her
      await rerank(a, caseworker, {});
      await decide(a, caseworker, { report: r1.ref, bodyId: body.id, status: "presumptive", reason: "r" });
      for (const who of [mother, brother]) await disclose(a, caseworker, { report: r1.ref, bodyId: body.id, stage: "text", recipientId: who.id, text: "We would like to meet you.", consentNote: "phone", reason: "r" });
      await assert.rejects(disclose(a, caseworker, { report: r1.ref, bodyId: body.id, stage: "blurred_face", recipientId: mother.id, text: "t", consentNote: "n", reason: "r" }), Conflict, "the brother's consent does not speak for the mother");
      const img = await disclose(a, caseworker, { report: r1.ref, bodyId: body.id, stage: "blurred_face", recipientId: brother.id, text: "t", consentNote: "n", reason: "r", preview: await seenFace(a, caseworker, r1.ref, body) });
      await portalImage(a, brother, img.id);
      // he withdraws it looking at the merged case: his own report's consent changes, the mother's stays as it was
      await portalConsent(a, brother, { report: r1.ref, tier: "viewingPhotos", given: false });
      await assert.rejects(portalImage(a, brother, img.id), Forbidden);
      const rows = await cwdb(a.db.db).selectFrom("family_reports").select(["id", "consent"]).where("id", "in", [r1.id, r2.id]).execute();
      const consentOf = (id: string) => JSON.parse(rows.find((r) => r.id === id)!.consent) as Record<string, { given: boolean }>;
      assert.equal(consentOf(r2.id).viewingPhotos?.given, false);
      assert.equal(consentOf(r1.id).viewingPhotos?.given, false);
      await portalConsent(a, mother, { report: r1.ref, tier: "viewingPhotos", given: true });
      assert.equal((await portalReport(a, brother, r1.ref)).matches[0]?.images.length, 0, "the mother's consent does not show the brother anything");
    } finally {
      await t.close();
    }
  });

  test(`duplicates: one person reported by two relatives in two scripts is proposed, merged with history; a rejection sticks (${backend.name})`, { skip }, async () => {
    const t = await freshArchive(backend);
    const a = t.archive;
    try {
      const mother = await familyMember(a, "mother");
      const brother = await familyMember(a, "brother");
      // the mother files in Arabic; the brother, abroad, files in Latin letters with another spelling
      const r1 = await fileAsFamily(a, mother, {
        nameAr: "محمّد أحمد الخطيب", motherName: "فاطمة", sex: "male", birthDate: "1985", arrestDate: "2012-05", arrestGovernorate: "Damascus",
        marks: [{ type: "scar", region: "arm_left", description: "scar" }], reporterName: "Fatima", reporterRelationship: "mother", consent: { viewingPhotos: true },
      });
      const r2 = await fileAsFamily(a, brother, {
        nameLat: "Muhammad Ahmed al-Khateeb", motherName: "Fatma", sex: "male", birthDate: "~1986", arrestDate: "2012-05-14", branch: "215",
        reporterName: "Omar", reporterRelationship: "brother", reporterContact: "+46 70 000 0000",
      });
      // different people: another given name, a woman with the same family name, a man born 30 years earlier
      await createReport(a, caseworker, { nameAr: "خالد أحمد الخطيب", sex: "male", birthDate: "1985", arrestDate: "2012-05" });
      await createReport(a, caseworker, { nameAr: "محمد أحمد الخطيب", sex: "female", birthDate: "1985" });
      await createReport(a, caseworker, { nameAr: "محمد أحمد الخطيب", sex: "male", birthDate: "1955", arrestDate: "2014-01" });

      await assert.rejects(proposeDuplicates(a, mother), Forbidden, "families never see other reports through duplicates");
      const scan = await proposeDuplicates(a, caseworker);
      assert.equal(scan.proposed, 1, JSON.stringify(scan.proposals.map((p) => [p.a.ref, p.b.ref, p.score, p.reasons])));
      const p = scan.proposals[0]!;
      assert.deepEqual(new Set([p.a.id, p.b.id]), new Set([r1.id, r2.id]));
      assert.ok(p.reasons.some((x) => /names read as/.test(x)) && p.reasons.some((x) => /mother/.test(x)), p.reasons.join("; "));
      // each reason also as a message key for the reader's language, its signed points as in the English
      assert.equal(p.words.length, p.reasons.length);
      p.words.forEach((w, i) => assert.ok(w && p.reasons[i]!.includes(String(w.params.points)), `${p.reasons[i]} ~ ${JSON.stringify(w)}`));
      assert.equal(p.words[0]!.key, "namesSame");
      assert.ok(p.words.some((w) => w?.key === "motherAgree"));
      assert.equal((await proposeDuplicates(a, caseworker)).proposed, 0, "a pair is proposed once");

      const { survivor, merged } = await acceptDuplicate(a, caseworker, { id: p.id, reason: "same mother, same arrest" });
      assert.equal(survivor.id, r1.id, "the earlier report survives by default");
      assert.equal(merged.status, "merged");
      assert.equal(survivor.branch, "215", "an empty field is filled from the merged report");
      assert.equal(survivor.nameLat, "Muhammad Ahmed al-Khateeb", "the other script's spelling fills the empty Latin name");
      assert.equal(survivor.birthDate, "1985", "a field both had keeps the survivor's value");
      const row = await cwdb(a.db.db).selectFrom("family_reports").selectAll().where("id", "=", r2.id).executeTakeFirstOrThrow();
      assert.equal(row.merged_into, r1.id, "the merged report points to the survivor");
      assert.equal(row.reporter_contact, "+46 70 000 0000", "nothing is deleted from the merged report");
      const kept = await cwdb(a.db.db).selectFrom("family_reports").select("other_reporters").where("id", "=", r1.id).executeTakeFirstOrThrow();
      assert.equal((JSON.parse(kept.other_reporters) as { relationship: string }[])[0]?.relationship, "brother", "the survivor keeps both reporters");
      const ev = (await a.log.eventsFor(r1.id)).map((e) => e.event).find((e) => e.detail.action === "report.merge");
      assert.ok(ev && ev.objects.some((o) => o.id === r2.id), "the merge is a custody event naming both reports");
      assert.ok(!JSON.stringify(ev).includes("Khateeb"), "no personal data in the log");
      // the brother still finds his case: he is now tied to the survivor as well
      assert.deepEqual((await portalReports(a, brother)).map((r) => r.id).sort(), [r1.id, r2.id].sort());
      await assert.rejects(acceptDuplicate(a, caseworker, { id: p.id }), Conflict);
      assert.equal((await listReports(a, caseworker)).find((r) => r.id === r2.id)?.status, "merged");

      // a rejected pair is not proposed again, even after an edit that keeps them alike
      const x = await createReport(a, caseworker, { nameAr: "سامر يوسف الحلبي", sex: "male", birthDate: "1990", arrestDate: "2013-02" });
      const y = await createReport(a, caseworker, { nameLat: "Samer Yousef al-Halabi", sex: "male", birthDate: "1990", arrestDate: "2013-02" });
      const second = await proposeDuplicates(a, caseworker);
      const pair = second.proposals.find((q) => new Set([q.a.id, q.b.id]).has(x.id) && new Set([q.a.id, q.b.id]).has(y.id));
      assert.ok(pair, "the cross-script pair is proposed");
      const rej = await rejectDuplicate(a, caseworker, { id: pair.id, reason: "two cousins of the same name" });
      assert.equal(rej.status, "rejected");
      assert.equal((await proposeDuplicates(a, caseworker)).proposals.some((q) => q.id === pair.id || (new Set([q.a.id, q.b.id]).has(x.id) && new Set([q.a.id, q.b.id]).has(y.id))), false);
      assert.equal((await listDuplicates(a, caseworker, { status: "rejected" }))[0]?.reason, "two cousins of the same name");
      assert.equal((await getReport(a, caseworker, x.ref)).status, "open");
      await linkMember(a, caseworker, { report: x.ref, userId: mother.id });
    } finally {
      await t.close();
    }
  });
}
