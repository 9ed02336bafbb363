import { test } from "node:test";
import assert from "node:assert/strict";
import { ROLES, type Role } from "../../src/core/actor.ts";
import { Forbidden, Invalid, NotFound, Unauthenticated } from "../../src/core/errors.ts";
import { anonymousActor, metadataFor, policy, recordPersonalDataRead, withoutSensitiveFields, isSensitiveField } from "../../src/access/index.ts";
import { revealOriginal } from "../../src/archive/index.ts";
import { isCommitment, openEvent, openingsOf } from "../../src/ledger/openings.ts";
import { backends } from "../support/backends.ts";
import { buildHttpApp } from "../../src/http/app.ts";
import { freshAccessArchive, fullSession, readyUser, seedOriginal } from "../support/accounts.ts";

const MAY_REVEAL: Role[] = ["admin", "archivist", "investigator", "forensic_reviewer", "prosecutor"];

for (const { backend, skip } of await backends()) {
  test(`revealing a graphic original is allowed by role, needs a reason, and is logged with viewer and reason, on ${backend.name}`, { skip }, async () => {
    const t = await freshAccessArchive(backend);
    try {
      const { sha256 } = await seedOriginal(t.ctx);
      for (const role of ROLES) {
        const u = await readyUser(t.ctx, role);
        const attempt = revealOriginal(t.ctx, u.actor, { sha256, reason: `comparing wounds for body 215-${role}` });
        if (MAY_REVEAL.includes(role)) {
          const grant = await attempt;
          assert.equal(grant.sha256, sha256);
          assert.ok(grant.expiresAt > grant.revealedAt);
        } else {
          await assert.rejects(attempt, Forbidden, role);
        }
      }
      await assert.rejects(revealOriginal(t.ctx, anonymousActor, { sha256, reason: "just looking" }), Unauthenticated);
      const investigator = await readyUser(t.ctx, "investigator");
      await assert.rejects(revealOriginal(t.ctx, investigator.actor, { sha256, reason: "  " }), Invalid);
      await assert.rejects(revealOriginal(t.ctx, investigator.actor, { sha256: "0".repeat(64), reason: "a guessed hash" }), NotFound);

      const appended = (await t.ctx.log.eventsFor(sha256)).filter((e) => e.event.type === "revealed graphic image");
      assert.equal(appended.length, MAY_REVEAL.length, "one event per reveal, none for refusals");
      // The reason is a salted commitment in the leaf; its opening, in log_openings, gives the words back.
      assert.ok(appended.every((e) => isCommitment(e.event.detail.reason) && !e.leaf.toString("utf8").includes("comparing wounds")));
      const openings = await openingsOf(t.ctx.db.db, appended.map((e) => e.seq));
      const events = appended.map((e) => openEvent(e.event, openings.get(e.seq)));
      const byRole = new Map(events.map((e) => [e.actor.role, e]));
      assert.equal(byRole.get("prosecutor")?.detail.reason, "comparing wounds for body 215-prosecutor");
      assert.deepEqual(byRole.get("prosecutor")?.objects, [{ sha256, role: "original" }]);
    } finally {
      await t.close();
    }
  });

  test(`a read of personal data appends a custody event in the caller's transaction, on ${backend.name}`, { skip }, async () => {
    const t = await freshAccessArchive(backend);
    try {
      const u = await readyUser(t.ctx, "family_caseworker");
      const before = await t.ctx.log.size();
      await assert.rejects(
        t.ctx.db.transaction(async (tx) => {
          await recordPersonalDataRead(t.ctx, tx, u.actor, [{ id: "rep_abc", role: "report" }], { what: "contact details" });
          throw new Error("the read itself failed");
        }),
        /read itself failed/,
      );
      assert.equal(await t.ctx.log.size(), before, "no event for a read that did not happen");
      await t.ctx.db.transaction((tx) => recordPersonalDataRead(t.ctx, tx, u.actor, [{ id: "rep_abc", role: "report" }], { what: "contact details" }));
      const [e] = await t.ctx.log.eventsFor("rep_abc");
      assert.equal(e?.event.type, "viewed personal data");
      assert.equal(e?.event.actor.id, u.id);
    } finally {
      await t.close();
    }
  });

  test(`sensitive metadata (serials, owner, GPS, paths) is hidden from roles without need, on ${backend.name}`, { skip }, async () => {
    const t = await freshAccessArchive(backend);
    try {
      const { sha256 } = await seedOriginal(t.ctx);
      const { app } = await buildHttpApp(t.ctx);
      for (const [role, sees] of [["archivist", true], ["investigator", false], ["curator", false]] as const) {
        const u = await readyUser(t.ctx, role);
        const s = await fullSession(t.ctx, u.id);
        const r = await app.inject({ method: "GET", url: `/api/originals/${sha256}`, cookies: { dalil_session: s.token } });
        assert.equal(r.statusCode, 200, role);
        assert.equal(r.body.includes("SERIAL-3141592"), sees, role);
        assert.equal(r.body.includes("/media/card") || /"path"/.test(r.body), false, "paths on the medium are not in this view");
      }
      await app.close();
    } finally {
      await t.close();
    }
  });
}

test("sensitive field names are recognised across EXIF, XMP, IPTC and maker-note spellings", () => {
  for (const name of ["SerialNumber", "BodySerialNumber", "LensSerialNumber", "InternalSerialNumber", "OwnerName", "CameraOwnerName", "Artist", "xmp:Creator", "dc.rights", "By-line", "GPSLatitude", "GPSPosition", "latitude", "HostComputer", "ImageUniqueID", "XPAuthor", "UserComment", "path", "SourceFile", "Directory", "OriginalFileName", "ShutterCount"]) {
    assert.equal(isSensitiveField(name), true, name);
  }
  for (const name of ["Make", "Model", "DateTimeOriginal", "ExposureTime", "FNumber", "ISO", "ImageWidth", "Orientation", "Software", "LensModel"]) {
    assert.equal(isSensitiveField(name), false, name);
  }
});

test("metadata is shown whole to roles with metadata.sensitive and without the sensitive fields to others", () => {
  const meta = { Make: "Canon", Model: "EOS 40D", exif: { BodySerialNumber: "0830123456", OwnerName: "M. K.", DateTimeOriginal: "2012:05:01 10:00:00" }, gps: { GPSLatitude: 33.5 }, xmp: [{ "dc:creator": "M. K." }] };
  const hidden = withoutSensitiveFields(meta);
  assert.deepEqual(hidden, { Make: "Canon", Model: "EOS 40D", exif: { DateTimeOriginal: "2012:05:01 10:00:00" }, xmp: [{}] }, "a whole gps group goes");
  assert.deepEqual(metadataFor(policy, { kind: "user", id: "u", role: "archivist" }, meta), meta);
  assert.deepEqual(metadataFor(policy, { kind: "user", id: "u", role: "investigator" }, meta), hidden);
  assert.equal(meta.exif.OwnerName, "M. K.", "the input is not changed");
});
