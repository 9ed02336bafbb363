import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { loadConfig } from "../../src/core/config.ts";
import { openArchive } from "../../src/app/open-archive.ts";
import type { Actor } from "../../src/core/actor.ts";
import { addItem, addRegion, approveExhibition, createExhibition, publishExhibition, reviewItem, showExhibition, submitExhibition } from "../../src/exhibitions/index.ts";
import { ensureWebBuilt } from "../../web/ensure-built.mjs";
import { ensureAccounts } from "../support/archive.ts";
import { fullSession, readyUser } from "../support/accounts.ts";
import { seedPhoto, storeOriginal } from "../support/casework.ts";
import { browserSkip, expectNoAxeViolations, openBrowser, shot, startDalil, type DalilServer } from "../support/browser.ts";

/**
 * A visitor in Chromium, in English and in Arabic: the door page warns first; inside, every image waits behind a
 * choice (not even fetched before it), graphic items say what they show; the text-only page has no image; Arabic
 * pages are right-to-left; axe finds nothing serious on any of them. (The curators' screens are not built yet.)
 */
const skip = browserSkip();
const author: Actor = { kind: "user", id: "usr_curator_e2e_a", role: "curator" };
const second: Actor = { kind: "user", id: "usr_curator_e2e_b", role: "curator" };

