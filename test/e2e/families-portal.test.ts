import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/core/config.ts";
import { openArchive } from "../../src/app/open-archive.ts";
import type { Archive } from "../../src/app/context.ts";
import { operatorActor } from "../../src/core/actor.ts";
import { addUser } from "../../src/access/index.ts";
import { issueSession } from "../../src/access/sessions.ts";
import { ensureWebBuilt } from "../../web/ensure-built.mjs";
import { expectNoAxeViolations, browserSkip, openBrowser, shot, startDalil, waitForExpression, type DalilServer } from "../support/browser.ts";

/**
 * A family files its own report from the portal, in Arabic and in English (the form's Arabic name first, in
 * plainer words), and it waits: the portal says a caseworker will read it. They add a mark they remembered and
 * correct a date. The caseworker opens "What families sent", accepts the report and the mark and refuses the
 * date with a reason; the family sees the report opened, the mark added and the reason, as written. Every
 * screen passes axe-core and shows no internal id; screenshots go to test-artifacts/e2e/families-portal-*.
 */
const skip = browserSkip();
const WAIT = { timeout: 60_000 };

const LANGS = [
  { code: "en", locale: "en-GB", given: "سامر", family: "الحلبي", mark: "A burn scar on the back of the left hand", why: "His identity card gives 1985; we kept that. We will call you." },
  { code: "ar", locale: "ar-SY", given: "ماهر", family: "العلي", mark: "أثر حرق على ظهر اليد اليسرى", why: "بطاقته الشخصية تذكر 1985 فأبقيناها. سنتصل بكم." },
] as const;

async function session(a: Archive, email: string, role: "family_caseworker" | "family_member"): Promise<string> {
  const { user } = await addUser(a, operatorActor(), { email, role });
  return (await a.db.transaction((tx) => issueSession(tx, a.clock, user.id, "full"))).token;
}

