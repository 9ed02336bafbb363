import { test } from "node:test";
import assert from "node:assert/strict";
import { sql } from "kysely";
import { chmodSync, existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { openDatabase } from "../../src/db/database.ts";
import { openArchive } from "../../src/app/open-archive.ts";
import { loadConfig } from "../../src/core/config.ts";
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

  test(`another account on the server finds the data dir closed (0700) and the SQLite file private (0600), even where they were left open (${backend.name})`, { skip }, async () => {
    const env = await backend.fresh();
    try {
      const mode = (p: string) => statSync(p).mode & 0o777;
      const dataDir = join(env.dataDir, "data");
      const archive = await openArchive(loadConfig({ data: dataDir }, env.databaseUrl ? { DALIL_DATABASE_URL: env.databaseUrl } : {}));
      await archive.close();
      assert.equal(mode(dataDir), 0o700, "a new data dir is 0700");
      const db = join(dataDir, "archive.sqlite");
      if (backend.name === "sqlite") for (const f of [db, `${db}-wal`]) if (existsSync(f)) assert.equal(mode(f), 0o600, `${f} is 0600`);
      // an archive whose files were left readable (an older version, a restore from a backup) is closed again
      chmodSync(dataDir, 0o755);
      if (backend.name === "sqlite") chmodSync(db, 0o644);
      const again = await openArchive(loadConfig({ data: dataDir }, env.databaseUrl ? { DALIL_DATABASE_URL: env.databaseUrl } : {}));
      await again.close();
      assert.equal(mode(dataDir), 0o700);
      if (backend.name === "sqlite") assert.equal(mode(db), 0o600);
    } finally {
      await env.cleanup();
    }
  });
}
