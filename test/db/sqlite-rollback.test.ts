import { test } from "node:test";
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { sql } from "kysely";
import { tempDir } from "../support/backends.ts";
import { openDatabase } from "../../src/db/database.ts";

/**
 * SQLite rolls a transaction back by itself after some errors (a full disk, an I/O error). The error the person
 * reads must be that one, not "cannot rollback - no transaction is active" from a second ROLLBACK (found by the
 * fault harness: an ingest on a full disk said only that).
 */
test("sqlite: a transaction SQLite already rolled back fails with its own error", async () => {
  const dir = tempDir();
  const h = await openDatabase({ sqlitePath: join(dir, "archive.sqlite"), migrate: false });
  try {
    await assert.rejects(
      h.transaction(async (tx) => {
        // what SQLite does by itself on SQLITE_FULL, done here by hand
        await sql`rollback`.execute(tx);
        throw new Error("the disk is full");
      }),
      /the disk is full/,
    );
    assert.equal((await sql<{ n: number }>`select 1 as n`.execute(h.db)).rows[0]!.n, 1, "the database is usable after");
  } finally {
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
