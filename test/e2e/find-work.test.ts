import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/core/config.ts";
import { openArchive } from "../../src/app/open-archive.ts";
import { operatorActor } from "../../src/core/actor.ts";
import { ingestCard } from "../../src/archive/intake.ts";
import { writeDemoCard } from "../../src/archive/demo-card/index.ts";
import { addExhibit, createDossier, enqueueDossierPackage, freezeDossier } from "../../src/dossiers/index.ts";
import { ensureWebBuilt } from "../../web/ensure-built.mjs";
import { fullSession, readyUser } from "../support/accounts.ts";
import { seedBodies, typed } from "../support/catalogue.ts";
import { browserSkip, expectNoAxeViolations, expectNoInternalIds, openBrowser, shot, startDalil, waitForExpression, type DalilServer } from "../support/browser.ts";

/**
 * Finding the work, in Chromium, in English and in Arabic: the gallery filtered by the body's identification (the
 * server filters); the viewer opened from that list walks it with the keyboard (the arrow mirrored in Arabic, and N
 * as the physical key on an Arabic layout, where it types ن) and links its body by reference; a body added to a new
 * dossier from its page; a search for a number shows the number that matched; the dossier page lists the package
 * built earlier with its recipient and a download named after the dossier. axe and the id check on every screen.
 */
const skip = browserSkip();
const DOSSIER = "وفيات الفرع ٢١٥";

