import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/core/config.ts";
import { openArchive } from "../../src/app/open-archive.ts";
import { operatorActor } from "../../src/core/actor.ts";
import { ingestCard } from "../../src/archive/intake.ts";
import { writeDemoCard, type DemoCardTruth } from "../../src/archive/demo-card/index.ts";
import { acceptProposals, listProposals, runProposals, type CatalogueEngine, type CardReading } from "../../src/catalogue/index.ts";
import { assignSample, drawReviewSample, myAssignments, submitReview } from "../../src/review/index.ts";
import { ensureWebBuilt } from "../../web/ensure-built.mjs";
import { codeAt, fullSession, readyUser, type TestUser } from "../support/accounts.ts";
import { expectNoAxeViolations, browserSkip, openBrowser, shot, startDalil, waitForExpression, type DalilServer } from "../support/browser.ts";

/**
 * Forensic review in Chromium, in English and in Arabic, over an archive with a demo card taken in and grouped
 * into bodies through the archive's API: an investigator draws a sample on the samples screen and assigns it;
 * a forensic reviewer signs in with a TOTP code, opens the queue, reveals a photograph (logged), draws a
 * region on it with the mouse and another with the numeric fields, fills the finding, signs and submits it and
 * sees it recorded (and the server holds it, with the same hash); then settles a disagreement between two
 * other reviewers as third reviewer and reads the agreement statistics. axe-core on every screen.
 */
const skip = browserSkip();

interface Lang {
  code: "en" | "ar";
  locale: string;
  signOut: string;
}
const ONLY = process.env.DALIL_E2E_LANG;
const LANGS: Lang[] = [
  { code: "en" as const, locale: "en-GB", signOut: "Sign out" },
  { code: "ar" as const, locale: "ar-SY", signOut: "تسجيل الخروج" },
].filter((l) => !ONLY || l.code === ONLY);

/** Groups a demo card's photos by its truth file and "reads" each card from it: intake and grouping are not under test here. */
function truthEngine(truth: DemoCardTruth): CatalogueEngine {
  const bodyOf = new Map(truth.photos.map((p) => [p.sha256, p.body]));
  const bodies = new Map(truth.bodies.map((b) => [b.ref, b]));
  return {
    readerName: "truth",
    async readCard(_img: Buffer, sha: string): Promise<CardReading[]> {
      const b = bodies.get(bodyOf.get(sha) ?? "");
      return b ? [{ role: "detainee", value: b.detainee_no, confidence: 0.99 }, { role: "branch", value: b.branch_no, confidence: 0.99 }] : [];
    },
    group(photos) {
      const groups = new Map<string, typeof photos>();
      for (const p of photos) groups.set(bodyOf.get(p.sha256)!, [...(groups.get(bodyOf.get(p.sha256)!) ?? []), p]);
      return [...groups.values()].map((g) => ({
        photos: g.map((p) => p.sha256),
        roles: { [g[0]!.sha256]: "card" },
        numbers: g[0]!.readings.map((r) => ({ ...r, photo: g[0]!.sha256 })),
        reasons: [{ code: "truth", text: "grouped by the demo card's truth" }],
        score: 1,
      }));
    },
    async close() {},
  };
}


