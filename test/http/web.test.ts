import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import Fastify from "fastify";
import { buildHttpApp, type RouteSpec } from "../../src/http/app.ts";
import { registerWebApp, WEB_DIST } from "../../src/http/web.ts";
import { ENDPOINTS } from "../../web/src/api/endpoints.ts";
import { ensureWebBuilt } from "../../web/ensure-built.mjs";
import { backends, tempDir } from "../support/backends.ts";
import { demoCard } from "../support/archive.ts";
import { freshAccessArchive, fullSession, readyUser } from "../support/accounts.ts";

/**
 * The web app from the same origin as the API: the built files with the right caching, the app's own routes
 * answered with index.html, API paths never; and the routes the app added (permissions, uploads, renditions,
 * reveals) through HTTP with a real session cookie and CSRF token.
 */
const [sqlite] = await backends();

test("a static directory: files with their type and caching, app routes get index.html, nothing outside it", async () => {
  const parent = tempDir("dalil-web-");
  const dir = join(parent, "dist");
  mkdirSync(join(dir, "assets"), { recursive: true });
  writeFileSync(join(dir, "index.html"), "<!doctype html><div id=root></div>");
  const js = "console.log('app');".repeat(100);
  writeFileSync(join(dir, "assets", "index-abc123.js"), js);
  writeFileSync(join(dir, "assets", "index-abc123.js.gz"), gzipSync(js));
  writeFileSync(join(dir, "favicon.svg"), "<svg/>");
  writeFileSync(join(parent, "secret.txt"), "outside");
  writeFileSync(join(parent, "dist-secret.txt"), "outside");
  const app = Fastify();
  const routes: RouteSpec[] = [];
  registerWebApp(app, (spec) => void routes.push(spec as RouteSpec), { dir });
  try {
    const index = await app.inject({ url: "/gallery" });
    assert.equal(index.statusCode, 200);
    assert.match(index.headers["content-type"] as string, /text\/html/);
    assert.equal(index.headers["cache-control"], "no-cache");
    assert.match(index.body, /id=root/);
    assert.equal((await app.inject({ url: "/photo/abc?x=1" })).body, index.body);

    const asset = await app.inject({ url: "/assets/index-abc123.js" });
    assert.equal(asset.statusCode, 200);
    assert.match(asset.headers["content-type"] as string, /text\/javascript/);
    assert.equal(asset.headers["cache-control"], "public, max-age=31536000, immutable");
    assert.equal(asset.body, js);
    const gz = await app.inject({ url: "/assets/index-abc123.js", headers: { "accept-encoding": "gzip, br" } });
    assert.equal(gz.headers["content-encoding"], "gzip");
    assert.ok(gz.rawPayload.length < js.length);
    assert.equal((await app.inject({ url: "/favicon.svg" })).headers["content-type"], "image/svg+xml");

    assert.equal((await app.inject({ url: "/assets/missing.js" })).statusCode, 404, "a missing hashed asset is a 404, not the app");
    const api = await app.inject({ url: "/api/no-such-route" });
    assert.equal(api.statusCode, 404);
    assert.match(api.json<{ message: string }>().message, /GET \/api\/routes/);
    assert.equal((await app.inject({ url: "/log/nothing" })).statusCode, 404);
    assert.equal((await app.inject({ method: "POST", url: "/gallery" })).statusCode, 404);
    for (const url of ["/../secret.txt", "/%2e%2e/secret.txt", "/assets/..%2f..%2fsecret.txt", "/..%5csecret.txt", "/..%2fdist-secret.txt", "/%2e%2e%2fsecret.txt", "/%00", "/%E0%A4%A"]) {
      const r = await app.inject({ url });
      assert.ok(!r.body.includes("outside"), `${url} does not leave the directory`);
    }
    assert.deepEqual(
      routes.map((r) => `${r.method} ${r.url} ${r.action}`),
      ["GET /api/permissions public"],
    );
  } finally {
    await app.close();
  }
});

test("without a built app, pages say how to build it", async () => {
  const app = Fastify();
  registerWebApp(app, () => {}, { dir: tempDir("dalil-empty-") });
  const r = await app.inject({ url: "/" });
  assert.equal(r.statusCode, 503);
  assert.match(r.body, /npm run build:web/);
  await app.close();
});

