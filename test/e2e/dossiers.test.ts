import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/core/config.ts";
import { openArchive } from "../../src/app/open-archive.ts";
import { operatorActor, type Actor } from "../../src/core/actor.ts";
import { addUser } from "../../src/access/index.ts";
import { issueSession } from "../../src/access/sessions.ts";
import { ingestCard } from "../../src/archive/intake.ts";
import { writeDemoCard } from "../../src/archive/demo-card/index.ts";
import { ensureWebBuilt } from "../../web/ensure-built.mjs";
import { DOSSIERS_ENDPOINTS } from "../../web/src/api/endpoints/dossiers.ts";
import { seedBodies } from "../support/catalogue.ts";
import { createEntity } from "../../src/catalogue/index.ts";
import { expectNoAxeViolations, missingEndpoints, browserSkip, openBrowser, shot, startDalil, type DalilServer } from "../support/browser.ts";

/**
 * The dossiers screens in Chromium against a real `dalil serve`, in English and in Arabic. At the console: a demo
 * card taken in, a body made of two of its photos, an investigator per language with a session. In the page: create
 * a dossier, add the body by its reference with the reasoning, freeze a version and see it listed with its
 * SHA-256. Every screen passes axe-core with no serious or critical violation; screenshots in
 * test-artifacts/e2e/dossiers-*.
 */
const skip = browserSkip();

interface Lang {
  code: "en" | "ar";
  locale: string;
  email: string;
  name: string;
  reasoning: string;
  note: string;
}

const ALL_LANGS: Lang[] = [
  { code: "en", locale: "en-GB", email: "dossiers-en@example.org", name: "Branch 215 deaths, 2013", reasoning: "The card reads branch 215; the marks match the witness account.", note: "for the prosecutor" },
  { code: "ar", locale: "ar-SY", email: "dossiers-ar@example.org", name: "وفيات الفرع ٢١٥، ٢٠١٣", reasoning: "تقرأ البطاقة الفرع ٢١٥، وتتطابق الآثار مع رواية الشاهد.", note: "للادعاء العام" },
];
const ONLY = process.env.DALIL_E2E_LANG;
const LANGS = ONLY ? ALL_LANGS.filter((l) => l.code === ONLY) : ALL_LANGS;

