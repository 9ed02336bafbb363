import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { operatorActor } from "../../src/core/actor.ts";
import { Forbidden } from "../../src/core/errors.ts";
import { rotateMasterKey } from "../../src/archive/index.ts";
import { backends } from "../support/backends.ts";
import { freshAccessArchive, readyUser } from "../support/accounts.ts";

for (const { backend, skip } of await backends()) {
  test(`rotating the master key rewraps data keys, keeps every blob readable, and is a custody event, on ${backend.name}`, { skip }, async () => {
    const t = await freshAccessArchive(backend);
    try {
      const bytes = Buffer.from("not a photograph, a test blob");
      const put = await t.ctx.blobs.putBuffer(bytes);
      const before = readFileSync(join(t.dataDir, "keys", "master.key"), "utf8").trim();
      await assert.rejects(rotateMasterKey(t.ctx, (await readyUser(t.ctx, "archivist")).actor), Forbidden);
      const r = await rotateMasterKey(t.ctx, operatorActor());
      assert.notEqual(r.from, r.to);
      assert.equal(r.rewrapped, 1);
      const after = readFileSync(join(t.dataDir, "keys", "master.key"), "utf8").trim();
      assert.notEqual(after, before);
      assert.deepEqual(await t.ctx.blobs.read(put.sha256), bytes);
      const leaves = (await t.ctx.db.db.selectFrom("custody_events").select("leaf").where("type", "=", "key rotation").execute()).map((x) => x.leaf.toString());
      assert.equal(leaves.length, 1);
      assert.match(leaves[0]!, new RegExp(`"from":"${r.from}"`));
      assert.ok(!leaves[0]!.includes(before) && !leaves[0]!.includes(after), "no key in the event");
    } finally {
      await t.close();
    }
  });
}
