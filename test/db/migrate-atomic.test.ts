import { test } from "node:test";
import assert from "node:assert/strict";
import { sql } from "kysely";
import { openDatabase } from "../../src/db/database.ts";
import { registerMigration } from "../../src/db/migrate.ts";
import { backends } from "../support/backends.ts";

// A migration that makes a table and then fails, as a process stopped in the middle of one would: registered for
// this file's process only (each test file is a process of its own).
let failing = true;
registerMigration("9999-half-made", {
  async up(db) {
    await db.schema.createTable("half_made").addColumn("id", "integer").execute();
    if (failing) throw new Error("stopped in the middle");
  },
});

for (const { backend, skip } of await backends()) {
  test(`a migration that fails halfway leaves nothing of itself or of the run, and runs again whole (${backend.name})`, { skip }, async () => {
    const fresh = await backend.fresh();
    try {
      const opts = { url: fresh.databaseUrl, sqlitePath: `${fresh.dataDir}/archive.sqlite` };
      failing = true;
      await assert.rejects(openDatabase(opts), /database migration 9999-half-made failed: stopped in the middle/);
      const raw = await openDatabase({ ...opts, migrate: false });
      try {
        const tables = async (names: string[]) => {
          const found = [];
          for (const name of names) {
            const probe = await sql`select count(*) as n from ${sql.table(name)}`.execute(raw.db).then(
              () => true,
              () => false,
            );
            if (probe) found.push(name);
          }
          return found;
        };
        assert.deepEqual(await tables(["half_made", "custody_events", "sources"]), [], "neither the failed migration's table nor the earlier migrations of the same run were kept");
      } finally {
        await raw.close();
      }
      failing = false;
      const h = await openDatabase(opts);
      try {
        await sql`select count(*) from half_made`.execute(h.db);
        assert.deepEqual(await h.db.selectFrom("log_state").selectAll().execute(), [{ id: 1, size: 0 }]);
      } finally {
        await h.close();
      }
    } finally {
      await fresh.cleanup();
    }
  });
}