test("forensic review in Chromium, in English and in Arabic", { skip, timeout: 300_000 }, async (t) => {
  ensureWebBuilt({ quiet: true });
  const work = mkdtempSync(join(tmpdir(), "dalil-e2e-review-"));
  const dataDir = join(work, "data");
  const card = join(work, "card");
  let server: DalilServer | null = null;
  const reviewers = new Map<string, TestUser>();
  const investigatorCookies = new Map<string, string>();
  try {
    const setupStarted = Date.now();
    const archive = await openArchive(loadConfig({ data: dataDir }, {}));
    try {
      // Six bodies: two for the disagreements made here, two for each language's sample.
      await writeDemoCard(card, { bodies: 6, seed: "review-e2e", withFaults: false });
      const truth = JSON.parse(readFileSync(join(card, "truth.json"), "utf8")) as DemoCardTruth;
      const inv = await readyUser(archive, "investigator");
      const s = await ingestCard(archive, operatorActor(), { path: card, label: "demo card (synthetic)" });
      await runProposals(archive, inv.actor, { sourceId: s.source, engine: truthEngine(truth) });
      const proposed = await listProposals(archive, inv.actor, { sourceId: s.source, status: "proposed" });
      assert.equal(proposed.items.length, 6);
      await acceptProposals(archive, inv.actor, { proposalIds: proposed.items.map((p) => p.id) });

      // Two blind double reviews that disagree (on "burn"), by two other reviewers, for the disagreements screen.
      const [h1, h2] = [await readyUser(archive, "forensic_reviewer"), await readyUser(archive, "forensic_reviewer")];
      const disputed = await drawReviewSample(archive, inv.actor, { size: 2, seed: "disputes", doubleShare: 1 });
      await assignSample(archive, inv.actor, { sampleId: disputed.id, reviewers: [h1.id, h2.id] });
      for (const [who, findings] of [[h1, ["blunt_force", "burn"]], [h2, ["blunt_force"]]] as const) {
        for (const a of await myAssignments(archive, who.actor)) {
          await submitReview(archive, who.actor, { assignmentId: a.id, findings: findings.map((code) => ({ code, confidence: "probable" as const })) });
        }
      }
      for (const l of LANGS) {
        reviewers.set(l.code, await readyUser(archive, "forensic_reviewer", `reviewer-${l.code}@example.org`));
        investigatorCookies.set(l.code, (await fullSession(archive, inv.id)).token);
      }
    } finally {
      await archive.close();
    }
    console.log(`review e2e: archive set up (card of 6 bodies taken in, grouped, disputes made) in ${((Date.now() - setupStarted) / 1000).toFixed(1)} s`);
    server = await startDalil(dataDir);
    const base = server.url;

    for (const l of LANGS) {
      await t.test(`${l.code}: draw and assign a sample, review a photo, settle a disagreement, read the agreement`, async () => {
        const b = await openBrowser({ locale: l.locale });
        const { page, context } = b;
        const p = (n: string) => `review-${l.code}-${n}`;
        const reviewer = reviewers.get(l.code)!;
        const started = Date.now();
        try {
          // The investigator (a session made at the console): draw a sample of two, see its strata, assign it.
          await context.addCookies([{ name: "dalil_session", value: investigatorCookies.get(l.code)!, url: base, httpOnly: true, sameSite: "Strict" }]);
          await page.goto(`${base}/review/samples`);
          await page.locator("#sample-seed").waitFor();
          await expectNoAxeViolations(page, "samples");
          await page.fill("#sample-seed", `e2e-${l.code}-2026-12-02`);
          await page.fill("#sample-size", "2");
          await page.fill("#sample-share", "0");
          await shot(page, p("01-samples"));
          await page.locator("form.card button[type=submit].primary").first().click();
          await page.waitForURL(/\/review\/samples\/smp_/);
          await page.locator("[data-testid=strata] tbody tr").first().waitFor();
          assert.equal(await page.locator("[data-testid=sample-items] tbody tr").count(), 2);
          await page.fill("#assign-reviewers", reviewer.email);
          await page.locator("form.card button[type=submit].primary").click();
          await page.locator(".notice-ok").waitFor();
          await expectNoAxeViolations(page, "sample");
          await shot(page, p("02-sample-assigned"));

          // The reviewer signs in: password, then the code of their authenticator app.
          await page.locator(".toolbar button", { hasText: l.signOut }).click();
          await page.waitForURL(/\/signin$/);
          await page.fill("#email", reviewer.email);
          await page.fill("#password", reviewer.password);
          await page.locator("form button[type=submit]").click();
          await page.locator("#code").waitFor();
          await page.fill("#code", codeAt(reviewer, new Date()));
          await page.locator("form button[type=submit]").click();
          await page.locator("nav a[href='/review']").waitFor();

          // The queue: the two bodies just assigned.
          await page.locator("nav a[href='/review']").click();
          await page.locator("[data-testid=review-queue] tbody tr").first().waitFor();
          assert.equal(await page.locator("[data-testid=review-queue] tbody tr").count(), 2);
          await expectNoAxeViolations(page, "review queue");
          await shot(page, p("03-queue"));
          await page.locator("[data-testid=open-assignment]").first().click();
          await page.waitForURL(/\/review\/assignment\/rva_/);

          // The photo: revealed for examination (logged with the reason), then a region drawn with the mouse.
          await page.locator("[data-testid=review-reveal]").click();
          await waitForExpression(page, `(() => { const i = document.querySelector(".zoom-viewport img"); return !!i && i.src.startsWith("blob:") && i.complete && i.naturalWidth > 0; })()`);
          // The whole photo in the window: the mouse can only press on what is on the screen.
          await page.locator(".zoom-viewport").scrollIntoViewIfNeeded();
          const box = (await page.locator("[data-testid=region-canvas]").boundingBox())!;
          await page.mouse.move(box.x + box.width * 0.2, box.y + box.height * 0.3);
          await page.mouse.down();
          await page.mouse.move(box.x + box.width * 0.4, box.y + box.height * 0.45, { steps: 5 });
          await page.mouse.move(box.x + box.width * 0.5, box.y + box.height * 0.6, { steps: 5 });
          await page.mouse.up();
          await page.locator("[data-testid=regions-0] li").first().waitFor();
          // …and one typed as numbers (the keyboard's way).
          await page.fill("#num-x", "60");
          await page.fill("#num-y", "10");
          await page.fill("#num-w", "20");
          await page.fill("#num-h", "15");
          await page.locator(".numeric-region button").click();
          assert.equal(await page.locator("[data-testid=regions-0] li").count(), 2);
          assert.equal(await page.locator("[data-testid=region-canvas] rect.region").count(), 2, "both regions are drawn over the photo");
          // …and a polygon, a click per corner, closed by a double click on the last one.
          await page.locator("input[name=review-tool][value=polygon]").check();
          // (Measured again: checking the radio button may have scrolled the page.)
          await page.locator(".zoom-viewport").scrollIntoViewIfNeeded();
          const pbox = (await page.locator("[data-testid=region-canvas]").boundingBox())!;
          await page.mouse.click(pbox.x + pbox.width * 0.3, pbox.y + pbox.height * 0.7);
          await page.mouse.click(pbox.x + pbox.width * 0.45, pbox.y + pbox.height * 0.75);
          await page.mouse.dblclick(pbox.x + pbox.width * 0.35, pbox.y + pbox.height * 0.9);
          await page.locator("[data-testid=region-canvas] polygon.region").waitFor();
          assert.equal(await page.locator("[data-testid=regions-0] li").count(), 3);
          await page.selectOption("[data-testid=finding-0] select >> nth=0", "blunt_force");
          await page.selectOption("[data-testid=finding-0] select >> nth=1", "certain");
          await page.fill("[data-testid=finding-0] textarea", l.code === "ar" ? "كدمات متوازية على الظهر" : "parallel bruises across the back");
          await page.locator(".cause input[type=checkbox]").first().check();
          await page.fill("#review-notes", l.code === "ar" ? "الصورة الثانية أوضح" : "the second photo is clearer");
          // A mark a family could recognise, by type and place, and the clothing.
          await page.locator("[data-testid=review-marks] > button").click();
          await page.selectOption("[data-testid=review-marks] li select >> nth=0", "tattoo");
          await page.selectOption("[data-testid=review-marks] li select >> nth=1", "arm_right");
          await page.fill("[data-testid=review-marks] li input", l.code === "ar" ? "مرساة" : "anchor");
          await page.fill("#review-clothing", l.code === "ar" ? "قميص أزرق" : "blue shirt");
          await expectNoAxeViolations(page, "review form");
          await shot(page, p("04-review-drawn"));
          await page.locator("[data-testid=submit-review]").click();
          await page.locator("[data-testid=review-signed]").waitFor();
          await page.locator("[data-testid=review-recorded] li[data-code=blunt_force]").waitFor();
          await expectNoAxeViolations(page, "review recorded");
          await shot(page, p("05-review-recorded"));

          // The server holds it as signed: one review of this body, with the regions drawn, in unit coordinates.
          const assignment = page.url().split("/").pop()!;
          const mine = (await (await context.request.get(`${base}/api/review/assignments`)).json()) as { id: string; bodyId: string; submittedAt: string | null }[];
          const a = mine.find((x) => x.id === assignment)!;
          assert.ok(a.submittedAt, "the assignment is submitted");
          type Held = { photo: string; shape: "rect"; x: number; y: number; w: number; h: number } | { photo: string; shape: "polygon"; points: [number, number][] };
          const held = (await (await context.request.get(`${base}/api/bodies/${a.bodyId}/reviews`)).json()) as { reviews: { sha256: string; content: { findings: { code: string; confidence: string; regions: Held[] }[] } }[] };
          assert.equal(held.reviews.length, 1);
          const f = held.reviews[0]!.content.findings[0]!;
          assert.deepEqual([f.code, f.confidence, f.regions.map((r) => r.shape)], ["blunt_force", "certain", ["rect", "rect", "polygon"]]);
          const signed = held.reviews[0]!.content as unknown as { marks?: { type: string; region: string | null; description: string }[]; clothing?: string };
          assert.deepEqual(signed.marks, [{ type: "tattoo", region: "arm_right", description: l.code === "ar" ? "مرساة" : "anchor" }]);
          assert.equal(signed.clothing, l.code === "ar" ? "قميص أزرق" : "blue shirt");
          const [drawn, typed, polygon] = f.regions as [Held & { shape: "rect" }, Held & { shape: "rect" }, Held & { shape: "polygon" }];
          const near = (got: number, want: number) => Math.abs(got - want) < 0.02;
          assert.ok([[drawn.x, 0.2], [drawn.y, 0.3], [drawn.w, 0.3], [drawn.h, 0.3]].every(([g, w]) => near(g!, w!)), `the drawn rectangle, in unit coordinates: ${JSON.stringify(drawn)}`);
          assert.deepEqual(typed, { photo: drawn.photo, shape: "rect", x: 0.6, y: 0.1, w: 0.2, h: 0.15 });
          assert.ok(polygon.points.length === 3 && [[0.3, 0.7], [0.45, 0.75], [0.35, 0.9]].every(([x, y], i) => near(polygon.points[i]![0], x!) && near(polygon.points[i]![1], y!)), `the polygon: ${JSON.stringify(polygon)}`);
          assert.equal(await page.locator("[data-testid=review-recorded] .hash code").getAttribute("title"), held.reviews[0]!.sha256);

          // A correction: a new signed version that says why; the first stays as it was signed.
          await page.locator(".review-form > button").click();
          await page.selectOption("[data-testid=finding-0] select >> nth=1", "probable");
          await page.fill("#review-correction", l.code === "ar" ? "درجة الثقة مبالغ فيها" : "confidence overstated");
          await page.locator("[data-testid=submit-review]").click();
          await page.locator("[data-testid=review-recorded] h2", { hasText: l.code === "ar" ? "٢" : "2" }).waitFor();
          const after = (await (await context.request.get(`${base}/api/bodies/${a.bodyId}/reviews`)).json()) as typeof held;
          assert.deepEqual(after.reviews.map((r) => r.sha256)[0], held.reviews[0]!.sha256);
          assert.equal(after.reviews.length, 2);
          assert.equal(after.reviews[1]!.content.findings[0]!.confidence, "probable");

          // A disagreement between two other reviewers: both reviews side by side; settled as third reviewer.
          await page.locator("nav a[href='/review/disagreements']").click();
          await page.locator("[data-testid=dispute]").first().waitFor();
          const disputes = await page.locator("[data-testid=dispute]").count();
          await page.locator("[data-testid=dispute] .side-by-side section").nth(1).waitFor();
          await expectNoAxeViolations(page, "disagreements");
          await shot(page, p("06-disagreements"));
          const d = page.locator("[data-testid=dispute]").first();
          await d.locator("textarea").fill(l.code === "ar" ? "الحروق ظاهرة على الصورة الثالثة" : "the burn is visible on the third photo");
          await d.locator("button[type=submit]").click();
          await page.locator(".notice-ok").waitFor();
          await waitForExpression(page, `document.querySelectorAll("[data-testid=dispute]").length === ${disputes - 1}`);

          // Agreement: a chart drawn in the page and a table with the same numbers.
          await page.locator("nav a[href='/review/stats']").click();
          await page.locator("[data-testid=agreement-table] tbody tr[data-code=pooled]").waitFor();
          await page.locator("[data-testid=kappa-chart] g[data-code=burn]").waitFor();
          assert.ok((await page.locator("[data-testid=agreement-table] tbody tr").count()) >= 3);
          await expectNoAxeViolations(page, "agreement statistics");
          await shot(page, p("07-agreement"));

          assert.deepEqual(b.problems, [], "no Content-Security-Policy violations or page errors");
          console.log(`review e2e ${l.code}: ${((Date.now() - started) / 1000).toFixed(1)} s in the browser`);
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
