import { test } from "node:test";
import assert from "node:assert/strict";
import { buildHttpApp } from "../../src/http/app.ts";
import { parseLeaf } from "../../src/ledger/events.ts";
import { backends } from "../support/backends.ts";
import { freshAccessArchive, fullSession, readyUser } from "../support/accounts.ts";

/**
 * The admin screen's mirror grants (POST /api/mirrors, POST /api/mirrors/revoke), in process: the token is in the
 * grant's answer only, it lets the follower in at once and stops at once when revoked, and both acts are custody
 * events that do not name the custodian.
 */
for (const { backend, skip } of await backends()) {
  test(`an admin grants a mirror on screen (token shown once) and revokes it, on ${backend.name}`, { skip, timeout: 120_000 }, async () => {
    const t = await freshAccessArchive(backend);
    const http = await buildHttpApp(t.ctx);
    try {
      const admin = await readyUser(t.ctx, "admin");
      const s = await fullSession(t.ctx, admin.id);
      const post = (url: string, payload: object) =>
        http.app.inject({ method: "POST", url, payload, headers: { origin: "http://localhost", "x-csrf-token": s.csrf }, cookies: { dalil_session: s.token } });
      const follow = (token: string) => http.app.inject({ method: "GET", url: "/mirror/objects", headers: { authorization: `Bearer ${token}` } });

      const before = await t.ctx.log.size();
      const g = await post("/api/mirrors", { name: "Museum of Memory" });
      assert.equal(g.statusCode, 200, g.body);
      const grant = g.json() as { id: string; name: string; token: string; revokedAt: string | null };
      assert.match(grant.token, /^dalilm_/);
      assert.equal(grant.name, "Museum of Memory");
      assert.equal((await follow(grant.token)).statusCode, 200);

      const list = await http.app.inject({ method: "GET", url: "/api/mirrors", cookies: { dalil_session: s.token } });
      assert.equal(list.statusCode, 200);
      assert.ok(!list.body.includes(grant.token), "the token is not shown again");
      assert.deepEqual((list.json() as { id: string }[]).map((m) => m.id), [grant.id]);

      const again = await post("/api/mirrors", { name: "Museum of Memory" });
      assert.equal(again.statusCode, 409);
      assert.equal((again.json() as { key: string }).key, "mirror.liveGrant");
      assert.equal((await post("/api/mirrors", { name: "" })).statusCode, 422);
      assert.equal((await post("/api/mirrors", { name: "x", role: "admin" })).statusCode, 422, "the contract is strict");

      const r = await post("/api/mirrors/revoke", { name: "Museum of Memory" });
      assert.equal(r.statusCode, 200, r.body);
      assert.ok((r.json() as { revokedAt: string | null }).revokedAt);
      assert.equal((await follow(grant.token)).statusCode, 401, "a revoked token stops at once");
      const twice = await post("/api/mirrors/revoke", { name: "Museum of Memory" });
      assert.equal(twice.statusCode, 404);
      assert.equal((twice.json() as { key: string }).key, "mirror.noLiveGrant");

      const events = (await t.ctx.db.db.selectFrom("custody_events").select("leaf").where("seq", ">=", before).orderBy("seq").execute()).map((x) => parseLeaf(x.leaf));
      assert.deepEqual(events.filter((e) => e.type === "replication").map((e) => e.detail.act), ["granted", "revoked"]);
      assert.ok(!JSON.stringify(events).includes("Museum"), "the custodian's name is a commitment in the log");
    } finally {
      await http.app.close();
      await t.close();
    }
  });
}
