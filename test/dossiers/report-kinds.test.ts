import { test } from "node:test";
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { operatorActor, type Actor } from "../../src/core/actor.ts";
import { ingestCard } from "../../src/archive/intake.ts";
import { createEntity, createLink, getBody } from "../../src/catalogue/index.ts";
import { buildReport, readPdfIndex, type ReportExhibit } from "../../src/dossiers/report/index.ts";
import { catalogueDemoCard } from "../../src/dossiers/report/demo.ts";
import { Invalid } from "../../src/core/errors.ts";
import { backends } from "../support/backends.ts";
import { demoCard, freshArchive } from "../support/archive.ts";
import { norm, pdfText, render, reportRoot, skipBrowser } from "../support/report-pdf.ts";
import { readyUser } from "../support/accounts.ts";
import { assignSample, drawReviewSample, myAssignments, submitReview } from "../../src/review/index.ts";

const actor = operatorActor();
const investigator: Actor = { kind: "user", id: "usr_inv_kinds", role: "investigator" };
// An archivist may read the catalogue and see photos but not read forensic reviews.
const archivist: Actor = { kind: "user", id: "usr_arc_kinds", role: "archivist" };
const root = reportRoot("dalil-report-kinds-");
if (!process.env.DALIL_KEEP_REPORT) process.on("exit", () => rmSync(root, { recursive: true, force: true }));

/** The text of a section: from its first page up to the next section's (a section may run over a page). */
function sectionText(pdf: string, dests: Map<string, number>, id: string, next: string): string {
  const from = dests.get(id)!;
  const to = Math.max(from, (dests.get(next) ?? from + 1) - 1);
  let s = "";
  for (let p = from; p <= to; p++) s += pdfText(pdf, p);
  return s;
}

