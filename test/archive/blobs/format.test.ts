import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import type { SpawnSyncReturns } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  HEADER_LENGTH,
  TAG_LENGTH,
  chunkNonce,
  encodeHeader,
  geometryForCipher,
  geometryForPlain,
  layout,
  openChunk,
  sealChunk,
  decodeHeader,
} from "../../../src/archive/blobs/format.ts";
import type { BlobHeader } from "../../../src/archive/blobs/format.ts";
import { openBlobStore } from "../../../src/archive/blobs/index.ts";
import { testKeys } from "../../support/blob-legs.ts";

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "dalil-format-"));
  dirs.push(d);
  return d;
}

describe("blob format", () => {
  test("object lengths map back to exactly one plaintext size, and impossible lengths are refused", () => {
    const C = 1024;
    const produced = new Map<number, number>();
    for (let n = 0; n <= 8 * C; n++) {
      const g = geometryForPlain(n, C);
      assert.equal(g.chunkCount, Math.max(1, Math.ceil(n / C)));
      assert.ok(!produced.has(g.cipherSize), `two sizes give length ${g.cipherSize}`);
      produced.set(g.cipherSize, n);
    }
    const max = geometryForPlain(8 * C, C).cipherSize;
    for (let L = 0; L <= max; L++) {
      const g = geometryForCipher(L, C);
      if (produced.has(L)) assert.equal(g?.plainSize, produced.get(L), `length ${L}`);
      else assert.equal(g, null, `length ${L} cannot be a blob`);
    }
  });

  test("the nonce is the file id prefix, the chunk index and the last-chunk flag", () => {
    const fileId = Buffer.from("00112233445566778899aabbccddeeff", "hex");
    assert.equal(chunkNonce(fileId, 5, true).toString("hex"), "00112233445566" + "00000005" + "01");
    assert.equal(chunkNonce(fileId, 0x01020304, false).toString("hex"), "00112233445566" + "01020304" + "00");
  });

  test("a sealed chunk opens only at its own index, position and header", () => {
    const dek = randomBytes(32);
    const header = decodeHeader(encodeHeader(4096, randomBytes(16))) as BlobHeader;
    const other = decodeHeader(encodeHeader(4096, randomBytes(16))) as BlobHeader;
    const plain = randomBytes(100);
    const sealed = Buffer.concat(sealChunk(dek, header, 3, false, plain));
    assert.equal(sealed.length, 100 + TAG_LENGTH);
    assert.ok(openChunk(dek, header, 3, false, sealed)?.equals(plain));
    assert.equal(openChunk(dek, header, 4, false, sealed), null, "other index");
    assert.equal(openChunk(dek, header, 3, true, sealed), null, "marked last");
    assert.equal(openChunk(dek, other, 3, false, sealed), null, "other header");
    assert.equal(openChunk(randomBytes(32), header, 3, false, sealed), null, "other key");
  });

  test("header fields sit where the format document says", () => {
    const fileId = randomBytes(16);
    const h = encodeHeader(65536, fileId);
    assert.equal(h.length, HEADER_LENGTH);
    assert.equal(h.subarray(0, 8).toString("ascii"), "DALILBLB");
    assert.equal(h[8], 1);
    assert.deepEqual([...h.subarray(9, 12)], [0, 0, 0]);
    assert.equal(h.readUInt32BE(12), 65536);
    assert.ok(h.subarray(16).equals(fileId));
    assert.match(decodeHeader(Buffer.concat([Buffer.from("DALILBLX"), h.subarray(8)])) as string, /magic/);
  });

  test("storage keys fan out by the first four hex digits and parse back", () => {
    const name = "ab".repeat(32);
    const fid = randomBytes(16);
    assert.equal(layout.blob(name), `objects/ab/ab/${name}`);
    assert.deepEqual(layout.parse(layout.blob(name)), { name, fileId: null });
    assert.ok(layout.parse(layout.sidecar(name, fid))?.fileId?.equals(fid));
    assert.equal(layout.parse(`objects/ab/cd/${name}`), null, "fan-out must match the name");
    assert.equal(layout.parse(`objects/ab/ab/${name}.tmp`), null);
    assert.equal(layout.parse("dalil-blob-store.json"), null);
  });
});

