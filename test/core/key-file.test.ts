import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { base64KeyText, writeKeyFile } from "../../src/core/key-file.ts";
import { tempDir } from "../support/backends.ts";

test("a key file is created 0600 in a 0700 directory, whole, with nothing left aside", () => {
  const dir = join(tempDir("dalil-keyfile-"), "keys", "nested");
  const key = Buffer.alloc(32, 7);
  assert.equal(writeKeyFile(dir, "master.key", base64KeyText(key), "create"), true);
  assert.equal(statSync(dir).mode & 0o777, 0o700);
  assert.equal(statSync(join(dir, "master.key")).mode & 0o777, 0o600);
  assert.equal(readFileSync(join(dir, "master.key"), "utf8"), `${key.toString("base64")}\n`);
  assert.deepEqual(readdirSync(dir), ["master.key"], "the copy written aside is gone");
});

test("create never replaces: a second writer is told the key exists and the first key stays", () => {
  const dir = tempDir("dalil-keyfile-");
  assert.equal(writeKeyFile(dir, "log.key", "first\n", "create"), true);
  assert.equal(writeKeyFile(dir, "log.key", "second\n", "create"), false);
  assert.equal(readFileSync(join(dir, "log.key"), "utf8"), "first\n");
  assert.deepEqual(readdirSync(dir), ["log.key"]);
});

test("replace puts the new key in place whole and keeps the file 0600", () => {
  const dir = tempDir("dalil-keyfile-");
  writeKeyFile(dir, "master.key", "old\n", "create");
  assert.equal(writeKeyFile(dir, "master.key", Buffer.from("new\n"), "replace"), true);
  assert.equal(readFileSync(join(dir, "master.key"), "utf8"), "new\n");
  assert.equal(statSync(join(dir, "master.key")).mode & 0o777, 0o600);
  assert.deepEqual(readdirSync(dir), ["master.key"]);
});
