import { test } from "node:test";
import assert from "node:assert/strict";
import { request, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { buildHttpApp, type HttpApp } from "../../src/http/app.ts";
import { backends } from "../support/backends.ts";
import { freshAccessArchive, fullSession, readyUser } from "../support/accounts.ts";

/**
 * A caller who may not make a request is answered from its request line and headers: the body is never read,
 * so it costs the server neither memory nor time. These tests go over a real socket (inject would hand the
 * whole payload over at once) and stream the body from a generator.
 */
const MiB = 1024 * 1024;

let ORIGIN = "";

/** Listens on a free port; ORIGIN becomes the server's own origin (the one a browser on its pages sends). */
async function listen(http: HttpApp): Promise<number> {
  await http.app.listen({ host: "127.0.0.1", port: 0 });
  const port = (http.app.server.address() as AddressInfo).port;
  ORIGIN = `http://127.0.0.1:${port}`;
  return port;
}

/** A JSON document of `total` bytes, one MiB at a time, without ever holding more than one chunk. */
function* hugeJson(total: number): Generator<Buffer> {
  const head = Buffer.from('{"label":"');
  const tail = Buffer.from('"}');
  const chunk = Buffer.alloc(MiB, "x");
  yield head;
  let left = total - head.length - tail.length;
  while (left > 0) {
    const n = Math.min(left, chunk.length);
    yield n === chunk.length ? chunk : chunk.subarray(0, n);
    left -= n;
  }
  yield tail;
}

interface Streamed {
  status: number;
  body: string;
  /** Bytes of the body written when the answer arrived. */
  sentAtAnswer: number;
  total: number;
  /** Largest growth of this process's RSS and heap while the request ran. */
  rssGrowth: number;
  heapGrowth: number;
}

async function streamBody(port: number, method: string, path: string, headers: Record<string, string>, total: number): Promise<Streamed> {
  const before = process.memoryUsage();
  let peakRss = before.rss;
  let peakHeap = before.heapUsed;
  const sample = setInterval(() => {
    const m = process.memoryUsage();
    peakRss = Math.max(peakRss, m.rss);
    peakHeap = Math.max(peakHeap, m.heapUsed);
  }, 5);
  let sent = 0;
  let answered: IncomingMessage | undefined;
  let sentAtAnswer = -1;
  try {
    const req = request({ host: "127.0.0.1", port, method, path, headers: { ...headers, "content-length": String(total) } });
    req.on("error", () => {}); // the server closes the connection once it has answered: writes after that fail
    const response = new Promise<IncomingMessage>((resolve) =>
      req.once("response", (res) => {
        sentAtAnswer = sent;
        answered = res;
        resolve(res);
      }),
    );
    for (const chunk of hugeJson(total)) {
      if (answered || req.destroyed) break;
      sent += chunk.length;
      if (!req.write(chunk)) await Promise.race([new Promise((r) => req.once("drain", r)), response, new Promise((r) => req.once("close", r))]);
    }
    const res = await response;
    const parts: Buffer[] = [];
    for await (const c of res) parts.push(c as Buffer);
    req.destroy();
    return { status: res.statusCode ?? 0, body: Buffer.concat(parts).toString("utf8"), sentAtAnswer, total, rssGrowth: peakRss - before.rss, heapGrowth: peakHeap - before.heapUsed };
  } finally {
    clearInterval(sample);
  }
}

/** Sends the headers of a request with a body, and none of the body: the answer must come without it. */
async function headersOnly(port: number, method: string, path: string, headers: Record<string, string>, waitMs = 3000): Promise<{ status: number; body: string } | "no answer"> {
  return new Promise((resolve) => {
    const req = request({ host: "127.0.0.1", port, method, path, headers: { "content-length": "1000", ...headers } });
    req.on("error", () => {});
    const timer = setTimeout(() => {
      req.destroy();
      resolve("no answer");
    }, waitMs);
    req.once("response", (res) => {
      const parts: Buffer[] = [];
      res.on("data", (c: Buffer) => parts.push(c));
      res.on("end", () => {
        clearTimeout(timer);
        req.destroy();
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(parts).toString("utf8") });
      });
      res.on("error", () => {});
    });
    req.flushHeaders();
  });
}

