import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createHash, createHmac, randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServer } from "node:http";
import { Readable } from "node:stream";
import { pathToFileURL } from "node:url";
import { Forbidden, IntegrityError, Invalid, NotFound, TooLarge, Unavailable } from "../../../src/core/errors.ts";
import { openBlobStore } from "../../../src/archive/blobs/index.ts";
import type { BlobStore } from "../../../src/archive/blobs/index.ts";
import { HEADER_LENGTH, TAG_LENGTH, encodeHeader, layout, sealSidecar } from "../../../src/archive/blobs/format.ts";
import { generateKey, masterKey } from "../../../src/archive/blobs/keys.ts";
import type { Backend } from "../../../src/archive/blobs/backend.ts";
import { collect, fsLeg, keysUnder, s3Leg, tempsOf, testKeys } from "../../support/blob-legs.ts";

const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");
const scratch = mkdtempSync(join(tmpdir(), "dalil-decrypt-"));
process.on("exit", () => rmSync(scratch, { recursive: true, force: true }));
let tamperedCount = 0;
/** Small chunks so that a few kilobytes span many of them. */
const C = 1024;

for (const leg of [fsLeg(), s3Leg()]) {
  describe(`blob store on ${leg.name}`, () => {
    before(() => leg.start());
    after(() => leg.stop());

    async function fresh(chunkSize = C): Promise<{ store: BlobStore; raw: Backend; keys: ReturnType<typeof testKeys>; location: string }> {
      const location = leg.location();
      const keys = testKeys();
      const store = await openBlobStore(location, keys, { env: leg.env, chunkSize });
      const raw = await leg.raw(location);
      return { store, raw, keys, location };
    }

    async function done(...xs: { close(): Promise<void> }[]): Promise<void> {
      for (const x of xs) await x.close();
    }

    test("round-trips blobs of every size around chunk boundaries", async () => {
      const { store, raw } = await fresh();
      for (const n of [0, 1, C - 1, C, C + 1, 2 * C, 3 * C - 1, 5000, 64 * 1024 + 7]) {
        const data = randomBytes(n);
        const r = await store.putBuffer(data);
        assert.deepEqual(r, { sha256: sha(data), size: n, created: true }, `size ${n}`);
        assert.ok(await store.has(r.sha256));
        assert.deepEqual(await store.stat(r.sha256), { size: n });
        assert.ok((await store.read(r.sha256)).equals(data), `read back size ${n}`);
        assert.ok((await collect(await store.get(r.sha256))).equals(data), `get size ${n}`);
        assert.deepEqual(await store.verify(r.sha256), { ok: true, size: n });
        // Decrypted into a plain file (on a worker thread on the filesystem), hashed as written.
        const target = join(scratch, `out-${leg.name}-${n}`);
        assert.deepEqual(await store.decryptToFile(r.sha256, target), { size: n, sha256: sha(data), sha512: createHash("sha512").update(data).digest("hex") });
        assert.ok(readFileSync(target).equals(data), `decryptToFile size ${n}`);
        await assert.rejects(store.decryptToFile(r.sha256, target), /EEXIST/, "an existing file is never overwritten");
        const stored = await raw.size(layout.blob(store.nameOf(r.sha256)));
        assert.equal(stored, HEADER_LENGTH + n + Math.max(1, Math.ceil(n / C)) * TAG_LENGTH);
      }
      assert.deepEqual(await tempsOf(raw), [], "no temporaries left behind");
      await done(store, raw);
    });

    test("the default 64 KiB chunking streams a multi-chunk blob through putStream", async () => {
      const { store } = await fresh(65536);
      const data = randomBytes(1024 * 1024 + 321);
      const pieces = [data.subarray(0, 1), data.subarray(1, 70000), data.subarray(70000)];
      const r = await store.putStream(Readable.from(pieces));
      assert.equal(r.sha256, sha(data));
      assert.equal(r.size, data.length);
      assert.ok((await store.read(r.sha256)).equals(data));
      const part = await collect(await store.get(r.sha256, { start: 65530, end: 200_000 }));
      assert.ok(part.equals(data.subarray(65530, 200_001)));
      await done(store);
    });

    test("putting the same bytes again is a no-op that reports created: false", async () => {
      const { store, raw } = await fresh();
      const data = randomBytes(5000);
      const first = await store.putBuffer(data);
      const key = layout.blob(store.nameOf(first.sha256));
      const before = await raw.readSmall(key);
      const objectsBefore = await keysUnder(raw);
      assert.deepEqual(await store.putBuffer(data), { ...first, created: false });
      assert.deepEqual(await store.putStream(Readable.from([data])), { ...first, created: false });
      assert.deepEqual(await store.putStream(Readable.from([data]), { expectedSha256: first.sha256 }), { ...first, created: false });
      assert.ok((await raw.readSmall(key))?.equals(before as Buffer), "the stored object is untouched");
      assert.deepEqual(await keysUnder(raw), objectsBefore, "no new objects or sidecars");
      assert.deepEqual(await tempsOf(raw), []);
      await done(store, raw);
    });

    test("concurrent puts of the same bytes leave one blob that opens", async () => {
      const { store, raw } = await fresh();
      const data = randomBytes(20_000);
      const results = await Promise.all([1, 2, 3, 4].map(() => store.putStream(Readable.from([data.subarray(0, 9000), data.subarray(9000)]))));
      assert.ok(results.some((r) => r.created));
      if (leg.name === "filesystem") assert.equal(results.filter((r) => r.created).length, 1, "link(2) lets exactly one commit");
      const names: string[] = [];
      for await (const n of store.listNames()) names.push(n);
      assert.deepEqual(names, [store.nameOf(sha(data))]);
      assert.ok((await store.read(sha(data))).equals(data));
      await store.cleanupTemp({ olderThanMs: 0 });
      const sidecars = (await keysUnder(raw)).filter((k) => k.endsWith(".dek"));
      assert.equal(sidecars.length, 1, "losers' sidecars are cleaned up, the winner's kept");
      assert.deepEqual(await store.verify(sha(data)), { ok: true, size: data.length });
      await done(store, raw);
    });

    test("object names are keyed HMACs of the hash, fanned out, and never reveal the hash", async () => {
      const { store, raw, keys } = await fresh();
      const data = Buffer.from("a known photo");
      const { sha256 } = await store.putBuffer(data);
      const expected = createHmac("sha256", keys.naming).update(Buffer.from(sha256, "hex")).digest("hex");
      assert.equal(store.nameOf(sha256), expected);
      assert.equal(store.nameOf(sha256.toUpperCase()), expected);
      const all = await keysUnder(raw);
      assert.ok(all.includes(`objects/${expected.slice(0, 2)}/${expected.slice(2, 4)}/${expected}`));
      assert.ok(all.every((k) => !k.includes(sha256)), "no key contains the SHA-256");
      const other = await openBlobStore(leg.location(), testKeys(), { env: leg.env });
      assert.notEqual(other.nameOf(sha256), expected, "another naming key gives another name");
      assert.throws(() => store.nameOf("abc"), Invalid);
      await done(store, raw, other);
    });

    test("a store refuses a naming key it was not created with", async () => {
      const { store, keys, location } = await fresh();
      await store.close();
      const again = await openBlobStore(location, keys, { env: leg.env });
      await again.close();
      await assert.rejects(openBlobStore(location, { ...keys, naming: generateKey() }, { env: leg.env }), (e: unknown) => {
        return e instanceof IntegrityError && /different naming key/.test(e.message);
      });
    });

    test("byte ranges return exactly the requested bytes", async () => {
      const { store } = await fresh();
      const data = randomBytes(10 * C + 333);
      const { sha256 } = await store.putBuffer(data);
      const ranges: [number, number][] = [
        [0, 0],
        [0, data.length - 1],
        [data.length - 1, data.length - 1],
        [C - 1, C],
        [C, C],
        [C, 2 * C - 1],
        [3 * C - 5, 7 * C + 5],
        [10 * C, data.length - 1],
      ];
      for (let i = 0; i < 40; i++) {
        const a = Math.floor(Math.random() * data.length);
        ranges.push([a, a + Math.floor(Math.random() * (data.length - a))]);
      }
      for (const [start, end] of ranges) {
        const got = await collect(await store.get(sha256, { start, end }));
        assert.ok(got.equals(data.subarray(start, end + 1)), `range ${start}-${end}`);
      }
      await done(store);
    });

    test("bad ranges are Invalid with a sentence, a missing blob is NotFound", async () => {
      const { store } = await fresh();
      const { sha256 } = await store.putBuffer(randomBytes(100));
      const empty = await store.putBuffer(Buffer.alloc(0));
      const invalid = (re: RegExp) => (e: unknown) => e instanceof Invalid && re.test(e.message);
      await assert.rejects(store.get(sha256, { start: 10, end: 5 }), invalid(/start \(10\) is after its end \(5\)/));
      await assert.rejects(store.get(sha256, { start: 50, end: 100 }), invalid(/beyond this blob, which is 100 bytes long/));
      await assert.rejects(store.get(sha256, { start: -1, end: 5 }), invalid(/non-negative/));
      await assert.rejects(store.get(sha256, { start: 0.5, end: 5 }), invalid(/whole/));
      await assert.rejects(store.get(empty.sha256, { start: 0, end: 0 }), invalid(/0 bytes long/));
      assert.ok((await store.read(empty.sha256)).equals(Buffer.alloc(0)));

      const missing = sha(Buffer.from("never stored"));
      await assert.rejects(store.get(missing), NotFound);
      await assert.rejects(store.read(missing), NotFound);
      assert.equal(await store.stat(missing), null);
      assert.equal(await store.has(missing), false);
      const v = await store.verify(missing);
      assert.equal(v.ok, false);
      assert.match(v.ok ? "" : v.problem, /missing/);
      await assert.rejects(store.get("not-a-hash"), Invalid);
      await done(store);
    });

    test("a failing stream, a size over maxBytes or a wrong expected hash commit nothing", async () => {
      const { store, raw } = await fresh();
      const data = randomBytes(3000);
      const failing = new Readable({
        read() {
          this.push(data.subarray(0, 2500));
          this.destroy(new Error("card reader unplugged"));
        },
      });
      await assert.rejects(store.putStream(failing), /card reader unplugged/);
      await assert.rejects(store.putStream(Readable.from([data]), { maxBytes: 2999 }), (e: unknown) => {
        return e instanceof TooLarge && /2999-byte limit/.test(e.message);
      });
      await assert.rejects(store.putBuffer(data, { maxBytes: 10 }), TooLarge);
      await assert.rejects(store.putStream(Readable.from([data]), { expectedSha256: sha(Buffer.from("other")) }), (e: unknown) => {
        return e instanceof Invalid && /nothing was stored/.test(e.message);
      });
      await assert.rejects(store.putStream(Readable.from(["text"])), Invalid);
      assert.equal(await store.has(sha(data)), false);
      assert.deepEqual(await keysUnder(raw), []);
      assert.deepEqual(await tempsOf(raw), []);
      const ok = await store.putStream(Readable.from([data]), { maxBytes: 3000 });
      assert.equal(ok.created, true);
      await done(store, raw);
    });

    describe("tampering", () => {
      // 6 chunks: five full, one of 500 bytes.
      const data = randomBytes(5 * C + 500);
      const chunkAt = (i: number) => HEADER_LENGTH + i * (C + TAG_LENGTH);
      let store: BlobStore;
      let raw: Backend;
      let key: string;
      let original: Buffer;
      let sha256: string;

      before(async () => {
        ({ store, raw } = await fresh());
        ({ sha256 } = await store.putBuffer(data));
        key = layout.blob(store.nameOf(sha256));
        original = (await raw.readSmall(key)) as Buffer;
        assert.equal(original.length, chunkAt(5) + 500 + TAG_LENGTH);
      });
      after(() => done(store, raw));

      /** Stores `bytes` in place of the blob, checks that every read path fails, and restores it. */
      async function expectDetected(bytes: Buffer, what: string, chunk?: number): Promise<void> {
        await raw.writeSmall(key, bytes, "replace");
        try {
          const v = await store.verify(sha256);
          assert.equal(v.ok, false, `${what}: verify must fail`);
          const problem = v.ok ? "" : v.problem;
          assert.ok(problem.includes(sha256), `${what}: the problem names the blob (${problem})`);
          if (chunk !== undefined) assert.match(problem, new RegExp(`chunk ${chunk} `), what);
          await assert.rejects(
            (async () => collect(await store.get(sha256)))(),
            (e: unknown) => e instanceof IntegrityError && e.message.includes(sha256),
            `${what}: get must fail`,
          );
          const target = join(scratch, `tampered-${leg.name}-${++tamperedCount}`);
          await assert.rejects(store.decryptToFile(sha256, target), (e: unknown) => e instanceof IntegrityError && e.message.includes(sha256), `${what}: decryptToFile must fail`);
          assert.ok(!existsSync(target), `${what}: no partial file is left behind`);
        } finally {
          await raw.writeSmall(key, original, "replace");
        }
      }

      test("a changed byte in any chunk or tag is detected, naming the chunk", async () => {
        for (let i = 0; i < 6; i++) {
          const len = i < 5 ? C : 500;
          const spots = [chunkAt(i), chunkAt(i) + len - 1, chunkAt(i) + len + TAG_LENGTH - 1];
          // Every spot on the filesystem; one per chunk on s3rver, whose requests are slow (the logic is shared).
          for (const at of leg.name === "filesystem" ? spots : [spots[i % 3] as number]) {
            const bad = Buffer.from(original);
            bad[at] = (bad[at] as number) ^ 0x01;
            await expectDetected(bad, `bit flip at ${at} in chunk ${i}`, i);
          }
        }
        assert.deepEqual(await store.verify(sha256), { ok: true, size: data.length });
      });

      test("range reads decrypt only their chunks: a damaged chunk fails only the reads that touch it", async () => {
        const bad = Buffer.from(original);
        bad[chunkAt(3) + 10] = (bad[chunkAt(3) + 10] as number) ^ 0x80;
        await raw.writeSmall(key, bad, "replace");
        try {
          const head = await collect(await store.get(sha256, { start: 0, end: 3 * C - 1 }));
          assert.ok(head.equals(data.subarray(0, 3 * C)));
          const tail = await collect(await store.get(sha256, { start: 4 * C, end: data.length - 1 }));
          assert.ok(tail.equals(data.subarray(4 * C)));
          await assert.rejects(
            (async () => collect(await store.get(sha256, { start: 3 * C + 5, end: 3 * C + 6 })))(),
            (e: unknown) => e instanceof IntegrityError && /chunk 3 \(counting from 0\) of 6/.test(e.message),
          );
        } finally {
          await raw.writeSmall(key, original, "replace");
        }
      });

      test("truncation, extension, reordering, duplication and removal of chunks are detected", async () => {
        const chunk = (i: number) => original.subarray(chunkAt(i), i < 5 ? chunkAt(i + 1) : original.length);
        const header = original.subarray(0, HEADER_LENGTH);
        const join = (...idx: number[]) => Buffer.concat([header, ...idx.map(chunk)]);
        await expectDetected(join(0, 1, 2, 3, 4), "last chunk dropped (cut at a chunk boundary)", 4);
        await expectDetected(original.subarray(0, original.length - 1), "one byte cut");
        await expectDetected(original.subarray(0, original.length - 17), "tag cut off");
        await expectDetected(original.subarray(0, HEADER_LENGTH), "only the header left");
        await expectDetected(Buffer.concat([original, chunk(0)]), "a chunk appended");
        await expectDetected(Buffer.concat([original, Buffer.alloc(1)]), "one byte appended");
        await expectDetected(join(0, 2, 1, 3, 4, 5), "chunks 1 and 2 swapped", 1);
        await expectDetected(join(0, 1, 1, 3, 4, 5), "chunk 1 duplicated over chunk 2", 2);
        await expectDetected(join(0, 1, 3, 4, 5), "chunk 2 removed", 2);
        await expectDetected(join(1, 0, 2, 3, 4, 5), "chunks 0 and 1 swapped", 0);
      });

      test("a change to any header byte is detected", async () => {
        const all = Array.from({ length: HEADER_LENGTH }, (_, i) => i);
        // Each field once on s3rver (magic, version, reserved, chunk size, file id); every byte on the filesystem.
        for (const at of leg.name === "filesystem" ? all : [0, 8, 10, 13, 15, 16, 31]) {
          const bad = Buffer.from(original);
          bad[at] = (bad[at] as number) ^ 0x04;
          await expectDetected(bad, `header byte ${at}`);
        }
      });

      test("a missing, altered or moved key record is detected", async () => {
        const fileId = original.subarray(16, 32);
        const sidecarKey = layout.sidecar(store.nameOf(sha256), fileId);
        const sidecar = (await raw.readSmall(sidecarKey)) as Buffer;
        assert.equal(sidecar.length, 80);
        const problem = async () => {
          const v = await store.verify(sha256);
          return v.ok ? "" : v.problem;
        };
        try {
          for (const at of [0, 12, 25, 40, 70]) {
            const bad = Buffer.from(sidecar);
            bad[at] = (bad[at] as number) ^ 0x01;
            await raw.writeSmall(sidecarKey, bad, "replace");
            assert.match(await problem(), /key record|master key/, `sidecar byte ${at}`);
            await assert.rejects(store.get(sha256), IntegrityError);
          }
          await raw.remove(sidecarKey);
          assert.match(await problem(), /key record \(sidecar\) is missing/);
        } finally {
          await raw.writeSmall(sidecarKey, sidecar, "replace");
        }
        assert.deepEqual(await store.verify(sha256), { ok: true, size: data.length });
      });

      test("another blob and its key record copied in under this name do not open", async () => {
        const other = randomBytes(3000);
        const o = await store.putBuffer(other);
        const oName = store.nameOf(o.sha256);
        const oBlob = (await raw.readSmall(layout.blob(oName))) as Buffer;
        const oFileId = oBlob.subarray(16, 32);
        const oSidecar = (await raw.readSmall(layout.sidecar(oName, oFileId))) as Buffer;
        const name = store.nameOf(sha256);
        await raw.writeSmall(layout.sidecar(name, oFileId), oSidecar, "replace");
        try {
          await expectDetected(oBlob, "substituted blob");
          await raw.writeSmall(key, oBlob, "replace");
          await assert.rejects(store.get(sha256), (e: unknown) => e instanceof IntegrityError && /does not open/.test(e.message));
        } finally {
          await raw.writeSmall(key, original, "replace");
          await raw.remove(layout.sidecar(name, oFileId));
        }
      });
    });

    test("cleanupTemp removes what a crash leaves, once old enough, and nothing else", async () => {
      const { store, raw, keys } = await fresh();
      const kept = await store.putBuffer(randomBytes(4000));
      const name = store.nameOf(kept.sha256);
      // A write cut off before commit: a temporary object.
      await raw.writeSmall("tmp/cut-off-upload", randomBytes(5000), "replace");
      // Cut off between sidecar and commit: a sidecar with no blob.
      const lostName = store.nameOf(sha(Buffer.from("lost")));
      const fid = randomBytes(16);
      await raw.writeSmall(layout.sidecar(lostName, fid), sealSidecar(keys.master, randomBytes(32), fid, lostName), "replace");
      // A concurrent writer that lost the race: a second sidecar for a committed blob.
      const fid2 = randomBytes(16);
      await raw.writeSmall(layout.sidecar(name, fid2), sealSidecar(keys.master, randomBytes(32), fid2, name), "replace");

      assert.deepEqual(await store.cleanupTemp({ olderThanMs: 60 * 60 * 1000 }), { temporaries: 0, sidecars: 0 }, "fresh leftovers may belong to a running write");
      assert.deepEqual(await store.cleanupTemp({ olderThanMs: 0 }), { temporaries: 1, sidecars: 2 });
      assert.deepEqual(await tempsOf(raw), []);
      const left = await keysUnder(raw);
      assert.equal(left.length, 2, `blob and its own sidecar remain: ${left.join(", ")}`);
      assert.deepEqual(await store.verify(kept.sha256), { ok: true, size: 4000 });
      await done(store, raw);
    });

    test("listNames lists blobs only", async () => {
      const { store } = await fresh();
      const puts = await Promise.all([1, 2, 3].map((n) => store.putBuffer(randomBytes(n * 100))));
      const names: string[] = [];
      for await (const n of store.listNames()) names.push(n);
      assert.deepEqual(names.sort(), puts.map((p) => store.nameOf(p.sha256)).sort());
      await done(store);
    });

    test("a blob wrapped by a master key that is not loaded says which key to load", async () => {
      const { store, keys, location } = await fresh();
      const { sha256 } = await store.putBuffer(randomBytes(10));
      await store.close();
      const other = masterKey(generateKey());
      const wrong = await openBlobStore(location, { ...keys, master: other }, { env: leg.env });
      await assert.rejects(wrong.read(sha256), (e: unknown) => e instanceof IntegrityError && e.message.includes(keys.master.id));
      await wrong.close();
      const withPrevious = await openBlobStore(location, { ...keys, master: other, previous: [keys.master] }, { env: leg.env });
      assert.equal((await withPrevious.read(sha256)).length, 10);
      await withPrevious.close();
    });

    test("a location that cannot be used is refused with a sentence", async () => {
      await assert.rejects(openBlobStore("ftp://example.org/blobs", testKeys()), Invalid);
      if (leg.name === "filesystem") {
        const { store, keys, location } = await fresh();
        const { sha256 } = await store.putBuffer(Buffer.from("via a path"));
        await store.close();
        const viaUrl = await openBlobStore(pathToFileURL(location).href, keys);
        assert.equal((await viaUrl.read(sha256)).toString(), "via a path");
        await viaUrl.close();
        return;
      }
      const url = new URL(leg.location());
      const noBucket = new URL(url);
      noBucket.host = "no-such-bucket";
      await assert.rejects(openBlobStore(noBucket.href, testKeys(), { env: leg.env }), (e: unknown) => e instanceof NotFound && /does not exist/.test(e.message));
      await assert.rejects(
        openBlobStore(url.href, testKeys(), { env: { AWS_ACCESS_KEY_ID: "NOT-A-KEY", AWS_SECRET_ACCESS_KEY: "x" } }),
        (e: unknown) => e instanceof Forbidden && /credentials/.test(e.message),
      );
      const closed = new URL(url);
      closed.searchParams.set("endpoint", "http://127.0.0.1:9");
      await assert.rejects(openBlobStore(closed.href, testKeys(), { env: leg.env }), (e: unknown) => e instanceof Unavailable && /^Cannot reach the blob store /.test(e.message));
      // a server that answers every request with an error of its own (a store whose files are damaged) is said
      // as that, not as one that cannot be reached
      const broken = createServer((_req, res) => res.writeHead(500, { "content-type": "application/xml" }).end("<Error><Code>InternalError</Code></Error>"));
      await new Promise<void>((ok) => broken.listen(0, "127.0.0.1", ok));
      try {
        const at = new URL(url);
        at.searchParams.set("endpoint", `http://127.0.0.1:${(broken.address() as { port: number }).port}`);
        await assert.rejects(openBlobStore(at.href, testKeys(), { env: leg.env }), (e: unknown) => e instanceof Unavailable && /answered with an error of its own \(HTTP 500\)/.test(e.message));
      } finally {
        broken.close();
      }
    });

    test("the chunk size is validated when a store is opened", async () => {
      await assert.rejects(openBlobStore(leg.location(), testKeys(), { env: leg.env, chunkSize: 100 }), Invalid);
      // Headers themselves carry the size: a store with another setting reads old blobs.
      const { store, keys, location } = await fresh(4096);
      const data = randomBytes(10_000);
      await store.putBuffer(data);
      await store.close();
      const other = await openBlobStore(location, keys, { env: leg.env, chunkSize: 2048 });
      assert.ok((await other.read(sha(data))).equals(data));
      await other.close();
      assert.ok(encodeHeader(4096, randomBytes(16)).length === HEADER_LENGTH);
    });
  });
}

describe("blob store on a folder: fan-out folders", () => {
  test("a blob goes into folders made when first needed, and again after someone removed them", async () => {
    const dir = mkdtempSync(join(tmpdir(), "dalil-fanout-"));
    try {
      const store = await openBlobStore(dir, testKeys());
      const bytes = randomBytes(3000);
      const first = await store.putBuffer(bytes);
      assert.equal(first.created, true);
      const key = layout.blob(store.nameOf(first.sha256));
      assert.ok(existsSync(join(dir, ...key.split("/"))));
      // A folder tidied away by hand: the next write finds it missing and makes it again, with the blob's sidecar.
      rmSync(join(dir, ...key.split("/").slice(0, 2)), { recursive: true });
      assert.equal(await store.has(first.sha256), false);
      const again = await store.putBuffer(bytes);
      assert.equal(again.created, true);
      assert.deepEqual(await store.read(first.sha256), bytes);
      assert.deepEqual(await store.verify(first.sha256), { ok: true, size: 3000 });
      assert.deepEqual(readdirSync(join(dir, "tmp")), [], "no temporary file is left");
      await store.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
