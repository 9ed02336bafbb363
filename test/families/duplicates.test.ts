import { test } from "node:test";
import assert from "node:assert/strict";
import { backends } from "../support/backends.ts";
import { freshArchive } from "../support/archive.ts";
import { createReport, getReport, listReports } from "../../src/families/index.ts";
import { acceptDuplicate, listDuplicates, proposeDuplicates, rejectDuplicate } from "../../src/families/duplicates.ts";
import { linkMember } from "../../src/families/members.ts";
import { portalReports } from "../../src/families/portal.ts";
import { Conflict, Forbidden } from "../../src/core/errors.ts";
import { cwdb } from "../../src/families/casework-tables.ts";
import { caseworker, familyMember } from "./casework-fixtures.ts";

for (const { backend, skip } of await backends()) {
  test(`duplicates: one person reported by two relatives in two scripts is proposed, merged with history; a rejection sticks (${backend.name})`, { skip }, async () => {
    const t = await freshArchive(backend);
    const a = t.archive;
    try {
      const mother = await familyMember(a, "mother");
      const brother = await familyMember(a, "brother");
      // the mother files in Arabic; the brother, abroad, files in Latin letters with another spelling
      const r1 = await createReport(a, mother, {
        nameAr: "محمّد أحمد الخطيب", motherName: "فاطمة", sex: "male", birthDate: "1985", arrestDate: "2012-05", arrestGovernorate: "Damascus",
        marks: [{ type: "scar", region: "arm_left", description: "scar" }], reporterName: "Fatima", reporterRelationship: "mother", consent: { viewingPhotos: true },
      });
      const r2 = await createReport(a, brother, {
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
