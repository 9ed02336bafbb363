import { test } from "node:test";
import assert from "node:assert/strict";
import type { LightMyRequestResponse } from "fastify";
import { accountKey, THROTTLE, totpKey } from "../../src/access/throttle.ts";
import { adb } from "../../src/access/tables.ts";
import { buildHttpApp, type HttpApp } from "../../src/http/app.ts";
import { backends } from "../support/backends.ts";
import { codeAt, freshAccessArchive, readyUser, type TestArchive, type TestUser } from "../support/accounts.ts";

/**
 * Guesses sent all at once. Each takes its place in the count before it is checked, so fifty parallel guesses
 * are fifty: only the first `limit` are checked at all, the others are refused without being tried.
 */
const ORIGIN = "http://localhost";
const PARALLEL = 50;

function tally(rs: LightMyRequestResponse[]): Record<number, number> {
  const out: Record<number, number> = {};
  for (const r of rs) out[r.statusCode] = (out[r.statusCode] ?? 0) + 1;
  return out;
}

async function count(t: TestArchive, key: string): Promise<{ failures: number; locked: boolean }> {
  const row = await adb(t.ctx.db.db).selectFrom("auth_throttle").selectAll().where("key", "=", key).executeTakeFirst();
  return { failures: row?.failures ?? 0, locked: Boolean(row?.locked_until && row.locked_until > t.clock.now().toISOString()) };
}

/** A browser half-way through signing in (waiting for the second factor): its cookie and CSRF token. */
async function halfWay(http: HttpApp, u: TestUser): Promise<{ cookies: Record<string, string>; headers: Record<string, string> }> {
  const r = await http.app.inject({ method: "POST", url: "/api/auth/login", headers: { origin: ORIGIN }, payload: { email: u.email, password: u.password } });
  assert.equal(r.statusCode, 200, r.body);
  assert.equal(r.json().stage, "totp");
  const cookie = (r.cookies as { name: string; value: string }[]).find((c) => c.name === "dalil_session")!;
  return { cookies: { dalil_session: cookie.value }, headers: { origin: ORIGIN, "x-csrf-token": r.json().csrfToken as string } };
}

for (const { backend, skip } of await backends()) {
  test(`${PARALLEL} parallel password guesses on one account are counted as ${PARALLEL}, and only ${THROTTLE.account.limit} are tried, on ${backend.name}`, { skip, timeout: 120_000 }, async () => {
    const t = await freshAccessArchive(backend);
    const http = await buildHttpApp(t.ctx);
    try {
      const u = await readyUser(t.ctx, "investigator");
      const rs = await Promise.all(
        Array.from({ length: PARALLEL }, (_, i) =>
          // Each from its own address, so the per-address limit is not what stops them.
          http.app.inject({ method: "POST", url: "/api/auth/login", headers: { origin: ORIGIN }, remoteAddress: `10.1.0.${i + 1}`, payload: { email: u.email, password: `guess number ${i}` } }),
        ),
      );
      assert.deepEqual(tally(rs), { 401: THROTTLE.account.limit, 429: PARALLEL - THROTTLE.account.limit });
      assert.deepEqual(await count(t, accountKey(t.ctx.config, u.email)), { failures: PARALLEL, locked: true });
      const right = await http.app.inject({ method: "POST", url: "/api/auth/login", headers: { origin: ORIGIN }, remoteAddress: "10.2.0.1", payload: { email: u.email, password: u.password } });
      assert.equal(right.statusCode, 429, "locked: even the right password waits");
      // The lock is recorded once, however many guesses ran into it.
      const locks = await adb(t.ctx.db.db).selectFrom("access_audit").select("action").where("action", "=", "signin.locked").execute();
      assert.equal(locks.length, 1);
    } finally {
      await http.app.close();
      await t.close();
    }
  });

  for (const kind of ["second-factor codes", "recovery-code guesses"] as const) {
    test(`${PARALLEL} parallel ${kind} on one half-way session are counted as ${PARALLEL}, on ${backend.name}`, { skip, timeout: 120_000 }, async () => {
      const t = await freshAccessArchive(backend);
      const http = await buildHttpApp(t.ctx);
      try {
        const u = await readyUser(t.ctx, "family_caseworker");
        const b = await halfWay(http, u);
        const right = codeAt(u, t.clock.now());
        const guess = (i: number) =>
          kind === "second-factor codes" ? { code: String((Number(right) + 1 + i * 7919) % 1_000_000).padStart(6, "0") } : { recoveryCode: `guess-${String(i).padStart(4, "0")}-aaaa-bbbb` };
        const rs = await Promise.all(Array.from({ length: PARALLEL }, (_, i) => http.app.inject({ method: "POST", url: "/api/auth/second-factor", ...b, payload: guess(i) })));
        assert.deepEqual(tally(rs), { 401: THROTTLE.totp.limit, 429: PARALLEL - THROTTLE.totp.limit });
        assert.deepEqual(await count(t, totpKey(u.id)), { failures: PARALLEL, locked: true });
        const late = await http.app.inject({ method: "POST", url: "/api/auth/second-factor", ...b, payload: { code: right } });
        assert.equal(late.statusCode, 429, "the right code waits too");
      } finally {
        await http.app.close();
        await t.close();
      }
    });
  }

  test(`a success gives its place back: ${THROTTLE.address.limit} good sign-ins from one address do not lock it, on ${backend.name}`, { skip, timeout: 120_000 }, async () => {
    const t = await freshAccessArchive(backend);
    const http = await buildHttpApp(t.ctx);
    try {
      const users = await Promise.all(Array.from({ length: 4 }, () => readyUser(t.ctx, "public")));
      for (let i = 0; i < THROTTLE.address.limit + 2; i++) {
        const u = users[i % users.length]!;
        const r = await http.app.inject({ method: "POST", url: "/api/auth/login", headers: { origin: ORIGIN }, remoteAddress: "10.9.9.9", payload: { email: u.email, password: u.password } });
        assert.equal(r.statusCode, 200, `sign-in ${i + 1}: ${r.body}`);
      }
    } finally {
      await http.app.close();
      await t.close();
    }
  });
}
