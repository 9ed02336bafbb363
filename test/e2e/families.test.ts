import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { loadConfig } from "../../src/core/config.ts";
import { openArchive } from "../../src/app/open-archive.ts";
import type { Archive } from "../../src/app/context.ts";
import { operatorActor, type Actor } from "../../src/core/actor.ts";
import { addUser } from "../../src/access/index.ts";
import { issueSession } from "../../src/access/sessions.ts";
import { ingestCard } from "../../src/archive/intake.ts";
import { writeDemoCard, type DemoCardTruth } from "../../src/archive/demo-card/index.ts";
import { acceptProposals, listProposals, readBodies, runProposals, type CatalogueEngine } from "../../src/catalogue/index.ts";
import { createReport, rerank } from "../../src/families/index.ts";
import { linkMember } from "../../src/families/members.ts";
import { ensureWebBuilt } from "../../web/ensure-built.mjs";
import { FAMILIES_ENDPOINTS } from "../../web/src/api/endpoints/families.ts";
import { expectNoAxeViolations, missingEndpoints, browserSkip, openBrowser, shot, startDalil, waitForExpression, type DalilServer } from "../support/browser.ts";

/**
 * The families screens in Chromium against a real `dalil serve`, in English and in Arabic. At the console: a
 * demo card taken in and grouped into bodies, one report per language filed through the archive's use case
 * (carrying a body's detainee number, so that body ranks first), a family member linked to it. In the browser a
 * caseworker opens the report, reads the candidates' evidence (no photograph), records a decision, looks at what
 * the family will see and sends the words, records the family's consent to a DNA referral and a referral against
 * the first candidate; then the family member signs in and sees those words only: no candidate, no score, no
 * body reference, nothing of the referral. The caseworker then withdraws the last disclosure with a reason and a
 * note; the family sees it gone and, instead, what was taken back and why, in their language. Every screen
 * passes axe-core with no serious or critical violation;
 * screenshots go to test-artifacts/e2e/families-*.
 */
const skip = browserSkip();
const WAIT = { timeout: 60_000 };

interface Lang {
  code: "en" | "ar";
  locale: string;
  reason: string;
  message: string;
}
const ALL_LANGS: Lang[] = [
  { code: "en", locale: "en-GB", reason: "detainee number and period agree", message: "We would like to meet you to talk about your son. Please call us when you are ready." },
  { code: "ar", locale: "ar-SY", reason: "رقم المعتقل والفترة متطابقان", message: "نودّ أن نلتقي بكم للحديث عن ابنكم. نرجو أن تتصلوا بنا حين تكونون مستعدّين." },
];
const FACE_MESSAGE = "This is the face, blurred. Take your time; we can talk whenever you wish.";
const ONLY = process.env.DALIL_E2E_LANG;
const LANGS = ONLY ? ALL_LANGS.filter((l) => l.code === ONLY) : ALL_LANGS;

/** Groups the card by its truth and reads each card's numbers from it: the screens are under test, not the OCR. */
function truthGrouping(truth: DemoCardTruth): CatalogueEngine {
  const bodyOf = new Map(truth.photos.map((p) => [p.sha256, p.body] as const));
  const byRef = new Map(truth.bodies.map((b) => [b.ref, b]));
  return {
    readerName: "truth.json",
    async readCard(_img, sha) {
      const b = byRef.get(bodyOf.get(sha) ?? "");
      return b ? [{ role: "detainee", value: b.detainee_no, confidence: 0.97 }] : [];
    },
    group(photos) {
      const groups = new Map<string, typeof photos>();
      for (const p of photos) groups.set(bodyOf.get(p.sha256) ?? p.sha256, [...(groups.get(bodyOf.get(p.sha256) ?? p.sha256) ?? []), p]);
      return [...groups.values()].map((ps) => ({
        photos: ps.map((p) => p.sha256),
        // the second photo of each body is marked as showing the face: the blurred face is cropped from it only
        roles: { [ps[0]!.sha256]: "card", ...(ps[1] ? { [ps[1].sha256]: "face" } : {}) },
        numbers: ps[0]!.readings.map((r) => ({ ...r, photo: ps[0]!.sha256 })),
        reasons: [{ code: "truth", text: "the demo card's truth" }],
        score: 0.9,
      }));
    },
    async close() {},
  };
}

async function user(a: Archive, email: string, role: "family_caseworker" | "family_member"): Promise<{ actor: Actor; token: string }> {
  const { user: u } = await addUser(a, operatorActor(), { email, role });
  const session = await a.db.transaction((tx) => issueSession(tx, a.clock, u.id, "full"));
  return { actor: { kind: "user", id: u.id, role }, token: session.token };
}

