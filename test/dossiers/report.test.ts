import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { operatorActor, type Actor } from "../../src/core/actor.ts";
import { ingestCard } from "../../src/archive/intake.ts";
import { createEntity, createLink, getBody } from "../../src/catalogue/index.ts";
import { buildReport, readPdfIndex } from "../../src/dossiers/report/index.ts";
import { catalogueDemoCard } from "../../src/dossiers/report/demo.ts";
import { Forbidden, Invalid } from "../../src/core/errors.ts";
import { backends } from "../support/backends.ts";
import { demoCard, freshArchive } from "../support/archive.ts";
import { norm, pdfText, render, reportRoot, skipBrowser } from "../support/report-pdf.ts";
import { readyUser } from "../support/accounts.ts";
import { runAuthenticity } from "../../src/authenticity/index.ts";
import { assignSample, drawReviewSample, myAssignments, submitReview } from "../../src/review/index.ts";

const actor = operatorActor();
const investigator: Actor = { kind: "user", id: "usr_inv_report", role: "investigator" };
const curator: Actor = { kind: "user", id: "usr_cur_report", role: "curator" };
const root = reportRoot("dalil-report-");
if (!process.env.DALIL_KEEP_REPORT) process.on("exit", () => rmSync(root, { recursive: true, force: true }));