test("the dossiers screens in Chromium: create a dossier, add a body with reasoning, freeze, see the version; in English and in Arabic", { skip, timeout: 600_000 }, async (t) => {
  ensureWebBuilt({ quiet: true });
  const work = mkdtempSync(join(tmpdir(), "dalil-e2e-dossiers-"));
  const dataDir = join(work, "data");
  const card = join(work, "card");
  const tokens = new Map<string, string>();
  let bodyRef = "";
  const facilityName = { en: "Tishreen Military Hospital", ar: "مستشفى تشرين العسكري" };
  let facilityId = "";
  let server: DalilServer | null = null;
  try {
    await writeDemoCard(card, { bodies: 1, seed: "dossiers-e2e", withFaults: false });
    const archive = await openArchive(loadConfig({ data: dataDir }, {}));
    try {
      await ingestCard(archive, operatorActor(), { path: card, label: "demo card (dossiers e2e)" });
      const photos = (await archive.db.db.selectFrom("originals").select("sha256").where("status", "=", "preserved").where("media_kind", "=", "image").orderBy("sha256").limit(2).execute()).map((r) => r.sha256);
      let first: Actor | null = null;
      for (const l of ALL_LANGS) {
        const { user } = await addUser(archive, operatorActor(), { email: l.email, role: "investigator" });
        first ??= { kind: "user", id: user.id, role: "investigator" };
        const session = await archive.db.transaction((tx) => issueSession(tx, archive.clock, user.id, "full"));
        tokens.set(l.email, session.token);
      }
      const [body] = await seedBodies(archive, first!, [{ photos: photos.map((sha256) => ({ sha256 })) }]);
      bodyRef = body!.ref;
      facilityId = (await createEntity(archive, operatorActor(), { kind: "facility", nameEn: facilityName.en, nameAr: facilityName.ar })).id;
      assert.match(bodyRef, /^B-\d+$/);
    } finally {
      await archive.close();
    }
    server = await startDalil(dataDir);
    const base = server.url;

    await t.test("every dossiers route the web app calls exists in the server's route table", async () => {
      assert.deepEqual(await missingEndpoints(base, DOSSIERS_ENDPOINTS), []);
    });

    for (const l of LANGS) {
      await t.test(`${l.code}: create a dossier → add a body with reasoning → freeze → the version is listed`, async () => {
        const b = await openBrowser({ locale: l.locale });
        const { page } = b;
        page.setDefaultTimeout(60_000);
        const p = (n: string) => `dossiers-${l.code}-${n}`;
        try {
          await b.context.addCookies([{ name: "dalil_session", value: tokens.get(l.email)!, url: base }]);
          await page.goto(`${base}/dossiers`);
          await page.locator("[data-testid=dossier-create]").waitFor();
          assert.equal(await page.evaluate(`document.documentElement.dir`), l.code === "ar" ? "rtl" : "ltr");
          await page.fill("#dos-name", l.name);
          await expectNoAxeViolations(page, "dossiers list with the new-dossier form");
          await shot(page, p("01-list"));
          await page.locator("[data-testid=dossier-create] button[type=submit]").click();
          await page.waitForURL(/\/dossiers\/[^/]+$/);
          await page.locator("[data-testid=exhibit-add]").waitFor();
          assert.equal((await page.locator("#dossier-title").textContent())?.trim(), l.name);

          // A body by its reference, with the reasoning for selecting it.
          await page.selectOption("#dos-kind", "body");
          await page.fill("#dos-ref", bodyRef);
          await page.fill("#dos-reasoning", l.reasoning);
          await page.locator("[data-testid=exhibit-add] button[type=submit]").click();
          const row = page.locator("[data-testid=dossier-exhibits] tbody tr").first();
          await row.waitFor();
          // The body is shown by its reference, linking to its page.
          await row.locator(`a[href^='/bodies/']`, { hasText: bodyRef }).waitFor();
          const text = (await row.textContent()) ?? "";
          assert.ok(text.includes("E-0001") && text.includes(bodyRef) && text.includes(l.reasoning), text);
          // A facility by its id: shown by its name in the reader's language, linking to its page.
          await page.selectOption("#dos-kind", "facility");
          await page.fill("#dos-ref", facilityId);
          await page.fill("#dos-reasoning", l.reasoning);
          await page.locator("[data-testid=exhibit-add] button[type=submit]").click();
          await page
            .locator("[data-testid=dossier-exhibits] tbody tr")
            .nth(1)
            .locator(`a[href='/entities/${facilityId}']`, { hasText: l.code === "ar" ? facilityName.ar : facilityName.en })
            .waitFor();
          await expectNoAxeViolations(page, "dossier with an exhibit");
          await shot(page, p("02-exhibit"));

          // Freeze: the version appears with its SHA-256.
          await page.fill("#dos-note", l.note);
          await page.locator("[data-testid=dossier-freeze] button[type=submit]").click();
          const version = page.locator("[data-testid=dossier-versions] tbody tr").first();
          await version.waitFor();
          assert.match((await version.locator("code").getAttribute("title")) ?? "", /^[0-9a-f]{64}$/);
          assert.ok(((await version.textContent()) ?? "").includes(l.note));
          await page.locator("[data-testid=dossier-freeze] button[type=submit][disabled]").waitFor();
          await expectNoAxeViolations(page, "dossier with a frozen version");
          await shot(page, p("03-frozen"));

          // The list shows the dossier with one frozen version.
          await page.locator("nav a[href='/dossiers']").click();
          await page.locator("[data-testid=dossiers] tbody tr").first().waitFor();
          assert.ok(((await page.locator("[data-testid=dossiers]").textContent()) ?? "").includes(l.name));
          await expectNoAxeViolations(page, "dossiers list");
          await shot(page, p("04-list"));

          assert.deepEqual(b.problems, [], "no Content-Security-Policy violations or page errors");
        } catch (e) {
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
