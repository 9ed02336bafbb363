import { test } from "node:test";
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { dalil } from "../support/cli.ts";
import { freePort } from "../support/mirror.ts";
import { tempDir } from "../support/backends.ts";

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
