import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { loadConfig } from "../../src/core/config.ts";
import { openArchive } from "../../src/app/open-archive.ts";
import { operatorActor } from "../../src/core/actor.ts";
import { addUser } from "../../src/access/index.ts";
import { verifyArchive } from "../../src/app/verify.ts";
import { writeDemoCard } from "../../src/archive/demo-card/index.ts";
import { ENDPOINTS } from "../../web/src/api/endpoints.ts";
import { ensureWebBuilt } from "../../web/ensure-built.mjs";
import { expectNoAxeViolations, missingEndpoints, browserSkip, openBrowser, shot, startDalil, totp, waitForExpression, zipFolder, type DalilServer } from "../support/browser.ts";

/**
 * The web app end to end, in Debian's Chromium against a real `dalil serve`: in English and in Arabic, a new
 * administrator signs in (one-time password → own password → authenticator app by QR code → recovery codes),
 * signs out and in again with a TOTP code, takes in a demo card through the page (a folder in English, a .zip
 * in Arabic), sees the tally with quarantine reasons, opens a photograph (blurred), checks its inclusion proof
 * in the page, reveals it with a reason and sees the reveal in its custody history, looks at the log and the
 * users page, and switches language. Every main screen passes axe-core with no serious or critical violation;
 * screenshots go to test-artifacts/e2e/ for a person to look at.
 */
const skip = browserSkip();

interface Lang {
  code: "en" | "ar";
  locale: string;
  email: string;
  dir: "ltr" | "rtl";
  other: "ar" | "en";
  upload: "folder" | "zip";
}

const ONLY = process.env.DALIL_E2E_LANG;
const ALL_LANGS: Lang[] = [
  { code: "en", locale: "en-GB", email: "admin-en@example.org", dir: "ltr", other: "ar", upload: "folder" },
  { code: "ar", locale: "ar-SY", email: "admin-ar@example.org", dir: "rtl", other: "en", upload: "zip" },
];
/** DALIL_E2E_LANG=en (or ar) runs one language only, when working on the app. */
const LANGS = ONLY ? ALL_LANGS.filter((l) => l.code === ONLY) : ALL_LANGS;

const NEW_PASSWORD = "a long passphrase for the archive";


async function htmlDir(page: Page): Promise<{ lang: string | null; dir: string | null }> {
  return page.evaluate(`({ lang: document.documentElement.getAttribute("lang"), dir: document.documentElement.getAttribute("dir") })`);
}

