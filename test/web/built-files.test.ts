import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { ensureWebBuilt } from "../../web/ensure-built.mjs";

const ASSETS = join(import.meta.dirname, "..", "..", "web", "dist", "assets");

test("the app's script is split: the first load holds the shell, each language and each screen are files of their own", () => {
  ensureWebBuilt({ quiet: true });
  const js = readdirSync(ASSETS).filter((f) => f.endsWith(".js"));
  const entry = js.filter((f) => f.startsWith("index-"));
  assert.equal(entry.length, 1, "one entry script");
  assert.ok(js.some((f) => f.startsWith("words-ar-")) && js.some((f) => f.startsWith("words-en-")), "each language's words are a file of their own");
  assert.ok(js.some((f) => f.startsWith("PortalList-")), "the family portal's list is a file of its own");
  const shell = readFileSync(join(ASSETS, entry[0]!), "utf8");
  // the words are fetched for the reader's language, not carried by the shell
  assert.ok(!shell.includes("Here you can follow the reports you made"), "the family portal's words are not in the shell");
});

test("every gzip copy the server may send is the file itself, byte for byte", () => {
  ensureWebBuilt({ quiet: true });
  const gz = readdirSync(ASSETS).filter((f) => f.endsWith(".gz"));
  assert.ok(gz.length > 0);
  for (const f of gz) {
    const plain = readFileSync(join(ASSETS, f.slice(0, -3)));
    assert.ok(gunzipSync(readFileSync(join(ASSETS, f))).equals(plain), `${f} differs from ${f.slice(0, -3)}`);
  }
});