for (const { backend, skip } of await backends()) {
  test(`a report with an exhibit of every kind: body, photo, review, facility, unit, person, and a withdrawn one in Annex C (${backend.name})`, { skip: skip || skipBrowser, timeout: 300_000 }, async () => {
    const { dir, truth } = await demoCard(2, false, "report-kinds");
    const a = await freshArchive(backend);
    try {
      await ingestCard(a.archive, actor, { path: dir, label: "card" });
      const bodies = await catalogueDemoCard(a.archive, actor, truth);
      const facility = await createEntity(a.archive, actor, { kind: "facility", nameAr: "سجن صيدنايا", nameEn: "Saydnaya Prison", description: "Military prison north of Damascus." });
      const unit = await createEntity(a.archive, actor, { kind: "unit", nameAr: "فرع فلسطين", nameEn: "Palestine Branch", number: "235", parentId: facility.id });
      const person = await createEntity(a.archive, actor, { kind: "person", nameAr: "سامر الحداد", nameEn: "Samer al-Haddad", title: "Head of interrogation", parentId: unit.id });
      await createLink(a.archive, actor, { type: "commands", from: { kind: "entity", id: person.id }, to: { kind: "entity", id: unit.id }, evidence: [{ kind: "testimony", ref: "T-17" }], reasoning: "شهادة معتقل سابق تسمّيه رئيسًا للتحقيق" });
      await createLink(a.archive, actor, { type: "died_at", from: { kind: "body", id: bodies[0]!.bodyId }, to: { kind: "entity", id: unit.id }, evidence: [{ kind: "photo", ref: bodies[0]!.photos[0]! }], reasoning: "رقم الفرع مكتوب على البطاقة" });

      const reviewer = await readyUser(a.archive, "forensic_reviewer");
      const sample = await drawReviewSample(a.archive, investigator, { size: 2, seed: "kinds", doubleShare: 0 });
      await assignSample(a.archive, investigator, { sampleId: sample.id, reviewers: [reviewer.id] });
      let reviewId = "";
      let reviewSha = "";
      for (const asg of await myAssignments(a.archive, reviewer.actor)) {
        const r = await submitReview(a.archive, reviewer.actor, { assignmentId: asg.id, findings: [{ code: "burn_electrical", confidence: "probable", note: "على الكاحلين" }], causes: [{ code: "burns", confidence: "possible" }], notes: "حروق متعددة" });
        if (asg.bodyId === bodies[0]!.bodyId) {
          reviewId = r.id;
          reviewSha = r.sha256;
        }
      }
      assert.ok(reviewId, "the first body was reviewed");
      const photoSha = bodies[1]!.photos[0]!;
      const body0 = await getBody(a.archive, actor, bodies[0]!.bodyId);
      const body1 = await getBody(a.archive, actor, bodies[1]!.bodyId);

      const exhibits: ReportExhibit[] = [
        { number: "E-0001", bodyId: bodies[0]!.bodyId, reasoning: ["البطاقة تحمل الرقم 235."] },
        { kind: "photo", number: "E-0002", sha256: photoSha, reasoning: ["الصورة تُظهر رقم الفرع بوضوح."] },
        { kind: "review", number: "E-0003", reviewId, reasoning: ["المراجعة الجنائية توثّق الحروق."] },
        { kind: "facility", number: "E-0004", entityId: facility.id, reasoning: ["مكان الاحتجاز."] },
        { kind: "unit", number: "E-0005", entityId: unit.id, reasoning: ["الفرع المسؤول."] },
        { kind: "person", number: "E-0006", entityId: person.id, reasoning: ["رئيس التحقيق في الفرع."], evidence: [{ kind: "testimony", ref: "T-17", note: "شاهد 4" }] },
      ];
      const withdrawn = [{ number: "E-0007", kind: "photo" as const, at: "2026-03-02T09:00:00.000Z", reason: "صورة مكررة من وسيط آخر" }];

      const progress: [number, number][] = [];
      const ar = await buildReport(a.archive, investigator, { title: "ملف الفرع 235", lang: "ar", clearance: "blurred", dossier: { id: "dos_kinds", version: 2 }, exhibits, withdrawn, outDir: join(root, `${backend.name}-ar`), onProgress: (d, t) => progress.push([d, t]) });
      assert.deepEqual(progress.at(-1), [8, 8], "every section and both prints reported");
      const { dests } = await readPdfIndex(ar.pdf);
      for (const id of ["x1", "x2", "x3", "x4", "x5", "x6", "annex-a", "annex-b", "annex-c"]) assert.ok(dests.has(id), `section ${id} is in the PDF`);

      const photo = sectionText(ar.pdf, dests, "x2", "x3");
      assert.ok(photo.includes("E-0002"));
      assert.ok(photo.includes(photoSha), "the photo exhibit prints its SHA-256");
      assert.ok(photo.includes(body1.ref), "and the body it belongs to");
      const ingestSeq = (await a.archive.log.eventsFor(photoSha)).find((e) => e.event.type === "ingestion")!.seq;
      assert.ok(photo.includes(norm(`${ingestSeq} (قُرئت من الوسيط)`)) || photo.includes(String(ingestSeq)), "its ingestion's log index");
      assert.ok(photo.includes(norm("الصورة تُظهر رقم الفرع بوضوح.")), "its reasoning");

      const review = sectionText(ar.pdf, dests, "x3", "x4");
      for (const phrase of ["E-0003", "مراجعة جنائية", body0.ref, "حروق كهربائية", "مرجّح", "على الكاحلين", "حروق متعددة", "مؤشرات سبب الوفاة", "المراجعة الجنائية توثّق الحروق."]) assert.ok(review.includes(norm(phrase)), `review section: ${phrase}`);
      assert.ok(review.includes(reviewSha), "the review's SHA-256");

      const fac = sectionText(ar.pdf, dests, "x4", "x5");
      for (const phrase of ["E-0004", "سجن صيدنايا", "Saydnaya Prison", "Military prison north of Damascus.", "مكان الاحتجاز."]) assert.ok(fac.includes(norm(phrase)), `facility section: ${phrase}`);
      const un = sectionText(ar.pdf, dests, "x5", "x6");
      for (const phrase of ["E-0005", "فرع فلسطين", "Palestine Branch", "235", "سجن صيدنايا", "توفي في", body0.ref, "رقم الفرع مكتوب على البطاقة"]) assert.ok(un.includes(norm(phrase)), `unit section: ${phrase}`);
      const per = sectionText(ar.pdf, dests, "x6", "annex-a");
      for (const phrase of ["E-0006", "شخص موضع اهتمام", "سامر الحداد", "Samer al-Haddad", "Head of interrogation", "يقود", "شهادة معتقل سابق تسمّيه رئيسًا للتحقيق", "رئيس التحقيق في الفرع.", "الأدلة المستشهد بها", "testimony: T-17", "شاهد"]) assert.ok(per.includes(norm(phrase)), `person section: ${phrase}`);

      const annexC = pdfText(ar.pdf, dests.get("annex-c")!);
      for (const phrase of ["الملحق ج: المبرزات المسحوبة", "E-0007", "صورة مكررة من وسيط آخر", "2026-03-02"]) assert.ok(annexC.includes(norm(phrase)), `annex C: ${phrase}`);
      const annexB = sectionText(ar.pdf, dests, "annex-b", "annex-c");
      assert.ok(annexB.includes(photoSha), "a photo exhibit's digest is in Annex B");
      const contentsPage = pdfText(ar.pdf, 2);
      for (const n of ["E-0001", "E-0002", "E-0003", "E-0004", "E-0005", "E-0006"]) assert.ok(contentsPage.includes(n), `the contents list ${n}`);
      assert.ok(contentsPage.includes(norm("الملحق ج")), "and Annex C");
      assert.ok(contentsPage.includes(norm("سامر الحداد")), "entities by name");
      assert.ok(pdfText(ar.pdf, 1).includes(norm("المبرزات المسحوبة (الملحق ج)1")), "the cover counts withdrawn exhibits");
      const stats = pdfText(ar.pdf, dests.get("statistics")!);
      assert.ok(stats.includes(norm("مبرزات سجلات الجثامين")), "the statistics say they count body exhibits only");

      // A preparer who may not read reviews gets the review's section, saying so; the numbers stay findable.
      const en = await buildReport(a.archive, archivist, { title: "Branch 235", lang: "en", clearance: "redacted", exhibits, withdrawn, outDir: join(root, `${backend.name}-en`) });
      const ed = (await readPdfIndex(en.pdf)).dests;
      const enReview = sectionText(en.pdf, ed, "x3", "x4");
      assert.ok(enReview.includes(norm("Exhibit E-0003")));
      assert.ok(enReview.includes(norm("may not read forensic reviews")), "a hidden review says so");
      assert.ok(!enReview.includes(reviewSha), "and shows nothing of it");
      const enPhoto = sectionText(en.pdf, ed, "x2", "x3");
      assert.ok(enPhoto.includes(photoSha) && enPhoto.includes(norm(`Custody log index: ${ingestSeq} (read from the medium)`)));
      assert.ok(enPhoto.includes(norm(`${body1.ref} · photograph 1 of the body record`)));
      const enPerson = sectionText(en.pdf, ed, "x6", "annex-a");
      for (const phrase of ["Exhibit E-0006", "person of interest", "Samer al-Haddad", "سامر الحداد", "Name (Arabic script)", "commands"]) assert.ok(enPerson.includes(norm(phrase)), `English person section: ${phrase}`);
      const enAnnexC = pdfText(en.pdf, ed.get("annex-c")!);
      for (const phrase of ["Annex C: withdrawn exhibits", "E-0007", "photograph", "صورة مكررة من وسيط آخر"]) assert.ok(enAnnexC.includes(norm(phrase)), `English annex C: ${phrase}`);

      if (backend.name === "sqlite") {
        render(ar.pdf, dests.get("x2")!, "kinds-ar-photo", 60);
        render(ar.pdf, dests.get("x6")!, "kinds-ar-person", 60);
        render(en.pdf, ed.get("x3")!, "kinds-en-review-hidden", 60);
      }

      await assert.rejects(
        buildReport(a.archive, investigator, { title: "x", lang: "en", clearance: "blurred", exhibits: exhibits.slice(0, 1), withdrawn: [{ ...withdrawn[0]!, number: "E-0001" }], outDir: join(root, "no") }),
        (e: unknown) => e instanceof Invalid && /appears twice/.test(e.message),
      );
      await assert.rejects(
        buildReport(a.archive, investigator, { title: "x", lang: "en", clearance: "blurred", exhibits: [{ kind: "unit", number: "E-1", entityId: person.id }], outDir: join(root, "no") }),
        (e: unknown) => e instanceof Invalid && /is a person, not a unit/.test(e.message),
      );
    } finally {
      await a.close();
    }
  });
}
