import { test } from "node:test";
import assert from "node:assert/strict";
import type { FastifyRequest } from "fastify";
import { ROLES, operatorActor, type Actor, type Role } from "../../src/core/actor.ts";
import { ingestCard } from "../../src/archive/intake.ts";
import { anonymousActor } from "../../src/access/policy.ts";
import { buildHttpApp, type HttpApp } from "../../src/http/app.ts";
import { decodeEntryBundle } from "../../src/ledger/tiles.ts";
import { backends } from "../support/backends.ts";
import { demoCard, freshArchive } from "../support/archive.ts";

/**
 * The attack: someone with no account asks the archive "do you hold this photograph?" (or this source, this
 * record) and reads the answer from a status code, a header, an error sentence or a proof. Every route is asked
 * about a SHA-256 and an id the archive holds and about ones it does not; the two answers must be the same
 * bytes. Then the log's entries and inclusion proofs: refused to an anonymous caller and to every role without
 * `log.entries`, given to those with it; hash tiles and consistency proofs to anyone.
 */
const CUSTODIANS: Role[] = ["admin", "archivist"];

for (const { backend, skip } of await backends()) {
  test(`an anonymous visitor cannot tell a held photograph or record from one never received, on any route, on ${backend.name}`, { skip, timeout: 240_000 }, async () => {
    const { archive, close } = await freshArchive(backend);
    const http = await buildHttpApp(archive);
    try {
      const { dir } = await demoCard(1, true, "oracle");
      const s = await ingestCard(archive, operatorActor(), { path: dir, label: "card from the oracle test" });
      await archive.tree.checkpoint();
      const held = (await archive.db.db.selectFrom("originals").select("sha256").where("status", "=", "preserved").executeTakeFirstOrThrow()).sha256;
      const unheld = flipHex(held);
      assert.equal(await archive.db.db.selectFrom("originals").select("sha256").where("sha256", "=", unheld).executeTakeFirst(), undefined);
      const heldId = s.source;
      const unheldId = `${heldId.slice(0, -4)}${heldId.slice(-4) === "zzzz" ? "yyyy" : "zzzz"}`;

      const fill = (url: string, sha: string, id: string): string =>
        url.replace(/:sha256/g, sha).replace(/:kind/g, "blurred").replace(/:[A-Za-z]+/g, id).replace(/\*$/, `photo/${sha}`);
      const differ: string[] = [];
      let asked = 0;
      // An answer may echo what was asked ("there is no tile at …"): the asked value is blanked before comparing.
      const blank = (text: string): string => text.split(held).join("<sha>").split(unheld).join("<sha>").split(heldId).join("<id>").split(unheldId).join("<id>");
      const ask = async (method: string, url: string): Promise<Answer> => {
        const a = await answer(http, method, url);
        return { ...a, body: blank(a.body), headers: JSON.parse(blank(JSON.stringify(a.headers))) as Record<string, unknown> };
      };
      for (const route of http.routes) {
        const urls = route.url.includes(":") || route.url.endsWith("*")
          ? [[fill(route.url, held, heldId), fill(route.url, unheld, unheldId)]]
          : [[`${route.url}?sha256=${held}&id=${heldId}&q=${held}`, `${route.url}?sha256=${unheld}&id=${unheldId}&q=${unheld}`]];
        for (const [a, b] of urls) {
          const [x, y] = [await ask(route.method, a!), await ask(route.method, b!)];
          asked++;
          const same = x.status === y.status && x.body === y.body && JSON.stringify(x.headers) === JSON.stringify(y.headers);
          if (!same) differ.push(`${route.method} ${route.url}: held → ${x.status} ${x.body.slice(0, 120)} | not held → ${y.status} ${y.body.slice(0, 120)}`);
        }
      }
      // The web app's own pages for a photograph, and the log's paths by hand.
      for (const [a, b] of [
        [`/photo/${held}`, `/photo/${unheld}`],
        [`/log/proof/${held}`, `/log/proof/${unheld}`],
        [`/log/tile/entries/000.p/1?sha256=${held}`, `/log/tile/entries/000.p/1?sha256=${unheld}`],
      ] as const) {
        const [x, y] = [await ask("GET", a), await ask("GET", b)];
        asked++;
        if (x.status !== y.status || x.body !== y.body || JSON.stringify(x.headers) !== JSON.stringify(y.headers)) differ.push(`GET ${a} and ${b} differ: ${x.status} / ${y.status}`);
      }
      assert.ok(asked > 100, `every route was asked (${asked})`);
      assert.deepEqual(differ, [], "answers that tell held from not held");

      // The proof route itself: the same 401, and the body never names the hash.
      const refused = await ask("GET", `/log/proof/${held}`);
      assert.equal(refused.status, 401);
      assert.ok(!refused.body.includes(held));
    } finally {
      await http.app.close();
      await close();
    }
  });

  test(`entry bundles and inclusion proofs go only to roles allowed log.entries; hash tiles and consistency to anyone, on ${backend.name}`, { skip, timeout: 240_000 }, async () => {
    const { archive, close } = await freshArchive(backend);
    // The actor comes from a test header: this test is about the policy's answer per role, not about signing in.
    const http = await buildHttpApp(archive, { actorFor: (req: FastifyRequest) => actorOf(req.headers["x-test-role"]) });
    try {
      const { dir } = await demoCard(1, true, "oracle");
      await ingestCard(archive, operatorActor(), { path: dir, label: "card" });
      const first = await archive.tree.checkpoint();
      await ingestCard(archive, operatorActor(), { path: dir, label: "the same card again" });
      const cp = await archive.tree.checkpoint();
      const held = (await archive.db.db.selectFrom("originals").select("sha256").where("status", "=", "preserved").executeTakeFirstOrThrow()).sha256;
      const width = cp.size % 256;
      assert.ok(cp.size < 256 && width > 0, "one partial tile");
      const get = async (who: Role | "anonymous", url: string) => {
        const r = await http.app.inject({ method: "GET", url, headers: who === "anonymous" ? {} : { "x-test-role": who } });
        return { status: r.statusCode, body: r.body, raw: r.rawPayload };
      };
      for (const who of ["anonymous", ...ROLES] as const) {
        const allowed = CUSTODIANS.includes(who as Role);
        const refusal = who === "anonymous" ? 401 : 403;
        const proof = await get(who, `/log/proof/${held}`);
        assert.equal(proof.status, allowed ? 200 : refusal, `proof as ${who}: ${proof.body.slice(0, 200)}`);
        if (allowed) assert.ok((JSON.parse(proof.body) as { leaf: string }).leaf.includes(held), "the proof's leaf names the original");
        const bundle = await get(who, `/log/tile/entries/000.p/${width}`);
        assert.equal(bundle.status, allowed ? 200 : refusal, `entry bundle as ${who}`);
        if (allowed) assert.equal(decodeEntryBundle(bundle.raw).length, width);
        // Anyone: hashes only. A hash tile never holds an event's bytes.
        const tile = await get(who, `/log/tile/0/000.p/${width}`);
        assert.equal(tile.status, 200, `hash tile as ${who}`);
        assert.equal(tile.raw.length, 32 * width);
        assert.ok(!tile.raw.includes(Buffer.from(held)), "no SHA-256 of an original in a hash tile");
        assert.equal((await get(who, `/log/consistency?from=${first.size}&to=${cp.size}`)).status, 200, `consistency as ${who}`);
        assert.equal((await get(who, "/log/checkpoint")).status, 200);
        // An entries path asked of the hash-tile route is a tile that does not exist, for everyone.
        assert.equal((await get(who, "/log/tile/entries")).status, 404);
      }
    } finally {
      await http.app.close();
      await close();
    }
  });
}

interface Answer {
  status: number;
  body: string;
  headers: Record<string, unknown>;
}

/** Status, body and every header but the date (which differs between any two requests). */
async function answer(http: HttpApp, method: string, url: string): Promise<Answer> {
  const r = await http.app.inject({
    method: method as "GET",
    url,
    remoteAddress: "10.9.9.9",
    ...(method === "GET" ? {} : { headers: { origin: "http://localhost" }, payload: {} }),
  });
  const { date: _date, ...headers } = r.headers;
  return { status: r.statusCode, body: r.body, headers };
}

function flipHex(h: string): string {
  return `${h.slice(0, -1)}${h.endsWith("0") ? "1" : "0"}`;
}

function actorOf(role: string | string[] | undefined): Actor {
  if (typeof role !== "string" || !(ROLES as readonly string[]).includes(role)) return anonymousActor;
  return { kind: "user", id: `usr_${role}`, role: role as Role };
}
