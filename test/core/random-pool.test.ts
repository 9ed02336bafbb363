import { test } from "node:test";
import assert from "node:assert/strict";
import { pooledRandomBytes, pooledRandomHex } from "../../src/core/random-pool.ts";
import { newId } from "../../src/core/ids.ts";

/** Random bytes cut from a pool (ids, salts): no byte is handed out twice, and no slice changes after it is given. */
test("pooled random bytes are never handed out twice and never change", () => {
  const seen = new Set<string>();
  const kept: { slice: Buffer; copy: string }[] = [];
  // more than several pools' worth, in sizes that do not divide the pool evenly
  for (let i = 0; i < 3000; i++) {
    const b = pooledRandomBytes(1 + (i % 37));
    const hex = pooledRandomHex(32);
    assert.equal(hex.length, 64);
    for (const v of [b.toString("hex"), hex]) {
      if (v.length >= 16) {
        assert.ok(!seen.has(v), "a random value came out twice");
        seen.add(v);
      }
    }
    if (i % 100 === 0) kept.push({ slice: b, copy: b.toString("hex") });
  }
  for (const k of kept) assert.equal(k.slice.toString("hex"), k.copy, "a slice handed out earlier changed");
  const ids = new Set(Array.from({ length: 10_000 }, () => newId("evt")));
  assert.equal(ids.size, 10_000);
  assert.match([...ids][0]!, /^evt_[a-z2-7]{26}$/);
});
