import { test } from "node:test";
import assert from "node:assert/strict";
import { operatorActor } from "../../src/core/actor.ts";
import { Conflict, RateLimited, Unauthenticated } from "../../src/core/errors.ts";
import {
  addUser,
  beginEnrolment,
  changePassword,
  confirmEnrolment,
  disableUser,
  findSession,
  listUsers,
  resetUser,
  signIn,
  signOutEverywhere,
  verifySecondFactor,
  accessChangesFor,
  SESSION_LIMITS,
  THROTTLE,
  type LiveSession,
} from "../../src/access/index.ts";
import { adb } from "../../src/access/tables.ts";
import { matchTotp, totpCode } from "../../src/access/totp.ts";
import { Secret } from "otpauth";
import { backends } from "../support/backends.ts";
import { codeAt, freshAccessArchive, readyUser, type TestArchive } from "../support/accounts.ts";

async function live(t: TestArchive, token: string): Promise<LiveSession> {
  const s = await findSession(t.ctx.db.db, t.clock, token);
  assert.ok(s, "the session is live");
  return s;
}

const ADDRESS = "203.0.113.7";

for (const { backend, skip } of await backends()) {
  test(`first sign-in: one-time password → own password → authenticator → full session, on ${backend.name}`, { skip }, async () => {
    const t = await freshAccessArchive(backend);
    try {
      const { user, oneTimePassword } = await addUser(t.ctx, operatorActor(), { email: "Rana@Example.org", role: "investigator" });
      assert.equal(user.email, "rana@example.org");
      assert.equal(user.mustChangePassword, true);
      const row = await adb(t.ctx.db.db).selectFrom("users").selectAll().where("id", "=", user.id).executeTakeFirstOrThrow();
      assert.match(row.password_hash, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/, "argon2id, parameters in the hash");
      assert.ok(!row.password_hash.includes(oneTimePassword));

      const s1 = await signIn(t.ctx, { email: "rana@example.org", password: oneTimePassword, address: ADDRESS });
      assert.equal(s1.session.stage, "password_change", "a one-time password only opens the password change");
      await assert.rejects(changePassword(t.ctx, await live(t, s1.session.token), { current: oneTimePassword, next: "short" }), /at least 12/);
      const s2 = await changePassword(t.ctx, await live(t, s1.session.token), { current: oneTimePassword, next: "olive tree by the river" });
      assert.equal(s2.session.stage, "totp_enrol", "an investigator sees originals: a second factor is required");
      assert.equal(await findSession(t.ctx.db.db, t.clock, s1.session.token), null, "each step replaces the session");

      const enrol = await beginEnrolment(t.ctx, await live(t, s2.session.token));
      assert.match(enrol.uri, /^otpauth:\/\/totp\/.*secret=/);
      const secret = Buffer.from(Secret.fromBase32(enrol.secret).bytes);
      await assert.rejects(confirmEnrolment(t.ctx, await live(t, s2.session.token), "000000"), Unauthenticated);
      const done = await confirmEnrolment(t.ctx, await live(t, s2.session.token), totpCode(secret, t.clock.now()));
      assert.equal(done.session.stage, "full");
      assert.equal(done.recoveryCodes.length, 10);
      const fullSession = await live(t, done.session.token);
      assert.equal(fullSession.user.role, "investigator");

      // The next sign-in asks for the password, then the code.
      t.clock.advance(60_000);
      const again = await signIn(t.ctx, { email: "rana@example.org", password: "olive tree by the river", address: ADDRESS });
      assert.equal(again.session.stage, "totp");
      const full = await verifySecondFactor(t.ctx, await live(t, again.session.token), { code: totpCode(secret, t.clock.now()) });
      assert.equal(full.session.stage, "full");
      const changes = (await accessChangesFor(t.ctx.db.db, user.id)).map((c) => c.action).sort();
      assert.deepEqual(changes, ["password.changed", "totp.enrolled", "user.added"]);
    } finally {
      await t.close();
    }
  });

  test(`a TOTP code is accepted once: replaying it, or an older one, is refused, on ${backend.name}`, { skip }, async () => {
    const t = await freshAccessArchive(backend);
    try {
      const u = await readyUser(t.ctx, "archivist");
      const code = codeAt(u, t.clock.now());
      const a = await signIn(t.ctx, { email: u.email, password: u.password, address: ADDRESS });
      await verifySecondFactor(t.ctx, await live(t, a.session.token), { code });
      // An attacker who saw the code and the password, within the same 30 seconds, from another server process.
      const other = await t.second();
      const b = await signIn(other, { email: u.email, password: u.password, address: "198.51.100.9" });
      const bLive = (await findSession(other.db.db, t.clock, b.session.token))!;
      await assert.rejects(verifySecondFactor(other, bLive, { code }), /used already/);

      // A phone a little ahead gives the next step's code; after it, the current step's code (never used, and
      // inside the ±1 window) is refused as well: steps only move forward.
      t.clock.advance(30_000);
      const ahead = totpCode(u.totpSecret, new Date(t.clock.now().getTime() + 30_000));
      const c = await signIn(t.ctx, { email: u.email, password: u.password, address: ADDRESS });
      await verifySecondFactor(t.ctx, await live(t, c.session.token), { code: ahead });
      const current = codeAt(u, t.clock.now());
      assert.notEqual(matchTotp(u.totpSecret, current, t.clock.now()), null, "the code itself is right");
      await assert.rejects(verifySecondFactor(other, bLive, { code: current }), /used already/);
      t.clock.advance(60_000);
      const fresh = await verifySecondFactor(other, bLive, { code: codeAt(u, t.clock.now()) });
      assert.equal(fresh.session.stage, "full");
    } finally {
      await t.close();
    }
  });

  test(`recovery codes work once each, on ${backend.name}`, { skip }, async () => {
    const t = await freshAccessArchive(backend);
    try {
      const { user, oneTimePassword } = await addUser(t.ctx, operatorActor(), { email: "sam@example.org", role: "prosecutor" });
      const s1 = await signIn(t.ctx, { email: "sam@example.org", password: oneTimePassword, address: ADDRESS });
      const s2 = await changePassword(t.ctx, await live(t, s1.session.token), { current: oneTimePassword, next: "a long new passphrase" });
      const enrol = await beginEnrolment(t.ctx, await live(t, s2.session.token));
      const done = await confirmEnrolment(t.ctx, await live(t, s2.session.token), totpCode(Buffer.from(Secret.fromBase32(enrol.secret).bytes), t.clock.now()));
      const code = done.recoveryCodes[0]!;
      const stored = await adb(t.ctx.db.db).selectFrom("recovery_codes").select("code_hash").where("user_id", "=", user.id).execute();
      assert.equal(stored.length, 10);
      assert.ok(stored.every((r) => !r.code_hash.includes(code.replace(/-/g, ""))), "stored hashed");

      const a = await signIn(t.ctx, { email: "sam@example.org", password: "a long new passphrase", address: ADDRESS });
      const ok = await verifySecondFactor(t.ctx, await live(t, a.session.token), { recoveryCode: code.toUpperCase() });
      assert.equal(ok.session.stage, "full");
      assert.equal(ok.recoveryCodesLeft, 9);
      const b = await signIn(t.ctx, { email: "sam@example.org", password: "a long new passphrase", address: ADDRESS });
      await assert.rejects(verifySecondFactor(t.ctx, await live(t, b.session.token), { recoveryCode: code }), /used already/);
    } finally {
      await t.close();
    }
  });

  test(`brute force: the account locks after ${THROTTLE.account.limit} failures, for every server process, unknown addresses alike, on ${backend.name}`, { skip }, async () => {
    const t = await freshAccessArchive(backend);
    try {
      const u = await readyUser(t.ctx, "curator");
      const other = await t.second();
      for (let i = 0; i < THROTTLE.account.limit; i++) {
        const which = i % 2 === 0 ? t.ctx : other; // attempts spread over two server processes
        await assert.rejects(signIn(which, { email: u.email, password: `guess number ${i}`, address: `192.0.2.${i}` }), (e: unknown) => e instanceof Unauthenticated && /not right/.test((e as Error).message));
      }
      await assert.rejects(signIn(t.ctx, { email: u.email, password: u.password, address: "192.0.2.200" }), (e: unknown) => e instanceof RateLimited && /Wait until/.test((e as Error).message), "locked even with the right password");
      await assert.rejects(signIn(other, { email: u.email, password: u.password, address: "192.0.2.201" }), RateLimited);
      // An address with no account locks the same way: the lock tells nothing about who has an account.
      for (let i = 0; i < THROTTLE.account.limit; i++) {
        await assert.rejects(signIn(t.ctx, { email: "nobody@example.org", password: "x", address: `192.0.2.${50 + i}` }), Unauthenticated);
      }
      await assert.rejects(signIn(t.ctx, { email: "nobody@example.org", password: "x", address: "192.0.2.99" }), RateLimited);
      const rows = await adb(t.ctx.db.db).selectFrom("auth_throttle").select("key").execute();
      assert.ok(rows.every((r) => !r.key.includes("nobody") && !r.key.includes("192.0.2")), "neither addresses nor emails stored in the clear");

      t.clock.advance(THROTTLE.account.lockMs + 1000);
      const s = await signIn(t.ctx, { email: u.email, password: u.password, address: "192.0.2.200" });
      assert.equal(s.session.stage, "totp", "the lock lifts after its time");
      assert.ok(t.logger.lines.some((l) => l.includes("sign-in locked")));
      assert.ok(t.logger.lines.every((l) => !l.includes(u.email) && !l.includes("192.0.2")), "no email or address in the log");
    } finally {
      await t.close();
    }
  });

  test(`brute force from one address: locked after ${THROTTLE.address.limit} failures across accounts, on ${backend.name}`, { skip }, async () => {
    const t = await freshAccessArchive(backend);
    try {
      const u = await readyUser(t.ctx, "archivist");
      for (let i = 0; i < THROTTLE.address.limit; i++) {
        await assert.rejects(signIn(t.ctx, { email: `spray${i}@example.org`, password: "Winter2026!", address: ADDRESS }), Unauthenticated);
      }
      await assert.rejects(signIn(t.ctx, { email: u.email, password: u.password, address: ADDRESS }), RateLimited);
      const s = await signIn(t.ctx, { email: u.email, password: u.password, address: "198.51.100.1" });
      assert.equal(s.session.stage, "totp", "another address is not locked");
    } finally {
      await t.close();
    }
  });

  test(`TOTP guessing locks the second step after ${THROTTLE.totp.limit} wrong codes, on ${backend.name}`, { skip }, async () => {
    const t = await freshAccessArchive(backend);
    try {
      const u = await readyUser(t.ctx, "family_caseworker");
      const a = await signIn(t.ctx, { email: u.email, password: u.password, address: ADDRESS });
      const l = await live(t, a.session.token);
      const right = codeAt(u, t.clock.now());
      const wrong = right === "000000" ? "111111" : "000000";
      for (let i = 0; i < THROTTLE.totp.limit; i++) await assert.rejects(verifySecondFactor(t.ctx, l, { code: wrong }), Unauthenticated);
      await assert.rejects(verifySecondFactor(t.ctx, l, { code: right }), RateLimited);
      const changes = await accessChangesFor(t.ctx.db.db, u.id);
      assert.ok(changes.some((c) => c.action === "signin.locked"));
    } finally {
      await t.close();
    }
  });

  test(`sessions end after idle and absolute limits; a disabled account's live session stops at once, on ${backend.name}`, { skip }, async () => {
    const t = await freshAccessArchive(backend);
    try {
      const u = await readyUser(t.ctx, "investigator");
      const a = await signIn(t.ctx, { email: u.email, password: u.password, address: ADDRESS });
      const full = await verifySecondFactor(t.ctx, await live(t, a.session.token), { code: codeAt(u, t.clock.now()) });
      const token = full.session.token;
      const row = await adb(t.ctx.db.db).selectFrom("sessions").selectAll().executeTakeFirstOrThrow();
      assert.notEqual(row.token_hash, token, "the server keeps only a hash of the cookie");

      // Idle: activity keeps it alive; silence ends it.
      for (let i = 0; i < 4; i++) {
        t.clock.advance(SESSION_LIMITS.idleMs - 60_000);
        assert.ok(await findSession(t.ctx.db.db, t.clock, token), `still alive after activity ${i}`);
      }
      t.clock.advance(SESSION_LIMITS.idleMs + 1);
      assert.equal(await findSession(t.ctx.db.db, t.clock, token), null, "idle expiry");

      // Absolute: however active.
      t.clock.advance(30_000);
      const b = await signIn(t.ctx, { email: u.email, password: u.password, address: ADDRESS });
      const full2 = await verifySecondFactor(t.ctx, await live(t, b.session.token), { code: codeAt(u, t.clock.now()) });
      for (let elapsed = 0; elapsed < SESSION_LIMITS.absoluteMs - SESSION_LIMITS.idleMs; elapsed += SESSION_LIMITS.idleMs / 2) {
        t.clock.advance(SESSION_LIMITS.idleMs / 2);
        assert.ok(await findSession(t.ctx.db.db, t.clock, full2.session.token));
      }
      t.clock.advance(SESSION_LIMITS.idleMs);
      assert.equal(await findSession(t.ctx.db.db, t.clock, full2.session.token), null, "absolute expiry");

      // Disabled: the session that was live a moment ago is dead, on any server process.
      t.clock.advance(30_000);
      const c = await signIn(t.ctx, { email: u.email, password: u.password, address: ADDRESS });
      const full3 = await verifySecondFactor(t.ctx, await live(t, c.session.token), { code: codeAt(u, t.clock.now()) });
      const other = await t.second();
      assert.ok(await findSession(other.db.db, t.clock, full3.session.token));
      await disableUser(t.ctx, operatorActor(), u.email);
      assert.equal(await findSession(other.db.db, t.clock, full3.session.token), null);
      await assert.rejects(signIn(t.ctx, { email: u.email, password: u.password, address: ADDRESS }), /not right/, "and it cannot sign in again");
      const listed = (await listUsers(t.ctx, operatorActor())).find((x) => x.id === u.id);
      assert.equal(listed?.disabled, true);
    } finally {
      await t.close();
    }
  });

  test(`logout everywhere ends every session; reset issues a new one-time password and lifts a lockout, on ${backend.name}`, { skip }, async () => {
    const t = await freshAccessArchive(backend);
    try {
      const u = await readyUser(t.ctx, "public");
      const s1 = await signIn(t.ctx, { email: u.email, password: u.password, address: ADDRESS });
      const s2 = await signIn(t.ctx, { email: u.email, password: u.password, address: ADDRESS });
      // The public role has an authenticator enrolled here, so it is asked for the code as well.
      t.clock.advance(30_000);
      const f1 = await verifySecondFactor(t.ctx, await live(t, s1.session.token), { code: codeAt(u, t.clock.now()) });
      t.clock.advance(30_000);
      const f2 = await verifySecondFactor(t.ctx, await live(t, s2.session.token), { code: codeAt(u, t.clock.now()) });
      const { ended } = await signOutEverywhere(t.ctx, u.actor);
      assert.equal(ended, 2);
      assert.equal(await findSession(t.ctx.db.db, t.clock, f1.session.token), null);
      assert.equal(await findSession(t.ctx.db.db, t.clock, f2.session.token), null);

      for (let i = 0; i < THROTTLE.account.limit; i++) await assert.rejects(signIn(t.ctx, { email: u.email, password: "wrong wrong", address: `192.0.2.${i}` }));
      await assert.rejects(signIn(t.ctx, { email: u.email, password: u.password, address: ADDRESS }), RateLimited);
      const reset = await resetUser(t.ctx, operatorActor(), { user: u.id, secondFactor: true });
      assert.notEqual(reset.oneTimePassword, u.password);
      assert.equal(reset.user.secondFactor, false);
      const s3 = await signIn(t.ctx, { email: u.email, password: reset.oneTimePassword, address: ADDRESS });
      assert.equal(s3.session.stage, "password_change");
      await assert.rejects(signIn(t.ctx, { email: u.email, password: u.password, address: ADDRESS }), Unauthenticated, "the old password is gone");
      await assert.rejects(addUser(t.ctx, operatorActor(), { email: u.email, role: "curator" }), Conflict);
    } finally {
      await t.close();
    }
  });
}

for (const { backend, skip } of await backends()) {
  test(`the public role signs in with a password alone (no second factor asked), on ${backend.name}`, { skip }, async () => {
    const t = await freshAccessArchive(backend);
    try {
      const { oneTimePassword } = await addUser(t.ctx, operatorActor(), { email: "visitor@example.org", role: "public" });
      const s1 = await signIn(t.ctx, { email: "visitor@example.org", password: oneTimePassword, address: ADDRESS });
      const s2 = await changePassword(t.ctx, await live(t, s1.session.token), { current: oneTimePassword, next: "lanterns over the old souk" });
      assert.equal(s2.session.stage, "full");
    } finally {
      await t.close();
    }
  });
}
