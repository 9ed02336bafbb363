import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/core/config.ts";
import { openArchive } from "../../src/app/open-archive.ts";
import { operatorActor } from "../../src/core/actor.ts";
import { addUser, issueSession } from "../../src/access/index.ts";
import { generateCosigner, parseWitnessPolicy } from "../../src/ledger/index.ts";
import { ensureWebBuilt } from "../../web/ensure-built.mjs";
import { browserSkip, expectNoAxeViolations, expectNoInternalIds, openBrowser, shot, startDalil, type DalilServer } from "../support/browser.ts";

/**
 * The admin's witness policy on screen, in English then in Arabic against one running server: a witness added
 * (its name, key and address), a refusal worded in the reader's language, the quorum set to one witness and then
 * to k of several, a witness removed; the file the server keeps is valid tlog-policy after each, and the server
 * uses it without a restart (the log page lists the witnesses). Each screen passes axe.
 */
const skip = browserSkip();

const LANGS = [
  { code: "en", locale: "en-GB", taken: /already used by a witness or group/ },
  { code: "ar", locale: "ar-SY", taken: /مستعمل لشاهد أو مجموعة/ },
] as const;

test("an administrator edits the witness policy on screen, in English and in Arabic", { skip, timeout: 240_000 }, async (t) => {
  ensureWebBuilt({ quiet: true });
  const work = mkdtempSync(join(tmpdir(), "dalil-e2e-witnesses-"));
  const dataDir = join(work, "data");
  const policyFile = join(dataDir, "witnesses.policy");
  let server: DalilServer | null = null;
  try {
    let token = "";
    const archive = await openArchive(loadConfig({ data: dataDir }, {}));
    try {
      const { user } = await addUser(archive, operatorActor(), { email: "admin-witnesses@example.org", role: "admin" });
      token = (await archive.db.transaction((tx) => issueSession(tx, archive.clock, user.id, "full"))).token;
    } finally {
      await archive.close();
    }
    server = await startDalil(dataDir);
    const base = server.url;
    const keys = { en: generateCosigner("witness.example/en"), ar: generateCosigner("witness.example/ar") };

    for (const l of LANGS) {
      await t.test(l.code, async () => {
        const b = await openBrowser({ locale: l.locale });
        const { page } = b;
        try {
          await b.context.addCookies([{ name: "dalil_session", value: token, url: base }]);
          await page.goto(`${base}/admin/users`);
          const section = page.locator("[data-testid=witness-policy]");
          await section.locator("[data-testid=witness-quorum]").waitFor();

          // a witness added: name, key, and (in English) the address it takes checkpoints at
          await page.fill("#witness-name", `w-${l.code}`);
          await page.fill("#witness-vkey", keys[l.code].vkey);
          if (l.code === "en") await page.fill("#witness-url", "https://witness.example/en/");
          await page.locator("[data-testid=witness-add] button[type=submit]").click();
          await section.locator("tbody tr", { hasText: `w-${l.code}` }).waitFor();
          assert.match(readFileSync(policyFile, "utf8"), new RegExp(`^witness w-${l.code} ${keys[l.code].vkey.replace(/[+]/g, "\\+")}`, "m"));

          // the same name again: refused, in the reader's language
          await page.fill("#witness-name", `w-${l.code}`);
          await page.fill("#witness-vkey", generateCosigner("witness.example/again").vkey);
          await page.locator("[data-testid=witness-add] button[type=submit]").click();
          await section.locator(".error-detail[data-key='witness.nameTaken']").waitFor();
          assert.match((await section.locator(".error-detail").textContent()) ?? "", l.taken);
          await page.fill("#witness-name", "");
          await page.fill("#witness-vkey", "");

          if (l.code === "en") {
            // the quorum: this one witness
            await page.selectOption("#witness-quorum-choice", "w-en");
            await page.locator("[data-testid=witness-quorum-form] button[type=submit]").click();
            await section.locator("[data-testid=witness-quorum]", { hasText: "a cosignature by w-en" }).waitFor();
            assert.equal(parseWitnessPolicy(readFileSync(policyFile, "utf8")).quorum, "w-en");
          } else {
            // the quorum: both of the two witnesses; then the English one removed (it leaves the group)
            await page.selectOption("#witness-quorum-choice", "*some");
            await page.fill("#witness-quorum-k", "2");
            await page.locator("[data-testid=witness-quorum-form] button[type=submit]").click();
            await section.locator("[data-testid=witness-quorum]", { hasText: /[2٢] من [2٢]/ }).waitFor();
            const both = parseWitnessPolicy(readFileSync(policyFile, "utf8"));
            assert.deepEqual(both.groups, [{ name: "quorum", threshold: 2, members: ["w-en", "w-ar"] }]);
            page.once("dialog", (d) => void d.accept());
            await section.locator("tbody tr", { hasText: "w-en" }).locator("button").click();
            await section.locator("tbody tr", { hasText: "w-en" }).waitFor({ state: "detached" });
            assert.deepEqual(parseWitnessPolicy(readFileSync(policyFile, "utf8")).witnesses.map((w) => w.name), ["w-ar"]);
          }
          await expectNoAxeViolations(page, `witness policy (${l.code})`);
          await expectNoInternalIds(page, `witness policy (${l.code})`);
          await section.scrollIntoViewIfNeeded();
          await shot(page, `${l.code}-admin-witnesses`);

          // the running server uses the policy as edited: the log page lists its witnesses
          await page.goto(`${base}/log`);
          await page.locator("[data-testid=witnesses] li", { hasText: `w-${l.code}` }).waitFor();
          assert.deepEqual(b.problems, [], "no Content-Security-Policy violations or page errors");
        } catch (e) {
          await shot(page, `${l.code}-admin-witnesses-FAILED`).catch(() => {});
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