test("a visitor passes the warnings and sees each image only after choosing to, in English and in Arabic", { skip, timeout: 300_000 }, async (t) => {
  ensureWebBuilt({ quiet: true });
  const work = mkdtempSync(join(tmpdir(), "dalil-e2e-exh-"));
  const dataDir = join(work, "data");
  let server: DalilServer | null = null;
  try {
    const archive = await openArchive(loadConfig({ data: dataDir }, {}));
    try {
      await ensureAccounts(archive, [author, second]);
      const p1 = await seedPhoto(archive, 21);
      const p2 = await seedPhoto(archive, 22);
      const ex = await createExhibition(archive, author, { title: { ar: "بعناية", en: "With care" }, statement: { ar: "بيان المعرض.", en: "The exhibition's statement." }, languages: ["ar", "en"] });
      await addItem(archive, author, { exhibition: ex.id, kind: "text", caption: { ar: "لوحة نصية.", en: "A text panel." } });
      const i1 = await addItem(archive, author, { exhibition: ex.id, kind: "photo", sha256: p1, caption: { ar: "صورة أولى", en: "First photograph" } });
      await addRegion(archive, author, { item: i1.id, layer: "faces", x: 110, y: 40, w: 180, h: 220 });
      const i2 = await addItem(archive, author, { exhibition: ex.id, kind: "photo", sha256: p2, caption: { ar: "ظلّ", en: "Silhouette" }, layers: { everything: "silhouette" } });
      await addRegion(archive, author, { item: i2.id, layer: "everything", x: 100, y: 30, w: 200, h: 240 });
      await submitExhibition(archive, author, ex.id);
      for (const it of (await showExhibition(archive, second, ex.id)).items) await reviewItem(archive, second, { item: it.id });
      await approveExhibition(archive, second, ex.id);
      await publishExhibition(archive, second, ex.id);
    } finally {
      await archive.close();
    }
    server = await startDalil(dataDir);
    for (const [lang, enter, show, warning] of [
      ["en", "Enter the exhibition", "Show the image", "Content warning"],
      ["ar", "الدخول إلى المعرض", "اعرض الصورة", "تنبيه بشأن المحتوى"],
    ] as const) {
      await t.test(lang, async () => {
        const b = await openBrowser({ locale: lang === "ar" ? "ar" : "en-GB" });
        try {
          const images: string[] = [];
          b.page.on("request", (r) => {
            if (r.url().includes("/images/")) images.push(r.url());
          });
          await b.page.goto(`${server!.url}/exhibitions/X-0001/`);
          assert.ok(await b.page.getByRole("heading", { name: warning }).first().isVisible(), "the warning is on the door");
          await expectNoAxeViolations(b.page, `exhibition door (${lang})`);
          await b.page.locator(`section[lang="${lang}"]`).getByRole("link", { name: enter }).click();
          await b.page.waitForURL(`**/exhibitions/X-0001/${lang}.html`);
          assert.equal(await b.page.evaluate("document.documentElement.dir"), lang === "ar" ? "rtl" : "ltr");
          assert.ok(await b.page.getByText(warning).first().isVisible());
          assert.equal(await b.page.locator("img").count(), 2);
          assert.equal(await b.page.locator("img:visible").count(), 0, "no image shows before the visitor chooses");
          assert.deepEqual(images, [], "no image is even fetched before the visitor chooses");
          await expectNoAxeViolations(b.page, `exhibition page (${lang})`);
          await shot(b.page, `exhibition-${lang}-closed`);
          await b.page.getByText(show).first().click();
          await b.page.locator("img").first().waitFor({ state: "visible" });
          assert.equal(await b.page.locator("img:visible").count(), 1, "only the image chosen shows");
          assert.equal(images.length, 1);
          await expectNoAxeViolations(b.page, `exhibition page with an image open (${lang})`);
          await shot(b.page, `exhibition-${lang}-open`);
          await b.page.goto(`${server!.url}/exhibitions/X-0001/${lang}-text.html`);
          assert.equal(await b.page.locator("img").count(), 0, "the text-only page holds no image");
          await expectNoAxeViolations(b.page, `exhibition text-only page (${lang})`);
          assert.deepEqual(b.problems, []);
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

test("two curators build, redact (a region drawn on the image and faces suggested by the detector), review and publish an exhibition in the web app, in English and in Arabic", { skip, timeout: 300_000 }, async (t) => {
  ensureWebBuilt({ quiet: true });
  const work = mkdtempSync(join(tmpdir(), "dalil-e2e-curate-"));
  const dataDir = join(work, "data");
  let server: DalilServer | null = null;
  const photos: string[] = [];
  const tokens: string[] = [];
  try {
    const archive = await openArchive(loadConfig({ data: dataDir }, {}));
    try {
      photos.push(await seedPhoto(archive, 31), await seedPhoto(archive, 32));
      // A photograph of living people that ships with the face detector's package (never a victim's).
      const sample = join(dirname(createRequire(import.meta.url).resolve("@vladmandic/face-api/package.json")), "demo", "sample1.jpg");
      photos.push(await storeOriginal(archive, readFileSync(sample), { width: 1920, height: 1280 }, "src_faces"));
      for (const email of ["curator-a@example.org", "curator-b@example.org"]) tokens.push((await fullSession(archive, (await readyUser(archive, "curator", email)).id)).token);
    } finally {
      await archive.close();
    }
    server = await startDalil(dataDir);
    const base = server.url;
    for (const [i, lang] of (["en", "ar"] as const).entries()) {
      await t.test(lang, async () => {
        const words = lang === "en"
          ? { create: "Create the exhibition", add: "Add the item", show: "Show the image as published", submit: "Submit for review", confirm: "Confirm this item as it stands", approve: "Approve", publish: "Publish", published: "Published", open: "Open the public exhibition", edit: "Change the captions", save: "Save the captions", look: "Look for faces", accept: "Accept (hide this face)", discard: "Discard", editWords: "Change the title and statement", saveWords: "Save the title and statement", enter: "Enter the exhibition" }
          : { create: "إنشاء المعرض", add: "إضافة العنصر", show: "عرض الصورة كما ستُنشر", submit: "إرسال للمراجعة", confirm: "تأكيد هذا العنصر بحالته الحالية", approve: "اعتماد", publish: "نشر", published: "منشور", open: "فتح المعرض العام", edit: "تعديل التعليقات", save: "حفظ التعليقات", look: "ابحث عن الوجوه", accept: "اقبل (أخفِ هذا الوجه)", discard: "استبعد", editWords: "تعديل العنوان والبيان", saveWords: "حفظ العنوان والبيان", enter: "الدخول إلى المعرض" };
        const ref = `X-000${i + 1}`;
        const a = await openBrowser({ locale: lang === "ar" ? "ar-SY" : "en-GB" });
        try {
          await a.context.addCookies([{ name: "dalil_session", value: tokens[0]!, url: base, httpOnly: true, sameSite: "Strict" }]);
          await a.page.goto(`${base}/exhibitions-work`);
          await a.page.locator("[data-testid=exhibition-create]").waitFor();
          await expectNoAxeViolations(a.page, `exhibitions list (${lang})`);
          await a.page.fill("#exh-title-ar", "معرض تجريبي");
          await a.page.fill("#exh-title-en", "A trial exhibition");
          await a.page.getByRole("button", { name: words.create }).click();
          await a.page.waitForURL(`**/exhibitions-work/${ref}`);
          await a.page.fill("#exh-ref", photos[i]!);
          await a.page.fill("#exh-cap-en", "A photograph");
          await a.page.fill("#exh-cap-ar", "صورة");
          await a.page.getByRole("button", { name: words.add }).click();
          await a.page.locator("[data-testid=exhibition-item]").first().waitFor();
          await a.page.getByRole("button", { name: words.show }).click();
          const img = a.page.locator(".exh-canvas img");
          await img.waitFor({ state: "visible" });
          await a.page.waitForTimeout(300);
          const box = (await img.boundingBox())!;
          await a.page.mouse.move(box.x + box.width * 0.3, box.y + box.height * 0.2);
          await a.page.mouse.down();
          await a.page.mouse.move(box.x + box.width * 0.7, box.y + box.height * 0.8, { steps: 5 });
          await a.page.mouse.up();
          await a.page.locator(".exh-regions li").first().waitFor();
          await a.page.getByRole("button", { name: words.edit }).click();
          await a.page.locator("textarea[id^=cap-en-]").fill("A photograph, recaptioned");
          await expectNoAxeViolations(a.page, `exhibition draft, captions being changed (${lang})`);
          await a.page.getByRole("button", { name: words.save }).click();
          await a.page.getByText("A photograph, recaptioned").waitFor();
          await expectNoAxeViolations(a.page, `exhibition draft with a region (${lang})`);
          await shot(a.page, `exhibition-curate-${lang}`);

          // A photograph with faces: the detector's suggestions appear apart (dashed), one accepted, the rest discarded.
          await a.page.fill("#exh-ref", photos[2]!);
          await a.page.fill("#exh-cap-en", "People");
          await a.page.getByRole("button", { name: words.add }).click();
          const faces = a.page.locator("[data-testid=exhibition-item]").nth(1);
          await faces.waitFor();
          await faces.getByRole("button", { name: words.show }).click();
          await faces.locator(".exh-canvas img").waitFor({ state: "visible" });
          await faces.getByRole("button", { name: words.look }).click();
          await faces.locator("[data-testid=face-suggestions]").waitFor({ timeout: 120_000 });
          await faces.locator("[data-testid=face-suggestion-box]").first().waitFor();
          const suggested = await faces.locator("[data-testid=face-suggestion-box]").count();
          assert.ok(suggested >= 3, `${suggested} faces suggested`);
          await expectNoAxeViolations(a.page, `exhibition draft with suggested faces (${lang})`);
          await shot(a.page, `exhibition-suggestions-${lang}`);
          await faces.getByRole("button", { name: words.accept }).first().click();
          await faces.locator(".exh-regions li").first().waitFor();
          for (let left = suggested - 1; left > 0; left--) {
            await faces.getByRole("button", { name: words.discard }).first().click();
            for (let n = 0; n < 100 && (await faces.locator("[data-testid=face-suggestion-box]").count()) >= left; n++) await a.page.waitForTimeout(100);
          }
          await faces.locator("[data-testid=face-suggestions]").waitFor({ state: "detached" });

          // The statement written on the page; a chart of the archive's figures added (its numbers frozen at the review).
          await a.page.getByRole("button", { name: words.editWords }).click();
          await a.page.fill("#exh-edit-st-en", "The statement, written on the page.");
          await a.page.getByRole("button", { name: words.saveWords }).click();
          await a.page.getByText("The statement, written on the page.").waitFor();
          await a.page.selectOption("#exh-kind", "chart");
          await a.page.selectOption("#exh-chart", "byPhotoMonth");
          await a.page.fill("#exh-cap-en", "Bodies by month");
          await a.page.getByRole("button", { name: words.add }).click();
          await a.page.locator("[data-testid=exhibition-item]").nth(2).waitFor();
          await expectNoAxeViolations(a.page, `exhibition draft with a chart (${lang})`);
          await a.page.getByRole("button", { name: words.submit }).click();
          await a.page.getByRole("button", { name: words.submit }).waitFor({ state: "detached" });
        } finally {
          await a.close();
        }
        const b = await openBrowser({ locale: lang === "ar" ? "ar-SY" : "en-GB" });
        try {
          await b.context.addCookies([{ name: "dalil_session", value: tokens[1]!, url: base, httpOnly: true, sameSite: "Strict" }]);
          await b.page.goto(`${base}/exhibitions-work/${ref}`);
          const confirm = b.page.getByRole("button", { name: words.confirm });
          await confirm.first().waitFor();
          for (let left = await confirm.count(); left > 0; left--) {
            await confirm.first().click();
            for (let n = 0; n < 100 && (await confirm.count()) >= left; n++) await b.page.waitForTimeout(100);
          }
          await confirm.first().waitFor({ state: "detached" });
          await expectNoAxeViolations(b.page, `exhibition in review (${lang})`);
          await b.page.getByRole("button", { name: words.approve, exact: true }).click();
          await b.page.getByRole("button", { name: words.publish, exact: true }).click();
          await b.page.locator("[data-testid=exhibition-status] strong", { hasText: words.published }).waitFor();
          assert.deepEqual(b.problems, []);
          await b.page.getByRole("link", { name: words.open }).click();
          await b.page.waitForURL(`**/exhibitions/${ref}/`);
          await expectNoAxeViolations(b.page, `public door of the exhibition made in ${lang}`);
          await b.page.getByRole("link", { name: words.enter }).first().click();
          await b.page.locator("section.chart svg[role=img] title").waitFor({ state: "attached" });
          await expectNoAxeViolations(b.page, `public exhibition with a chart made in ${lang}`);
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
