import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { FastifyRequest } from "fastify";
import { ACTIONS, anonymousActor, SENSITIVITIES } from "../../src/access/policy.ts";
import { MESSAGES, MESSAGE_KEYS, english } from "../../src/core/messages.ts";
import { ConsentTierName } from "../../src/families/contracts.ts";
import type { Actor, Role } from "../../src/core/actor.ts";
import { buildHttpApp } from "../../src/http/app.ts";
import { backends } from "../support/backends.ts";
import { freshArchive } from "../support/archive.ts";

/**
 * Every message key the server can send has its words in Arabic and English, with exactly the parameters the
 * server gives it; the server answers refusals, validation failures and unknown records with their key; and the
 * key, worded as the web app words it, reads as Arabic in Arabic.
 */
const ROOT = join(import.meta.dirname, "..", "..");
type Tree = { [k: string]: string | Tree };
const words = (lang: "ar" | "en") => (JSON.parse(readFileSync(join(ROOT, "web", "src", "i18n", "areas", `server.${lang}.json`), "utf8")) as { server: Tree }).server;
const at = (t: Tree, key: string): string | undefined => {
  let node: string | Tree | undefined = t;
  for (const part of key.split(".")) node = typeof node === "object" ? node[part] : undefined;
  return typeof node === "string" ? node : undefined;
};
/** i18next's plural forms: a counted message (one with `count`) has each its language uses. */
const PLURAL_FORMS = { en: ["one", "other"], ar: ["zero", "one", "two", "few", "many", "other"] } as const;
const placeholders = (s: string) => [...new Set([...s.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]!))].sort();

test("every server message key has Arabic and English words with the parameters it is sent with", () => {
  assert.ok(MESSAGE_KEYS.length >= 30, `the table holds the messages (${MESSAGE_KEYS.length})`);
  for (const lang of ["en", "ar"] as const) {
    const t = words(lang);
    for (const key of MESSAGE_KEYS) {
      if ((MESSAGES[key] as readonly string[]).includes("count")) {
        // Every form its language has; "other" says every parameter, the others may leave the count to words (صورتان).
        for (const form of PLURAL_FORMS[lang]) {
          const s = at(t, `${key}_${form}`);
          assert.ok(s, `server.${key}_${form} has ${lang} words (a counted message has every plural form)`);
          const wanted: string[] = [...MESSAGES[key]].sort();
          if (form === "other") assert.deepEqual(placeholders(s), wanted, `server.${key}_other (${lang}) uses exactly the parameters ${wanted.join(", ")}`);
          else assert.deepEqual(placeholders(s).filter((p) => !wanted.includes(p)), [], `server.${key}_${form} (${lang}) uses no other parameters`);
          if (lang === "ar") assert.match(s, /[\u0600-\u06ff]/, `server.${key}_${form} in Arabic is Arabic`);
        }
        assert.equal(at(t, key), undefined, `server.${key} (${lang}) is said in plural forms only`);
        continue;
      }
      const s = at(t, key);
      assert.ok(s, `server.${key} has ${lang} words`);
      assert.deepEqual(placeholders(s), [...MESSAGES[key]].sort(), `server.${key} (${lang}) uses exactly the parameters ${MESSAGES[key].join(", ") || "(none)"}`);
      if (lang === "ar") assert.match(s, /[\u0600-\u06ff]/, `server.${key} in Arabic is Arabic`);
    }
    // The words a parameter is given in: every action, every marking, every kind of record.
    // (actions are flat keys with a dot, "archive.read", as i18next finds them)
    for (const a of ACTIONS) assert.ok(typeof (t.action as Tree)[a] === "string", `the action ${a} has ${lang} words`);
    for (const s of SENSITIVITIES) assert.ok(at(t, `sensitivity.${s}`), `the marking ${s} has ${lang} words`);
    for (const c of ConsentTierName.options) assert.ok(at(t, `tier.${c}`), `the consent tier ${c} has ${lang} words`);
  }
  // a tier is said in words, not as its code
  assert.equal(english("families.consentYesNo", { tier: "dnaReferral" }), "Consent to being referred for a DNA sample is true (given) or false (not given).");
});