for (const { backend, skip } of await backends()) {
  test(`an anonymous 600 MB JSON upload is refused before its body is read, with memory flat, on ${backend.name}`, { skip, timeout: 120_000 }, async (tc) => {
    const t = await freshAccessArchive(backend);
    const http = await buildHttpApp(t.ctx);
    try {
      const port = await listen(http);
      const total = 600 * 1000 * 1000;
      const r = await streamBody(port, "PUT", "/api/uploads/upl_anything/files?path=a.jpg", { "content-type": "application/json", origin: ORIGIN }, total);
      tc.diagnostic(`answered after ${(r.sentAtAnswer / MiB).toFixed(2)} MiB sent; RSS +${(r.rssGrowth / MiB).toFixed(1)} MiB, heap +${(r.heapGrowth / MiB).toFixed(1)} MiB`);
      assert.equal(r.status, 401, r.body);
      assert.match(JSON.parse(r.body).message, /Sign in first/);
      assert.ok(r.sentAtAnswer >= 0 && r.sentAtAnswer < 64 * MiB, `answered after ${(r.sentAtAnswer / MiB).toFixed(1)} MiB of ${(total / MiB).toFixed(0)} MiB were sent`);
      assert.ok(r.rssGrowth < 96 * MiB, `RSS grew by ${(r.rssGrowth / MiB).toFixed(1)} MiB`);
      assert.ok(r.heapGrowth < 48 * MiB, `heap grew by ${(r.heapGrowth / MiB).toFixed(1)} MiB`);
    } finally {
      await http.app.close();
      await t.close();
    }
  });

  test(`a signed-in archivist's JSON body to the upload route is refused (415) before it is read, on ${backend.name}`, { skip, timeout: 60_000 }, async () => {
    const t = await freshAccessArchive(backend);
    const http = await buildHttpApp(t.ctx);
    try {
      const port = await listen(http);
      const u = await readyUser(t.ctx, "archivist");
      const s = await fullSession(t.ctx, u.id);
      const headers = { "content-type": "application/json", origin: ORIGIN, "x-csrf-token": s.csrf, cookie: `dalil_session=${s.token}` };
      const r = await headersOnly(port, "PUT", "/api/uploads/upl_anything/files?path=a.jpg", headers);
      assert.notEqual(r, "no answer", "the server waited for the body");
      if (r === "no answer") return;
      assert.equal(r.status, 415, r.body);
      assert.match(JSON.parse(r.body).message, /application\/octet-stream/);
      // And a JSON route does not take raw bytes (the octet-stream parser is for the upload route only).
      const raw = await headersOnly(port, "POST", "/api/tokens", { ...headers, "content-type": "application/octet-stream" });
      assert.ok(raw !== "no answer" && raw.status === 415, JSON.stringify(raw));
      // The API document says so.
      const doc = (await http.app.inject({ url: "/api/openapi.json" })).json();
      const put = doc.paths["/api/uploads/{id}/files"].put;
      assert.deepEqual(Object.keys(put.requestBody.content), ["application/octet-stream"]);
      assert.ok(put.responses["415"] && put["x-dalil-body-limit"] > 1024 ** 3);
      // A declared length over the route's limit is refused from the header.
      const big = await headersOnly(port, "POST", "/api/auth/login", { "content-type": "application/json", origin: ORIGIN, "content-length": String(64 * MiB) });
      assert.ok(big !== "no answer" && big.status === 413, JSON.stringify(big));
    } finally {
      await http.app.close();
      await t.close();
    }
  });

  test(`every route an anonymous caller or the public role may not use answers before the body, and a body to no route is not read, on ${backend.name}`, { skip, timeout: 120_000 }, async () => {
    const t = await freshAccessArchive(backend);
    const http = await buildHttpApp(t.ctx);
    try {
      const port = await listen(http);
      const failures: string[] = [];
      const guarded = http.routes.filter((r) => r.method !== "GET" && (r.action !== "public" || r.needsSession));
      assert.ok(guarded.length > 40, `only ${guarded.length} routes with a body to check`);
      for (const route of guarded) {
        const path = route.url.replace(/:[A-Za-z]+/g, "x").replace("*", "x");
        const r = await headersOnly(port, route.method, path, { "content-type": route.raw ? "application/octet-stream" : "application/json", origin: ORIGIN });
        if (r === "no answer") failures.push(`${route.method} ${route.url}: waited for the body`);
        else if (r.status !== 401) failures.push(`${route.method} ${route.url}: ${r.status} ${r.body.slice(0, 120)}`);
      }
      // And a signed-in person of the public role, at every route that role may not use.
      const visitor = await readyUser(t.ctx, "public");
      const s = await fullSession(t.ctx, visitor.id);
      const denied = http.routes.filter((r) => r.method !== "GET" && r.action !== "public" && !t.ctx.policy.mayAttempt(visitor.actor, r.action));
      assert.ok(denied.length > 40, `only ${denied.length} routes refused to the public role`);
      for (const route of denied) {
        const path = route.url.replace(/:[A-Za-z]+/g, "x").replace("*", "x");
        const headers = { "content-type": route.raw ? "application/octet-stream" : "application/json", origin: ORIGIN, "x-csrf-token": s.csrf, cookie: `dalil_session=${s.token}` };
        const r = await headersOnly(port, route.method, path, headers);
        if (r === "no answer") failures.push(`${route.method} ${route.url} as public: waited for the body`);
        else if (r.status !== 403) failures.push(`${route.method} ${route.url} as public: ${r.status} ${r.body.slice(0, 120)}`);
      }
      const nowhere = await headersOnly(port, "POST", "/api/no-such-route", { "content-type": "application/json", origin: ORIGIN });
      if (nowhere === "no answer" || nowhere.status !== 404) failures.push(`POST to no route: ${JSON.stringify(nowhere)}`);
      assert.deepEqual(failures, []);
    } finally {
      await http.app.close();
      await t.close();
    }
  });
}
