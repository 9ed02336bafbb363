import { test } from "node:test";
import assert from "node:assert/strict";
import { backends } from "../support/backends.ts";
import { freshArchive } from "../support/archive.ts";
import { createReport, rerank } from "../../src/families/index.ts";
import { caseOf, decide, disclose } from "../../src/families/disclosure.ts";
import { withdrawDisclosure } from "../../src/families/withdrawal.ts";
import { linkMember } from "../../src/families/members.ts";
import { portalImage, portalReport, portalReports } from "../../src/families/portal.ts";
import { Conflict, Forbidden, Invalid, NotFound } from "../../src/core/errors.ts";
import { caseworker, familyMember, REPORT, seedMatchingBody, seenFace } from "../support/casework.ts";

for (const { backend, skip } of await backends()) {
  test(`a caseworker withdraws a disclosure with a reason: the family's view changes at once and shows what was withdrawn and why; a custody event (${backend.name})`, { skip }, async () => {
    const t = await freshArchive(backend);
    const a = t.archive;
    try {
      const body = await seedMatchingBody(a);
      const mother = await familyMember(a, "mother");
      const report = await createReport(a, caseworker, { ...REPORT, consent: { viewingPhotos: true } });
      await rerank(a, caseworker, { reportId: report.id });
      await linkMember(a, caseworker, { report: report.ref, userId: mother.id, relationship: "mother" });
      await decide(a, caseworker, { report: report.ref, bodyId: body.ref, status: "probable", reason: "scar and period" });
      const s1 = await disclose(a, caseworker, { report: report.ref, bodyId: body.ref, stage: "text", text: "We may have found your son.", consentNote: "by phone", reason: "probable" });
      const s2 = await disclose(a, caseworker, { report: report.ref, bodyId: body.ref, stage: "blurred_face", text: "A first, blurred image.", consentNote: "in person", reason: "ready", preview: await seenFace(a, caseworker, report.ref, body) });
      let view = await portalReport(a, mother, report.ref);
      assert.equal(view.matches[0]!.images.length, 1);
      assert.deepEqual(view.withdrawn, []);

      await assert.rejects(withdrawDisclosure(a, mother, { id: s2.id, reason: "sentInError" }), Forbidden, "a family member cannot withdraw");
      await assert.rejects(withdrawDisclosure(a, caseworker, { id: s2.id, reason: "whim" as never }), (e: Error) => e instanceof Invalid && /sentInError, wrongRecipient/.test(e.message));
      await assert.rejects(withdrawDisclosure(a, caseworker, { id: s2.id, reason: "other" }), (e: Error) => e instanceof Invalid && /note/.test(e.message), "other needs words to the family");
      await assert.rejects(withdrawDisclosure(a, caseworker, { id: "dis_nothing", reason: "sentInError" }), NotFound);

      // the image first: the words stay, the image is gone from the portal at once and no longer served
      const w2 = await withdrawDisclosure(a, caseworker, { id: s2.id, reason: "sentInError", note: "We sent this image too early; we will call you." });
      assert.deepEqual(w2.map((d) => d.id), [s2.id]);
      assert.equal(w2[0]!.withdrawn?.reason, "sentInError");
      view = await portalReport(a, mother, report.ref);
      assert.equal(view.matches.length, 1);
      assert.equal(view.matches[0]!.stage, "text");
      assert.deepEqual(view.matches[0]!.images, []);
      assert.deepEqual(view.matches[0]!.messages.map((m) => m.text), ["We may have found your son."]);
      assert.equal(view.withdrawn.length, 1);
      assert.deepEqual({ ...view.withdrawn[0]!, withdrawnAt: "", sharedAt: "" }, { stage: "blurred_face", sharedAt: "", withdrawnAt: "", reason: "sentInError", note: "We sent this image too early; we will call you." });
      await assert.rejects(portalImage(a, mother, s2.id), NotFound);
      await assert.rejects(withdrawDisclosure(a, caseworker, { id: s2.id, reason: "sentInError" }), (e: Error) => e instanceof Conflict && /already withdrawn/.test(e.message));

      // the first stage takes the match away: the portal shows no words of it, only what was withdrawn and why
      const s2b = await disclose(a, caseworker, { report: report.ref, bodyId: body.id, stage: "blurred_face", text: "The image again.", consentNote: "in person", reason: "agreed on the phone", preview: await seenFace(a, caseworker, report.ref, body) });
      const w1 = await withdrawDisclosure(a, caseworker, { id: s1.id, reason: "decisionChanged" });
      assert.deepEqual(w1.map((d) => d.id).sort(), [s1.id, s2b.id].sort(), "the later stage rests on the first and goes with it");
      view = await portalReport(a, mother, report.ref);
      assert.deepEqual(view.matches, []);
      assert.deepEqual(view.withdrawn.map((w) => [w.stage, w.reason]).sort(), [["blurred_face", "decisionChanged"], ["blurred_face", "sentInError"], ["text", "decisionChanged"]]);
      const shown = JSON.stringify(view);
      assert.ok(!shown.includes("found your son") && !shown.includes(body.id) && !shown.includes(body.ref), "nothing withdrawn is shown again, and no body");
      assert.equal((await portalReports(a, mother))[0]!.matches, 0);

      // the caseworker's case keeps every disclosure with its withdrawal
      const c = await caseOf(a, caseworker, report.ref);
      assert.equal(c.disclosures.length, 3);
      assert.ok(c.disclosures.every((d) => d.withdrawn && d.withdrawn.by === caseworker.id));

      // each withdrawal is a custody event naming the disclosures; no note in the log
      const events = (await a.log.eventsFor(report.id)).map((e) => e.event).filter((e) => e.detail.action === "disclosure.withdrawn");
      assert.equal(events.length, 2);
      assert.equal(events[1]!.type, "disclosure");
      assert.equal(events[1]!.detail.withdrawal, "decisionChanged");
      assert.deepEqual(events[1]!.objects.filter((o) => o.role === "disclosure").map((o) => o.id).sort(), [s1.id, s2b.id].sort());
      assert.ok(!JSON.stringify(events).includes("too early"));

      // words can be sent again after a withdrawal
      const again = await disclose(a, caseworker, { report: report.ref, bodyId: body.id, stage: "text", text: "Can we meet?", consentNote: "by phone", reason: "new step" });
      assert.equal((await portalReport(a, mother, report.ref)).matches[0]!.matchId, again.id);
    } finally {
      await t.close();
    }
  });
}