test("every key the server code says is in the table, and each is said somewhere", () => {
  const files: string[] = [];
  const walk = (d: string) => {
    for (const n of readdirSync(d)) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else if (p.endsWith(".ts")) files.push(p);
    }
  };
  walk(join(ROOT, "src"));
  const said = new Set<string>();
  for (const f of files) {
    const text = readFileSync(f, "utf8");
    for (const m of text.matchAll(/\.says\(\s*"([\w.]+)"/g)) said.add(m[1]!);
    for (const m of text.matchAll(/\bkey: "([\w.]+)", params:/g)) said.add(m[1]!);
    for (const m of text.matchAll(/\bsay\(\s*"([\w.]+)"/g)) said.add(m[1]!);
  }
  assert.deepEqual([...said].filter((k) => !(k in MESSAGES)), [], "keys said that the table lacks");
  assert.deepEqual(MESSAGE_KEYS.filter((k) => !said.has(k)), [], "keys in the table that nothing says");
});

for (const { backend, skip } of await backends()) {
  test(`refusals, validation and unknown records reach the browser as keys with parameters, on ${backend.name}`, { skip, timeout: 120_000 }, async () => {
    const { archive, close } = await freshArchive(backend);
    const roleOf = (h: unknown): Actor => (typeof h === "string" ? { kind: "user", id: `usr_${"a".repeat(26)}`, role: h as Role } : anonymousActor);
    const http = await buildHttpApp(archive, { actorFor: (req: FastifyRequest) => roleOf(req.headers["x-test-role"]) });
    try {
      const ask = async (method: "GET" | "POST", url: string, role?: Role, payload?: object) => {
        const r = await http.app.inject({ method, url, headers: role ? { "x-test-role": role } : {}, ...(payload ? { payload } : {}) });
        return { status: r.statusCode, body: r.json() as { error: string; message: string; key?: string; params?: Record<string, unknown> } };
      };
      const anon = await ask("GET", "/api/users");
      assert.equal(anon.status, 401);
      assert.equal(anon.body.key, "refusal.signIn");

      const role = await ask("GET", "/api/users", "investigator");
      assert.equal(role.status, 403);
      assert.deepEqual([role.body.key, role.body.params], ["refusal.role", { role: "investigator", action: "users.manage" }]);
      assert.match(role.body.message, /investigator/, "the English sentence stays for the CLI and API clients");

      const invalid = await ask("POST", "/api/people/names", "investigator", { ids: "not a list" });
      assert.equal(invalid.status, 422);
      assert.deepEqual([invalid.body.key, invalid.body.params], ["request.invalid", { field: "ids" }]);
      // The edge parses query and path parameters with the route's contract too: their failures carry the key.
      const badQuery = await ask("GET", "/api/gallery?limit=0", "investigator");
      assert.equal(badQuery.status, 422);
      assert.deepEqual([badQuery.body.key, badQuery.body.params], ["request.invalid", { field: "limit" }]);
      const badParam = await ask("GET", `/api/bodies/${"b".repeat(65)}`, "investigator");
      assert.equal(badParam.status, 422);
      assert.deepEqual([badParam.body.key, badParam.body.params], ["request.invalid", { field: "id" }]);

      const body = await ask("GET", `/api/bodies/bod_${"b".repeat(26)}`, "investigator");
      assert.equal(body.status, 404);
      assert.deepEqual([body.body.key, body.body.params], ["record.notFound", { kind: "body" }]);

      // Worded as the web app words it (ErrorNote: role, action and kind have their own words).
      const { default: i18next } = await import("i18next");
      const i18n = i18next.createInstance();
      const ar = { server: words("ar"), roles: { investigator: "محقق" } };
      await i18n.init({ lng: "ar", resources: { ar: { translation: ar } }, interpolation: { escapeValue: false } });
      const sentence = i18n.t(`server.${role.body.key}`, { role: "محقق", action: i18n.t("server.action.users.manage") });
      assert.equal(sentence, "لا يحق لدورك (محقق) إدارة الحسابات. اطلب ذلك من مشرف إن كان عملك يحتاجه.");
    } finally {
      await http.app.close();
      await close();
    }
  });
}
