import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { ROLES } from "../../src/core/actor.ts";

/**
 * Every string the web app shows is translated: Arabic and English have the same keys, every key the code
 * asks for exists in both, nothing is left empty or untranslated, every role, custody event type and proof
 * failure has its words, and no screen writes English text straight into its markup.
 */
const WEB = join(import.meta.dirname, "..", "..", "web", "src");
type Tree = { [k: string]: string | Tree };
/** The common files and each area's pair (web/src/i18n/areas/<area>.<lang>.json), merged as the app merges them. */
function load(lang: "ar" | "en"): Tree {
  const out = JSON.parse(readFileSync(join(WEB, "i18n", `${lang}.json`), "utf8")) as Tree;
  const areas = join(WEB, "i18n", "areas");
  for (const name of readdirSync(areas).sort()) {
    if (!name.endsWith(`.${lang}.json`)) continue;
    for (const [k, v] of Object.entries(JSON.parse(readFileSync(join(areas, name), "utf8")) as Tree)) {
      assert.ok(!(k in out), `${name}: the group "${k}" is already defined`);
      out[k] = v;
    }
  }
  return out;
}
const ar = load("ar");
const en = load("en");

function leaves(t: Tree, prefix = ""): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of Object.entries(t)) {
    if (typeof v === "string") out.set(prefix + k, v);
    else for (const [kk, vv] of leaves(v, `${prefix}${k}.`)) out.set(kk, vv);
  }
  return out;
}

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...sources(p));
    else if (/\.tsx?$/.test(name)) out.push(p);
  }
  return out;
}

const AR = leaves(ar);
const EN = leaves(en);
const code = sources(WEB).map((f) => ({ f, text: readFileSync(f, "utf8") }));

/** i18next's plural forms: English has one and other, Arabic all six (CLDR). */
const PLURAL = /_(zero|one|two|few|many|other)$/;
const AR_FORMS = ["zero", "one", "two", "few", "many", "other"] as const;
const base = (k: string) => k.replace(PLURAL, "");
const vars_ = (s: string) => [...s.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]!).filter((v) => v !== "n" && v !== "count");
const vars = (s: string) => [...new Set([...s.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]!))].sort();

test("Arabic and English have the same keys, none empty, and the Arabic is Arabic", () => {
  const bases = (m: Map<string, string>) => [...new Set([...m.keys()].map(base))].sort();
  assert.deepEqual(bases(AR), bases(EN));
  for (const [k, v] of [...AR, ...EN]) assert.ok(v.trim().length > 0, `${k} is empty`);
  // Interpolations match: a {{n}} in one language is a {{n}} in the other. A plural form may leave the number out
  // («صورتان», two photographs), so for plural keys each form's placeholders are among the other form's in English.
  for (const [k, v] of EN) {
    if (PLURAL.test(k)) {
      for (const f of AR_FORMS) {
        const extra = vars(AR.get(`${base(k)}_${f}`) ?? "").filter((x) => !vars(EN.get(`${base(k)}_other`)!).includes(x));
        assert.deepEqual(extra, [], `${base(k)}_${f}: no placeholder English lacks`);
      }
      continue;
    }
    assert.deepEqual(vars(AR.get(k)!), vars(v), `${k}: the same placeholders in both languages`);
  }
  // The one Arabic string in Latin letters is the switch to English, written in English on purpose.
  const notArabic = [...AR].filter(([k, v]) => !/[\u0600-\u06ff]/.test(v) && k !== "app.switchTo");
  assert.deepEqual(notArabic.map(([k]) => k), [], "Arabic strings without Arabic letters");
  assert.ok(/[\u0600-\u06ff]/.test(EN.get("app.switchTo")!), "the English page offers Arabic in Arabic");
});

