import { test } from "node:test";
import assert from "node:assert/strict";
import Database from "better-sqlite3";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { reportError } from "../../src/cli/shell.ts";
import { Invalid } from "../../src/core/errors.ts";

/** What a person reads on stderr, and the exit code, for an error a command ends with. */
function said(err: unknown): { code: number; text: string } {
  const write = process.stderr.write.bind(process.stderr);
  let text = "";
  process.stderr.write = ((s: string | Uint8Array) => {
    text += String(s);
    return true;
  }) as typeof process.stderr.write;
  try {
    // in English whatever this machine's locale (an Arabic one would word the keyed sentences in Arabic)
    return { code: reportError(err, "en"), text };
  } finally {
    process.stderr.write = write;
  }
}

const FULL = "dalil: A disk this command writes to (the data folder or the temporary folder) is full: make room, then run it again.\n";

test("a full disk is one sentence with what to do, whether the file system or SQLite says it", () => {
  const enospc = Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
  assert.deepEqual(said(enospc), { code: 2, text: FULL });
  // SQLite's own words for it, as the fault harness met them: a real SQLITE_FULL from better-sqlite3
  const dir = mkdtempSync(join(tmpdir(), "dalil-full-"));
  try {
    const db = new Database(join(dir, "x.db"));
    db.exec("create table t (x blob)");
    db.pragma("max_page_count = 8");
    let full: unknown;
    try {
      db.prepare("insert into t values (zeroblob(100000))").run();
    } catch (e) {
      full = e;
    }
    db.close();
    assert.equal((full as { code?: string }).code, "SQLITE_FULL");
    assert.deepEqual(said(full), { code: 2, text: FULL });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a service that does not answer, and the archive's own errors, are said as sentences", () => {
  const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED", address: "127.0.0.1", port: 5432 });
  assert.match(said(refused).text, /^dalil: The server at 127\.0\.0\.1:5432 did not answer \(ECONNREFUSED\)/);
  assert.deepEqual(said(new Invalid("The number 12/3 is not a detainee number.")), { code: 2, text: "dalil: The number 12/3 is not a detainee number.\n" });
});
