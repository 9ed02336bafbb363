import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { loadConfig } from "../../src/core/config.ts";
import { openArchive } from "../../src/app/open-archive.ts";
import { operatorActor, type Actor } from "../../src/core/actor.ts";
import { addUser } from "../../src/access/index.ts";
import { ingestCard } from "../../src/archive/intake.ts";
import { writeDemoCard, type DemoCardTruth } from "../../src/archive/demo-card/index.ts";
import { createBodyInTx, type NewBody } from "../../src/catalogue/index.ts";
import { cdb } from "../../src/catalogue/tables.ts";
import { ensureWebBuilt } from "../../web/ensure-built.mjs";
import { typeQuery } from "../support/search.ts";
import { expectNoAxeViolations, browserSkip, openBrowser, shot, startDalil, totp, waitForExpression, type DalilServer } from "../support/browser.ts";

/**
 * Search and statistics in Chromium against a real `dalil serve`, in English and in Arabic. A demo card is
 * taken in and its bodies catalogued through the module's own code (with an Arabic name on one, and review
 * findings). A new investigator signs in (one-time password, own password, authenticator by TOTP), searches
 * with Arabic typed with other hamza and diacritics than stored and finds the body, narrows by a facet, opens
 * the copied URL in a new page and sees the same results, goes back, then opens the statistics and downloads
 * the CSV, whose numbers are checked against the catalogue. Every screen passes axe-core with no serious or
 * critical violation; screenshots go to test-artifacts/e2e/search-*.
 */
const skip = browserSkip();

interface Lang {
  code: "en" | "ar";
  locale: string;
  email: string;
}
const ALL_LANGS: Lang[] = [
  { code: "en", locale: "en-GB", email: "search-en@example.org" },
  { code: "ar", locale: "ar-SY", email: "search-ar@example.org" },
];
const ONLY = process.env.DALIL_E2E_LANG;
const LANGS = ONLY ? ALL_LANGS.filter((l) => l.code === ONLY) : ALL_LANGS;
const PASSWORD = "a long passphrase for the search test";

/** Stored as written on the record; searched for below with plain alef, no diacritics and "عبدالله" joined. */
const NAME = "أَحْمَد عبد الله الخطيب";
const NAME_QUERY = "احمد عبدالله";
/** The hospital's label is "مشفى تشرين العسكري": typed with a final yaa and diacritics. */
const PLACE_QUERY = "مَشفي تِشرين";


/** The bodies of the demo card, catalogued as a person would (one with a name, two reviewed). */
function bodiesOf(truth: DemoCardTruth, preserved: Set<string>): NewBody[] {
  return truth.bodies.map((b, i) => ({
    // Every other body at Tishreen, so the place searched for below is there whatever the card drew.
    hospital: i % 2 === 1 ? "Tishreen Military Hospital" : b.hospital,
    photoDate: b.photo_date,
    sex: b.sex,
    photos: [...new Set(truth.photos.filter((p) => p.body === b.ref && preserved.has(p.sha256)).map((p) => p.sha256))].map((sha256) => ({ sha256 })),
    numbers: [
      { role: "detainee" as const, value: b.detainee_no, method: "typed" as const, enteredBy: "usr_e2e" },
      { role: "branch" as const, value: b.branch_no, method: "typed" as const, enteredBy: "usr_e2e" },
    ],
    ...(i === 0 ? { nameAr: NAME } : {}),
    ...(i < 2 ? { reviewStatus: "reviewed" as const, reviewFindings: i === 0 ? ["emaciation", "burn_cigarette"] : ["emaciation"] } : {}),
  }));
}

async function shownRefs(page: Page): Promise<string[]> {
  return page.locator("[data-testid=search-list] tbody tr td:first-child a").allTextContents();
}