for (const { backend, skip } of await backends()) {
  test(`a report in Arabic and English: cover, contents with page numbers, charts, exhibits with hashes and log indexes (${backend.name})`, { skip: skip || skipBrowser, timeout: 600_000 }, async () => {
    const { dir, truth } = await demoCard(4, false, "report");
    const a = await freshArchive(backend);
    try {
      const card = await ingestCard(a.archive, actor, { path: dir, label: "card" });
      const bodies = await catalogueDemoCard(a.archive, actor, truth);
      assert.equal(bodies.length, 4);
      // The card's authenticity analysis, for Annex D.
      await runAuthenticity(a.archive, investigator, { source: card.source, content: false });
      const branch = await createEntity(a.archive, actor, { kind: "facility", nameAr: "فرع فلسطين", nameEn: "Palestine Branch", number: "235" });
      await createLink(a.archive, actor, {
        type: "died_at",
        from: { kind: "body", id: bodies[0]!.bodyId },
        to: { kind: "entity", id: branch.id },
        evidence: [{ kind: "photo", ref: bodies[0]!.photos[0]! }],
        reasoning: "رقم الفرع مكتوب على البطاقة في الصورة",
      });
      // A forensic review of every body, so the exhibits carry signed findings with their log index.
      const reviewer = await readyUser(a.archive, "forensic_reviewer");
      const sample = await drawReviewSample(a.archive, investigator, { size: 4, seed: "report", doubleShare: 0 });
      await assignSample(a.archive, investigator, { sampleId: sample.id, reviewers: [reviewer.id] });
      for (const asg of await myAssignments(a.archive, reviewer.actor)) {
        await submitReview(a.archive, reviewer.actor, { assignmentId: asg.id, findings: [{ code: "burn_electrical", confidence: "probable" }], notes: "حروق على الكاحلين" });
      }
      const exhibits = bodies.map((b, i) => ({
        number: `E-${String(i + 1).padStart(4, "0")}`,
        bodyId: b.bodyId,
        reasoning: i === 0 ? ["الرقم 235 على البطاقة يربط هذه الجثة بفرع فلسطين."] : undefined,
      }));
      exhibits[1] = { ...exhibits[1]!, photos: [bodies[1]!.photos[0]!] } as (typeof exhibits)[number];

      const progress: [number, number][] = [];
      const ar = await buildReport(a.archive, investigator, {
        title: "ملف الفرع 235",
        subtitle: "تقرير الأدلة",
        lang: "ar",
        clearance: "blurred",
        dossier: { id: "dos_test", version: 1 },
        exhibits,
        outDir: join(root, `${backend.name}-ar`),
        onProgress: (d, t) => progress.push([d, t]),
      });
      assert.deepEqual(progress.at(-1), [6, 6], "every exhibit and both prints reported");
      assert.ok(progress.every(([d], i) => d === i + 1));
      // Cover, contents, method, statistics, 4 exhibits, 2 annexes at least; not runaway pagination.
      assert.ok(ar.pages >= 10 && ar.pages <= 20, `pages: ${ar.pages}`);
      assert.equal((await readPdfIndex(ar.pdf)).pages, ar.pages);
      const imgs = readdirSync(join(root, `${backend.name}-ar`, "img"));
      const photoCount = bodies.reduce((s, b) => s + b.photos.length, 0) - bodies[1]!.photos.length + 1;
      assert.equal(imgs.length, photoCount, "one image file per printed photo, not data URLs");
      assert.doesNotMatch(readFileSync(ar.html, "utf8"), /data:image/);

      const text = pdfText(ar.pdf);
      for (const phrase of ["ملف الفرع 235", "المحتويات", "المنهجية", "سجل الحفظ", "الإحصاءات", "بحسب رقم الفرع", "حروق كهربائية", "حروق على الكاحلين", "الرقم 235 على البطاقة يربط هذه الجثة بفرع فلسطين.", "فرع فلسطين", "الملحق أ: نقطة التحقق الموقّعة لسجل الحفظ", "الملحق د: أصالة الصور", "لا نتيجة فوق مستوى المعلومة."]) {
        assert.ok(text.includes(norm(phrase)), `Arabic phrase in logical order: ${phrase}`);
      }
      for (const e of exhibits) assert.ok(text.includes(e.number), e.number);
      for (const b of bodies) {
        const body = await getBody(a.archive, actor, b.bodyId);
        assert.ok(text.includes(body.ref));
      }
      for (const sha of bodies.flatMap((b, i) => (i === 1 ? [b.photos[0]!] : b.photos))) assert.ok(text.includes(sha), `SHA-256 ${sha} printed`);
      assert.ok(!text.includes(bodies[1]!.photos[1]!), "a photo left out of an exhibit is not printed");
      const ingestSeq = (await a.archive.log.eventsFor(bodies[0]!.photos[0]!)).find((e) => e.event.type === "ingestion")!.seq;
      assert.ok(text.includes(norm("رقم الفهرس في سجل الحفظ")));
      const checkpointLine = a.archive.tree.origin;
      assert.ok(text.includes(checkpointLine), "the checkpoint's origin line in the annex");

      // The contents' page numbers point where the sections really are.
      const { dests } = await readPdfIndex(ar.pdf);
      const exPage = dests.get("x1")!;
      assert.ok(exPage > 4);
      assert.ok(pdfText(ar.pdf, exPage).includes("E-0001"));
      assert.ok(pdfText(ar.pdf, dests.get("x1")! - 1).length > 0);
      const contentsPage = pdfText(ar.pdf, 2);
      assert.ok(contentsPage.includes(`E-0001·`), "the contents list the exhibits");
      assert.ok(contentsPage.includes(`${exPage}`), "with the page the first exhibit is on");

      const en = await buildReport(a.archive, investigator, { title: "Branch 235 dossier", lang: "en", clearance: "redacted", exhibits: exhibits.slice(0, 2), outDir: join(root, `${backend.name}-en`) });
      const etext = pdfText(en.pdf);
      for (const phrase of ["Branch 235 dossier", "Contents", "How a stranger verifies this report", "By finding", "Exhibit E-0002", "Annex B", "Electrical burns (probable)", "Annex D: authenticity of the photographs", "No finding above information."]) assert.ok(etext.includes(norm(phrase)), phrase);
      assert.ok(etext.includes(norm(`Custody log index: ${ingestSeq} (read from the medium)`)), "the ingestion event's log index");
      // On a left-to-right page poppler orders the runs of a mixed line left to right (the number lands before the
      // words around it); each Arabic run still reads back in logical order, which is what is checked here.
      for (const run of ["على البطاقة يربط هذه الجثة بفرع فلسطين", "رقم الفرع مكتوب على البطاقة في الصورة", "حروق على الكاحلين"]) {
        assert.ok(etext.includes(norm(run)), `Arabic inside the English report: ${run}`);
      }
      assert.ok(en.pages >= 7 && en.pages < ar.pages);

      if (backend.name === "sqlite") {
        const p1 = render(ar.pdf, 1, "ar-cover");
        render(ar.pdf, 2, "ar-contents");
        render(ar.pdf, dests.get("statistics")!, "ar-statistics");
        render(ar.pdf, exPage, "ar-exhibit");
        render(en.pdf, (await readPdfIndex(en.pdf)).dests.get("x1")!, "en-exhibit");
        render(en.pdf, 3, "en-method");
        render(ar.pdf, dests.get("annex-d")!, "ar-annex-d");
        render(en.pdf, (await readPdfIndex(en.pdf)).dests.get("annex-d")!, "en-annex-d");
        assert.ok(existsSync(p1));
      }

      await assert.rejects(buildReport(a.archive, curator, { title: "x", lang: "en", clearance: "original", exhibits: exhibits.slice(0, 1), outDir: join(root, "no") }), Forbidden);
      await assert.rejects(buildReport(a.archive, investigator, { title: "x", lang: "en", clearance: "blurred", exhibits: [], outDir: join(root, "no") }), Invalid);
      await assert.rejects(
        buildReport(a.archive, investigator, { title: "x", lang: "en", clearance: "blurred", exhibits: [{ number: "E-1", bodyId: bodies[0]!.bodyId, photos: [bodies[1]!.photos[0]!] }], outDir: join(root, "no") }),
        (e: unknown) => e instanceof Invalid && /not one of the photos/.test(e.message),
      );
    } finally {
      await a.close();
    }
  });
}