test("every key the code asks for exists; every role, event type and proof failure has words", () => {
  const missing: string[] = [];
  for (const { f, text } of code) {
    for (const m of text.matchAll(/\bt\(\s*"([a-zA-Z0-9_.-]+)"/g)) if (!EN.has(m[1]!) && !EN.has(`${m[1]}_other`)) missing.push(`${f}: ${m[1]}`);
    for (const m of text.matchAll(/\btitle:\s*"([a-z]+\.[a-zA-Z.]+)"/g)) if (!EN.has(m[1]!)) missing.push(`${f}: ${m[1]}`);
    // Keys built from a prefix (`roles.${role}`): the prefix must be a group in the files.
    for (const m of text.matchAll(/\bt\(\s*`([a-zA-Z0-9_.]+)\.\$\{/g)) if (typeof en[m[1]!.split(".")[0]!] !== "object") missing.push(`${f}: ${m[1]}.*`);
  }
  assert.deepEqual(missing, []);

  for (const r of ROLES) assert.ok(EN.has(`roles.${r}`) && AR.has(`roles.${r}`), `role ${r}`);
  const events = readFileSync(join(import.meta.dirname, "..", "..", "src", "ledger", "events.ts"), "utf8");
  const union = events.slice(events.indexOf("export type EventType"), events.indexOf("export type Outcome"));
  const types = [...union.matchAll(/\|\s*"([a-z ]+)"/g)].map((m) => m[1]!);
  assert.ok(types.length >= 15);
  for (const ty of types) assert.ok(EN.has(`events.types.${ty.replace(/ /g, "_")}`), `event type "${ty}"`);
  const verify = readFileSync(join(WEB, "proof", "verify.ts"), "utf8");
  const reasons = [...verify.slice(verify.indexOf("export type ProofFailure"), verify.indexOf("export type ProofCheck")).matchAll(/\|\s*"([a-z0-9-]+)"/g)].map((m) => m[1]!);
  assert.ok(reasons.length >= 8);
  for (const r of reasons) assert.ok(EN.has(`proof.reasons.${r}`) && AR.has(`proof.reasons.${r}`), `proof failure ${r}`);
});

test("no screen writes words straight into its markup", () => {
  // Text between tags, and the texts people read in attributes, must come from the translations. Commands
  // and code shown in <pre> or <code> are not words to translate, nor the name of the archive.
  const allowed = new Set(["dalil", "دليل"]);
  const READ = new Set(["alt", "title", "aria-label", "placeholder", "label"]);
  const found: string[] = [];
  for (const { f, text } of code.filter((c) => c.f.endsWith(".tsx"))) {
    const sf = ts.createSourceFile(f, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
    const inCode = (n: ts.Node): boolean => {
      for (let p = n.parent; p; p = p.parent) {
        if (ts.isJsxElement(p) && ["pre", "code"].includes(p.openingElement.tagName.getText(sf))) return true;
      }
      return false;
    };
    const visit = (n: ts.Node) => {
      if (ts.isJsxText(n)) {
        const words = n.text.trim();
        if (/[A-Za-z\u0600-\u06ff]{2,}/.test(words) && !allowed.has(words) && !inCode(n)) found.push(`${f}: ${JSON.stringify(words)}`);
      } else if (ts.isJsxAttribute(n) && READ.has(n.name.getText(sf)) && n.initializer && ts.isStringLiteral(n.initializer)) {
        if (/[A-Za-z\u0600-\u06ff]{2,}/.test(n.initializer.text)) found.push(`${f}: ${n.name.getText(sf)}=${JSON.stringify(n.initializer.text)}`);
      }
      ts.forEachChild(n, visit);
    };
    visit(sf);
  }
  assert.deepEqual(found, []);
});

/**
 * One Arabic term per concept, in the web app and in the court report alike: a reader who meets «سجل الحفظ» on one
 * screen and «سجل العهدة» on the next may fairly ask whether they are two logs.
 */
test("one Arabic term per concept: the custody log, a body, revealing a photo", () => {
  const report = readFileSync(join(import.meta.dirname, "..", "..", "src", "dossiers", "report", "i18n.ts"), "utf8");
  const texts: [string, string][] = [...AR, ["src/dossiers/report/i18n.ts", report]];
  const chosen: { concept: string; use: string; not: RegExp }[] = [
    { concept: "the custody log", use: "سجل الحفظ", not: /(سجل|حدث|سلسلة) (ال)?(عهدة|حيازة)/ },
    { concept: "a body", use: "جثمان / جثامين", not: /(^|[^\u0600-\u06ff])(ال|لل|ل|ب|و)?(جثة|جثث)/ },
    { concept: "revealing a photo", use: "إظهار", not: /(^|[^\u0600-\u06ff])(ا|و|ل|ال)?(كشف|كُشف|مكشوف)/ },
  ];
  const found: string[] = [];
  for (const { concept, use, not } of chosen) {
    for (const [k, v] of texts) {
      const m = v.match(not);
      if (m) found.push(`${k}: «${m[0].trim()}» for ${concept}; use «${use}»`);
    }
  }
  assert.deepEqual(found, []);
  assert.ok(report.includes("سجل الحفظ") && AR.get("log.title") === "سجل الحفظ", "the chosen term is the one in use");
});

/**
 * Counts read right in both languages: a string that embeds a count is an i18next plural (never "1 photographs";
 * in Arabic one, two, three to ten, eleven to ninety-nine and a hundred each take their own form), and the call
 * passes `count`.
 */
test("plural keys: English one and other, Arabic all six forms, each count rendered with its form", async () => {
  const plural = [...new Set([...EN.keys()].filter((k) => PLURAL.test(k)).map(base))];
  assert.ok(plural.length >= 15, `the counted strings are plurals (${plural.length})`);
  for (const b of plural) {
    assert.ok(EN.has(`${b}_one`) && EN.has(`${b}_other`), `${b}: English one and other`);
    for (const f of AR_FORMS) assert.ok(AR.has(`${b}_${f}`), `${b}_${f} in Arabic`);
    // …and the code asks for it with a count. (The server's counted messages are worded from the key and the
    // parameters the server sends, `count` among them: test/web/server-messages.test.ts checks those.)
    if (b.startsWith("server.")) continue;
    const calls = code.flatMap(({ f, text }) => [...text.matchAll(new RegExp(`\\bt\\(\\s*"${b.replace(/\./g, "\\.")}",\\s*\\{([^}]*)\\}`, "g"))].map((m) => ({ f, args: m[1]! })));
    assert.ok(calls.length > 0, `${b} is used`);
    for (const c of calls) assert.match(c.args, /\bcount:/, `${c.f}: ${b} is given a count`);
  }
  // No English string with a count placeholder and a plural noun is left outside the plural keys.
  const bare = [...EN].filter(([k, v]) => !PLURAL.test(k) && /\{\{(n|count|total|files|photos)\}\} (photographs|bodies|files|regions|reviews|corners|fields|entries|proposals)\b/.test(v));
  assert.deepEqual(bare.map(([k]) => k), []);

  const { default: i18next } = await import("i18next");
  const i18n = i18next.createInstance();
  await i18n.init({ lng: "ar", resources: { ar: { translation: ar }, en: { translation: en } }, interpolation: { escapeValue: false } });
  const form = new Map([[0, "zero"], [1, "one"], [2, "two"], [3, "few"], [11, "many"], [100, "other"]]);
  for (const b of plural) {
    for (const [n, f] of form) {
      const want = AR.get(`${b}_${f}`)!.replace(/\{\{(\w+)\}\}/g, (_m, v: string) => (v === "n" || v === "count" ? String(n) : `<${v}>`));
      const vars = Object.fromEntries(["index", "size", "files", "done", "total", "bytes", "photos", ...vars_(AR.get(`${b}_${f}`)!)].map((v) => [v, `<${v}>`]));
      assert.equal(i18n.t(b, { ...vars, n: String(n), count: n }), want, `${b} with ${n} is the ${f} form`);
    }
  }
  assert.equal(i18n.t("gallery.count", { count: 2, n: "٢" }), "صورتان");
  assert.equal(i18n.t("gallery.count", { count: 11, n: "١١" }), "١١ صورة");
  assert.equal(i18n.t("gallery.count", { lng: "en", count: 1, n: "1" }), "1 photograph");
  assert.equal(i18n.t("gallery.count", { lng: "en", count: 3, n: "3" }), "3 photographs");
});