/** The Go program in docs/formats/blob-store.md, built once: an independent reader of the format. */
function buildGoReader(): { bin: string } | { skip: string } {
  const go = spawnSync("go", ["version"], { encoding: "utf8" });
  if (go.error || go.status !== 0) {
    if (process.env.CI === "true") throw new Error("go is required under CI=true to check the blob format document");
    return { skip: "go is not installed" };
  }
  const doc = readFileSync(fileURLToPath(new URL("../../../docs/formats/blob-store.md", import.meta.url)), "utf8");
  const m = /```go\n([\s\S]*?)```/.exec(doc);
  if (!m?.[1]) throw new Error("docs/formats/blob-store.md has no Go reader");
  const dir = tempDir();
  writeFileSync(join(dir, "read-blob.go"), m[1]);
  const bin = join(dir, "read-blob");
  const r = spawnSync("go", ["build", "-o", bin, "read-blob.go"], {
    cwd: dir,
    encoding: "utf8",
    env: { ...process.env, GOCACHE: join(tmpdir(), "dalil-go-cache"), GOFLAGS: "", GO111MODULE: "off" },
  });
  if (r.status !== 0) throw new Error(`the Go reader in the format document does not build:\n${r.stderr}`);
  return { bin };
}

describe("the reference reader in the format document", () => {
  const built = buildGoReader();
  test("decrypts what the store wrote and rejects what was altered", { skip: "skip" in built ? built.skip : false }, async () => {
    const bin = "bin" in built ? built.bin : null;
    if (!bin) return;
    const root = join(tempDir(), "blobs");
    const keys = testKeys();
    const env = { ...process.env, DALIL_MASTER_KEY: keys.master.key.toString("base64"), DALIL_NAMING_KEY: keys.naming.toString("base64") };
    const samples: Buffer[] = [Buffer.alloc(0), randomBytes(1), randomBytes(65536), randomBytes(300_000)];
    for (const chunkSize of [65536, 1024]) {
      const store = await openBlobStore(root, keys, { chunkSize });
      for (const data of chunkSize === 1024 ? [randomBytes(1024 * 3), randomBytes(5000)] : samples) {
        const { sha256 } = await store.putBuffer(data);
        const out: SpawnSyncReturns<Buffer> = spawnSync(bin, [root, sha256], { env, maxBuffer: 64 * 1024 * 1024 });
        assert.equal(out.status, 0, `go reader failed on ${data.length} bytes: ${out.stderr.toString()}`);
        assert.ok(out.stdout.equals(data), `go reader output for ${data.length} bytes at chunk size ${chunkSize}`);
      }
      await store.close();
    }

    const store = await openBlobStore(root, keys);
    const data = randomBytes(200_000);
    const { sha256 } = await store.putBuffer(data);
    const path = join(root, ...layout.blob(store.nameOf(sha256)).split("/"));
    const original = readFileSync(path);
    const bad = Buffer.from(original);
    const at = HEADER_LENGTH + 2 * (65536 + TAG_LENGTH) + 7;
    bad[at] = (bad[at] as number) ^ 1;
    rmSync(path);
    writeFileSync(path, bad);
    const r = spawnSync(bin, [root, sha256], { env, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /chunk 2 does not authenticate/);
    const wrongKey = spawnSync(bin, [root, sha256], {
      env: { ...env, DALIL_MASTER_KEY: randomBytes(32).toString("base64") },
      encoding: "utf8",
    });
    assert.notEqual(wrongKey.status, 0);
    assert.equal(createHash("sha256").update(data).digest("hex"), sha256);
    await store.close();
  });
});
