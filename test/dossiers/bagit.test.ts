import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { appendFileSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import { BagWriter, decodeBagPath, encodeBagPath, validateBag, BAGIT_TXT } from "../../src/dossiers/bagit.ts";
import { tempDir } from "../support/backends.ts";

async function sampleBag(): Promise<string> {
  const dir = join(tempDir("dalil-bag-"), "bag");
  const w = new BagWriter(dir);
  await w.addPayload("a.txt", "hello\n");
  await w.addPayload("sub/b.bin", Readable.from([Buffer.alloc(100_000, 7), Buffer.alloc(5, 1)]));
  await w.addPayload("odd name%.txt", Buffer.from("percent"));
  w.addTagFile("VERIFY.txt", "read me\n");
  const r = w.finish({ sourceOrganization: "Org", externalIdentifier: "pkg_1", externalDescription: "test\nbag", baggingDate: "2026-01-02" });
  assert.deepEqual(r, { octets: 6 + 100_005 + 7, count: 3 });
  return dir;
}

test("a written bag is valid, and sha256sum/sha512sum read its manifests", async () => {
  const dir = await sampleBag();
  try {
    assert.equal(readFileSync(join(dir, "bagit.txt"), "utf8"), BAGIT_TXT);
    const info = readFileSync(join(dir, "bag-info.txt"), "utf8");
    assert.match(info, /^Source-Organization: Org\nBagging-Date: 2026-01-02\nExternal-Identifier: pkg_1\nBag-Size: 100\.0 KB\nPayload-Oxum: 100018\.3\nExternal-Description: test bag\n$/);
    assert.match(readFileSync(join(dir, "manifest-sha256.txt"), "utf8"), /^[0-9a-f]{64} {2}data\/a\.txt\n/);
    assert.match(readFileSync(join(dir, "manifest-sha256.txt"), "utf8"), / {2}data\/odd name%25\.txt\n/);
    const v = await validateBag(dir);
    assert.deepEqual(v.problems, []);
    assert.equal(v.payload.size, 3);
    // The odd name is percent-encoded in the manifest, so leave it out of the coreutils check.
    for (const [tool, file] of [["sha256sum", "manifest-sha256.txt"], ["sha512sum", "manifest-sha512.txt"], ["sha256sum", "tagmanifest-sha256.txt"]] as const) {
      const lines = readFileSync(join(dir, file), "utf8").split("\n").filter((l) => l && !l.includes("%"));
      const r = spawnSync(tool, ["-c", "--strict", "-"], { cwd: dir, input: `${lines.join("\n")}\n`, encoding: "utf8" });
      assert.equal(r.status, 0, `${tool} -c ${file}: ${r.stdout}${r.stderr}`);
    }
  } finally {
    rmSync(dirname2(dir), { recursive: true, force: true });
  }
});

function dirname2(d: string): string {
  return join(d, "..");
}

test("validation names a changed byte, a missing file, an extra file, a bad Oxum and a changed tag file", async () => {
  const cases: [string, (dir: string) => void, RegExp][] = [
    ["changed byte", (d) => writeFileSync(join(d, "data/a.txt"), "hellO\n"), /data\/a\.txt does not match its sha256/],
    ["missing file", (d) => unlinkSync(join(d, "data/sub/b.bin")), /data\/sub\/b\.bin is listed in manifest-sha256\.txt but missing/],
    ["extra file", (d) => writeFileSync(join(d, "data/sub/extra.txt"), "x"), /data\/sub\/extra\.txt is in data\/ but not in manifest-sha256\.txt/],
    ["bad oxum", (d) => writeFileSync(join(d, "bag-info.txt"), readFileSync(join(d, "bag-info.txt"), "utf8").replace("100018.3", "100018.4")), /Payload-Oxum in bag-info\.txt says 100018\.4/],
    ["tag file", (d) => appendFileSync(join(d, "VERIFY.txt"), "more"), /VERIFY\.txt does not match its sha256 in tagmanifest/],
    ["extra tag", (d) => writeFileSync(join(d, "notes.txt"), "x"), /notes\.txt is in the bag but not in tagmanifest/],
    ["bagit.txt", (d) => writeFileSync(join(d, "bagit.txt"), "BagIt-Version: 0.97\n"), /bagit\.txt must read exactly/],
    ["manifest gone", (d) => unlinkSync(join(d, "manifest-sha512.txt")), /manifest-sha512\.txt is missing/],
    ["escape", (d) => appendFileSync(join(d, "manifest-sha256.txt"), `${"0".repeat(64)}  data/../../etc/passwd\n`), /"\.\." segment/],
  ];
  for (const [name, tamper, re] of cases) {
    const dir = await sampleBag();
    try {
      assert.deepEqual((await validateBag(dir)).problems, [], name);
      tamper(dir);
      const v = await validateBag(dir);
      assert.equal(v.ok, false, name);
      assert.ok(v.problems.some((p) => re.test(p)), `${name}: ${v.problems.join(" | ")}`);
    } finally {
      rmSync(dirname2(dir), { recursive: true, force: true });
    }
  }
});

test("bag paths: CR, LF and % encoded; climbing out, absolute and home paths refused", async () => {
  assert.equal(encodeBagPath("data/a\nb\rc%d"), "data/a%0Ab%0Dc%25d");
  assert.equal(decodeBagPath("data/a%0Ab%0Dc%25d"), "data/a\nb\rc%d");
  for (const bad of ["/etc/passwd", "~/x", "data/../x", "data//x", "data\\x", "C:/x"]) {
    assert.throws(() => encodeBagPath(bad), /bag path/, bad);
  }
  const dir = join(tempDir("dalil-bag-"), "bag");
  const w = new BagWriter(dir);
  await assert.rejects(w.addPayload("../escape.txt", "x"), /bag path/);
  await w.addPayload("x.txt", "x");
  await assert.rejects(w.addPayload("x.txt", "y"), /already has/);
  assert.throws(() => new BagWriter(dir), /not empty/);
  rmSync(dirname2(dir), { recursive: true, force: true });
});

test("payloads hashed off the main thread (large buffers, streams in many chunks, file copies) match digests taken here, and a changed byte in one is caught", async () => {
  const root = tempDir("dalil-bag-");
  const dir = join(root, "bag");
  try {
    const big = randomBytes(3 * 1024 * 1024 + 17);
    const src = join(root, "photo.jpg");
    writeFileSync(src, big);
    const want = { sha256: createHash("sha256").update(big).digest("hex"), sha512: createHash("sha512").update(big).digest("hex") };
    const w = new BagWriter(dir);
    const chunks = Array.from({ length: Math.ceil(big.length / 65536) }, (_, i) => big.subarray(i * 65536, (i + 1) * 65536));
    const got = await Promise.all([
      w.addPayload("a/buffer.jpg", big),
      w.addPayload("a/stream.jpg", Readable.from(chunks)),
      w.addPayloadFile("a/copy.jpg", src),
      w.addPayload("a/empty.bin", Readable.from([])),
    ]);
    for (const e of got.slice(0, 3)) assert.deepEqual({ sha256: e.sha256, sha512: e.sha512, size: e.size }, { ...want, size: big.length }, e.path);
    assert.equal(got[3]!.sha256, createHash("sha256").digest("hex"));
    assert.ok(readFileSync(join(dir, "data/a/stream.jpg")).equals(big));
    w.finish({ sourceOrganization: "Org", externalIdentifier: "pkg_2", externalDescription: "big" });
    assert.deepEqual((await validateBag(dir)).problems, []);
    const bytes = readFileSync(join(dir, "data/a/copy.jpg"));
    bytes[2 * 1024 * 1024] = bytes[2 * 1024 * 1024]! ^ 1;
    writeFileSync(join(dir, "data/a/copy.jpg"), bytes);
    const v = await validateBag(dir);
    assert.deepEqual(v.problems.filter((p) => p.includes("copy.jpg")).length, 2, v.problems.join(" | "));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
