import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { IntegrityError, Invalid } from "../../../src/core/errors.ts";
import { generateKey, loadOrCreateBlobKeys, openBlobStore, rotateMasterKey } from "../../../src/archive/blobs/index.ts";
import type { BlobKeys } from "../../../src/archive/blobs/index.ts";
import type { Backend } from "../../../src/archive/blobs/backend.ts";
import { layout } from "../../../src/archive/blobs/format.ts";
import { createBlobStore } from "../../../src/archive/blobs/store.ts";
import { fsLeg, keysUnder, s3Leg } from "../../support/blob-legs.ts";

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "dalil-keys-"));
  dirs.push(d);
  return d;
}
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("loadOrCreateBlobKeys", () => {
  test("creates two 32-byte keys in a 0700 directory, files 0600, and loads the same keys again", async () => {
    const dir = join(tempDir(), "keys");
    const keys = await loadOrCreateBlobKeys(dir, {});
    assert.equal(statSync(dir).mode & 0o777, 0o700);
    for (const f of ["master.key", "naming.key"]) {
      assert.equal(statSync(join(dir, f)).mode & 0o777, 0o600, f);
      assert.match(readFileSync(join(dir, f), "utf8"), /^[A-Za-z0-9+/]{43}=\n$/, f);
    }
    assert.equal(keys.master.key.length, 32);
    assert.equal(keys.naming.length, 32);
    assert.ok(!keys.master.key.equals(keys.naming), "two independent keys");
    assert.equal(keys.master.id, createHash("sha256").update(keys.master.key).digest().subarray(0, 8).toString("hex"));
    assert.equal(keys.keysDir, dir);
    assert.deepEqual(keys.previous, []);
    const again = await loadOrCreateBlobKeys(dir, {});
    assert.ok(again.master.key.equals(keys.master.key) && again.naming.equals(keys.naming));
    assert.deepEqual(readdirSync(dir).sort(), ["master.key", "naming.key"], "no temporary files left");
  });

  test("concurrent first starts agree on one pair of keys", async () => {
    const dir = join(tempDir(), "keys");
    const all = await Promise.all([1, 2, 3, 4, 5].map(() => loadOrCreateBlobKeys(dir, {})));
    for (const k of all) {
      assert.equal(k.master.id, all[0]?.master.id);
      assert.ok(k.naming.equals(all[0]?.naming as Buffer));
    }
  });

  test("keys from the environment win and are never written to disk", async () => {
    const dir = join(tempDir(), "keys");
    const m = generateKey();
    const n = generateKey();
    const keys = await loadOrCreateBlobKeys(dir, { DALIL_MASTER_KEY: m.toString("base64"), DALIL_NAMING_KEY: n.toString("base64") });
    assert.ok(keys.master.key.equals(m) && keys.naming.equals(n));
    assert.equal(keys.keysDir, null);
    assert.equal(existsSync(dir), false);
    await assert.rejects(loadOrCreateBlobKeys(dir, { DALIL_MASTER_KEY: "c2hvcnQ=", DALIL_NAMING_KEY: n.toString("base64") }), (e: unknown) => {
      return e instanceof Invalid && /DALIL_MASTER_KEY does not hold a key/.test(e.message) && !e.message.includes("c2hvcnQ");
    });
  });

  test("one key without the other is refused, never replaced by a new one", async () => {
    const dir = join(tempDir(), "keys");
    await loadOrCreateBlobKeys(dir, {});
    unlinkSync(join(dir, "master.key"));
    await assert.rejects(loadOrCreateBlobKeys(dir, {}), (e: unknown) => e instanceof Invalid && /master key .* is missing/.test(e.message));
    assert.equal(existsSync(join(dir, "master.key")), false);
    await assert.rejects(
      loadOrCreateBlobKeys(join(tempDir(), "empty"), { DALIL_MASTER_KEY: generateKey().toString("base64") }),
      (e: unknown) => e instanceof Invalid && /naming key/.test(e.message),
    );
  });

  test("a key file others can read is refused, like ssh does", async () => {
    const dir = join(tempDir(), "keys");
    await loadOrCreateBlobKeys(dir, {});
    chmodSync(join(dir, "naming.key"), 0o644);
    await assert.rejects(loadOrCreateBlobKeys(dir, {}), (e: unknown) => e instanceof Invalid && /chmod 600/.test(e.message));
    chmodSync(join(dir, "naming.key"), 0o600);
    writeFileSync(join(dir, "naming.key"), "not a key\n", { mode: 0o600 });
    await assert.rejects(loadOrCreateBlobKeys(dir, {}), (e: unknown) => e instanceof Invalid && /does not hold a key/.test(e.message));
  });
});