test("the web app in Chromium, in English and in Arabic", { skip, timeout: 240_000 }, async (t) => {
  ensureWebBuilt({ quiet: true });
  const work = mkdtempSync(join(tmpdir(), "dalil-e2e-"));
  const dataDir = join(work, "data");
  const card = join(work, "card");
  const zip = join(work, "card.zip");
  const passwords = new Map<string, string>();
  let server: DalilServer | null = null;
  try {
    // The archive and its two administrators, made at the console as an operator would (`dalil users add`).
    await writeDemoCard(card, { bodies: 2, seed: "e2e", withFaults: true });
    renameSync(join(card, "truth.json"), join(work, "truth.json"));
    zipFolder(card, zip);
    const archive = await openArchive(loadConfig({ data: dataDir }, {}));
    try {
      for (const l of LANGS) passwords.set(l.email, (await addUser(archive, operatorActor(), { email: l.email, role: "admin" })).oneTimePassword);
    } finally {
      await archive.close();
    }
    server = await startDalil(dataDir);
    const base = server.url;

    await t.test("every route the web app calls exists in the server's route table", async () => {
      assert.deepEqual(await missingEndpoints(base, ENDPOINTS), []);
    });

    for (const l of LANGS) {
      await t.test(`${l.code}: sign in, take in a card, reveal a photograph, check the log, switch language`, async () => {
        const b = await openBrowser({ locale: l.locale });
        const { page } = b;
        const p = (n: string) => `${l.code}-${n}`;
        try {
          // The browser prefers this language: the app starts in it, laid out in its direction.
          await page.goto(base);
          await page.waitForURL(/\/signin$/);
          await page.locator("#email").waitFor();
          assert.deepEqual(await htmlDir(page), { lang: l.code, dir: l.dir });
          await expectNoAxeViolations(page, "sign-in");
          await shot(page, p("01-signin"));

          // First sign-in: the one-time password, then one's own password, then the authenticator app.
          await page.fill("#email", l.email);
          await page.fill("#password", passwords.get(l.email)!);
          await page.locator("form button[type=submit]").click();
          await page.locator("#new-password").waitFor();
          await page.fill("#new-password", NEW_PASSWORD);
          await page.fill("#new-password-again", NEW_PASSWORD);
          await expectNoAxeViolations(page, "new password");
          await page.locator("form button[type=submit]").click();
          const secretEl = page.locator("[data-testid=totp-secret]");
          await secretEl.waitFor();
          await page.locator("img.qr").waitFor();
          assert.ok((await page.locator("img.qr").getAttribute("src"))?.startsWith("data:image/png"), "the QR code is an image made in the page");
          await expectNoAxeViolations(page, "authenticator set-up");
          await shot(page, p("02-enrol-qr"));
          const secret = (await secretEl.textContent())!.replace(/\s+/g, "");
          await page.fill("#enrol-code", totp(secret));
          await page.locator("form button[type=submit]").click();
          await page.locator("[data-testid=recovery-codes]").waitFor();
          assert.equal(await page.locator("[data-testid=recovery-codes] li").count(), 10);
          await shot(page, p("03-recovery-codes"));
          await page.locator("main button.primary").click();
          await page.waitForURL(/\/home$/);

          // Out, and in again: password, then the code the app shows now (the next step: each code works once).
          await page.locator(".toolbar button", { hasText: l.code === "ar" ? "تسجيل الخروج" : "Sign out" }).click();
          await page.waitForURL(/\/signin$/);
          await page.fill("#email", l.email);
          await page.fill("#password", NEW_PASSWORD);
          await page.locator("form button[type=submit]").click();
          await page.locator("#code").waitFor();
          await expectNoAxeViolations(page, "second factor");
          await shot(page, p("04-totp"));
          await page.fill("#code", totp(secret, 1));
          await page.locator("form button[type=submit]").click();
          // Signed in, a person lands on what waits for them.
          await page.waitForURL(/\/home$/);
          await page.locator("[data-testid=home] .work-item").first().waitFor();
          await expectNoAxeViolations(page, "home");
          await shot(page, p("04b-home"));

          // Intake through the page.
          await page.locator("nav a[href='/intake']").click();
          await page.waitForURL(/\/intake$/);
          await page.locator("h1").waitFor();
          await expectNoAxeViolations(page, "intake");
          if (l.upload === "folder") await page.setInputFiles("[data-testid=folder-input]", card);
          else await page.setInputFiles("[data-testid=file-input]", zip);
          await page.locator("[data-testid=picked-summary]").waitFor();
          await page.fill("#source-label", l.code === "ar" ? "بطاقة تجريبية" : "demo card (synthetic)");
          await page.locator("[data-testid=start-upload]").click();
          await page.locator("[data-testid=tally]").waitFor({ timeout: 90_000 });
          const tally = async (k: string) => Number(await page.locator(`[data-testid=tally-${k}]`).getAttribute("data-value"));
          const [files, ingested, duplicates, quarantined] = [await tally("files"), await tally("ingested"), await tally("duplicates"), await tally("quarantined")];
          assert.ok(files > 0);
          assert.equal(ingested + duplicates + quarantined, files, "every file is accounted for");
          if (l.code === "ar") {
            // The same card again, as a .zip: nothing new, and a fault already quarantined is a duplicate sighting.
            assert.equal(ingested, 0, "the same card again, as a .zip: nothing new");
            assert.equal(quarantined, 0, "a file quarantined before is seen again as a duplicate, not quarantined twice");
            assert.equal(duplicates, files, "every file of the card a second time is a duplicate sighting");
          } else {
            assert.ok(quarantined > 0, "the demo card's faults are quarantined");
            await page.locator("[data-testid=quarantined] tbody tr").first().waitFor();
            const reasons = await page.locator("[data-testid=quarantined] tbody tr td:last-child").allTextContents();
            assert.ok(reasons.length > 0 && reasons.every((r) => r.trim().length > 5), `every quarantined file has a reason: ${reasons.join(" | ")}`);
          }
          await page.locator("[data-testid=sources] tbody tr").first().waitFor();
          await expectNoAxeViolations(page, "intake tally");
          await shot(page, p("05-intake-tally"));

          // The gallery: blurred tiles, keyboard navigation.
          await page.locator("nav a[href='/gallery']").click();
          await page.locator(".tile a img").first().waitFor();
          await waitForExpression(page, `[...document.querySelectorAll(".tile a img")].some((i) => i.complete && i.naturalWidth > 0)`);
          await expectNoAxeViolations(page, "gallery");
          const firstTile = page.locator(".tile a[data-index='0']");
          await firstTile.focus();
          await page.keyboard.press(l.dir === "rtl" ? "ArrowLeft" : "ArrowRight");
          assert.equal(await page.evaluate(`document.activeElement?.getAttribute("data-index")`), "1", "the arrow key that points forward in the reading direction moves to the next photograph");
          await shot(page, p("06-gallery"));
          await page.keyboard.press("Enter");
          await page.waitForURL(/\/photo\/[0-9a-f]{64}\?from=gallery&at=1$/);

          // The viewer: blurred, its proof verified in the page, then revealed with a reason.
          await page.locator("[data-testid=proof-verified]").waitFor();
          await page.locator("[data-testid=custody-history] tbody tr").first().waitFor();
          await waitForExpression(page, `(() => { const img = document.querySelector(".zoom-viewport img"); return img !== null && img.complete && img.naturalWidth > 0; })()`);
          assert.match((await page.locator(".zoom-viewport img").getAttribute("src"))!, /\/renditions\/blurred$/);
          await expectNoAxeViolations(page, "viewer");
          await shot(page, p("07-viewer-blurred"));
          const reason = l.code === "ar" ? "مطابقة الرقم على البطاقة مع ملف الحالة" : "compare the number card with case file 12";
          await page.locator(".viewer-image button.primary").click();
          await page.locator("#reveal-reason").fill(reason);
          await expectNoAxeViolations(page, "reveal dialog");
          await shot(page, p("08-reveal-dialog"), false);
          await page.locator("dialog button[type=submit]").click();
          await waitForExpression(page, `document.querySelector(".zoom-viewport img")?.src.startsWith("blob:") ?? false`);
          // The reveal, with this reason, is in the photograph's custody history.
          await page.locator("[data-testid=custody-history] tbody tr[data-type='revealed graphic image']", { hasText: reason }).waitFor();
          await page.locator(".zoom-controls button").nth(1).click();
          await shot(page, p("09-viewer-revealed"));
          // The 0 shortcut fits the image again when typed on an Arabic keyboard, where that key types ٠.
          assert.equal(await page.locator(".zoom-controls button").nth(2).isDisabled(), false, "zoomed in");
          await page.locator(".zoom-viewport").dispatchEvent("keydown", { key: "٠", code: "Digit0", bubbles: true, cancelable: true });
          await waitForExpression(page, `document.querySelector(".zoom-controls button:nth-of-type(3)")?.disabled === true`);

          // An archivist runs `dalil verify` at the console (here: the same use case, in this process)…
          const console_ = await openArchive(loadConfig({ data: dataDir }, {}));
          try {
            assert.deepEqual((await verifyArchive(console_, operatorActor())).findings, []);
          } finally {
            await console_.close();
          }
          // …and the log page shows it: the latest checkpoint, its signature checked in the page, the last
          // verification, the guide.
          await page.locator("nav a[href='/log']").click();
          await page.locator("[data-testid=checkpoint-size]").waitFor();
          await page.locator("[data-testid=signature-ok]").waitFor();
          await page.locator("[data-testid=verify-ok]").waitFor();
          await expectNoAxeViolations(page, "log");
          await shot(page, p("10-log"));

          // Users and roles.
          await page.locator("nav a[href='/admin/users']").click();
          await page.locator("[data-testid=users] tbody tr").first().waitFor();
          await page.fill("#new-email", `curator-${l.code}@example.org`);
          await page.selectOption("#new-role", "curator");
          await page.locator("form.inline-form button[type=submit]").click();
          await page.locator("[data-testid=one-time-password]").waitFor();
          await expectNoAxeViolations(page, "users");
          await shot(page, p("11-users"));

          // A tablet held upright: the layout still works.
          await page.setViewportSize({ width: 820, height: 1180 });
          await page.locator("nav a[href='/gallery']").click();
          await page.locator(".tile a img").first().waitFor();
          await page.evaluate("window.scrollTo(0, 0)");
          await shot(page, p("12-tablet-gallery"), false);
          await page.setViewportSize({ width: 1280, height: 860 });

          // Switch language: direction and words change, the choice is kept.
          await page.locator("[data-testid=switch-language]").click();
          await waitForExpression(page, `document.documentElement.lang === ${JSON.stringify(l.other)}`);
          assert.deepEqual(await htmlDir(page), { lang: l.other, dir: l.other === "ar" ? "rtl" : "ltr" });
          await page.reload();
          await page.locator(".tile a").first().waitFor();
          assert.equal((await htmlDir(page)).lang, l.other, "the chosen language is kept across a reload");
          await expectNoAxeViolations(page, "gallery after switching language");
          await shot(page, p("13-switched"));

          assert.deepEqual(b.problems, [], "no Content-Security-Policy violations or page errors");
        } catch (e) {
          // What the page showed when it went wrong, for the person reading the failure.
          await shot(page, p("FAILED")).catch(() => {});
          throw e;
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
