import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/core/config.ts";
import { openArchive } from "../../src/app/open-archive.ts";
import type { Actor } from "../../src/core/actor.ts";
import { addItem, addRegion, approveExhibition, createExhibition, publishExhibition, reviewItem, showExhibition, submitExhibition } from "../../src/exhibitions/index.ts";
import { ensureWebBuilt } from "../../web/ensure-built.mjs";
import { ensureAccounts } from "../support/archive.ts";
import { seedPhoto } from "../support/casework.ts";
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
