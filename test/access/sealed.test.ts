import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, renameSync, statSync } from "node:fs";
import { join } from "node:path";
import { operatorActor } from "../../src/core/actor.ts";
import { Conflict, DalilError, Forbidden, IntegrityError, Invalid, NotFound } from "../../src/core/errors.ts";
import { listSealed, openSealedIdentity, rotateSealedKey } from "../../src/access/index.ts";
import { sealIdentity } from "../../src/archive/index.ts";
import { adb } from "../../src/access/tables.ts";
import { buildHttpApp } from "../../src/http/app.ts";
import { isCommitment, openEvent, openingsOf } from "../../src/ledger/openings.ts";
import { backends } from "../support/backends.ts";
import { freshAccessArchive, fullSession, readyUser, seedOriginal } from "../support/accounts.ts";

// A made-up identity with distinctive parts, so any leak of any part is found by a plain search.
const IDENTITY = "Abu Qasim al-Tahhan — ابو قاسم الطحان — Signal +963 944 000 111 — met at the bakery on Baghdad St";
const PARTS = ["Qasim", "Tahhan", "الطحان", "944 000 111", "bakery"];

function leaks(text: string): string[] {
  return PARTS.filter((p) => text.includes(p));
}

for (const { backend, skip } of await backends()) {
  test(`a sealed identity opens only for an admin with a reason, and each opening is a custody event, on ${backend.name}`, { skip }, async () => {
    const t = await freshAccessArchive(backend);
    try {
      const { sourceId } = await seedOriginal(t.ctx);
      const archivist = await readyUser(t.ctx, "archivist");
      const admin = await readyUser(t.ctx, "admin");
      const sealed = await sealIdentity(t.ctx, archivist.actor, { sourceId, identity: IDENTITY });
      assert.equal(sealed.sourceId, sourceId);

      const keyPath = join(t.dataDir, "keys", "sealed.key");
      assert.equal(statSync(keyPath).mode & 0o777, 0o600);
      const row = await adb(t.ctx.db.db).selectFrom("sealed_identities").selectAll().executeTakeFirstOrThrow();
      assert.deepEqual(leaks(row.ciphertext.toString("utf8")), [], "encrypted at rest");

      await assert.rejects(openSealedIdentity(t.ctx, archivist.actor, { sourceId, reason: "I sealed it, may I read it?" }), Forbidden, "sealing does not let one read back");
      await assert.rejects(openSealedIdentity(t.ctx, admin.actor, { sourceId, reason: "why" }), Invalid, "a reason is required");
      await assert.rejects(sealIdentity(t.ctx, archivist.actor, { sourceId, identity: "someone else" }), Conflict);
      await assert.rejects(sealIdentity(t.ctx, archivist.actor, { sourceId, identity: "x", replace: true }), Forbidden, "replacing is for admins");

      const opened = await openSealedIdentity(t.ctx, admin.actor, { sourceId, reason: "witness protection review, case 2026-14" });
      assert.equal(opened.identity, IDENTITY);
      const events = await t.ctx.log.eventsFor(sourceId);
      const types = events.map((e) => e.event.type);
      assert.deepEqual(types, ["metadata modification", "opened sealed record"]);
      assert.ok(isCommitment(events[1]!.event.detail.reason), "the reason is a commitment in the leaf");
      const openedEvent = openEvent(events[1]!.event, (await openingsOf(t.ctx.db.db, [events[1]!.seq])).get(events[1]!.seq));
      assert.equal(openedEvent.actor.id, admin.id);
      assert.equal(openedEvent.detail.reason, "witness protection review, case 2026-14");
      assert.equal(openedEvent.outcome, "success");
    } finally {
      await t.close();
    }
  });

  test(`a sealed identity never appears in listings, the custody log, log lines or error messages, on ${backend.name}`, { skip }, async () => {
    const t = await freshAccessArchive(backend);
    try {
      const { sourceId } = await seedOriginal(t.ctx);
      const other = await seedOriginal(t.ctx);
      const admin = await readyUser(t.ctx, "admin");
      await sealIdentity(t.ctx, admin.actor, { sourceId, identity: IDENTITY });
      await openSealedIdentity(t.ctx, admin.actor, { sourceId, reason: "court order of 2026-02-01" });
      const seen: string[] = [];

      // Listings, CLI-side and over HTTP (sealed list and sources list).
      seen.push(JSON.stringify(await listSealed(t.ctx, admin.actor)));
      const { app } = await buildHttpApp(t.ctx);
      const s = await fullSession(t.ctx, admin.id);
      for (const url of ["/api/sealed", "/api/sources", `/api/originals`]) {
        const r = await app.inject({ method: "GET", url, cookies: { dalil_session: s.token } });
        assert.equal(r.statusCode, 200, url);
        seen.push(r.body);
      }

      // Errors: a moved ciphertext (wrong AAD), a missing key, a wrong key.
      const row = await adb(t.ctx.db.db).selectFrom("sealed_identities").selectAll().executeTakeFirstOrThrow();
      await adb(t.ctx.db.db).insertInto("sealed_identities").values({ ...row, source_id: other.sourceId }).execute();
      const moved = await openSealedIdentity(t.ctx, admin.actor, { sourceId: other.sourceId, reason: "checking the moved record" }).catch((e: unknown) => e);
      assert.ok(moved instanceof IntegrityError, "a ciphertext moved onto another source does not open");
      seen.push((moved as Error).message, (moved as Error).stack ?? "");
      const failedEvents = await t.ctx.log.eventsFor(other.sourceId);
      assert.equal(failedEvents.at(-1)?.event.outcome, "failure", "a failed opening is recorded too");

      const keys = join(t.dataDir, "keys");
      renameSync(join(keys, "sealed.key"), join(t.dataDir, "sealed.key.offline"));
      const missing = await openSealedIdentity(t.ctx, admin.actor, { sourceId, reason: "key is away today" }).catch((e: unknown) => e);
      assert.ok(missing instanceof NotFound && /not on this server/.test(missing.message));
      seen.push(missing.message);
      const noSeal = await sealIdentity(t.ctx, admin.actor, { sourceId: other.sourceId, identity: "x", replace: true }).catch((e: unknown) => e);
      assert.ok(noSeal instanceof NotFound, "no second key is made while the first is away");
      renameSync(join(t.dataDir, "sealed.key.offline"), join(keys, "sealed.key"));

      const refused = await openSealedIdentity(t.ctx, (await readyUser(t.ctx, "investigator")).actor, { sourceId, reason: "curious about it" }).catch((e: unknown) => e);
      assert.ok(refused instanceof Forbidden);
      seen.push((refused as DalilError).message);

      // The custody log: every leaf, as a verifier or an export would see it.
      const leaves = await t.ctx.db.db.selectFrom("custody_events").select("leaf").execute();
      for (const l of leaves) seen.push(l.leaf.toString("utf8"));
      // Access audit rows and every log line written during the test.
      const audit = await adb(t.ctx.db.db).selectFrom("access_audit").selectAll().execute();
      seen.push(JSON.stringify(audit), ...t.logger.lines);
      // Nothing under the data dir but the database itself holds it in the clear (checked for SQLite).
      if (backend.name === "sqlite") {
        for (const name of readdirSync(t.dataDir)) {
          if (name.startsWith("archive.sqlite")) seen.push(readFileSync(join(t.dataDir, name)).toString("latin1"));
        }
      }
      assert.deepEqual(leaks(seen.join("\n")), []);
      await app.close();
    } finally {
      await t.close();
    }
  });

  test(`rotating the sealed key re-encrypts every record and the old key no longer opens them, on ${backend.name}`, { skip }, async () => {
    const t = await freshAccessArchive(backend);
    try {
      const admin = await readyUser(t.ctx, "admin");
      const a = await seedOriginal(t.ctx);
      const b = await seedOriginal(t.ctx);
      await sealIdentity(t.ctx, admin.actor, { sourceId: a.sourceId, identity: IDENTITY });
      await sealIdentity(t.ctx, admin.actor, { sourceId: b.sourceId, identity: "second person" });
      const before = readFileSync(join(t.dataDir, "keys", "sealed.key"), "utf8");
      const r = await rotateSealedKey(t.ctx, operatorActor());
      assert.equal(r.records, 2);
      assert.notEqual(r.from, r.to);
      const after = readFileSync(join(t.dataDir, "keys", "sealed.key"), "utf8");
      assert.notEqual(after, before);
      assert.deepEqual(readdirSync(join(t.dataDir, "keys")).filter((n) => n.startsWith("sealed")), ["sealed.key"], "the old key is gone");
      assert.ok((await listSealed(t.ctx, admin.actor)).every((s) => s.keyId === r.to));
      const opened = await openSealedIdentity(t.ctx, admin.actor, { sourceId: b.sourceId, reason: "after rotation check" });
      assert.equal(opened.identity, "second person");
      const rotation = (await t.ctx.db.db.selectFrom("custody_events").select("leaf").where("type", "=", "key rotation").execute()).map((x) => x.leaf.toString());
      assert.equal(rotation.length, 1);
      assert.ok(!rotation[0]!.includes(after.trim()) && !rotation[0]!.includes(before.trim()), "no key in the event");
    } finally {
      await t.close();
    }
  });
}