test("the portal: a family files its own report and adds to it; a caseworker accepts and refuses with a reason; in English and in Arabic", { skip, timeout: 600_000 }, async (t) => {
  ensureWebBuilt({ quiet: true });
  const work = mkdtempSync(join(tmpdir(), "dalil-e2e-portal-"));
  const dataDir = join(work, "data");
  let server: DalilServer | null = null;
  const tokens = new Map<string, { family: string; caseworker: string }>();
  try {
    const archive = await openArchive(loadConfig({ data: dataDir }, {}));
    try {
      for (const l of LANGS) tokens.set(l.code, { family: await session(archive, `family-${l.code}@example.org`, "family_member"), caseworker: await session(archive, `cw-${l.code}@example.org`, "family_caseworker") });
    } finally {
      await archive.close();
    }
    server = await startDalil(dataDir);
    const base = server.url;

    for (const l of LANGS) {
      await t.test(`${l.code}: file, add, review, outcome`, async () => {
        const tk = tokens.get(l.code)!;
        const b = await openBrowser({ locale: l.locale });
        const { page } = b;
        page.setDefaultTimeout(60_000);
        const p = (n: string) => `families-portal-${l.code}-${n}`;
        const as = async (token: string) => {
          await b.context.clearCookies();
          await b.context.addCookies([{ name: "dalil_session", value: token, url: base }]);
        };
        try {
          // the family files from the portal
          await as(tk.family);
          await page.goto(`${base}/portal`);
          await page.locator("[data-testid=portal-new-report]").click();
          await page.waitForURL(/\/portal\/new$/, WAIT);
          const form = page.locator("[data-testid=report-form][data-portal=true]");
          await form.waitFor(WAIT);
          const nameInputs = await form.locator("fieldset.fam-slots").first().locator("input").evaluateAll((xs) => xs.map((x) => x.getAttribute("id")));
          assert.ok(nameInputs[0]?.startsWith("rep-ar-"), "the name in Arabic comes first");
          await page.fill("#rep-ar-given", l.given);
          await page.fill("#rep-ar-family", l.family);
          await page.selectOption("#rep-sex", "male");
          await page.fill("#rep-birth", "1985");
          await page.fill("#rep-arrest", "2013-02");
          await page.fill("#rep-reporter-relationship", l.code === "ar" ? "أمه" : "his mother");
          await expectNoAxeViolations(page, "portal filing form");
          await shot(page, p("01-form"));
          await form.locator("button[type=submit]").click();
          await page.waitForURL(/\/portal\/reports\/[^/]+$/, WAIT);
          await page.locator("[data-testid=portal-submitted]").waitFor(WAIT);

          // they remember a mark, and correct the date of birth
          const add = page.locator("[data-testid=portal-add]");
          await add.locator("#portal-add-kind-mark").check();
          await add.locator("#portal-add-mark-type").selectOption("scar");
          await add.locator("#portal-add-mark-region").selectOption("hand_left");
          await add.locator("#portal-add-mark-desc").fill(l.mark);
          await add.locator("button[type=submit]").click();
          await page.locator("[data-testid=portal-sent] li[data-status=proposed]").nth(1).waitFor(WAIT);
          await add.locator("#portal-add-kind-correction").check();
          await add.locator("#portal-add-field").selectOption("birthDate");
          await add.locator("#portal-add-value").fill("1990");
          await add.locator("button[type=submit]").click();
          await page.locator("[data-testid=portal-sent] li[data-status=proposed]").nth(2).waitFor(WAIT);
          await expectNoAxeViolations(page, "portal report waiting");
          await shot(page, p("02-waiting"));

          // the caseworker reads what families sent: accepts the report and the mark, refuses the date with a reason
          await as(tk.caseworker);
          await page.goto(`${base}/families/proposals`);
          const items = page.locator("[data-testid=proposal]");
          await items.first().waitFor(WAIT);
          const mine = items.filter({ hasText: l.mark });
          assert.equal(await mine.count(), 1, "the mark the family remembered, in their words");
          await expectNoAxeViolations(page, "what families sent");
          await shot(page, p("03-review"));
          const ref = (await mine.locator("h2 a").textContent())!.trim();
          const ofThisReport = items.filter({ hasText: ref });
          assert.equal(await ofThisReport.count(), 3, "the report, the mark and the correction");
          assert.equal(await ofThisReport.first().getAttribute("data-kind"), "new");
          // the new report first (the oldest is listed first), then the mark
          for (let i = 0; i < 2; i++) {
            const before = await items.count();
            await ofThisReport.first().locator("[data-testid=accept-proposal]").click();
            await waitForExpression(page, `document.querySelectorAll("[data-testid=proposal]").length === ${before - 1}`, 60_000);
          }
          const last = items.filter({ hasText: ref }).first();
          await last.locator("button.link-button").click();
          await last.locator("textarea").fill(l.why);
          await expectNoAxeViolations(page, "refusing with a reason");
          await last.locator("[data-testid=refuse-proposal] button[type=submit]").click();
          await waitForExpression(page, `![...document.querySelectorAll("[data-testid=proposal]")].some((x) => x.textContent.includes(${JSON.stringify(ref)}))`, 60_000);

          // the family sees the outcome: the report open, the mark added, the reason for the date as written
          await as(tk.family);
          await page.goto(`${base}/portal`);
          await page.locator("[data-testid=portal-reports] a").first().click();
          await page.locator("[data-testid=portal-sent] li[data-status=refused]").waitFor(WAIT);
          assert.equal(await page.locator("[data-testid=portal-submitted]").count(), 0, "no longer waiting");
          assert.equal(await page.locator("[data-testid=portal-sent] li[data-status=accepted]").count(), 2);
          assert.ok((await page.locator("[data-testid=portal-sent] li[data-status=refused]").textContent())!.includes(l.why));
          await expectNoAxeViolations(page, "portal report after review");
          await shot(page, p("04-outcome"));
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
