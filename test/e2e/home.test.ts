import { test } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/core/config.ts";
import { openArchive } from "../../src/app/open-archive.ts";
import type { Role } from "../../src/core/actor.ts";
import { checkNumber, getBody } from "../../src/catalogue/index.ts";
import { assignSample, drawReviewSample, myAssignments, submitReview } from "../../src/review/index.ts";
import { ensureWebBuilt } from "../../web/ensure-built.mjs";
import { fullSession, readyUser, type TestUser } from "../support/accounts.ts";
import { seedBodies, typed } from "../support/catalogue.ts";
import { browserSkip, expectNoAxeViolations, expectNoInternalIds, openBrowser, screenshotPath, shot, startDalil, waitForExpression, type DalilServer } from "../support/browser.ts";

/**
 * Each role's home page in Chromium, in English and in Arabic: what waits for that person, with its count, the
 * menu grouped by area, no internal id anywhere (and the check that says so fails on a page that shows one); a
 * body's number checked by a colleague names the colleague by address and role. Screenshots of every home page.
 */
const skip = browserSkip();
const ROLES: Role[] = ["admin", "archivist", "investigator", "forensic_reviewer", "family_caseworker", "prosecutor", "curator", "family_member"];
const SHOTS = process.env.DALIL_SHOTS;

test("each role's home page, in English and in Arabic", { skip, timeout: 300_000 }, async (t) => {
  ensureWebBuilt({ quiet: true });
  const work = mkdtempSync(join(tmpdir(), "dalil-e2e-home-"));
  const dataDir = join(work, "data");
  let server: DalilServer | null = null;
  const users = new Map<Role, TestUser>();
  const tokens = new Map<Role, string>();
  let checkedBody = "";
  try {
    const archive = await openArchive(loadConfig({ data: dataDir }, {}));
    try {
      for (const r of ROLES) users.set(r, await readyUser(archive, r, `${r.replace(/_/g, "-")}@example.org`));
      const inv = users.get("investigator")!;
      const bodies = await seedBodies(archive, inv.actor, [
        { numbers: [typed("detainee", "1234", inv.id), typed("branch", "215", inv.id)] },
        { numbers: [typed("detainee", "77", inv.id)] },
        { numbers: [typed("detainee", "5", inv.id)] },
      ]);
      // A colleague checks one number: the body page names them.
      const archivist = users.get("archivist")!;
      const first = await getBody(archive, archivist.actor, bodies[0]!.id);
      await checkNumber(archive, archivist.actor, { numberId: first.numbers[0]!.id, agree: true });
      checkedBody = bodies[0]!.id;
      // Two reviewers who disagree (a dispute to settle) and one with an open assignment.
      const [h1, h2] = [await readyUser(archive, "forensic_reviewer"), await readyUser(archive, "forensic_reviewer")];
      const sample = await drawReviewSample(archive, inv.actor, { size: 1, seed: "home", doubleShare: 1 });
      await assignSample(archive, inv.actor, { sampleId: sample.id, reviewers: [h1.id, h2.id] });
      for (const [who, codes] of [[h1, ["blunt_force", "burn"]], [h2, ["blunt_force"]]] as const) {
        for (const a of await myAssignments(archive, who.actor)) await submitReview(archive, who.actor, { assignmentId: a.id, findings: codes.map((code) => ({ code, confidence: "probable" as const })) });
      }
      const open = await drawReviewSample(archive, inv.actor, { size: 1, seed: "home-open", doubleShare: 0 });
      await assignSample(archive, inv.actor, { sampleId: open.id, reviewers: [users.get("forensic_reviewer")!.id] });
      for (const r of ROLES) tokens.set(r, (await fullSession(archive, users.get(r)!.id)).token);
    } finally {
      await archive.close();
    }
    server = await startDalil(dataDir);
    const base = server.url;

    for (const lang of [
      { code: "en", locale: "en-GB" },
      { code: "ar", locale: "ar-SY" },
    ] as const) {
      await t.test(`${lang.code}: every role's home, a colleague named, no ids`, async () => {
        // A refusal from the server reaches the screen in the reader's language (its message key, worded here).
        const s = await openBrowser({ locale: lang.locale });
        try {
          await s.page.goto(`${base}/signin`);
          await s.page.fill("#email", "nobody@example.org");
          await s.page.fill("#password", "not the password at all");
          await s.page.locator("form button[type=submit]").click();
          const said = s.page.locator(".error-detail[data-key='signin.badPassword']");
          await said.waitFor();
          const words = (await said.textContent())!;
          if (lang.code === "ar") assert.match(words, /^[^A-Za-z]*$/, `Arabic only: ${words}`);
          else assert.match(words, /email address or the password is not right/);
        } finally {
          await s.close();
        }
        for (const role of ROLES) {
          const b = await openBrowser({ locale: lang.locale });
          try {
            await b.context.addCookies([{ name: "dalil_session", value: tokens.get(role)!, url: base, httpOnly: true, sameSite: "Strict" }]);
            await b.page.goto(`${base}/`);
            await b.page.waitForURL(/\/home$/);
            const home = b.page.locator("[data-testid=home]");
            await home.locator(".work-list, p:not(.muted)").first().waitFor();
            const counts = Object.fromEntries(
              await home.locator(".work-item").evaluateAll((els) => els.map((e) => [e.getAttribute("data-kind"), Number(e.getAttribute("data-count"))])),
            ) as Record<string, number>;
            if (role === "investigator") assert.deepEqual(counts, { proposals: 0, numbersToCheck: 0, dossiers: 0 }, "one's own numbers are not one's to check");
            if (role === "archivist") assert.deepEqual(counts, { numbersToCheck: 3, dossiers: 0 });
            if (role === "forensic_reviewer") assert.deepEqual(counts, { reviewsAssigned: 1, disagreements: 1 });
            if (role === "curator") assert.deepEqual(counts, {});
            // The menu is grouped by area: an investigator's holds the catalogue's screens under one label.
            if (role === "investigator") assert.ok((await b.page.locator("nav .menu-group[data-group=catalogue] a").count()) >= 3);
            await expectNoAxeViolations(b.page, `${role}'s home`);
            await shot(b.page, `home-${lang.code}-${role}`, false);
            if (SHOTS) {
              mkdirSync(SHOTS, { recursive: true });
              copyFileSync(screenshotPath(`home-${lang.code}-${role}`), join(SHOTS, `home-${lang.code}-${role}.png`));
            }
            if (role === "admin") {
              await b.page.goto(`${base}/bodies/${checkedBody}`);
              await b.page.locator("[data-testid=body-numbers] [data-person]").first().waitFor();
              await waitForExpression(b.page, `[...document.querySelectorAll("[data-testid=body-numbers] [data-person]")].some((e) => e.textContent.includes("archivist@example.org"))`);
              await expectNoAxeViolations(b.page, "body with a checked number");
              // …and the check fails on a page that shows an id.
              await b.page.evaluate(`document.querySelector("main").append("usr_${"a".repeat(26)}")`);
              await assert.rejects(expectNoInternalIds(b.page, "a page with an id"), /shows internal ids/);
            }
            assert.deepEqual(b.problems, []);
          } finally {
            await b.close();
          }
        }
      });
    }
  } finally {
    await server?.stop();
    rmSync(work, { recursive: true, force: true });
  }
});
