import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { MESSAGES, wordFinding, type MessageKey } from "../../src/authenticity/messages.ts";

/** The web app words findings from its own strings: they must be the server's sentences, key for key. */
test("the web app's finding sentences are the server's, in both languages, with the same parameters", () => {
  for (const lang of ["en", "ar"] as const) {
    const web = (JSON.parse(readFileSync(new URL(`../../web/src/i18n/areas/authenticity.${lang}.json`, import.meta.url), "utf8")) as { authenticity: { messages: Record<string, string> } }).authenticity.messages;
    assert.deepEqual(Object.keys(web).sort(), Object.keys(MESSAGES).sort(), lang);
    for (const [k, v] of Object.entries(MESSAGES)) assert.equal(web[k], v[lang].replace(/\{(\w+)\}/g, "{{$1}}"), `${lang} ${k}`);
  }
});

test("every sentence names the same parameters in English and Arabic, and Arabic is written in Arabic", () => {
  for (const [k, v] of Object.entries(MESSAGES)) {
    const names = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
    assert.deepEqual(names(v.ar), names(v.en), k);
    assert.match(v.ar, /[\u0600-\u06ff]/, k);
    const filled = Object.fromEntries(names(v.en).map((n) => [n!, n === "what" ? "trailingOther" : 12]));
    assert.doesNotMatch(wordFinding(k as MessageKey, filled, "ar"), /\{|12/, `${k}: numbers in Arabic-Indic digits`);
  }
});