for (const leg of [fsLeg(), s3Leg()]) {
  describe(`master key rotation on ${leg.name}`, () => {
    before(() => leg.start());
    after(() => leg.stop());

    async function sidecarKeyIds(raw: Backend): Promise<string[]> {
      const ids: string[] = [];
      for (const k of await keysUnder(raw)) {
        if (!k.endsWith(".dek")) continue;
        ids.push(((await raw.readSmall(k)) as Buffer).subarray(12, 20).toString("hex"));
      }
      return ids;
    }

    async function seeded(): Promise<{ dir: string; keys: BlobKeys; location: string; data: Buffer[]; raw: Backend }> {
      const dir = join(tempDir(), "keys");
      const keys = await loadOrCreateBlobKeys(dir, {});
      const location = leg.location();
      const store = await openBlobStore(location, keys, { env: leg.env, chunkSize: 1024 });
      const data = [0, 1, 2, 3, 4, 5].map((i) => randomBytes(500 * i + 10));
      for (const d of data) await store.putBuffer(d);
      await store.close();
      return { dir, keys, location, data, raw: await leg.raw(location) };
    }

    async function readsAll(location: string, keys: BlobKeys, data: Buffer[]): Promise<void> {
      const store = await openBlobStore(location, keys, { env: leg.env });
      try {
        for (const d of data) {
          const sha = createHash("sha256").update(d).digest("hex");
          assert.deepEqual(await store.verify(sha), { ok: true, size: d.length });
        }
      } finally {
        await store.close();
      }
    }

    test("rewraps every sidecar and leaves every blob object byte for byte as it was", async () => {
      const { dir, keys, location, data, raw } = await seeded();
      const blobKeys = (await keysUnder(raw)).filter((k) => !k.endsWith(".dek"));
      const before = await Promise.all(blobKeys.map((k) => raw.readSmall(k)));
      const store = await openBlobStore(location, keys, { env: leg.env });
      const newKey = generateKey();
      const { keys: rotated, report } = await rotateMasterKey(store, keys, newKey);
      assert.deepEqual(report, { sidecars: 6, rewrapped: 6, alreadyCurrent: 0, failed: [] });
      assert.ok(rotated.master.key.equals(newKey));
      const after = await Promise.all(blobKeys.map((k) => raw.readSmall(k)));
      after.forEach((b, i) => assert.ok(b?.equals(before[i] as Buffer), `blob ${blobKeys[i]} untouched`));
      assert.deepEqual(await sidecarKeyIds(raw), Array(6).fill(rotated.master.id));
      // The store that rotated keeps working and writes with the new key.
      const extra = randomBytes(100);
      await store.putBuffer(extra);
      assert.deepEqual(new Set(await sidecarKeyIds(raw)), new Set([rotated.master.id]));
      await store.close();

      const reloaded = await loadOrCreateBlobKeys(dir, {});
      assert.equal(reloaded.master.id, rotated.master.id);
      assert.deepEqual(reloaded.previous, []);
      assert.deepEqual(readdirSync(dir).sort(), ["master.key", "naming.key"], "the old key file is gone");
      await readsAll(location, reloaded, [...data, extra]);
      // The old key alone opens nothing any more.
      const old = await openBlobStore(location, keys, { env: leg.env });
      await assert.rejects(old.read(createHash("sha256").update(data[1] as Buffer).digest("hex")), (e: unknown) => {
        return e instanceof IntegrityError && e.message.includes(rotated.master.id);
      });
      await old.close();
      // Running it again is a no-op.
      const again = await openBlobStore(location, reloaded, { env: leg.env });
      const second = await rotateMasterKey(again, reloaded, reloaded.master.key);
      assert.deepEqual(second.report, { sidecars: 7, rewrapped: 0, alreadyCurrent: 7, failed: [] });
      await again.close();
      await raw.close();
    });

    test("an interrupted rotation leaves every blob readable and can be finished, even with another new key", async () => {
      const { dir, keys, location, data, raw } = await seeded();
      // A back-end that dies on the third sidecar write, like a crash half-way through.
      const inner = await leg.raw(location);
      let writes = 0;
      const dying: Backend = Object.create(inner) as Backend;
      dying.writeSmall = async (key, bytes, mode) => {
        if (key.endsWith(".dek") && ++writes >= 3) throw new Error("power cut");
        return inner.writeSmall(key, bytes, mode);
      };
      const store = await createBlobStore(dying, keys);
      const firstNew = generateKey();
      await assert.rejects(rotateMasterKey(store, keys, firstNew), (e: unknown) => e instanceof IntegrityError && /run the rotation again/.test(e.message));
      await store.close();

      const mid = await loadOrCreateBlobKeys(dir, {});
      assert.ok(mid.master.key.equals(firstNew), "the new key was saved before any sidecar used it");
      assert.deepEqual(mid.previous.map((k) => k.id), [keys.master.id], "the old key is kept until the end");
      const ids = await sidecarKeyIds(raw);
      assert.ok(ids.includes(keys.master.id) && ids.includes(mid.master.id), "half rotated");
      await readsAll(location, mid, data);

      const resumed = await openBlobStore(location, mid, { env: leg.env });
      const secondNew = generateKey();
      const { keys: done, report } = await rotateMasterKey(resumed, mid, secondNew);
      assert.equal(report.failed.length, 0);
      assert.equal(report.sidecars, 6);
      await resumed.close();
      assert.deepEqual(await sidecarKeyIds(raw), Array(6).fill(done.master.id));
      const final = await loadOrCreateBlobKeys(dir, {});
      assert.equal(final.master.id, done.master.id);
      assert.deepEqual(final.previous, []);
      await readsAll(location, final, data);
      await raw.close();
    });

    test("with keys from the environment, the new key must be put there first", async () => {
      const m = generateKey();
      const n = generateKey();
      const env = { DALIL_MASTER_KEY: m.toString("base64"), DALIL_NAMING_KEY: n.toString("base64") };
      const keys = await loadOrCreateBlobKeys(join(tempDir(), "unused"), env);
      const location = leg.location();
      const store = await openBlobStore(location, keys, { env: leg.env });
      const d = randomBytes(3000);
      await store.putBuffer(d);
      await assert.rejects(rotateMasterKey(store, keys, generateKey()), (e: unknown) => e instanceof Invalid && /DALIL_MASTER_KEY_PREVIOUS/.test(e.message));
      await store.close();

      const next = generateKey();
      const during = await loadOrCreateBlobKeys(join(tempDir(), "unused"), {
        ...env,
        DALIL_MASTER_KEY: next.toString("base64"),
        DALIL_MASTER_KEY_PREVIOUS: m.toString("base64"),
      });
      assert.deepEqual(during.previous.map((k) => k.id), [keys.master.id]);
      const s2 = await openBlobStore(location, during, { env: leg.env });
      const { report } = await rotateMasterKey(s2, during, next);
      assert.equal(report.rewrapped, 1);
      await s2.close();
      await readsAll(location, { ...during, previous: [] }, [d]);
      const raw = await leg.raw(location);
      const sidecar = (await keysUnder(raw)).find((k) => k.endsWith(".dek")) as string;
      assert.ok(layout.parse(sidecar)?.fileId);
      await raw.close();
    });
  });
}