test("the real build: index.html and its hashed assets, under the archive's security headers", { skip: sqlite!.skip, timeout: 60_000 }, async () => {
  ensureWebBuilt({ quiet: true });
  const t = await freshAccessArchive(sqlite!.backend);
  const http = await buildHttpApp(t.ctx);
  try {
    const page = await http.app.inject({ url: "/" });
    assert.equal(page.statusCode, 200);
    assert.match(page.headers["content-security-policy"] as string, /script-src 'self'/);
    assert.equal(page.headers["x-frame-options"], "DENY");
    assert.ok(!/<script(?![^>]*\bsrc=)[^>]*>/.test(page.body), "no inline script (the CSP would refuse it)");
    const assets = [...page.body.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    assert.ok(assets.some((a) => a.endsWith(".js")) && assets.some((a) => a.endsWith(".css")));
    for (const a of assets) {
      const r = await http.app.inject({ url: a });
      assert.equal(r.statusCode, 200, a);
      assert.match(r.headers["cache-control"] as string, /immutable/);
    }
    assert.ok(readFileSync(join(WEB_DIST, "index.html"), "utf8").includes('id="root"'));
    // Every path the app's client calls is a route the server declares.
    const have = new Set(http.routes.map((r) => `${r.method} ${r.url}`));
    assert.deepEqual(
      Object.entries(ENDPOINTS)
        .filter(([, e]) => !have.has(`${e.method} ${e.url}`))
        .map(([n]) => n),
      [],
    );
  } finally {
    await http.app.close();
    await t.close();
  }
});

test("permissions, uploads and reveals over HTTP, with the session cookie and its CSRF token", { skip: sqlite!.skip, timeout: 60_000 }, async () => {
  const t = await freshAccessArchive(sqlite!.backend);
  const http = await buildHttpApp(t.ctx);
  const { app } = http;
  try {
    const anon = (await app.inject({ url: "/api/permissions" })).json<{ role: string; actions: string[]; roles: string[] }>();
    assert.equal(anon.role, "public");
    assert.deepEqual(anon.actions, ["log.read"]);
    assert.equal(anon.roles.length, 9);

    const archivist = await readyUser(t.ctx, "archivist");
    const s = await fullSession(t.ctx, archivist.id);
    const cookies = { dalil_session: s.token };
    const same = { origin: "http://localhost", "x-csrf-token": s.csrf };
    const perms = (await app.inject({ url: "/api/permissions", cookies })).json<{ actions: string[] }>();
    assert.ok(perms.actions.includes("archive.ingest") && perms.actions.includes("original.reveal"));
    assert.ok(!perms.actions.includes("users.manage"));

    // An upload: open the area, send a file as raw bytes, start the ingest.
    const noCsrf = await app.inject({ method: "POST", url: "/api/uploads", cookies, headers: { origin: "http://localhost" }, payload: { kind: "folder" } });
    assert.equal(noCsrf.statusCode, 403, "no CSRF token, no upload");
    const up = await app.inject({ method: "POST", url: "/api/uploads", cookies, headers: same, payload: { kind: "folder", label: "http card" } });
    assert.equal(up.statusCode, 200, up.body);
    const id = up.json<{ id: string }>().id;
    const { dir, truth } = await demoCard(1, false, "http");
    const photo = truth.photos[0]!;
    const bytes = readFileSync(join(dir, photo.path));
    const put = await app.inject({
      method: "PUT",
      url: `/api/uploads/${id}/files?path=${encodeURIComponent(photo.path)}&modified=1400000000000`,
      cookies,
      headers: { ...same, "content-type": "application/octet-stream" },
      payload: bytes,
    });
    assert.equal(put.statusCode, 200, put.body);
    assert.deepEqual(put.json(), { path: photo.path, size: bytes.length, sha256: photo.sha256 });
    const evil = await app.inject({
      method: "PUT",
      url: `/api/uploads/${id}/files?path=${encodeURIComponent("../../keys/master.key")}`,
      cookies,
      headers: { ...same, "content-type": "application/octet-stream" },
      payload: "x",
    });
    assert.equal(evil.statusCode, 422);
    const crossSite = await app.inject({
      method: "PUT",
      url: `/api/uploads/${id}/files?path=x.jpg`,
      cookies,
      headers: { origin: "http://evil.example", "x-csrf-token": s.csrf, "content-type": "application/octet-stream" },
      payload: "x",
    });
    assert.equal(crossSite.statusCode, 403, "another site cannot upload");
    const ingest = await app.inject({ method: "POST", url: `/api/uploads/${id}/ingest`, cookies, headers: same, payload: {} });
    assert.equal(ingest.statusCode, 200, ingest.body);
    const job = ingest.json<{ job: string }>().job;
    await t.ctx.jobs.work({ once: true });
    const done = (await app.inject({ url: `/api/jobs/${job}`, cookies })).json<{ status: string; result: { ingested: number } }>();
    assert.equal(done.status, "done");
    assert.equal(done.result.ingested, 1);
    // listing jobs over HTTP shows no payload: not the card's path on the server, not who queued it
    const listed = await app.inject({ url: "/api/jobs", cookies });
    for (const text of [listed.body, JSON.stringify(done)]) {
      assert.ok(!text.includes("payload") && !text.includes(t.ctx.config.dataDir) && !text.includes("/uploads/"), text.slice(0, 300));
    }

    // Renditions: the blurred one by GET; the preview only by a reveal with a reason, recorded before the bytes.
    const blurred = await app.inject({ url: `/api/originals/${photo.sha256}/renditions/blurred`, cookies });
    assert.equal(blurred.statusCode, 200);
    assert.equal(blurred.headers["content-type"], "image/jpeg");
    assert.equal(blurred.headers["cache-control"], "no-store");
    const preview = await app.inject({ url: `/api/originals/${photo.sha256}/renditions/preview`, cookies });
    assert.equal(preview.statusCode, 403);
    assert.match(preview.json<{ message: string }>().message, /reveal/);
    const noReason = await app.inject({ method: "POST", url: `/api/originals/${photo.sha256}/reveal`, cookies, headers: same, payload: { reason: "" } });
    assert.equal(noReason.statusCode, 422);
    const reveal = await app.inject({ method: "POST", url: `/api/originals/${photo.sha256}/reveal`, cookies, headers: same, payload: { reason: "check the number card" } });
    assert.equal(reveal.statusCode, 200, reveal.body);
    assert.equal(reveal.headers["content-type"], "image/jpeg");
    assert.match(reveal.headers["x-dalil-event"] as string, /^evt_/);
    const events = (await app.inject({ url: `/api/originals/${photo.sha256}/events`, cookies })).json<{ events: { type: string; detail: { reason?: string } }[] }>();
    assert.ok(events.events.some((e) => e.type === "revealed graphic image" && e.detail.reason === "check the number card"));
    // The original's bytes leave through their own route, logged as a download rather than a reveal.
    const viaReveal = await app.inject({ method: "POST", url: `/api/originals/${photo.sha256}/reveal`, cookies, headers: same, payload: { reason: "hash it", kind: "original" } });
    assert.equal(viaReveal.statusCode, 422, "a reveal shows renditions; the original is downloaded");
    const original = await app.inject({ method: "POST", url: `/api/originals/${photo.sha256}/download`, cookies, headers: same, payload: { reason: "hash it" } });
    assert.equal(original.statusCode, 200, original.body);
    assert.ok(original.rawPayload.equals(bytes));
    assert.match(original.headers["content-disposition"] as string, /^attachment; filename="[0-9a-f]{64}\.jpe?g"$/);
    const after = (await app.inject({ url: `/api/originals/${photo.sha256}/events`, cookies })).json<{ events: { id: string; type: string; detail: { reason?: string } }[] }>();
    const downloaded = after.events.filter((e) => e.type === "downloaded original");
    assert.deepEqual(downloaded.map((e) => e.id), [original.headers["x-dalil-event"]]);
    assert.equal(after.events.filter((e) => e.type === "revealed graphic image").length, 1, "the download is not counted as a reveal");

    // A curator sees blurred images but may not reveal.
    const curator = await readyUser(t.ctx, "curator");
    const cs = await fullSession(t.ctx, curator.id);
    const refused = await app.inject({
      method: "POST",
      url: `/api/originals/${photo.sha256}/reveal`,
      cookies: { dalil_session: cs.token },
      headers: { origin: "http://localhost", "x-csrf-token": cs.csrf },
      payload: { reason: "curious" },
    });
    assert.equal(refused.statusCode, 403);
    const status = (await app.inject({ url: "/api/log/status" })).json<{ checkpoint: { size: number } | null }>();
    assert.ok(status.checkpoint && status.checkpoint.size > 0, "the log's status is public");
    const ingestedBy = await t.ctx.db.db.selectFrom("sources").select("actor").execute();
    assert.deepEqual(ingestedBy.map((x) => x.actor), [archivist.id]);
  } finally {
    await app.close();
    await t.close();
  }
});
