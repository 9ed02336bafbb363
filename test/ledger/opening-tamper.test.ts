import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { sql } from "kysely";
import { fileURLToPath } from "node:url";
import { operatorActor, type Actor } from "../../src/core/actor.ts";
import { ingestCard } from "../../src/archive/intake.ts";
import { revealOriginal } from "../../src/archive/reveals.ts";
import { verifyArchive } from "../../src/app/verify.ts";
import { custody } from "../../src/ledger/events.ts";
import { secret } from "../../src/ledger/openings.ts";
import { verifyLedger } from "../../src/ledger/verify.ts";
import { backends } from "../support/backends.ts";
import { demoCard, freshArchive } from "../support/archive.ts";

/**
 * The attack: someone with the database rewrites what a person typed (a reveal's reason) or removes it, hoping
 * the log, whose leaf holds only a commitment, cannot tell. `dalil verify` recomputes every commitment from its
 * opening: a changed value, a changed salt or a missing opening is a finding, and the command exits 1.
 */
const BIN = fileURLToPath(new URL("../../bin/dalil.js", import.meta.url));
const archivist: Actor = { kind: "user", id: "usr_archivist", role: "archivist" };

function dalil(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { encoding: "utf8", env: { ...process.env, ...env } }, (err, stdout) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout });
    });
  });
}

for (const { backend, skip } of await backends()) {
  test(`dalil verify catches an opening whose value was changed in the table, and one that was deleted, on ${backend.name}`, { skip, timeout: 240_000 }, async () => {
    const { archive, dataDir, env, close } = await freshArchive(backend);
    try {
      const { dir } = await demoCard(1, true, "tamper");
      await ingestCard(archive, operatorActor(), { path: dir, label: "card" });
      const sha = (await archive.db.db.selectFrom("originals").select("sha256").where("status", "=", "preserved").executeTakeFirstOrThrow()).sha256;
      const grant = await revealOriginal(archive, archivist, { sha256: sha, reason: "compare with the card number" });
      const openingFindings = async () => (await verifyArchive(archive, operatorActor())).findings.filter((f) => f.what === "opening");
      assert.deepEqual(await openingFindings(), [], "an untouched archive: every commitment opens");

      // The reason rewritten in the table: the commitment in the leaf no longer matches.
      const where = { seq: grant.seq, field: "detail.reason" };
      const row = await archive.db.db.selectFrom("log_openings").selectAll().where("seq", "=", where.seq).where("field", "=", where.field).executeTakeFirstOrThrow();
      assert.equal(JSON.parse(row.value), "compare with the card number");
      await archive.db.db.updateTable("log_openings").set({ value: JSON.stringify("routine check") }).where("seq", "=", where.seq).where("field", "=", where.field).execute();
      const changed = await openingFindings();
      assert.equal(changed.length, 1);
      assert.equal(changed[0]!.item, `event ${grant.seq}`);
      assert.match(changed[0]!.problem, /opening of detail\.reason does not reproduce the commitment/);

      // The salt changed instead (the value put back): caught the same way.
      await archive.db.db.updateTable("log_openings").set({ value: row.value, salt: "00".repeat(32) }).where("seq", "=", where.seq).where("field", "=", where.field).execute();
      assert.match((await openingFindings())[0]?.problem ?? "", /does not reproduce/);
      await archive.db.db.updateTable("log_openings").set({ salt: row.salt }).where("seq", "=", where.seq).where("field", "=", where.field).execute();
      assert.deepEqual(await openingFindings(), [], "restored, it opens again");

      if (backend.name === "sqlite") {
        // SQLite lets a text column hold bytes: the value replaced by a blob is a finding, not the end of verify.
        await sql`update log_openings set value = x'00ff' where seq = ${where.seq} and field = ${where.field}`.execute(archive.db.db);
        assert.match((await openingFindings())[0]?.problem ?? "", /opening of detail\.reason (is not JSON|does not reproduce)/);
        await archive.db.db.updateTable("log_openings").set({ value: row.value }).where("seq", "=", where.seq).where("field", "=", where.field).execute();
      }

      // An opening deleted: the operator's login name behind the intake's first event.
      const gone = await archive.db.db.selectFrom("log_openings").select(["seq", "field"]).where("field", "=", "actor.id").orderBy("seq").executeTakeFirstOrThrow();
      await archive.db.db.deleteFrom("log_openings").where("seq", "=", gone.seq).where("field", "=", "actor.id").execute();
      const missing = await openingFindings();
      assert.deepEqual(missing.map((f) => [f.item, f.problem]), [[`event ${gone.seq}`, "actor.id is a commitment with no opening (the value behind it was deleted)"]]);

      // The command itself: exit 1, the finding named.
      await archive.close();
      const cli = await dalil(["--data", dataDir, "verify"], env);
      assert.equal(cli.code, 1, cli.stdout);
      assert.match(cli.stdout, new RegExp(`opening event ${gone.seq}: actor\\.id is a commitment with no opening`));
    } finally {
      await close().catch(() => undefined);
    }
  });

  test(`an event appended again after its transaction rolled back keeps the openings it was sealed with, on ${backend.name}`, { skip, timeout: 60_000 }, async () => {
    const { archive, close } = await freshArchive(backend);
    try {
      const event = custody("revealed graphic image", operatorActor(), archive.clock.now(), [{ sha256: "a".repeat(64), role: "original" }], { reason: secret("first try") });
      await assert.rejects(archive.db.transaction(async (tx) => {
        await archive.log.append(tx, event);
        throw new Error("rolled back");
      }), /rolled back/);
      const { seq } = await archive.db.transaction((tx) => archive.log.append(tx, event));
      const rows = await archive.db.db.selectFrom("log_openings").select(["field", "value"]).where("seq", "=", seq).orderBy("field").execute();
      assert.deepEqual(rows.map((r) => [r.field, JSON.parse(r.value)]), [["actor.id", `operator:${process.env.USER ?? process.env.LOGNAME ?? "unknown"}`], ["detail.reason", "first try"]]);
      assert.deepEqual((await verifyLedger(archive)).findings.filter((f) => f.what === "opening"), []);
    } finally {
      await close();
    }
  });
}
