import { test } from "node:test";
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { sql } from "kysely";
import { tempDir } from "../support/backends.ts";
import { openDatabase } from "../../src/db/database.ts";

/**
 * SQLite statements are prepared once and kept by their text (src/db/database.ts). A kept statement must answer as
 * a fresh one would after the schema it was planned for changed (a migration).
 */
test("sqlite: a kept statement answers as a fresh one after the table it reads changed", async () => {
  const dir = tempDir();
  const h = await openDatabase({ sqlitePath: join(dir, "archive.sqlite"), migrate: false });
  try {
    await sql`create table t (a integer primary key)`.execute(h.db);
    await sql`insert into t (a) values (1), (2), (3)`.execute(h.db);
    const all = () => sql<Record<string, unknown>>`select * from t order by a`.execute(h.db);
    assert.deepEqual((await all()).rows, [{ a: 1 }, { a: 2 }, { a: 3 }]);
    // the kept statement of `select *` was planned for one column
    await sql`alter table t add column b text default 'x'`.execute(h.db);
    assert.deepEqual((await all()).rows[0], { a: 1, b: "x" });
  } finally {
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
