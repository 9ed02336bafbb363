import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { loadConfig } from "../../src/core/config.ts";
import { openArchive } from "../../src/app/open-archive.ts";
import { operatorActor } from "../../src/core/actor.ts";
import { addUser } from "../../src/access/index.ts";
import { issueSession } from "../../src/access/sessions.ts";
import { ingestCard } from "../../src/archive/intake.ts";
import { writeDemoCard } from "../../src/archive/demo-card/index.ts";
import { ensureWebBuilt } from "../../web/ensure-built.mjs";
import { AUTHENTICITY_ENDPOINTS } from "../../web/src/api/endpoints/authenticity.ts";
import { expectNoAxeViolations, missingEndpoints, browserSkip, openBrowser, shot, startDalil, type DalilServer } from "../support/browser.ts";

/**
 * The authenticity screens in Chromium against a real `dalil serve`, in English and in Arabic. A demo card with
 * one photo re-saved by "Photoshop" added to it is taken in; an investigator analyses the card from the list,
 * reads the cameras table, the sequence plot and the findings, then the photo page's section. Every screen
 * passes axe-core; screenshots in test-artifacts/e2e/authenticity-*.
 */
const skip = browserSkip();
const LANGS = [
  { code: "en", locale: "en-GB", email: "aut-en@example.org", strong: "strong", editor: "names editing software" },
  { code: "ar", locale: "ar-SY", email: "aut-ar@example.org", strong: "قوية", editor: "يسمّي برنامج تحرير" },
] as const;

test("the authenticity screens in Chromium: analyse a card, read cameras, sequence and findings, and a flagged photo; in English and in Arabic", { skip, timeout: 600_000 }, async (t) => {
  ensureWebBuilt({ quiet: true });
  const work = mkdtempSync(join(tmpdir(), "dalil-e2e-aut-"));
  const dataDir = join(work, "data");
  const card = join(work, "card");
  const tokens = new Map<string, string>();
  let server: DalilServer | null = null;
  try {
    await writeDemoCard(card, { bodies: 2, seed: "authenticity-e2e", withFaults: false });
    const folder = join(card, "DCIM", "100NCD90");
    const first = readdirSync(folder).filter((n) => n.startsWith("DSC_")).sort()[0]!;
    const edited = await sharp(readFileSync(join(folder, first)))
      .modulate({ brightness: 1.1 })
      .jpeg({ quality: 80 })
      .keepExif()
      .withExifMerge({ IFD0: { Software: "Adobe Photoshop CS6 (Windows)", DateTime: "2013:02:01 09:00:00" } })
      .toBuffer();
    writeFileSync(join(folder, "DSC_9001.JPG"), edited);
    const archive = await openArchive(loadConfig({ data: dataDir }, {}));
    try {
      await ingestCard(archive, operatorActor(), { path: card, label: "card A (authenticity e2e)" });
      for (const l of LANGS) {
        const { user } = await addUser(archive, operatorActor(), { email: l.email, role: "investigator" });
        const session = await archive.db.transaction((tx) => issueSession(tx, archive.clock, user.id, "full"));
        tokens.set(l.email, session.token);
      }
    } finally {
      await archive.close();
    }
    server = await startDalil(dataDir);
    const base = server.url;

    await t.test("every authenticity route the web app calls exists in the server's route table", async () => {
      assert.deepEqual(await missingEndpoints(base, AUTHENTICITY_ENDPOINTS), []);
    });

    for (const l of LANGS) {
      await t.test(`${l.code}: analyse → cameras, sequence, findings → the flagged photo's section`, async () => {
        const b = await openBrowser({ locale: l.locale });
        const { page } = b;
        page.setDefaultTimeout(60_000);
        const p = (n: string) => `authenticity-${l.code}-${n}`;
        try {
          await b.context.addCookies([{ name: "dalil_session", value: tokens.get(l.email)!, url: base }]);
          await page.goto(`${base}/authenticity`);
          const row = page.locator("[data-testid=aut-cards] tbody tr").first();
          await row.waitFor();
          assert.equal(await page.evaluate(`document.documentElement.dir`), l.code === "ar" ? "rtl" : "ltr");
          await expectNoAxeViolations(page, "authenticity cards list");
          await shot(page, p("01-list"));
          await row.locator("button").click();
          await page.waitForURL(/\/authenticity\/[^/]+$/);
          await page.locator("[data-testid=aut-cameras] tbody tr").first().waitFor();
          assert.match((await page.locator("[data-testid=aut-cameras]").textContent()) ?? "", /NIKON D90/);
          await page.locator("[data-testid=aut-sequence] circle").first().waitFor();
          const strong = page.locator("[data-testid=aut-findings] li[data-key=editorSoftware]");
          await strong.waitFor();
          const text = (await strong.textContent()) ?? "";
          assert.ok(text.includes(l.strong) && text.includes(l.editor) && text.includes("Photoshop") && text.includes("DSC_9001"), text);
          assert.equal(await page.locator("[data-testid=aut-flagged]").textContent(), l.code === "ar" ? "١" : "1");
          await expectNoAxeViolations(page, "authenticity of a card");
          await shot(page, p("02-card"));

          await strong.locator("a").click();
          await page.waitForURL(/\/photo\/[0-9a-f]{64}$/);
          const section = page.locator("[data-testid=aut-photo]");
          await section.locator("li[data-key=editorSoftware]").waitFor();
          await expectNoAxeViolations(page, "photo page with its authenticity section");
          await shot(page, p("03-photo"));
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
