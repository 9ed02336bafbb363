import { test } from "node:test";
import assert from "node:assert/strict";
import { contentDisposition, safeFileName } from "../../src/dossiers/file-names.ts";

/** A downloaded package is named after its dossier: the title as written (Arabic kept), safe on every file system. */
test("a dossier's title becomes a file name that every file system accepts, Arabic kept", () => {
  assert.equal(safeFileName("وفيات الفرع ٢١٥، ٢٠١٣"), "وفيات الفرع ٢١٥، ٢٠١٣");
  assert.equal(safeFileName("Branch 215 / Tishreen: 2013?"), "Branch 215 Tishreen 2013");
  assert.equal(safeFileName('a\\b*c"d<e>f|g\u0000h\u200fi'), "a b c d e f g h i");
  assert.equal(safeFileName("..  ../secret  .."), "secret");
  assert.equal(safeFileName("   "), "dossier");
  assert.equal(safeFileName("CON"), "dossier");
  assert.equal([...safeFileName("ب".repeat(500))].length, 120);
});

test("the download header carries the name in UTF-8 and an ASCII stand-in for old clients", () => {
  assert.equal(contentDisposition("وفيات - v1.tar"), `attachment; filename="_____ - v1.tar"; filename*=UTF-8''${encodeURIComponent("وفيات")}%20-%20v1.tar`);
  assert.equal(contentDisposition("it's (1).zip"), `attachment; filename="it's (1).zip"; filename*=UTF-8''it%27s%20%281%29.zip`);
});
