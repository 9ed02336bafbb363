import { test } from "node:test";
import assert from "node:assert/strict";
import { backends } from "../support/backends.ts";
import { freshArchive } from "../support/archive.ts";
import { createReport, getReport, listCandidates, rerank, updateReport } from "../../src/families/index.ts";
import { acceptReportProposal, listReportProposals, refuseReportProposal } from "../../src/families/proposals.ts";
import { portalReport, portalReports, proposeChange } from "../../src/families/portal.ts";
import { proposeDuplicates } from "../../src/families/duplicates.ts";
import { Conflict, Forbidden, Invalid, NotFound } from "../../src/core/errors.ts";
import { caseworker, familyMember, REPORT, seedMatchingBody } from "../support/casework.ts";

const TYPED = "zz19 a burn on the left hand from the bakery";

for (const { backend, skip } of await backends()) {
  test(`a report a family files waits for a caseworker: not matched nor weighed for duplicates until accepted, closed with the reason if refused (${backend.name})`, { skip }, async () => {
    const t = await freshArchive(backend);
    const a = t.archive;
    try {
      const body = await seedMatchingBody(a);
      const mother = await familyMember(a, "mother");
      const cousin = await familyMember(a, "cousin");
      await createReport(a, caseworker, { ...REPORT, nameLat: "Mohamad al-Khatib" });
      const mine = await createReport(a, mother, REPORT);
      assert.equal(mine.status, "submitted");
      assert.equal(mine.filedBy, mother.id);
      await rerank(a, caseworker, {});
      assert.deepEqual((await listCandidates(a, caseworker, mine.ref)).candidates, [], "not ranked before a caseworker reads it");
      assert.equal((await proposeDuplicates(a, caseworker)).proposed, 0, "not weighed for duplicates either");
      assert.deepEqual((await portalReports(a, mother)).map((r) => r.status), ["submitted"]);
      assert.deepEqual((await portalReport(a, mother, mine.ref)).proposals.map((p) => [p.kind, p.status]), [["new", "proposed"]]);

      const waiting = await listReportProposals(a, caseworker);
      assert.deepEqual(waiting.map((w) => [w.kind, w.reportRef, w.proposedBy]), [["new", mine.ref, mother.id]]);
      await assert.rejects(listReportProposals(a, mother), Forbidden);
      await assert.rejects(acceptReportProposal(a, mother, { id: waiting[0]!.id }), Forbidden, "a family does not accept its own");
      await acceptReportProposal(a, caseworker, { id: waiting[0]!.id, reason: "read with the family on the phone" });
      assert.equal((await getReport(a, caseworker, mine.ref)).status, "open");
      await assert.rejects(acceptReportProposal(a, caseworker, { id: waiting[0]!.id }), (e: Error) => e instanceof Conflict && /already accepted/.test(e.message));
      await rerank(a, caseworker, {});
      assert.equal((await listCandidates(a, caseworker, mine.ref)).candidates[0]?.bodyId, body.id, "ranked once accepted");
      assert.equal((await proposeDuplicates(a, caseworker)).proposed, 1, "and weighed for duplicates");

      // a report that is not one (a test, a mistake) is refused with a reason the family reads, and closed
      const stray = await createReport(a, cousin, { nameAr: "تجربة", sex: "male" });
      const p = (await listReportProposals(a, caseworker, { report: stray.ref }))[0]!;
      await assert.rejects(refuseReportProposal(a, caseworker, { id: p.id, reason: " " }), (e: Error) => e instanceof Invalid && /reason/.test(e.message));
      await refuseReportProposal(a, caseworker, { id: p.id, reason: "We spoke on the phone: you meant to add to your aunt's report." });
      assert.equal((await getReport(a, caseworker, stray.ref)).status, "closed");
      const seen = await portalReport(a, cousin, stray.ref);
      assert.deepEqual([seen.report.status, seen.proposals[0]!.status, seen.proposals[0]!.reason], ["closed", "refused", "We spoke on the phone: you meant to add to your aunt's report."]);
      await assert.rejects(proposeChange(a, cousin, { report: stray.ref, fields: { branch: "215" } }), Conflict);
    } finally {
      await t.close();
    }
  });

  test(`what a family adds or corrects is a proposal: the report changes only when a caseworker accepts it; refusals keep it as it was; all kept as history, no typed words in the log (${backend.name})`, { skip }, async () => {
    const t = await freshArchive(backend);
    const a = t.archive;
    try {
      const mother = await familyMember(a, "mother");
      const other = await familyMember(a, "other");
      const mine = await createReport(a, mother, { ...REPORT, consent: { dataSharing: true } });
      await acceptReportProposal(a, caseworker, { id: (await listReportProposals(a, caseworker))[0]!.id });

      // the filer's direct edit is refused with a sentence; consent stays theirs, at once
      await assert.rejects(updateReport(a, mother, { id: mine.ref, branch: "215" }), (e: Error) => e instanceof Conflict && /caseworker reads what a family adds/.test(e.message));
      assert.equal((await updateReport(a, mother, { id: mine.ref, consent: { dataSharing: false } })).consent.dataSharing?.given, false);

      // only fields about the missing person and the family's contact; checked as the report would be
      await assert.rejects(proposeChange(a, mother, { report: mine.ref, fields: { ref: "P-1" } as never }), (e: Error) => e instanceof Invalid && e.message.includes("'ref'"));
      await assert.rejects(proposeChange(a, mother, { report: mine.ref, fields: {} }), Invalid);
      await assert.rejects(proposeChange(a, mother, { report: mine.ref, fields: { arrestDate: "the spring" } }), Invalid);
      await assert.rejects(proposeChange(a, other, { report: mine.ref, fields: { branch: "215" } }), NotFound, "another family's report is not found");

      const remembered = await proposeChange(a, mother, { report: mine.ref, fields: { marks: [...REPORT.marks!, { type: "other", region: "hand_left", description: TYPED }] } });
      const found = await proposeChange(a, mother, { report: mine.ref, fields: { numbers: [{ role: "detainee", value: "4411" }] } });
      const wrong = await proposeChange(a, mother, { report: mine.ref, fields: { birthDate: "1990" } });
      assert.equal((await getReport(a, caseworker, mine.ref)).marks.length, 1, "nothing changes before a caseworker accepts");
      const waiting = await listReportProposals(a, caseworker);
      assert.deepEqual(waiting.map((w) => w.id), [remembered.id, found.id, wrong.id]);
      assert.equal((waiting[0]!.fields.marks as { description: string }[])[1]!.description, TYPED, "the caseworker reads what the family wrote");

      await acceptReportProposal(a, caseworker, { id: remembered.id });
      await acceptReportProposal(a, caseworker, { id: found.id });
      await refuseReportProposal(a, caseworker, { id: wrong.id, reason: "His identity card says 1985; we kept that." });
      const now = await getReport(a, caseworker, mine.ref);
      assert.equal(now.marks.length, 2);
      assert.deepEqual(now.numbers, [{ role: "detainee", value: "4411" }]);
      assert.equal(now.birthDate, "1985");

      const history = await listReportProposals(a, caseworker, { report: mine.ref });
      assert.deepEqual(history.map((h) => [h.kind, h.status]), [["new", "accepted"], ["change", "accepted"], ["change", "accepted"], ["change", "refused"]]);
      const portal = await portalReport(a, mother, mine.ref);
      assert.deepEqual(portal.proposals.map((p) => [p.fields.join(","), p.status]), [["birthDate", "refused"], ["numbers", "accepted"], ["marks", "accepted"], ["", "accepted"]]);
      assert.equal(portal.proposals[0]!.reason, "His identity card says 1985; we kept that.");

      const events = (await a.log.eventsFor(mine.id)).map((e) => e.event);
      for (const x of ["report.proposed", "report.proposal-accepted", "report.proposal-refused"]) assert.ok(events.some((e) => e.detail.action === x), x);
      assert.ok(events.some((e) => e.detail.action === "report.edit" && e.detail.proposal === remembered.id), "the accepted change is the report's edit, naming the proposal");
      const log = JSON.stringify(events);
      for (const typed of ["zz19", "4411", "identity card", "1990"]) assert.ok(!log.includes(typed), `no typed words in the log (${typed})`);
    } finally {
      await t.close();
    }
  });
}