test("search and statistics in Chromium, in English and in Arabic", { skip, timeout: 240_000 }, async (t) => {
  ensureWebBuilt({ quiet: true });
  const work = mkdtempSync(join(tmpdir(), "dalil-search-e2e-"));
  const dataDir = join(work, "data");
  const card = join(work, "card");
  const passwords = new Map<string, string>();
  let server: DalilServer | null = null;
  let truth: DemoCardTruth;
  const hospitals = new Map<string, number>();
  const branches = new Map<string, number>();
  try {
    await writeDemoCard(card, { bodies: 6, seed: "search-e2e", withFaults: false });
    truth = JSON.parse(readFileSync(join(card, "truth.json"), "utf8")) as DemoCardTruth;
    const archive = await openArchive(loadConfig({ data: dataDir }, {}));
    try {
      await ingestCard(archive, operatorActor(), { path: card, label: "demo card (synthetic)" });
      const preserved = new Set((await archive.db.db.selectFrom("originals").select("sha256").where("status", "=", "preserved").execute()).map((r) => r.sha256));
      const cataloguer: Actor = { kind: "user", id: "usr_e2e", role: "admin" };
      await archive.db.transaction(async (tx) => {
        for (const b of bodiesOf(truth, preserved)) await createBodyInTx(archive, tx, cataloguer, b, { action: "body.create" });
      });
      const rows = await cdb(archive.db.db).selectFrom("bodies").select(["hospital", "branch_no_norm"]).execute();
      for (const r of rows) {
        hospitals.set(r.hospital ?? "", (hospitals.get(r.hospital ?? "") ?? 0) + 1);
        branches.set(r.branch_no_norm ?? "", (branches.get(r.branch_no_norm ?? "") ?? 0) + 1);
      }
      for (const l of LANGS) passwords.set(l.email, (await addUser(archive, operatorActor(), { email: l.email, role: "investigator" })).oneTimePassword);
    } finally {
      await archive.close();
    }
    server = await startDalil(dataDir);
    const base = server.url;

    for (const l of LANGS) {
      await t.test(`${l.code}: sign in, search in Arabic, pick a facet, share the URL, export the statistics`, async () => {
        const b = await openBrowser({ locale: l.locale });
        const { page } = b;
        const p = (n: string) => `search-${l.code}-${n}`;
        try {
          // Sign in as web.test.ts does: one-time password, own password, authenticator app, then the app.
          await page.goto(base);
          await page.waitForURL(/\/signin$/);
          await page.fill("#email", l.email);
          await page.fill("#password", passwords.get(l.email)!);
          await page.locator("form button[type=submit]").click();
          await page.locator("#new-password").waitFor();
          await page.fill("#new-password", PASSWORD);
          await page.fill("#new-password-again", PASSWORD);
          await page.locator("form button[type=submit]").click();
          const secretEl = page.locator("[data-testid=totp-secret]");
          await secretEl.waitFor();
          const secret = (await secretEl.textContent())!.replace(/\s+/g, "");
          await page.fill("#enrol-code", totp(secret));
          await page.locator("form button[type=submit]").click();
          await page.locator("[data-testid=recovery-codes]").waitFor();
          await page.locator("main button.primary").click();
          await page.waitForURL((u) => !u.pathname.startsWith("/signin"));

          // The search screen from the menu: every body, facets with counts.
          await page.locator("nav a[href='/search']").click();
          await page.waitForURL(/\/search$/);
          await waitForExpression(page, `document.querySelector("[data-testid=search-results]")?.dataset.total === "${truth.bodies.length}"`);
          assert.equal(await page.getAttribute("html", "dir"), l.code === "ar" ? "rtl" : "ltr");
          await expectNoAxeViolations(page, "search");
          await shot(page, p("01-all"));

          // A name typed with other hamza, diacritics and spacing than stored: found, and shown as stored.
          const nameMs = await typeQuery(page, NAME_QUERY);
          assert.deepEqual(await shownRefs(page), ["B-000001"]);
          assert.equal(await page.locator("[data-testid=search-list] tbody tr td:nth-child(2)").first().textContent(), NAME);
          assert.equal(await page.inputValue("#search-q"), NAME_QUERY, "the box keeps what was typed");
          await shot(page, p("02-name"));

          // A place, in Arabic, though the card wrote it in English: the hospital's Arabic name is indexed.
          const placeMs = await typeQuery(page, PLACE_QUERY);
          const tishreen = hospitals.get("tishreen") ?? 0;
          assert.ok(tishreen > 0, "the demo card has bodies from Tishreen");
          assert.equal(await page.getAttribute("[data-testid=search-results]", "data-total"), String(tishreen));
          console.log(`search e2e (${l.code}, ${truth.bodies.length} bodies): last keystroke to results painted: name ${nameMs} ms, place ${placeMs} ms`);

          // Enter makes it a step in the history; then a facet (the first branch listed) narrows the results.
          await page.press("#search-q", "Enter");
          const branchBox = page.locator("fieldset[data-facet=branch] input[type=checkbox]").first();
          const branchId = (await branchBox.getAttribute("id"))!;
          const branch = branchId.replace("facet-branch-", "");
          const branchCount = Number(await page.locator(`label[for='${branchId}'] .facet-count`).textContent().then((s) => s!.replace(/[٠-٩]/g, (d) => String(d.charCodeAt(0) - 0x660))));
          await branchBox.check();
          await page.waitForURL((u) => u.searchParams.getAll("branch").includes(branch));
          await waitForExpression(page, `document.querySelector("[data-testid=search-results]")?.dataset.total === "${branchCount}" && document.querySelector("[data-testid=search-results]")?.getAttribute("aria-busy") === "false"`);
          const refs = await shownRefs(page);
          assert.equal(refs.length, branchCount);

          // The grid: blurred thumbnails.
          await page.locator(".search-views button").nth(1).click();
          await page.waitForURL((u) => u.searchParams.get("view") === "grid");
          await waitForExpression(page, `[...document.querySelectorAll("[data-testid=search-grid] img")].some((i) => i.complete && i.naturalWidth > 0)`);
          await expectNoAxeViolations(page, "search grid with a facet");
          await shot(page, p("03-facet-grid"));

          // The URL, pasted into a new page: the same query, choice, view and results.
          const shared = page.url();
          const other = await b.context.newPage();
          await other.goto(shared);
          await waitForExpression(other, `document.querySelector("[data-testid=search-results]")?.dataset.total === "${branchCount}"`);
          assert.equal(await other.inputValue("#search-q"), PLACE_QUERY);
          assert.ok(await other.locator(`#${branchId}`).isChecked());
          assert.equal(await other.locator("[data-testid=search-grid] li").count(), branchCount);
          await other.close();

          // Back: the list again, then the query without the branch.
          await page.goBack();
          await page.locator("[data-testid=search-list]").waitFor();
          assert.deepEqual(await shownRefs(page), refs);
          await page.goBack();
          await waitForExpression(page, `document.querySelector("[data-testid=search-results]")?.dataset.total === "${tishreen}" && document.querySelector("[data-testid=search-results]")?.getAttribute("aria-busy") === "false"`);
          assert.equal(await page.locator(`#${branchId}`).isChecked(), false);

          // Statistics: the figures, their charts and tables, and the CSV a report quotes.
          await page.locator("nav a[href='/statistics']").click();
          await page.waitForURL(/\/statistics$/);
          await page.locator("[data-testid=stat-totals]").waitFor();
          await page.locator("[data-testid=stat-byBranch] svg").waitFor();
          await expectNoAxeViolations(page, "statistics");
          await shot(page, p("04-statistics"));
          const [download] = await Promise.all([page.waitForEvent("download"), page.locator("[data-testid=stat-csv-all]").click()]);
          assert.match(download.suggestedFilename(), /^dalil-statistics-all-\d{4}-\d{2}-\d{2}\.csv$/);
          const csv = readFileSync((await download.path())!, "utf8").replace(/^\ufeff/, "");
          const lines = csv.trim().split(/\r\n/);
          assert.equal(lines[0], "breakdown,value,label,count,withheld");
          const count = (breakdown: string, value: string) => lines.find((x) => x.startsWith(`${breakdown},${value},`))?.split(",").at(-2);
          assert.equal(count("totals", "bodies"), String(truth.bodies.length));
          assert.equal(count("totals", "reviewed"), "2");
          assert.equal(count("byHospital", "tishreen"), String(tishreen));
          assert.equal(count("byFinding", "emaciation"), "2");
          assert.equal(count("byFinding", "burn_cigarette"), "1");
          assert.equal(count("byBranch", branch), String(branches.get(branch)));
          const totalByBranch = lines.filter((x) => x.startsWith("byBranch,")).reduce((s, x) => s + Number(x.split(",").at(-2)), 0);
          assert.equal(totalByBranch, truth.bodies.length, "the branch breakdown adds up to the total");
          // Labels in the reader's language.
          assert.ok(lines.some((x) => x.startsWith("byHospital,tishreen,") && x.includes(l.code === "ar" ? "مشفى تشرين العسكري" : "Tishreen Military Hospital")));

          // A chart as PNG (painted from its SVG on a canvas) and as SVG.
          const [png] = await Promise.all([page.waitForEvent("download"), page.locator("[data-testid=stat-byHospital] .stat-exports button").nth(2).click()]);
          assert.deepEqual([...readFileSync((await png.path())!).subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
          const [svg] = await Promise.all([page.waitForEvent("download"), page.locator("[data-testid=stat-byHospital] .stat-exports button").nth(1).click()]);
          assert.match(readFileSync((await svg.path())!, "utf8"), /<svg[^>]+xmlns="http:\/\/www.w3.org\/2000\/svg"/);

          // For publication: small counts withheld.
          await page.selectOption("[data-testid=stat-threshold]", "5");
          await page.waitForURL(/\/statistics\?min=5$/);
          await waitForExpression(page, `document.querySelector("[data-total=reviewed] dd")?.textContent === ${JSON.stringify(l.code === "ar" ? "محجوب" : "withheld")}`);
          await expectNoAxeViolations(page, "statistics, small counts withheld");
          await shot(page, p("05-statistics-withheld"));
          assert.deepEqual(b.problems, [], "no Content-Security-Policy violation or page error");
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
