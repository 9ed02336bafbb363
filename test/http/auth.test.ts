import { test } from "node:test";
import assert from "node:assert/strict";
import type { LightMyRequestResponse } from "fastify";
import { Secret } from "otpauth";
import { operatorActor } from "../../src/core/actor.ts";
import { addUser, disableUser, THROTTLE } from "../../src/access/index.ts";
import { totpCode } from "../../src/access/totp.ts";
import { buildHttpApp, type HttpApp } from "../../src/http/app.ts";
import { backends } from "../support/backends.ts";
import { codeAt, freshAccessArchive, fullSession, readyUser, seedOriginal, type TestArchive, type TestUser } from "../support/accounts.ts";

const ORIGIN = "http://localhost";
const COOKIE = "dalil_session";

function cookieOf(r: LightMyRequestResponse): { value: string; httpOnly?: boolean; sameSite?: string; secure?: boolean; path?: string; name: string } | undefined {
  return (r.cookies as { name: string; value: string; httpOnly?: boolean; sameSite?: string; secure?: boolean; path?: string }[]).find((c) => c.name.endsWith(COOKIE));
}

/** A browser: keeps the session cookie and the CSRF token, sends the page's Origin on every POST. */
class Browser {
  token: string | undefined;
  csrf: string | undefined;
  constructor(
    private readonly http: HttpApp,
    private readonly origin = ORIGIN,
  ) {}

  async send(method: "GET" | "POST" | "DELETE", url: string, body?: unknown, extra: Record<string, string> = {}): Promise<LightMyRequestResponse> {
    const headers: Record<string, string> = { ...extra };
    if (method !== "GET") {
      headers.origin ??= this.origin;
      if (this.csrf && !("x-csrf-token" in extra)) headers["x-csrf-token"] = this.csrf;
    }
    const r = await this.http.app.inject({
      method,
      url,
      headers,
      ...(this.token ? { cookies: { [COOKIE]: this.token } } : {}),
      ...(body !== undefined ? { payload: body as object } : {}),
    });
    const c = cookieOf(r);
    if (c) this.token = c.value || undefined;
    const json = r.headers["content-type"]?.toString().includes("json") ? (r.json() as { csrfToken?: string }) : {};
    if (json.csrfToken) this.csrf = json.csrfToken;
    return r;
  }

  async signIn(user: TestUser, at: Date): Promise<void> {
    const r1 = await this.send("POST", "/api/auth/login", { email: user.email, password: user.password });
    assert.equal(r1.statusCode, 200, r1.body);
    const r2 = await this.send("POST", "/api/auth/second-factor", { code: codeAt(user, at) });
    assert.equal(r2.statusCode, 200, r2.body);
    assert.equal(r2.json().stage, "full");
  }
}

async function setup(t: TestArchive, opts: Parameters<typeof buildHttpApp>[1] = {}): Promise<HttpApp> {
  return buildHttpApp(t.ctx, opts);
}

