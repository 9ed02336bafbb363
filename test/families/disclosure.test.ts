import { test } from "node:test";
import assert from "node:assert/strict";
import sharp from "sharp";
import { backends } from "../support/backends.ts";
import { freshArchive } from "../support/archive.ts";
import { admin, seedBodies, investigator } from "../support/catalogue.ts";
import { createReport, listCandidates, rerank } from "../../src/families/index.ts";
import { approveRequest, caseOf, clearFlag, decide, disclose, disclosureImage, listFlags, recordConsent } from "../../src/families/disclosure.ts";
import { linkMember } from "../../src/families/members.ts";
import { portalReport, requestMore } from "../../src/families/portal.ts";
import { Conflict, Forbidden, Invalid, NotFound } from "../../src/core/errors.ts";
import { addNumber, editBody } from "../../src/catalogue/index.ts";
import { rerankIfBodiesChanged } from "../../src/families/watch.ts";
import { caseworker, familyMember, REPORT, seedMatchingBody, seenFace } from "../support/casework.ts";

async function bytesOf(s: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of s) chunks.push(Buffer.from(c as Buffer));
  return Buffer.concat(chunks);
}

for (const { backend, skip } of await backends()) {
  test(`a caseworker without clearance for a confidential body is not shown it as a candidate, nor its score or evidence (${backend.name})`, { skip }, async () => {
    const t = await freshArchive(backend);
    const a = t.archive;
    try {
      const body = await seedMatchingBody(a);
      const report = await createReport(a, caseworker, REPORT);
      await rerank(a, caseworker, {});
      assert.equal((await listCandidates(a, caseworker, report.ref)).candidates[0]?.bodyId, body.id);
      await editBody(a, admin, { id: body.id, sensitivity: "confidential" });
      const seen = await listCandidates(a, caseworker, report.ref);
      assert.ok(!JSON.stringify(seen).includes(body.id) && !JSON.stringify(seen).includes(body.ref), "the confidential body is not among the candidates");
      assert.equal((await listCandidates(a, admin, report.ref)).candidates[0]?.bodyId, body.id, "an administrator still sees it");
    } finally {
      await t.close();
    }
  });

  test(`disclosure: decisions with who and why, staged text → blurred face → more on request, each a custody event; reopened cases flagged (${backend.name})`, { skip }, async () => {
    const t = await freshArchive(backend);
    const a = t.archive;
    try {
      const body = await seedMatchingBody(a);
      const mother = await familyMember(a, "mother");
      const report = await createReport(a, caseworker, { ...REPORT, reporterRelationship: "mother", numbers: [{ role: "detainee", value: "4417" }] });
      await rerank(a, caseworker, { reportId: report.id });
      const top = (await listCandidates(a, caseworker, report.ref)).candidates[0]!;
      assert.equal(top.bodyId, body.id);

      await assert.rejects(decide(a, caseworker, { report: report.ref, bodyId: "bod_not_a_candidate", status: "probable", reason: "x" }), NotFound);
      await assert.rejects(decide(a, caseworker, { report: report.ref, bodyId: body.id, status: "probable", reason: " " }), Invalid);
      await assert.rejects(decide(a, mother, { report: report.ref, bodyId: body.id, status: "probable", reason: "x" }), Forbidden);
      // nothing can be disclosed before a decision, nor to a family member not tied to the report
      await assert.rejects(disclose(a, caseworker, { report: report.ref, bodyId: body.id, stage: "text", text: "t", consentNote: "in person", reason: "r" }), Invalid);
      await linkMember(a, caseworker, { report: report.ref, userId: mother.id, relationship: "mother" });
      await assert.rejects(disclose(a, caseworker, { report: report.ref, bodyId: body.id, stage: "text", text: "t", consentNote: "in person", reason: "r" }), Conflict);

      const d1 = await decide(a, caseworker, { report: report.ref, bodyId: body.id, status: "probable", reason: "scar, period and name agree" });
      assert.equal(d1.decidedBy, caseworker.id);
      await assert.rejects(
        disclose(a, caseworker, { report: report.ref, bodyId: body.id, stage: "blurred_face", text: "t", consentNote: "n", reason: "r" }),
        /in words first/,
        "stage 2 needs stage 1",
      );
      const s1 = await disclose(a, caseworker, { report: report.ref, bodyId: body.id, stage: "text", text: "We may have found your son. Can we meet?", consentNote: "by phone, agreed to hear news", reason: "probable match" });
      assert.equal(s1.recipientId, mother.id, "the only tied member is the recipient");
      await assert.rejects(
        disclose(a, caseworker, { report: report.ref, bodyId: body.id, stage: "blurred_face", text: "A first image.", consentNote: "in person", reason: "r" }),
        /consented to viewing photos/,
      );
      await recordConsent(a, caseworker, { report: report.ref, tier: "viewingPhotos", given: true, note: "signed form, in person" });
      const s2 = await disclose(a, caseworker, { report: report.ref, bodyId: body.id, stage: "blurred_face", text: "A first, blurred image.", consentNote: "in person", reason: "family ready", preview: await seenFace(a, caseworker, report.ref, body) });
      assert.equal(s2.photo, body.face, "the face photo is cropped, not the first photo");
      const img = await bytesOf((await disclosureImage(a, caseworker, s2.id)).stream);
      const meta = await sharp(img).metadata();
      assert.equal(meta.width, 240);
      assert.equal(meta.exif, undefined, "no metadata of the original travels with the image");

      // stage 3: only on the family's request, and only with the caseworker's approval
      const view = await portalReport(a, mother, report.ref);
      const m = view.matches[0]!;
      assert.equal(m.stage, "blurred_face");
      const req = await requestMore(a, mother, { report: report.ref, matchId: m.matchId, unblurred: true, note: "we want to be sure" });
      await assert.rejects(requestMore(a, mother, { report: report.ref, matchId: m.matchId, unblurred: false }), Conflict, "one request at a time");
      const asked = (await listFlags(a, caseworker)).find((f) => f.kind === "view-request");
      assert.ok(asked, "the request is on the caseworker's list");
      assert.ok(asked.words && /^view(Blurred|Unblurred)$/.test(asked.words.key) && asked.detail.includes(asked.words.params.request!), "its words for the reader's language");
      const more = await approveRequest(a, caseworker, { id: req.id, photos: [body.other], reason: "family asked, counselled first" });
      assert.equal(more.length, 1);
      assert.equal(more[0]!.blurred, false, "unblurred because they asked for it");
      assert.ok(!(await listFlags(a, caseworker)).some((f) => f.kind === "view-request"), "approving clears the request's flag");

      // every step is a custody event; texts and reasons stay out of the public log
      const events = (await a.log.eventsFor(report.id)).map((e) => e.event);
      const actions = events.map((e) => `${e.type}:${String(e.detail.action)}`);
      for (const x of ["identification:disclosure.decide", "disclosure:disclosure.stage", "disclosure:disclosure.requested", "metadata modification:report.consent"]) {
        assert.ok(actions.includes(x), `${x} in ${actions.join(", ")}`);
      }
      assert.equal(events.filter((e) => e.detail.action === "disclosure.stage").length, 3);
      assert.ok(!JSON.stringify(events).includes("your son") && !JSON.stringify(events).includes("scar, period"), "no texts or reasons in the log");

      // a confirmed case whose status changes reopens: flagged, listed, cleared
      await decide(a, caseworker, { report: report.ref, bodyId: body.id, status: "confirmed", reason: "DNA" });
      await decide(a, caseworker, { report: report.ref, bodyId: body.id, status: "probable", reason: "DNA sample mix-up" });
      const flags = await listFlags(a, caseworker);
      const changed = flags.find((f) => f.kind === "status-changed");
      assert.ok(changed && /confirmed to probable/.test(changed.detail));
      assert.deepEqual(changed.words, { key: "statusChanged", params: { from: "confirmed", to: "probable" } });
      await clearFlag(a, caseworker, { id: changed.id, note: "called the family" });
      assert.ok(!(await listFlags(a, caseworker)).some((f) => f.id === changed.id));
      assert.ok((await listFlags(a, caseworker, { all: true })).some((f) => f.id === changed.id && f.clearNote === "called the family"));
      const c = await caseOf(a, caseworker, report.ref);
      assert.equal(c.decisions[0]!.status, "probable");
      assert.deepEqual(c.decisions[0]!.history.map((d) => d.status), ["confirmed", "probable"]);

      // a new body scoring above the disclosed one reopens the case, found by the body watcher's stamp
      assert.equal((await rerankIfBodiesChanged(a)).changed, true);
      assert.equal((await rerankIfBodiesChanged(a)).changed, false, "nothing changed since");
      const [better] = await seedBodies(a, investigator, [{ sex: "male", ageMin: 25, ageMax: 30, photoDate: "2012-08-01", nameAr: "محمد احمد الخطيب" }]);
      assert.equal((await rerankIfBodiesChanged(a)).changed, true, "a new body moves the stamp");
      assert.ok(!(await listFlags(a, caseworker)).some((f) => f.kind === "outranked"), "not above the disclosed body yet");
      // the catalogue learns the body's detainee number, the one the family's documents give: it now outranks
      await editBody(a, investigator, { id: better!.id, marks: [{ type: "scar", region: "arm_left", description: "scar" }] });
      await addNumber(a, investigator, { bodyId: better!.id, role: "detainee", value: "4417" });
      const w = await rerankIfBodiesChanged(a);
      assert.equal(w.changed, true, "an edit moves the stamp");
      const cands = (await listCandidates(a, caseworker, report.ref)).candidates;
      assert.equal(cands[0]!.bodyId, better!.id, JSON.stringify(cands.map((x) => [x.ref, x.score])));
      const out = (await listFlags(a, caseworker)).find((f) => f.kind === "outranked" && f.bodyId === better!.id);
      assert.ok(out, "outranked flag");
      assert.equal(out.words?.key, "outranked");
      assert.ok(out.detail.includes(out.words.params.score!) && out.detail.includes(`(${out.words.params.floor!})`));
      // excluded: no image is disclosed of it
      await decide(a, caseworker, { report: report.ref, bodyId: body.id, status: "excluded", reason: "DNA excludes" });
      await assert.rejects(disclose(a, caseworker, { report: report.ref, bodyId: body.id, stage: "blurred_face", text: "t", consentNote: "n", reason: "r" }), Conflict);
    } finally {
      await t.close();
    }
  });
}