test("find the work: gallery filters, the viewer's previous/next and body link, add to a dossier, matched numbers, packages built", { skip, timeout: 600_000 }, async (t) => {
  ensureWebBuilt({ quiet: true });
  const work = mkdtempSync(join(tmpdir(), "dalil-e2e-find-"));
  const dataDir = join(work, "data");
  const card = join(work, "card");
  let server: DalilServer | null = null;
  const tokens: Record<string, string> = {};
  let identifiedRef = "";
  let dossierId = "";
  try {
    await writeDemoCard(card, { bodies: 2, seed: "find-work-e2e", withFaults: false });
    const archive = await openArchive(loadConfig({ data: dataDir }, {}));
    try {
      await ingestCard(archive, operatorActor(), { path: card, label: "demo card (find work)" });
      const photos = (await archive.db.db.selectFrom("originals").select("sha256").where("status", "=", "preserved").where("media_kind", "=", "image").orderBy("capture_time").orderBy("sha256").execute()).map((r) => r.sha256);
      assert.ok(photos.length >= 6, `${photos.length} photos`);
      const inv = await readyUser(archive, "investigator", "find-investigator@example.org");
      const arch = await readyUser(archive, "archivist", "find-archivist@example.org");
      const [identified] = await seedBodies(archive, inv.actor, [
        { photos: photos.slice(0, 3).map((sha256) => ({ sha256 })), numbers: [{ ...typed("detainee", "248", inv.id), sourceSha256: photos[0]! }], identificationStatus: "identified" },
        { photos: photos.slice(3, 5).map((sha256) => ({ sha256 })), numbers: [typed("detainee", "5151", inv.id)] },
      ]);
      identifiedRef = identified!.ref;
      const d = await createDossier(archive, inv.actor, { name: DOSSIER });
      dossierId = d.id;
      await addExhibit(archive, inv.actor, { dossierId, kind: "photo", ref: photos[0]!, reasoning: "The card reads 248." });
      await freezeDossier(archive, inv.actor, { id: dossierId });
      await enqueueDossierPackage(archive, arch.actor, { dossierId, version: 1, recipient: "International Criminal Court", clearance: "redacted", purpose: "Case 12", report: false });
      await archive.jobs.work({ once: true });
      tokens.investigator = (await fullSession(archive, inv.id)).token;
      tokens.archivist = (await fullSession(archive, arch.id)).token;
    } finally {
      await archive.close();
    }
    server = await startDalil(dataDir);
    const base = server.url;

    for (const lang of [
      { code: "en", locale: "en-GB", forward: "ArrowRight" },
      { code: "ar", locale: "ar-SY", forward: "ArrowLeft" },
    ] as const) {
      await t.test(`${lang.code}: filter, walk, add to a dossier, matched numbers, packages`, async () => {
        const b = await openBrowser({ locale: lang.locale });
        const { page } = b;
        page.setDefaultTimeout(30_000);
        try {
          await b.context.addCookies([{ name: "dalil_session", value: tokens.investigator!, url: base, httpOnly: true, sameSite: "Strict" }]);
          // The gallery, filtered by the server: the identified body's three photographs.
          await page.goto(`${base}/gallery`);
          await page.locator("#filter-body").waitFor();
          await page.selectOption("#filter-body", "identified");
          await page.waitForURL(/\/gallery\?body=identified$/);
          await page.locator(".gallery-grid[data-total='3']").waitFor();
          await page.locator("a[data-index='0']").waitFor();
          await expectNoAxeViolations(page, "gallery filtered");
          await expectNoInternalIds(page, "gallery filtered");
          await shot(page, `find-${lang.code}-gallery`, false);

          // The viewer from that list: the arrow (mirrored in Arabic) and N on the Arabic layout walk it.
          await page.locator("a[data-index='0']").click();
          await page.waitForURL(/from=gallery&at=0&body=identified/);
          await page.locator("[data-testid=photo-next]").waitFor();
          await page.locator("body").click({ position: { x: 2, y: 2 } });
          await page.keyboard.press(lang.forward);
          await page.waitForURL(/at=1&body=identified/);
          await page.locator("[data-testid=photo-prev]").waitFor();
          await page.evaluate(`document.body.dispatchEvent(new KeyboardEvent("keydown", { key: "ن", code: "KeyN", bubbles: true }))`);
          await page.waitForURL(/at=2&body=identified/);
          await waitForExpression(page, `!document.querySelector("[data-testid=photo-next]") && !!document.querySelector("[data-testid=photo-prev]")`);
          await page.locator("[data-testid=photo-bodies] a").waitFor();
          assert.equal((await page.locator("[data-testid=photo-bodies] a").textContent())?.trim(), identifiedRef);
          await expectNoAxeViolations(page, "viewer from the gallery");
          await expectNoInternalIds(page, "viewer from the gallery");
          await shot(page, `find-${lang.code}-viewer`, false);

          // Its body, by reference; added from there to a new dossier.
          await page.locator("[data-testid=photo-bodies] a").click();
          await page.waitForURL(new RegExp(`/bodies/${identifiedRef}$`));
          await page.locator("[data-testid=add-to-dossier]").click();
          await page.locator("#atd-dossier").waitFor();
          await waitForExpression(page, `document.querySelectorAll("#atd-dossier option").length >= 2`);
          await page.selectOption("#atd-dossier", "new");
          const title = lang.code === "ar" ? `ملف ${identifiedRef}` : `Case of ${identifiedRef}`;
          await page.fill("#atd-title", title);
          await page.fill("#atd-reasoning", lang.code === "ar" ? "البطاقة تقرأ ٢٤٨." : "The card reads 248.");
          await expectNoAxeViolations(page, "add to a dossier");
          await page.locator("dialog form button[type=submit]").click();
          await page.locator(".add-to-dossier-done").waitFor();
          assert.match((await page.locator(".add-to-dossier-done").textContent())!, new RegExp(title));
          await expectNoInternalIds(page, "body added to a dossier");

          // A search for the number: the hit says which number matched.
          await page.goto(`${base}/search?q=${lang.code === "ar" ? "٢٤٨" : "248"}`);
          await page.locator("[data-testid=matched-numbers] mark").waitFor();
          assert.equal((await page.locator("[data-testid=matched-numbers] mark").first().textContent())?.trim(), "248");
          assert.equal(await page.locator("[data-testid=matched-numbers] li").first().getAttribute("data-role"), "detainee");
          await expectNoAxeViolations(page, "search with matched numbers");
          await expectNoInternalIds(page, "search with matched numbers");
          await shot(page, `find-${lang.code}-search`, false);
          assert.deepEqual(b.problems, []);
        } finally {
          await b.close();
        }

        // The archivist sees the package built earlier, and its download is named after the dossier.
        const c = await openBrowser({ locale: lang.locale });
        try {
          await c.context.addCookies([{ name: "dalil_session", value: tokens.archivist!, url: base, httpOnly: true, sameSite: "Strict" }]);
          await c.page.goto(`${base}/dossiers/${dossierId}`);
          const row = c.page.locator("[data-testid=dossier-packages] tbody tr");
          await row.first().waitFor();
          assert.match((await row.first().textContent())!, /International Criminal Court/);
          await waitForExpression(c.page, `[...document.querySelectorAll("[data-testid=dossier-packages] [data-person]")].some((e) => e.textContent.includes("find-archivist@example.org"))`);
          const href = await c.page.locator("[data-testid=package-download]").first().getAttribute("href");
          const res = await c.page.request.get(`${base}${href}`);
          assert.equal(res.status(), 200);
          assert.ok(res.headers()["content-disposition"]!.endsWith(`filename*=UTF-8''${encodeURIComponent(`${DOSSIER} - v1.tar`)}`), res.headers()["content-disposition"]);
          await expectNoAxeViolations(c.page, "dossier with its packages");
          await expectNoInternalIds(c.page, "dossier with its packages");
          await shot(c.page, `find-${lang.code}-packages`);
          assert.deepEqual(c.problems, []);
        } finally {
          await c.close();
        }
      });
    }
  } finally {
    await server?.stop();
    rmSync(work, { recursive: true, force: true });
  }
});
