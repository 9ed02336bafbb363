import { test } from "node:test";
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { dalil } from "../support/cli.ts";
import { freePort } from "../support/serve.ts";
import { tempDir } from "../support/backends.ts";
import { terminalLanguage, wordedIn } from "../../src/core/messages.ts";

/**
 * A command whose database does not answer (PostgreSQL stopped or restarting: what the fault harness does) ends
 * with one sentence that says which server and what to do, not Node's bare "connect ECONNREFUSED …".
 */
test("a database that does not answer: one sentence naming the server, exit 2, no stack", { timeout: 60_000 }, async () => {
  const dir = tempDir();
  try {
    const port = await freePort();
    const r = await dalil(["init", "--data", dir], { DALIL_DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/test` });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, new RegExp(`^dalil: The server at 127\\.0\\.0\\.1:${port} did not answer \\(ECONNREFUSED\\): is the database or the storage server running\\?`, "m"));
    assert.doesNotMatch(r.stderr, /\n\s+at /, "no stack trace");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the CLI says its sentences in the terminal's language: DALIL_LANG, else the locale, else English", { timeout: 60_000 }, async () => {
  const dir = tempDir();
  try {
    const port = await freePort();
    const db = { DALIL_DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/test` };
    const ar = await dalil(["init", "--data", dir], { ...db, DALIL_LANG: "ar" });
    assert.equal(ar.code, 2, ar.stderr);
    assert.match(ar.stderr, new RegExp(`^dalil: لم يُجب الخادم على العنوان 127\\.0\\.0\\.1:${port} \\(ECONNREFUSED\\)`, "m"));

    // an error the archive says by key (no archive in the folder), by the locale alone, and in English without one
    const missing = `${dir}/none`;
    const byLocale = await dalil(["--data", missing, "log", "key"], { DALIL_LANG: "", LANG: "ar_SY.UTF-8", LC_ALL: "" });
    assert.equal(byLocale.code, 2, byLocale.stderr);
    assert.equal(byLocale.stderr.trim(), `dalil: لا يوجد أرشيف في ${missing}. سمِّ مجلد الأرشيف بالخيار --data (أو DALIL_DATA)، أو أنشئ أرشيفًا فيه بالأمر \`dalil init --data ${missing}\`.`);
    const english = await dalil(["--data", missing, "log", "key"], { DALIL_LANG: "", LANG: "C.UTF-8", LC_ALL: "" });
    assert.match(english.stderr, /^dalil: There is no archive in /);
    // a flag's value refused by the parser
    const flag = await dalil(["demo-card", `${dir}/card`, "--bodies", "x"], { DALIL_LANG: "ar" });
    assert.equal(flag.stderr.trim(), "dalil: يأخذ الخيار --bodies عددًا صحيحًا أكبر من الصفر، لا «x».");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the terminal's language and a message worded in it", () => {
  assert.equal(terminalLanguage({ DALIL_LANG: "ar", LANG: "en_US.UTF-8" }), "ar");
  assert.equal(terminalLanguage({ DALIL_LANG: "EN", LANG: "ar_SY.UTF-8" }), "en");
  assert.equal(terminalLanguage({ LANG: "ar_SY.UTF-8" }), "ar");
  assert.equal(terminalLanguage({ LC_ALL: "ar", LANG: "en_GB.UTF-8" }), "ar");
  assert.equal(terminalLanguage({ LC_MESSAGES: "en_GB.UTF-8", LANG: "ar_EG.UTF-8" }), "en");
  assert.equal(terminalLanguage({ LANG: "arn_CL.UTF-8" }), "en", "Mapudungun is not Arabic");
  assert.equal(terminalLanguage({}), "en");
  // a role in words of the language; English keeps the role's name
  assert.match(wordedIn("ar", "refusal.relation", { role: "forensic_reviewer" }), /مراجع طب شرعي/);
  assert.match(wordedIn("en", "refusal.relation", { role: "forensic_reviewer" }), /forensic reviewer/);
  assert.equal(wordedIn("ar", "no.such.key"), "no.such.key");
});
