import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { loadConfig } from "../../src/core/config.ts";
import { openArchive } from "../../src/app/open-archive.ts";
import { operatorActor, type Actor } from "../../src/core/actor.ts";
import { addUser } from "../../src/access/index.ts";
import { issueSession } from "../../src/access/sessions.ts";
import { ingestCard } from "../../src/archive/intake.ts";
import { writeDemoCard, type DemoCardTruth } from "../../src/archive/demo-card/index.ts";
import { runProposals, type CatalogueEngine, type CardReading } from "../../src/catalogue/index.ts";
import { ensureWebBuilt } from "../../web/ensure-built.mjs";
import { CATALOGUE_ENDPOINTS } from "../../web/src/api/endpoints/catalogue.ts";
import { expectNoAxeViolations, missingEndpoints, browserSkip, openBrowser, shot, startDalil, waitForExpression, type DalilServer } from "../support/browser.ts";

/**
 * The catalogue's screens in Chromium against a real `dalil serve`, in English and in Arabic. A demo card is
 * taken in and its cards read through the archive's own use cases (the page's intake is web.test.ts's job;
 * the card reader here reads truth.json, so the test is about the screens, not the OCR). An investigator,
 * signed in with a session made at the console, opens the source's grouping proposals, accepts one (by button
 * in English, by keyboard in Arabic), opens the body it made, confirms a number, edits fields and sees the
 * change in the field history; then adds a unit and opens its page. Every screen passes axe-core with no
 * serious or critical violation; screenshots go to test-artifacts/e2e/catalogue-*.
 */
const skip = browserSkip();

interface Lang {
  code: "en" | "ar";
  locale: string;
  email: string;
  note: string;
  unit: string;
}

const ALL_LANGS: Lang[] = [
  { code: "en", locale: "en-GB", email: "investigator-en@example.org", note: "card photographed twice; compare with case file 12", unit: "Branch 215 (e2e)" },
  { code: "ar", locale: "ar-SY", email: "investigator-ar@example.org", note: "صُوّرت البطاقة مرتين؛ قارن مع ملف القضية ١٢", unit: "الفرع ٢١٥ (اختبار)" },
];
const ONLY = process.env.DALIL_E2E_LANG;
const LANGS = ONLY ? ALL_LANGS.filter((l) => l.code === ONLY) : ALL_LANGS;

/** Reads each photograph's card from the demo card's truth and groups by it: the screens are under test. */
function truthEngine(truth: DemoCardTruth): CatalogueEngine {
  const bodyOf = new Map<string, string>();
  for (const p of truth.photos) if (!bodyOf.has(p.sha256)) bodyOf.set(p.sha256, p.body);
  const bodies = new Map(truth.bodies.map((b) => [b.ref, b]));
  return {
    readerName: "truth.json",
    async readCard(_img: Buffer, sha: string): Promise<CardReading[]> {
      const b = bodies.get(bodyOf.get(sha) ?? "");
      if (!b) return [];
      return [
        { role: "detainee", value: b.detainee_no, confidence: 0.97 },
        { role: "branch", value: b.branch_no, confidence: 0.99 },
      ];
    },
    group(photos) {
      const groups = new Map<string, string[]>();
      for (const p of photos) {
        const body = bodyOf.get(p.sha256) ?? p.sha256;
        groups.set(body, [...(groups.get(body) ?? []), p.sha256]);
      }
      return [...groups.values()].map((shas) => {
        const first = photos.find((p) => p.sha256 === shas[0])!;
        return { photos: shas, roles: { [shas[0]!]: "card" }, numbers: first.readings.map((r) => ({ ...r, photo: first.sha256 })), reasons: [{ code: "truth", text: "the demo card's truth" }], score: 0.9 };
      });
    },
    async close() {},
  };
}


async function imagesLoaded(page: Page, selector: string): Promise<void> {
  await waitForExpression(page, `[...document.querySelectorAll(${JSON.stringify(selector)})].length > 0 && [...document.querySelectorAll(${JSON.stringify(selector)})].every((i) => i.complete && i.naturalWidth > 0)`);
}