for (const { backend, skip } of await backends()) {
  test(`a browser signs in step by step with HttpOnly SameSite=Strict cookies, from a one-time password, on ${backend.name}`, { skip }, async () => {
    const t = await freshAccessArchive(backend);
    const http = await setup(t);
    try {
      const { oneTimePassword } = await addUser(t.ctx, operatorActor(), { email: "lina@example.org", role: "forensic_reviewer" });
      const b = new Browser(http);
      const login = await b.send("POST", "/api/auth/login", { email: "lina@example.org", password: oneTimePassword });
      assert.equal(login.statusCode, 200, login.body);
      assert.equal(login.json().stage, "password_change");
      const c = cookieOf(login)!;
      assert.equal(c.name, COOKIE);
      assert.equal(c.httpOnly, true);
      assert.equal(c.sameSite, "Strict");
      assert.equal(c.path, "/");
      assert.notEqual(c.secure, true, "plain http in this test: not Secure");
      assert.ok(!/max-age|expires/i.test(String(login.headers["set-cookie"])), "a browser-session cookie, gone when the browser closes");

      const early = await b.send("GET", "/api/originals");
      assert.equal(early.statusCode, 401, "a half-way session reaches nothing");
      assert.match(early.json().message, /Finish signing in first: choose a new password/);

      const pw = await b.send("POST", "/api/auth/password", { current: oneTimePassword, next: "the fig tree in the yard" });
      assert.equal(pw.statusCode, 200, pw.body);
      assert.equal(pw.json().stage, "totp_enrol");
      const enrol = await b.send("POST", "/api/auth/enrol");
      assert.equal(enrol.statusCode, 200, enrol.body);
      const secret = Buffer.from(Secret.fromBase32(enrol.json().secret).bytes);
      const confirm = await b.send("POST", "/api/auth/enrol/confirm", { code: totpCode(secret, t.clock.now()) });
      assert.equal(confirm.statusCode, 200, confirm.body);
      assert.equal(confirm.json().recoveryCodes.length, 10);
      const me = await b.send("GET", "/api/session");
      assert.equal(me.json().signedIn, true);
      assert.equal(me.json().user.role, "forensic_reviewer");
      assert.equal((await b.send("GET", "/api/originals")).statusCode, 200);

      const out = await b.send("POST", "/api/auth/logout");
      assert.equal(out.statusCode, 200);
      assert.equal(b.token, undefined, "the cookie is cleared");
      assert.equal((await b.send("GET", "/api/session")).json().signedIn, false);
    } finally {
      await http.app.close();
      await t.close();
    }
  });

  test(`over HTTPS the cookie is Secure with the __Host- prefix and HSTS is sent, on ${backend.name}`, { skip }, async () => {
    const t = await freshAccessArchive(backend);
    const http = await setup(t, { trustProxy: true });
    try {
      const u = await readyUser(t.ctx, "curator");
      const r = await http.app.inject({
        method: "POST",
        url: "/api/auth/login",
        headers: { "x-forwarded-proto": "https", host: "archive.example.org", origin: "https://archive.example.org" },
        payload: { email: u.email, password: u.password },
      });
      assert.equal(r.statusCode, 200, r.body);
      const c = cookieOf(r)!;
      assert.equal(c.name, "__Host-dalil_session");
      assert.equal(c.secure, true);
      assert.match(String(r.headers["strict-transport-security"]), /max-age=\d+/);
    } finally {
      await http.app.close();
      await t.close();
    }
  });

  test(`session fixation: a cookie planted before sign-in is never upgraded and stops working, on ${backend.name}`, { skip }, async () => {
    const t = await freshAccessArchive(backend);
    const http = await setup(t);
    try {
      const victim = await readyUser(t.ctx, "investigator");
      const attacker = await readyUser(t.ctx, "public");
      // The attacker signs in to their own account and plants that cookie in the victim's browser.
      const evil = new Browser(http);
      await evil.send("POST", "/api/auth/login", { email: attacker.email, password: attacker.password });
      const planted = evil.token!;
      const b = new Browser(http);
      b.token = planted;
      b.csrf = evil.csrf;
      await b.signIn(victim, t.clock.now());
      assert.notEqual(b.token, planted, "a new session id at sign-in");
      // And the id handed out after the password is replaced again after the second factor.
      const afterPassword = new Browser(http);
      const r1 = await afterPassword.send("POST", "/api/auth/login", { email: victim.email, password: victim.password });
      const halfToken = cookieOf(r1)!.value;
      t.clock.advance(30_000);
      await afterPassword.send("POST", "/api/auth/second-factor", { code: codeAt(victim, t.clock.now()) });
      assert.notEqual(afterPassword.token, halfToken);

      for (const stale of [planted, halfToken]) {
        const r = await http.app.inject({ method: "GET", url: "/api/session", cookies: { [COOKIE]: stale } });
        assert.equal(r.json().signedIn, false);
        assert.equal(r.json().stage, null, "the old id is dead, not a half-way session");
      }
      const ok = await http.app.inject({ method: "GET", url: "/api/originals", cookies: { [COOKIE]: b.token! } });
      assert.equal(ok.statusCode, 200);
      // Cookie values the server never issued are ignored (and cleared).
      const made = await http.app.inject({ method: "GET", url: "/api/session", cookies: { [COOKIE]: "attacker-chosen-value" } });
      assert.equal(made.json().signedIn, false);
      assert.equal(cookieOf(made)?.value, "");
    } finally {
      await http.app.close();
      await t.close();
    }
  });

  test(`CSRF: a state-changing request needs the session's token and the archive's own origin, on ${backend.name}`, { skip }, async () => {
    const t = await freshAccessArchive(backend);
    const http = await setup(t);
    try {
      const admin = await readyUser(t.ctx, "admin");
      const target = await readyUser(t.ctx, "archivist");
      const b = new Browser(http);
      await b.signIn(admin, t.clock.now());
      const url = `/api/users/${target.id}/disable`;

      const noToken = await http.app.inject({ method: "POST", url, headers: { origin: ORIGIN }, cookies: { [COOKIE]: b.token! } });
      assert.equal(noToken.statusCode, 403);
      assert.match(noToken.json().message, /security token/);
      const wrong = await http.app.inject({ method: "POST", url, headers: { origin: ORIGIN, "x-csrf-token": "0".repeat(64) }, cookies: { [COOKIE]: b.token! } });
      assert.equal(wrong.statusCode, 403);
      const otherSession = await fullSession(t.ctx, target.id);
      const stolenToken = await http.app.inject({ method: "POST", url, headers: { origin: ORIGIN, "x-csrf-token": otherSession.csrf }, cookies: { [COOKIE]: b.token! } });
      assert.equal(stolenToken.statusCode, 403, "a token belongs to its session");
      const crossSite = await http.app.inject({ method: "POST", url, headers: { origin: "https://evil.example", "x-csrf-token": b.csrf! }, cookies: { [COOKIE]: b.token! } });
      assert.equal(crossSite.statusCode, 403);
      assert.match(crossSite.json().message, /another site/);
      const fetchMeta = await http.app.inject({ method: "POST", url, headers: { "sec-fetch-site": "cross-site", "x-csrf-token": b.csrf! }, cookies: { [COOKIE]: b.token! } });
      assert.equal(fetchMeta.statusCode, 403);
      const loginCsrf = await http.app.inject({ method: "POST", url: "/api/auth/login", headers: { origin: "https://evil.example" }, payload: { email: admin.email, password: admin.password } });
      assert.equal(loginCsrf.statusCode, 403, "login CSRF: no signing a victim into the attacker's account");
      assert.equal((await t.ctx.db.db.withTables<{ users: { id: string; disabled_at: string | null } }>().selectFrom("users").select("disabled_at").where("id", "=", target.id).executeTakeFirstOrThrow()).disabled_at, null, "nothing was disabled");

      const good = await b.send("POST", url);
      assert.equal(good.statusCode, 200, good.body);
      assert.equal(good.json().disabled, true);
      const configured = await buildHttpApp(t.ctx, { origins: ["https://web.example.org"] });
      const fromWebHost = await configured.app.inject({ method: "POST", url: `/api/users/${target.id}/enable`, headers: { origin: "https://web.example.org", "x-csrf-token": b.csrf! }, cookies: { [COOKIE]: b.token! } });
      assert.equal(fromWebHost.statusCode, 200, "a configured origin is accepted");
      await configured.app.close();
    } finally {
      await http.app.close();
      await t.close();
    }
  });

  test(`brute force over HTTP: the ${THROTTLE.account.limit + 1}th try is 429, right password or not, on ${backend.name}`, { skip }, async () => {
    const t = await freshAccessArchive(backend);
    const http = await setup(t);
    try {
      const u = await readyUser(t.ctx, "prosecutor");
      for (let i = 0; i < THROTTLE.account.limit; i++) {
        const r = await new Browser(http).send("POST", "/api/auth/login", { email: u.email, password: `try-${i}-aaaaaaaa` });
        assert.equal(r.statusCode, 401);
        assert.equal(r.json().message, "The email address or the password is not right.");
      }
      const locked = await new Browser(http).send("POST", "/api/auth/login", { email: u.email, password: u.password });
      assert.equal(locked.statusCode, 429);
      assert.match(locked.json().message, /Too many failed attempts/);
      const unknown = await new Browser(http).send("POST", "/api/auth/login", { email: "nobody@example.org", password: "whatever-whatever" });
      assert.equal(unknown.json().message, "The email address or the password is not right.", "the same answer for an address with no account");
    } finally {
      await http.app.close();
      await t.close();
    }
  });

  test(`TOTP replay over HTTP: a code that signed one browser in does not sign in another, on ${backend.name}`, { skip }, async () => {
    const t = await freshAccessArchive(backend);
    const http = await setup(t);
    try {
      const u = await readyUser(t.ctx, "family_caseworker");
      const code = codeAt(u, t.clock.now());
      const first = new Browser(http);
      await first.send("POST", "/api/auth/login", { email: u.email, password: u.password });
      assert.equal((await first.send("POST", "/api/auth/second-factor", { code })).statusCode, 200);
      const second = new Browser(http);
      await second.send("POST", "/api/auth/login", { email: u.email, password: u.password });
      const replay = await second.send("POST", "/api/auth/second-factor", { code });
      assert.equal(replay.statusCode, 401);
      assert.match(replay.json().message, /used already/);
      assert.equal((await second.send("GET", "/api/session")).json().signedIn, false);
    } finally {
      await http.app.close();
      await t.close();
    }
  });

  test(`a disabled user's live session and API tokens stop at the next request, on ${backend.name}`, { skip }, async () => {
    const t = await freshAccessArchive(backend);
    const http = await setup(t);
    try {
      const u = await readyUser(t.ctx, "investigator");
      const b = new Browser(http);
      await b.signIn(u, t.clock.now());
      const made = await b.send("POST", "/api/tokens", { name: "nightly export", scopes: ["archive.read"] });
      assert.equal(made.statusCode, 200, made.body);
      const bearer = { authorization: `Bearer ${made.json().token}` };
      assert.equal((await b.send("GET", "/api/originals")).statusCode, 200);
      assert.equal((await http.app.inject({ method: "GET", url: "/api/originals", headers: bearer })).statusCode, 200);

      await disableUser(t.ctx, operatorActor(), u.id);
      const after = await b.send("GET", "/api/originals");
      assert.equal(after.statusCode, 401);
      assert.equal((await http.app.inject({ method: "GET", url: "/api/originals", headers: bearer })).statusCode, 401);
    } finally {
      await http.app.close();
      await t.close();
    }
  });

  test(`API tokens: shown once, stored hashed, scoped, revocable, and need no CSRF token, on ${backend.name}`, { skip }, async () => {
    const t = await freshAccessArchive(backend);
    const http = await setup(t);
    try {
      const u = await readyUser(t.ctx, "archivist");
      const b = new Browser(http);
      await b.signIn(u, t.clock.now());
      const made = await b.send("POST", "/api/tokens", { name: "verify script", scopes: ["archive.read", "token.manage"] });
      const { token, id } = made.json() as { token: string; id: string };
      assert.match(token, /^dalil_[A-Za-z0-9_-]{43}$/);
      const listed = await b.send("GET", "/api/tokens");
      assert.ok(!listed.body.includes(token), "the secret is never shown again");
      const rows = await t.ctx.db.db.withTables<{ api_tokens: { token_hash: string } }>().selectFrom("api_tokens").select("token_hash").execute();
      assert.ok(rows.every((r) => r.token_hash !== token && !r.token_hash.includes(token)));

      const bearer = { authorization: `Bearer ${token}` };
      assert.equal((await http.app.inject({ method: "GET", url: "/api/originals", headers: bearer })).statusCode, 200);
      const outOfScope = await http.app.inject({ method: "GET", url: "/api/jobs", headers: bearer });
      assert.equal(outOfScope.statusCode, 403);
      assert.match(outOfScope.json().message, /API token/);
      const tokenFromToken = await http.app.inject({ method: "POST", url: "/api/tokens", headers: bearer, payload: { name: "x", scopes: ["archive.read"] } });
      assert.equal(tokenFromToken.statusCode, 403, "a token cannot mint tokens");
      const bad = await http.app.inject({ method: "GET", url: "/api/originals", headers: { authorization: "Bearer dalil_not-a-real-token-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" } });
      assert.equal(bad.statusCode, 401);
      const tooWide = await b.send("POST", "/api/tokens", { name: "wide", scopes: ["sealed.open"] });
      assert.equal(tooWide.statusCode, 403, "no scope beyond the role");

      // A script's request carries no cookie and no Origin: no CSRF token needed (a browser never adds the header).
      const selfRevoke = await http.app.inject({ method: "DELETE", url: `/api/tokens/${id}`, headers: bearer });
      assert.equal(selfRevoke.statusCode, 200, selfRevoke.body);
      assert.equal((await http.app.inject({ method: "GET", url: "/api/originals", headers: bearer })).statusCode, 401);
    } finally {
      await http.app.close();
      await t.close();
    }
  });

  test(`IDOR: another account's session or token id is "not found", and stays alive, on ${backend.name}`, { skip }, async () => {
    const t = await freshAccessArchive(backend);
    const http = await setup(t);
    try {
      const a = await readyUser(t.ctx, "investigator");
      const v = await readyUser(t.ctx, "investigator");
      const bA = new Browser(http);
      await bA.signIn(a, t.clock.now());
      const bV = new Browser(http);
      t.clock.advance(30_000);
      await bV.signIn(v, t.clock.now());
      const vSessions = (await bV.send("GET", "/api/account/sessions")).json() as { id: string; current: boolean }[];
      assert.equal(vSessions.length, 1);
      assert.equal(vSessions[0]!.current, true);
      const vToken = (await bV.send("POST", "/api/tokens", { name: "v's script", scopes: ["archive.read"] })).json() as { id: string; token: string };

      const s = await bA.send("DELETE", `/api/account/sessions/${vSessions[0]!.id}`);
      assert.equal(s.statusCode, 404);
      const tk = await bA.send("DELETE", `/api/tokens/${vToken.id}`);
      assert.equal(tk.statusCode, 404);
      const guessed = await bA.send("DELETE", "/api/tokens/tok_aaaaaaaaaaaaaaaaaaaaaaaaaa");
      assert.equal(guessed.statusCode, 404);
      assert.equal(guessed.json().message, tk.json().message, "a guessed id and someone else's id look the same");
      assert.ok(!(await bA.send("GET", "/api/account/sessions")).body.includes(vSessions[0]!.id), "A's list holds only A's sessions");
      assert.equal((await bV.send("GET", "/api/originals")).statusCode, 200, "the victim's session lives");
      assert.equal((await http.app.inject({ method: "GET", url: "/api/originals", headers: { authorization: `Bearer ${vToken.token}` } })).statusCode, 200);
      // An original's id is its SHA-256: a guessed one is simply not found, never another's record.
      await seedOriginal(t.ctx);
      assert.equal((await bA.send("GET", `/api/originals/${"ab".repeat(32)}`)).statusCode, 404);
      // Logging out everywhere ends A's sessions only.
      assert.equal((await bA.send("POST", "/api/auth/logout-everywhere")).statusCode, 200);
      assert.equal((await bV.send("GET", "/api/originals")).statusCode, 200);
    } finally {
      await http.app.close();
      await t.close();
    }
  });

  test(`security headers, body limits, and no secrets or personal data in log lines, on ${backend.name}`, { skip }, async () => {
    const t = await freshAccessArchive(backend);
    const http = await setup(t);
    try {
      const u = await readyUser(t.ctx, "archivist");
      const r = await http.app.inject({ method: "GET", url: "/api/health" });
      const csp = String(r.headers["content-security-policy"]);
      for (const d of ["default-src 'none'", "script-src 'self'", "object-src 'none'", "frame-ancestors 'none'", "base-uri 'none'", "form-action 'self'"]) assert.ok(csp.includes(d), d);
      assert.ok(!csp.includes("unsafe-inline") && !csp.includes("unsafe-eval"));
      assert.equal(r.headers["x-content-type-options"], "nosniff");
      assert.equal(r.headers["x-frame-options"], "DENY");
      assert.equal(r.headers["referrer-policy"], "no-referrer");
      assert.equal(r.headers["cache-control"], "no-store");
      assert.equal(r.headers["strict-transport-security"], undefined, "no HSTS over plain http");

      const big = await http.app.inject({ method: "POST", url: "/api/auth/login", headers: { origin: ORIGIN, "content-type": "application/json" }, payload: JSON.stringify({ email: u.email, password: "x".repeat(2 * 1024 * 1024) }) });
      assert.equal(big.statusCode, 413);
      const longPw = await new Browser(http).send("POST", "/api/auth/login", { email: u.email, password: "x".repeat(5000) });
      assert.equal(longPw.statusCode, 422, "passwords have an upper bound (argon2 is not a free service)");

      const b = new Browser(http);
      await b.signIn(u, t.clock.now());
      const tok = (await b.send("POST", "/api/tokens", { name: "n", scopes: ["archive.read"] })).json() as { token: string };
      await new Browser(http).send("POST", "/api/auth/login", { email: u.email, password: "wrong password here" });
      const logged = t.logger.lines.join("\n");
      for (const secret of [u.email, u.password, b.token!, b.csrf!, tok.token]) assert.ok(!logged.includes(secret));
    } finally {
      await http.app.close();
      await t.close();
    }
  });
}
