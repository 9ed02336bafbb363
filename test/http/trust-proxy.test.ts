import { test } from "node:test";
import assert from "node:assert/strict";
import { THROTTLE } from "../../src/access/index.ts";
import { trustProxySetting } from "../../src/cli/serve.ts";
import { buildHttpApp, type HttpApp } from "../../src/http/app.ts";
import { backends } from "../support/backends.ts";
import { freshAccessArchive, readyUser } from "../support/accounts.ts";

/**
 * Behind a TLS proxy (on this machine: requests reach the server from 127.0.0.1). With `--trust-proxy` the
 * proxy's X-Forwarded-* headers are believed: the client's address, and that the client spoke HTTPS. Without
 * it they are ignored, whoever sends them.
 */
const PROXY = "127.0.0.1";
const SITE = "archive.example.org";

function login(http: HttpApp, email: string, password: string, headers: Record<string, string>) {
  return http.app.inject({ method: "POST", url: "/api/auth/login", remoteAddress: PROXY, headers: { host: SITE, ...headers }, payload: { email, password } });
}

/** Failed sign-ins, each to a different (unknown) address so no account locks first: only the per-address count grows. */
async function failFrom(http: HttpApp, n: number, headers: (i: number) => Record<string, string>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await login(http, `nobody-${i}@example.org`, "not the password at all", headers(i))).statusCode);
  return out;
}

test("--trust-proxy: no value trusts a proxy on this machine, a list trusts those addresses, and nothing is trusted without it", () => {
  assert.deepEqual(trustProxySetting(true), ["loopback"]);
  assert.deepEqual(trustProxySetting("10.0.0.5, 10.0.0.6"), ["10.0.0.5", "10.0.0.6"]);
  assert.equal(trustProxySetting(undefined), undefined);
  assert.throws(() => trustProxySetting(" , "), /proxies' addresses/);
});

for (const { backend, skip } of await backends()) {
  test(`behind a TLS proxy with --trust-proxy: __Host- Secure cookies, HSTS, and each forwarded client throttled on its own, on ${backend.name}`, { skip, timeout: 120_000 }, async () => {
    const t = await freshAccessArchive(backend);
    const http = await buildHttpApp(t.ctx, { trustProxy: trustProxySetting(true)! });
    try {
      const u = await readyUser(t.ctx, "curator");
      const tls = { "x-forwarded-proto": "https", origin: `https://${SITE}` };
      const ok = await login(http, u.email, u.password, { ...tls, "x-forwarded-for": "203.0.113.7" });
      assert.equal(ok.statusCode, 200, ok.body);
      const cookie = (ok.cookies as { name: string; secure?: boolean }[])[0]!;
      assert.equal(cookie.name, "__Host-dalil_session");
      assert.equal(cookie.secure, true);
      assert.match(String(ok.headers["strict-transport-security"]), /max-age=\d+/);

      const a = await failFrom(http, THROTTLE.address.limit + 1, () => ({ ...tls, "x-forwarded-for": "198.51.100.1" }));
      assert.deepEqual(a.slice(0, THROTTLE.address.limit), Array(THROTTLE.address.limit).fill(401));
      assert.equal(a.at(-1), 429, "the guessing client is locked");
      const other = await login(http, u.email, u.password, { ...tls, "x-forwarded-for": "198.51.100.2" });
      assert.equal(other.statusCode, 200, "another client behind the same proxy is not");
    } finally {
      await http.app.close();
      await t.close();
    }
  });

  test(`without --trust-proxy a forged X-Forwarded-For escapes no lock and X-Forwarded-Proto makes no __Host- cookie, on ${backend.name}`, { skip, timeout: 120_000 }, async () => {
    const t = await freshAccessArchive(backend);
    const http = await buildHttpApp(t.ctx);
    try {
      const u = await readyUser(t.ctx, "curator");
      const forged = { "x-forwarded-proto": "https", origin: `http://${SITE}` };
      const ok = await login(http, u.email, u.password, { ...forged, "x-forwarded-for": "203.0.113.7" });
      assert.equal(ok.statusCode, 200, ok.body);
      assert.equal((ok.cookies as { name: string }[])[0]!.name, "dalil_session");
      assert.equal(ok.headers["strict-transport-security"], undefined);
      const tries = await failFrom(http, THROTTLE.address.limit + 1, (i) => ({ ...forged, "x-forwarded-for": `198.51.100.${i + 1}` }));
      assert.equal(tries.at(-1), 429, "a new forged address each time still counts against the real one");
    } finally {
      await http.app.close();
      await t.close();
    }
  });
}