test("the catalogue's screens in Chromium: group a body, edit it, see its history; in English and in Arabic", { skip, timeout: 480_000 }, async (t) => {
  ensureWebBuilt({ quiet: true });
  const work = mkdtempSync(join(tmpdir(), "dalil-e2e-catalogue-"));
  const dataDir = join(work, "data");
  const card = join(work, "card");
  const tokens = new Map<string, string>();
  let server: DalilServer | null = null;
  try {
    await writeDemoCard(card, { bodies: 2, seed: "catalogue-e2e", withFaults: false });
    renameSync(join(card, "truth.json"), join(work, "truth.json"));
    const truth = JSON.parse(readFileSync(join(work, "truth.json"), "utf8")) as DemoCardTruth;
    // At the console: the investigators, the card taken in, its cards read into proposals, a session each.
    const archive = await openArchive(loadConfig({ data: dataDir }, {}));
    try {
      const source = (await ingestCard(archive, operatorActor(), { path: card, label: "demo card (catalogue e2e)" })).source;
      let first: Actor | null = null;
      for (const l of ALL_LANGS) {
        const { user } = await addUser(archive, operatorActor(), { email: l.email, role: "investigator" });
        const actor: Actor = { kind: "user", id: user.id, role: "investigator" };
        first ??= actor;
        const session = await archive.db.transaction((tx) => issueSession(tx, archive.clock, user.id, "full"));
        tokens.set(l.email, session.token);
      }
      const run = await runProposals(archive, first!, { sourceId: source, engine: truthEngine(truth) });
      assert.equal(run.proposals, 2, "one proposal per body on the card");
    } finally {
      await archive.close();
    }
    server = await startDalil(dataDir);
    const base = server.url;

    await t.test("every catalogue route the web app calls exists in the server's route table", async () => {
      assert.deepEqual(await missingEndpoints(base, CATALOGUE_ENDPOINTS), []);
    });

    for (const l of LANGS) {
      await t.test(`${l.code}: proposals → accept → body → check a number → edit → history; a unit`, async () => {
        const b = await openBrowser({ locale: l.locale });
        const { page } = b;
        const p = (n: string) => `catalogue-${l.code}-${n}`;
        try {
          await b.context.addCookies([{ name: "dalil_session", value: tokens.get(l.email)!, url: base }]);
          await page.goto(`${base}/groupings`);
          await page.locator("[data-testid=grouping-sources] tbody tr").first().waitFor();
          assert.equal(await page.evaluate(`document.documentElement.dir`), l.code === "ar" ? "rtl" : "ltr");
          await expectNoAxeViolations(page, "grouping sources");
          await shot(page, p("01-sources"));

          // The source's proposals: blurred photographs, the numbers read, a decision each.
          await page.locator("[data-testid=grouping-sources] a[data-source-id]").first().click();
          await page.waitForURL(/\/sources\/[^/]+\/proposals$/);
          const proposal = page.locator("article.cat-proposal[data-status=proposed]").first();
          await proposal.waitFor();
          await imagesLoaded(page, "article.cat-proposal img");
          assert.match((await page.locator("article.cat-proposal img").first().getAttribute("src"))!, /\/renditions\/blurred$/, "photographs are shown blurred");
          await expectNoAxeViolations(page, "grouping proposals");
          await shot(page, p("02-proposals"));

          // Group a body: by the Accept button in English, by the keyboard (A on the focused proposal) in Arabic.
          if (l.code === "en") await proposal.locator("[data-testid=accept]").click();
          else {
            await proposal.focus();
            await page.keyboard.press("a");
          }
          const toBody = page.locator("[data-testid=accepted-body]");
          await toBody.waitFor();
          if (l.code === "ar") {
            // The keyboard stays on the work: focus moves to the proposal now in the decided one's place, or to
            // the new body's link when none is left.
            await waitForExpression(page, `document.activeElement?.matches("article.cat-proposal[data-status=proposed], [data-testid=accepted-body]") ?? false`);
          }
          await shot(page, p("03-accepted"));
          await toBody.click();
          await page.waitForURL(/\/bodies\/[^/]+$/);

          // The body: its photographs (blurred, linking to the viewer), its numbers and their check.
          await page.locator("[data-testid=body-page]").waitFor();
          await imagesLoaded(page, "[data-testid=body-photos] img");
          assert.match((await page.locator("[data-testid=body-photos] a").first().getAttribute("href"))!, /^\/photo\/[0-9a-f]{64}$/);
          const numberRow = page.locator("[data-testid=body-numbers] tbody tr").first();
          await numberRow.waitFor();
          await numberRow.locator(".badge-warn").waitFor();
          await numberRow.locator("button").first().click();
          await numberRow.locator(".badge-ok").waitFor();
          await expectNoAxeViolations(page, "body");
          await shot(page, p("04-body"));

          // Edit fields; the history shows old → new, who and when.
          await page.locator("[data-testid=edit-body]").click();
          await page.locator("[data-testid=body-form]").waitFor();
          await page.fill("#body-notes", l.note);
          await page.selectOption("#body-identificationStatus", "possible_match");
          await page.selectOption("#body-sex", "male");
          await expectNoAxeViolations(page, "body edit form");
          await shot(page, p("05-edit"));
          await page.locator("[data-testid=body-form] button[type=submit]").click();
          await page.locator("[data-testid=body-fields]").waitFor();
          const noteRow = page.locator("[data-testid=body-history] tbody tr[data-field=notes]");
          await noteRow.waitFor();
          assert.ok((await noteRow.textContent())!.includes(l.note), "the new value is in the history");
          const statusRow = page.locator("[data-testid=body-history] tbody tr[data-field=identificationStatus]");
          const change = statusRow.locator("td[data-old]");
          assert.deepEqual([await change.getAttribute("data-old"), await change.getAttribute("data-new")], ["unidentified", "possible_match"], "old → new");
          // who made the change, by address and role (never an account id)
          await noteRow.locator("td").nth(1).locator("[data-person]").filter({ hasText: "@" }).waitFor();
          await page.locator("#history-title").scrollIntoViewIfNeeded();
          await expectNoAxeViolations(page, "body with history");
          await shot(page, p("06-history"));

          // The bodies list holds it.
          await page.locator("nav a[href='/bodies']").click();
          await page.locator("[data-testid=bodies] tbody tr").first().waitFor();
          await expectNoAxeViolations(page, "bodies");
          await shot(page, p("07-bodies"));

          // Facilities, units and persons: add a unit, open its page.
          await page.locator("nav a[href='/entities']").click();
          await page.locator("[data-testid=add-entity]").click();
          await page.locator("[data-testid=entity-new]").waitFor();
          await page.fill(l.code === "ar" ? "#entity-new-nameAr" : "#entity-new-nameEn", l.unit);
          await page.fill("#entity-new-number", "215");
          await expectNoAxeViolations(page, "entities with the new-entity form");
          await shot(page, p("08-entities-new"));
          await page.locator("[data-testid=entity-new] button[type=submit]").click();
          await page.locator("[data-testid=entity-page]").waitFor();
          assert.ok((await page.locator("#entity-title").textContent())!.includes(l.unit));
          await expectNoAxeViolations(page, "entity");
          await shot(page, p("09-entity"));

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
