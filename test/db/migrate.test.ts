import { test } from "node:test";
import assert from "node:assert/strict";
import { sql } from "kysely";
import { openDatabase } from "../../src/db/database.ts";
import { backends } from "../support/backends.ts";

for (const { backend, skip } of await backends()) {
  test(`migrations create the schema and are idempotent on ${backend.name}`, { skip }, async () => {
    const env = await backend.fresh();
    try {
      const opts = { url: env.databaseUrl, sqlitePath: `${env.dataDir}/archive.sqlite` };
      const h1 = await openDatabase(opts);
      await h1.close();
      const h = await openDatabase(opts); // second run: nothing to do, nothing fails
      const state = await h.db.selectFrom("log_state").selectAll().execute();
      assert.deepEqual(state, [{ id: 1, size: 0 }]);
      await h.db.insertInto("custody_events").values({ seq: 0, id: "evt_a", type: "ingestion", at: "t", actor: "a", outcome: "success", leaf: Buffer.from("x") }).execute();
      const row = await h.db.selectFrom("custody_events").selectAll().executeTakeFirstOrThrow();
      assert.equal(row.seq, 0);
      assert.ok(Buffer.isBuffer(row.leaf));
      await assert.rejects(
        h.db.updateTable("custody_events").set({ outcome: "failure" }).execute(),
        /append-only/,
        "the database itself refuses to edit a custody event",
      );
      await assert.rejects(h.db.deleteFrom("custody_events").execute(), /append-only/);
      await sql`select 1`.execute(h.db);
      await h.close();
    } finally {
      await env.cleanup();
    }
  });
}