async function imagesLoaded(page: Page, selector: string): Promise<void> {
  await waitForExpression(page, `[...document.querySelectorAll(${JSON.stringify(selector)})].length > 0 && [...document.querySelectorAll(${JSON.stringify(selector)})].every((i) => i.complete && i.naturalWidth > 0)`, 60_000);
}


/** What a caseworker writes the family when taking something back, and the reason as the portal words it. */
const WITHDRAW_NOTE: Record<string, string> = { en: "We will call you tomorrow to explain.", ar: "سنتصل بك غدًا لنشرح لك." };
/** The referral's words as the page shows them, and the laboratory typed. */
const LAB_WORDS: Record<string, { add: string; sent: string; lab: string }> = {
  en: { add: "Record a referral", sent: "Sent to the laboratory", lab: "Forensic genetics laboratory" },
  ar: { add: "تسجيل إحالة", sent: "أُرسلت إلى المختبر", lab: "مختبر الوراثة الجنائية" },
};
const WITHDRAWN_WHY: Record<string, string> = { en: "We are no longer sure it concerns your relative.", ar: "لم نعد متأكدين من أنها تخصّ قريبك." };

test("the families screens in Chromium: a caseworker decides and discloses in words, the family sees only that; in English and in Arabic", { skip, timeout: 600_000 }, async (t) => {
  ensureWebBuilt({ quiet: true });
  const work = mkdtempSync(join(tmpdir(), "dalil-e2e-families-"));
  const dataDir = join(work, "data");
  const card = join(work, "card");
  let server: DalilServer | null = null;
  const cases = new Map<string, { ref: string; caseworker: string; family: string }>();
  const bodyRefs: string[] = [];
  try {
    const started = Date.now();
    const archive = await openArchive(loadConfig({ data: dataDir }, {}));
    try {
      await writeDemoCard(card, { bodies: 3, seed: "families-e2e", withFaults: false });
      const truth = JSON.parse(readFileSync(join(card, "truth.json"), "utf8")) as DemoCardTruth;
      const inv = await addUser(archive, operatorActor(), { email: "investigator@example.org", role: "investigator" });
      const investigator: Actor = { kind: "user", id: inv.user.id, role: "investigator" };
      const s = await ingestCard(archive, operatorActor(), { path: card, label: "demo card (families e2e)" });
      await runProposals(archive, investigator, { sourceId: s.source, engine: truthGrouping(truth) });
      const proposed = await listProposals(archive, investigator, { sourceId: s.source, status: "proposed" });
      const bodies = await acceptProposals(archive, investigator, { proposalIds: proposed.items.map((p) => p.id) });
      assert.equal(bodies.bodies.length, 3, "one body per body on the card");
      bodyRefs.push(...(await readBodies(archive, investigator, {})).items.map((x) => x.ref));
      for (const [i, l] of ALL_LANGS.entries()) {
        const cw = await user(archive, `caseworker-${l.code}@example.org`, "family_caseworker");
        const fam = await user(archive, `mother-${l.code}@example.org`, "family_member");
        const body = truth.bodies[i]!;
        const report = await createReport(archive, cw.actor, {
          nameAr: l.code === "ar" ? "محمد أحمد الخطيب" : "خالد سمير النجار",
          nameLat: l.code === "ar" ? "Mohammad Ahmad al-Khatib" : "Khaled Samir al-Najjar",
          sex: body.sex,
          birthDate: "1985",
          arrestDate: String(Number(body.photo_date.slice(0, 4)) - 1),
          numbers: [{ role: "detainee", value: body.detainee_no }],
          reporterRelationship: "mother",
        });
        await linkMember(archive, cw.actor, { report: report.ref, userId: fam.actor.id, relationship: "mother" });
        await rerank(archive, cw.actor, { reportId: report.id });
        cases.set(l.code, { ref: report.ref, caseworker: cw.token, family: fam.token });
      }
    } finally {
      await archive.close();
    }
    console.log(`families e2e: archive set up (card of 3 bodies grouped, 2 reports ranked) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    server = await startDalil(dataDir);
    const base = server.url;

    await t.test("every families route the web app calls exists in the server's route table", async () => {
      assert.deepEqual(await missingEndpoints(base, FAMILIES_ENDPOINTS), []);
    });

    for (const l of LANGS) {
      await t.test(`${l.code}: reports → report → candidates → decision → disclosure in words; the family's portal`, async () => {
        const langStarted = Date.now();
        const c = cases.get(l.code)!;
        const b = await openBrowser({ locale: l.locale });
        const { page } = b;
        page.setDefaultTimeout(60_000);
        const p = (n: string) => `families-${l.code}-${n}`;
        try {
          // The caseworker: the reports list, then the report.
          await b.context.addCookies([{ name: "dalil_session", value: c.caseworker, url: base }]);
          await page.goto(`${base}/families/reports`);
          await page.locator("[data-testid=family-reports] tbody tr").first().waitFor(WAIT);
          assert.equal(await page.evaluate(`document.documentElement.dir`), l.code === "ar" ? "rtl" : "ltr");
          await expectNoAxeViolations(page, "reports list");
          await shot(page, p("01-reports"));

          await page.locator(`[data-testid=family-reports] a[data-ref="${c.ref}"]`).click();
          await page.waitForURL(/\/families\/reports\/[^/]+$/, WAIT);
          const first = page.locator("article.fam-candidate").first();
          await first.waitFor(WAIT);
          const firstRef = (await first.locator("h3 a").textContent())!.trim();
          assert.ok(bodyRefs.includes(firstRef), `a body ranks first (${firstRef})`);
          assert.ok((await first.locator("[data-testid=evidence] li").count()) > 0, "evidence in words");
          assert.equal(await first.locator("[data-testid=evidence] li[data-feature=numbers]").count(), 1, "the detainee number is part of the evidence");
          assert.equal(await page.locator("[data-testid=candidates] img").count(), 0, "no photograph among the candidates");
          await expectNoAxeViolations(page, "report with candidates");
          await shot(page, p("02-report"));

          // A decision, then the words, previewed before they are sent.
          await first.locator("select[id^=decide-status-]").selectOption("probable");
          await first.locator("textarea[id^=decide-reason-]").fill(l.reason);
          await first.locator("[data-testid=decide-form] button[type=submit]").click();
          await first.locator("[data-testid=decision][data-status=probable]").waitFor(WAIT);
          const form = first.locator("[data-testid=disclose-form][data-stage=text]");
          await form.waitFor(WAIT);
          await form.locator("textarea").fill(l.message);
          await form.locator("input[id$=-consent]").fill(l.code === "ar" ? "بالهاتف" : "by phone");
          await form.locator("input[id$=-reason]").fill(l.reason);
          await form.locator("[data-testid=preview-disclosure]").click();
          const preview = form.locator("[data-testid=disclosure-preview]");
          await preview.waitFor(WAIT);
          assert.ok((await preview.textContent())!.includes(l.message), "the preview shows the words as the family will read them");
          await expectNoAxeViolations(page, "disclosure preview");
          await shot(page, p("03-preview"));
          await preview.locator("[data-testid=send-disclosure]").click();
          await page.locator("[data-testid=disclosures] li[data-stage=text]").waitFor(WAIT);
          await expectNoAxeViolations(page, "report after disclosure");
          await shot(page, p("04-disclosed"));

          // A DNA referral: refused until the family consents to one, then recorded against the first candidate.
          const referrals = page.locator("[data-testid=referrals]");
          assert.equal(await referrals.locator("button", { hasText: LAB_WORDS[l.code]!.add }).count(), 0, "no referral without the family's consent");
          await page.locator("[data-testid=consent] li[data-tier=dnaReferral] button").click();
          await page.locator("[data-testid=consent] li[data-tier=dnaReferral][data-given=true]").waitFor(WAIT);
          await referrals.locator("button", { hasText: LAB_WORDS[l.code]!.add }).click();
          const rf = referrals.locator("[data-testid=referral-form]");
          await rf.locator("input[id$=-bodyId]").fill(firstRef);
          await rf.locator("select[id$=-status]").selectOption("sent");
          await rf.locator("input[id$=-sampleFrom]").fill(l.code === "ar" ? "الأم" : "mother");
          await rf.locator("input[id$=-lab]").fill(LAB_WORDS[l.code]!.lab);
          await rf.locator("input[id$=-labRef]").fill("LAB-2026-0042");
          await rf.locator("button[type=submit]").click();
          const sent = referrals.locator("li[data-status=sent]");
          await sent.waitFor(WAIT);
          assert.ok((await sent.textContent())!.includes(firstRef) && (await sent.textContent())!.includes("LAB-2026-0042"), "the referral with its body and the laboratory's reference");
          assert.ok((await sent.textContent())!.includes(LAB_WORDS[l.code]!.sent), "the status in the page's language");
          await expectNoAxeViolations(page, "report with a DNA referral");
          await shot(page, p("04a-referral"));

          if (l.code === "en") {
            // English goes one stage further: the family's consent to see photographs, then the blurred face.
            await page.locator("[data-testid=consent] li[data-tier=viewingPhotos] button").click();
            await page.locator("[data-testid=consent] li[data-tier=viewingPhotos][data-given=true]").waitFor(WAIT);
            const face = first.locator("[data-testid=disclose-form][data-stage=blurred_face]");
            await face.waitFor(WAIT);
            await face.locator("textarea").fill(FACE_MESSAGE);
            await face.locator("input[id$=-consent]").fill("in person");
            await face.locator("input[id$=-reason]").fill(l.reason);
            // the caseworker places the square around the face on the photo marked as showing it
            await imagesLoaded(page, "[data-testid=face-chooser] img");
            await face.locator("[data-testid=face-size]").fill("0.5");
            await face.locator("[data-testid=face-cy]").fill("0.4");
            assert.equal(await face.locator("[data-testid=face-chooser] .fam-face-box").count(), 1, "the square is drawn over the photo");
            await expectNoAxeViolations(page, "choosing the face");
            await shot(page, p("04a-face-chooser"));
            await face.locator("[data-testid=preview-disclosure]").click();
            await face.locator("[data-testid=disclosure-preview] .fam-image-placeholder").waitFor(WAIT);
            // the blurred crop itself, made by the server and stored before anything is sent
            await imagesLoaded(page, "[data-testid=disclosure-preview] img");
            const seenSrc = (await face.locator("[data-testid=disclosure-preview] img").getAttribute("src"))!;
            assert.match(seenSrc, /^\/api\/families\/face-previews\/[^/]+\/image$/);
            await face.locator("[data-testid=send-disclosure]").click();
            await imagesLoaded(page, "[data-testid=disclosures] li[data-stage=blurred_face] img");
            const sentSrc = (await page.locator("[data-testid=disclosures] li[data-stage=blurred_face] img").first().getAttribute("src"))!;
            const same = await page.evaluate(async ([x, y]) => {
              const [u, v] = (await Promise.all([x!, y!].map(async (src) => new Uint8Array(await (await fetch(src)).arrayBuffer())))) as [Uint8Array, Uint8Array];
              return u.length > 0 && u.length === v.length && u.every((b, i) => b === v[i]);
            }, [seenSrc, sentSrc]);
            assert.ok(same, "the image sent is the crop the caseworker saw, byte for byte");
            await expectNoAxeViolations(page, "report after the blurred face");
            await shot(page, p("04b-blurred-face"));
          }

          // The new-report form (looked at, not filled: the report above was filed at the console).
          await page.goto(`${base}/families/reports/new`);
          await page.locator("[data-testid=report-form]").waitFor(WAIT);
          await expectNoAxeViolations(page, "new report form");
          await shot(page, p("05-form"));

          // Flags, duplicates (a scan), and a CSV checked without saving: its bad row named.
          await page.goto(`${base}/families/flags`);
          await page.locator("#fam-flags-title").waitFor(WAIT);
          await expectNoAxeViolations(page, "flags");
          await page.goto(`${base}/families/duplicates`);
          await page.locator("#fam-dups-title").waitFor(WAIT);
          await page.locator("main .screen-head button").click();
          await page.locator("main p[role=status]").waitFor(WAIT);
          await expectNoAxeViolations(page, "duplicates");
          await shot(page, p("05b-duplicates"));
          await page.goto(`${base}/families/import`);
          const header = "ref,name_ar,name_lat,father_name,mother_name,sex,birth_year,arrest_date,arrest_governorate,branch,marks";
          await page.fill("#import-text", `${header}\nCSV-${l.code}-1,سعيد حسن العلي,,,,male,1980,,,,\nCSV-${l.code}-2,عمر خالد,,,,unknown-sex,1990,,,,\n`);
          await page.locator("main form button[type=submit]").click();
          const result = page.locator("[data-testid=import-result]");
          await result.waitFor(WAIT);
          assert.equal(await result.locator("tbody tr").count(), 1, "the one bad row is named");
          await expectNoAxeViolations(page, "CSV import");
          await shot(page, p("05c-import"));

          // The family member: only their portal; the words sent, and nothing of the ranking.
          await b.context.clearCookies();
          await b.context.addCookies([{ name: "dalil_session", value: c.family, url: base }]);
          await page.goto(`${base}/`);
          // Home first (their reports, counted), then the portal from it.
          await page.waitForURL(/\/home$/, WAIT);
          await page.locator("[data-testid=home] .work-item[data-kind=myReports] a").first().click();
          await page.waitForURL(/\/portal$/, WAIT);
          await page.locator("[data-testid=portal-reports] a").first().waitFor(WAIT);
          const menu = await page.locator("nav.menu a").evaluateAll((as) => as.map((a) => a.getAttribute("href")));
          assert.ok(!menu.some((h) => h?.startsWith("/families")), `a family member is offered no casework screen (${menu.join(", ")})`);
          await expectNoAxeViolations(page, "portal");
          await shot(page, p("06-portal"));
          await page.locator("[data-testid=portal-reports] a").first().click();
          await page.locator("[data-testid=portal-message]").first().waitFor(WAIT);
          const text = (await page.locator("main").textContent())!;
          assert.ok(text.includes(l.message), "the family reads the words sent");
          assert.equal(await page.locator("[data-testid=candidates], article.fam-candidate").count(), 0, "no candidate list");
          if (l.code === "en") {
            // the words first, then the blurred face with its own words
            await imagesLoaded(page, "main img");
            assert.deepEqual(await page.locator("[data-testid=portal-message] p[dir=auto]").allTextContents(), [l.message, FACE_MESSAGE]);
            assert.match((await page.locator("main img").getAttribute("src"))!, /^\/api\/portal\/images\//);
          } else {
            assert.equal(await page.locator("[data-testid=portal-message]").count(), 1, "the words only");
            assert.equal(await page.locator("main img").count(), 0, "no image before one is disclosed");
            // a consent is the family's to withdraw or give, at once
            const recontact = page.locator("#consent-recontact");
            await recontact.click(); // the switch follows the server: it turns on once the consent is recorded
            await page.locator("#consent-recontact:checked:not([disabled])").waitFor(WAIT);
          }
          assert.deepEqual(bodyRefs.filter((r) => text.includes(r)), [], "no body reference reaches the family");
          assert.ok(!text.includes("LAB-2026-0042") && !text.includes(LAB_WORDS[l.code]!.lab), "nothing of the DNA referral reaches the family");
          await expectNoAxeViolations(page, "portal report");
          await shot(page, p("07-portal-report"));

          // The caseworker takes the last disclosure back; the family is told what and why, in their language.
          await b.context.clearCookies();
          await b.context.addCookies([{ name: "dalil_session", value: c.caseworker, url: base }]);
          await page.goto(`${base}/families/reports/${c.ref}`);
          const standing = page.locator("[data-testid=disclosures] li[data-withdrawn=false]");
          await standing.first().waitFor(WAIT);
          const before = await standing.count();
          const last = standing.nth(before - 1);
          await last.locator("[data-testid=withdraw-open]").click();
          await last.locator("select[id$=-reason]").selectOption("decisionChanged");
          await last.locator("textarea[id$=-note]").fill(WITHDRAW_NOTE[l.code]!);
          await expectNoAxeViolations(page, "withdraw form");
          await last.locator("[data-testid=withdraw-form] button[type=submit]").click();
          await page.locator("[data-testid=disclosures] li[data-withdrawn=true] [data-testid=withdrawn-note]").waitFor(WAIT);
          assert.equal(await standing.count(), before - 1, "one disclosure withdrawn, the earlier ones stand");
          await expectNoAxeViolations(page, "report after a withdrawal");
          await shot(page, p("08-withdrawn"));
          await b.context.clearCookies();
          await b.context.addCookies([{ name: "dalil_session", value: c.family, url: base }]);
          await page.goto(`${base}/portal/reports/${c.ref}`);
          const taken = page.locator("[data-testid=portal-withdrawn]");
          await taken.waitFor(WAIT);
          const why = (await taken.textContent())!;
          assert.ok(why.includes(WITHDRAWN_WHY[l.code]!) && why.includes(WITHDRAW_NOTE[l.code]!), `the reason in the family's language and the note: ${why}`);
          if (l.code === "en") {
            assert.equal(await page.locator("main img").count(), 0, "the withdrawn image is no longer shown");
            assert.deepEqual(await page.locator("[data-testid=portal-message] p[dir=auto]").allTextContents(), [l.message], "the words stand");
          } else {
            assert.equal(await page.locator("[data-testid=portal-message]").count(), 0, "the withdrawn words are no longer shown");
            assert.ok(!(await page.locator("main").textContent())!.includes(l.message));
          }
          await expectNoAxeViolations(page, "portal after a withdrawal");
          await shot(page, p("09-portal-withdrawn"));

          await page.goto(`${base}/families/reports`);
          await page.locator("main .notice-error").waitFor(WAIT);
          assert.deepEqual(b.problems, [], "no CSP violation or page error");
          console.log(`families e2e ${l.code}: ${((Date.now() - langStarted) / 1000).toFixed(1)} s in the browser`);
        } finally {
          await b.close();
        }
      });
    }
  } finally {
    await server?.stop();
    rmSync(work, { recursive: true, force: true });
  }
});
