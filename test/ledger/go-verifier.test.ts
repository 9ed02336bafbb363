/**
 * The independent check: Go's golang.org/x/mod/sumdb/{note,tlog} (tools/verify-go) must accept what our
 * TypeScript produces, and refuse it once tampered with. Under CI=true this test never skips.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { canonicalBytes } from "../../src/core/canonical-json.ts";
import { MerkleAppender, arrayHashReader, consistencyProof, inclusionProof, nodeHash, treeHash, type HashReader } from "../../src/ledger/merkle.ts";
import { generateSigner, newSigner, type NoteSigner } from "../../src/ledger/note.ts";
import { signCheckpoint } from "../../src/ledger/checkpoint.ts";
import { formatConsistencyProof, formatTlogProof } from "../../src/ledger/tlog-proof.ts";
import { tileFiles, type EntryReader } from "../../src/ledger/tiles.ts";
import { buildVerifyGo, goVerifierMissing, goVerifierSkip } from "../support/verify-go.ts";


const missing = goVerifierMissing();
const skip = goVerifierSkip();

interface Run {
  code: number;
  out: string;
}

function run(bin: string, args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(bin, args, { encoding: "utf8" }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === "number" ? err.code : 99) : 0;
      resolve({ code, out: stdout + stderr });
    });
  });
}

const ORIGIN = "dalil.test/custody-log";

function events(n: number): Buffer[] {
  return Array.from({ length: n }, (_, i) =>
    canonicalBytes({
      v: "dalil.custody/1",
      id: `evt_${i}`,
      type: i % 5 === 0 ? "accession" : "ingestion",
      at: new Date(Date.UTC(2024, 0, 1, 0, 0, i)).toISOString(),
      objects: [{ role: "original", sha256: i.toString(16).padStart(64, "0") }],
      detail: { path: `DCIM/100CANON/IMG_${String(i).padStart(4, "0")}.JPG`, note: "صورة" },
    }),
  );
}

test("Go's sumdb/note and sumdb/tlog verify our checkpoints, proofs, consistency proofs and tiles", { skip, timeout: 180_000 }, async () => {
  assert.equal(missing, null, `CI=true, so the Go verifier must run, but ${missing}`);
  const dir = mkdtempSync(join(tmpdir(), "dalil-verify-go-"));
  try {
    const bin = join(dir, "verify-go");
    const build = buildVerifyGo(bin);
    assert.equal(build.status, 0, `build failed:\n${build.output}`);

    const { signerKey, verifierKey } = generateSigner(ORIGIN);
    const signer = newSigner(signerKey);
    const impostor: NoteSigner = newSigner(generateSigner(ORIGIN).signerKey);
    const vkey = join(dir, "log.vkey");
    writeFileSync(vkey, `${verifierKey}\n`);
    const V = ["-vkey", `@${vkey}`];

    const leaves = events(70000);
    const app = MerkleAppender.empty();
    const stored: Buffer[] = [];
    const sizes = [1, 7, 256, 257, 600, 70000];
    const checkpoints = new Map<number, string>();
    let done = 0;
    for (const size of sizes) {
      for (const h of app.appendLeaves(leaves.slice(done, size)).hashes) stored.push(h);
      done = size;
      const cp = signCheckpoint({ origin: ORIGIN, size, rootHash: app.root(), extensions: [] }, [signer]);
      checkpoints.set(size, cp);
      writeFileSync(join(dir, `cp-${size}`), cp);
    }
    const read: HashReader = arrayHashReader(stored);
    const file = (name: string, content: string | Buffer): string => {
      const p = join(dir, name);
      writeFileSync(p, content);
      return p;
    };

    const jobs: Array<{ name: string; args: string[]; ok: boolean }> = [];
    const expect = (name: string, ok: boolean, args: string[]): void => {
      jobs.push({ name, args, ok });
    };

    // Checkpoints.
    for (const size of sizes) expect(`checkpoint ${size}`, true, ["checkpoint", ...V, "-checkpoint", join(dir, `cp-${size}`)]);
    const cp600 = checkpoints.get(600) as string;
    expect("checkpoint with altered size", false, ["checkpoint", ...V, "-checkpoint", file("cp-altered", cp600.replace("\n600\n", "\n601\n"))]);
    const resigned = signCheckpoint({ origin: ORIGIN, size: 600, rootHash: await treeHash(600, read), extensions: [] }, [impostor]);
    expect("checkpoint re-signed with another key", false, ["checkpoint", ...V, "-checkpoint", file("cp-resigned", resigned)]);

    // Inclusion proofs.
    const proofFor = async (index: number, size: number): Promise<string> =>
      formatTlogProof({ index, proof: await inclusionProof(index, size, read), checkpoint: checkpoints.get(size) as string });
    const pairs: Array<[number, number]> = [[0, 1], [0, 7], [6, 7], [3, 256], [255, 256], [256, 257], [0, 600], [599, 600], [300, 600], [12345, 70000], [69999, 70000]];
    for (const [index, size] of pairs) {
      const leaf = file(`leaf-${index}`, leaves[index] as Buffer);
      expect(`proof ${index}/${size}`, true, ["proof", ...V, "-proof", file(`proof-${index}-${size}`, await proofFor(index, size)), "-leaf", leaf, "-origin", ORIGIN]);
    }
    const good = await proofFor(300, 600);
    const leaf300 = join(dir, "leaf-300");
    expect("proof with altered leaf", false, ["proof", ...V, "-proof", join(dir, "proof-300-600"), "-leaf", file("leaf-bad", Buffer.concat([leaves[300] as Buffer, Buffer.from(" ")]))]);
    expect("proof with another entry's leaf", false, ["proof", ...V, "-proof", join(dir, "proof-300-600"), "-leaf", join(dir, "leaf-0")]);
    expect("proof with altered index", false, ["proof", ...V, "-proof", file("proof-idx", good.replace("index 300", "index 301")), "-leaf", leaf300]);
    const lines = good.split("\n");
    lines[3] = Buffer.from(lines[3] as string, "base64").reverse().toString("base64");
    expect("proof with altered hash", false, ["proof", ...V, "-proof", file("proof-hash", lines.join("\n")), "-leaf", leaf300]);
    const p = good.split("\n");
    p.splice(2, 1);
    expect("proof missing a hash", false, ["proof", ...V, "-proof", file("proof-short", p.join("\n")), "-leaf", leaf300]);
    expect("proof under a re-signed checkpoint", false, ["proof", ...V, "-proof", file("proof-resigned", good.replace(cp600, resigned)), "-leaf", leaf300]);
    expect("proof with the wrong origin", false, ["proof", ...V, "-proof", join(dir, "proof-300-600"), "-leaf", leaf300, "-origin", "dalil.test/other"]);

    // Consistency proofs.
    const consistency = async (m: number, n: number): Promise<string> =>
      file(`cons-${m}-${n}`, formatConsistencyProof({ oldSize: m, newSize: n, proof: await consistencyProof(m, n, read) }));
    for (const [m, n] of [[1, 7], [7, 256], [256, 257], [257, 600], [1, 600], [600, 600], [7, 70000], [600, 70000]] as Array<[number, number]>) {
      expect(`consistency ${m}→${n}`, true, ["consistency", ...V, "-old", join(dir, `cp-${m}`), "-new", join(dir, `cp-${n}`), "-proof", await consistency(m, n)]);
    }
    const c257 = join(dir, "cons-257-600");
    expect("consistency with swapped checkpoints", false, ["consistency", ...V, "-old", join(dir, "cp-600"), "-new", join(dir, "cp-257"), "-proof", c257]);
    expect("consistency against the wrong old checkpoint", false, ["consistency", ...V, "-old", join(dir, "cp-256"), "-new", join(dir, "cp-600"), "-proof", c257]);
    const consText = readFileSync(c257, "utf8").split("\n");
    consText[3] = Buffer.alloc(32, 1).toString("base64");
    expect("consistency with an altered hash", false, ["consistency", ...V, "-old", join(dir, "cp-257"), "-new", join(dir, "cp-600"), "-proof", file("cons-bad", consText.join("\n"))]);
    // A forked log: a signed checkpoint of size 600 whose tree rewrote entry 100.
    const forkLeaves = leaves.slice(0, 600);
    forkLeaves[100] = Buffer.from("rewritten history");
    const fork = MerkleAppender.empty();
    const forkStored = fork.appendLeaves(forkLeaves).hashes;
    file("cp-fork", signCheckpoint({ origin: ORIGIN, size: 600, rootHash: fork.root(), extensions: [] }, [signer]));
    const forkProof = formatConsistencyProof({ oldSize: 257, newSize: 600, proof: await consistencyProof(257, 600, arrayHashReader(forkStored)) });
    expect("consistency into a forked log", false, ["consistency", ...V, "-old", join(dir, "cp-257"), "-new", join(dir, "cp-fork"), "-proof", file("cons-fork", forkProof)]);

    // Tiles: publish as the log grows, then let Go authenticate them against each checkpoint.
    const tilesDir = join(dir, "tiles");
    const readEntries: EntryReader = async (start, end) => leaves.slice(start, end);
    let prev = 0;
    for (const size of sizes) {
      for await (const t of tileFiles(prev, size, read, readEntries)) {
        mkdirSync(dirname(join(tilesDir, t.path)), { recursive: true });
        writeFileSync(join(tilesDir, t.path), t.bytes);
      }
      prev = size;
    }
    for (const size of sizes) expect(`tiles at ${size}`, true, ["tiles", ...V, "-checkpoint", join(dir, `cp-${size}`), "-dir", tilesDir]);
    // A public mirror: hash tiles only (the entries say what the archive holds), still authenticated to the root.
    for (const [name, flip] of [["hash-tiles", false], ["hash-tiles-flipped", true]] as const) {
      for await (const t of tileFiles(0, 70_000, read, readEntries)) {
        if (t.path.startsWith("tile/entries/")) continue;
        const bytes = flip && t.path === "tile/0/000" ? Buffer.from(t.bytes) : t.bytes;
        if (bytes !== t.bytes) bytes[5] = bytes[5]! ^ 1;
        mkdirSync(dirname(join(dir, name, t.path)), { recursive: true });
        writeFileSync(join(dir, name, t.path), bytes);
      }
    }
    expect("hash tiles only", true, ["tiles", ...V, "-checkpoint", join(dir, "cp-70000"), "-dir", join(dir, "hash-tiles")]);
    expect("hash tiles only, one bit flipped", false, ["tiles", ...V, "-checkpoint", join(dir, "cp-70000"), "-dir", join(dir, "hash-tiles-flipped")]);

    const results = await Promise.all(jobs.map((j) => run(bin, j.args)));
    jobs.forEach((j, i) => {
      const r = results[i] as Run;
      if (j.ok) assert.equal(r.code, 0, `${j.name} should verify:\n${r.out}`);
      else assert.equal(r.code, 1, `${j.name} should fail verification:\n${r.out}`);
      assert.match(r.out, j.ok ? /^OK / : /^FAIL: /, j.name);
    });

    // Tampered tiles: one bit in each kind of tile must be detected. (Go's own TileHashReader in x/mod v0.7.0
    // misses the level-1 case at this size, which is why verify-go authenticates every tile itself.)
    const tileJobs: Array<[string, string]> = [
      ["tile/0/001", "a full level-0 tile"],
      ["tile/0/273.p/112", "the partial level-0 tile"],
      ["tile/1/000", "a full level-1 tile"],
      ["tile/1/001.p/17", "the partial level-1 tile"],
      ["tile/2/000.p/1", "the level-2 tile"],
      ["tile/entries/002", "an entry bundle"],
      ["tile/entries/273.p/112", "the partial entry bundle"],
    ];
    for (const [path, what] of tileJobs) {
      const f = join(tilesDir, path);
      const original = readFileSync(f);
      const bad = Buffer.from(original);
      bad[20] = (bad[20] as number) ^ 0x01;
      writeFileSync(f, bad);
      const r = await run(bin, ["tiles", ...V, "-checkpoint", join(dir, "cp-70000"), "-dir", tilesDir]);
      writeFileSync(f, original);
      assert.equal(r.code, 1, `a changed bit in ${what} must be detected:\n${r.out}`);
    }
    // A forgery carried consistently through two levels: leaf 0's hash replaced in tile/0/000 and that tile's new
    // root written into tile/1/000. x/mod 0.7.0's TileHashReader hands out the forged leaf hash as authenticated
    // at this size; verify-go must not.
    {
      const t0Path = join(tilesDir, "tile/0/000");
      const t1Path = join(tilesDir, "tile/1/000");
      const t0 = readFileSync(t0Path);
      const t1 = readFileSync(t1Path);
      const forged0 = Buffer.from(t0);
      forged0.fill(7, 0, 32);
      let level: Buffer[] = Array.from({ length: 256 }, (_, i) => forged0.subarray(i * 32, i * 32 + 32));
      while (level.length > 1) level = Array.from({ length: level.length / 2 }, (_, i) => nodeHash(level[2 * i] as Buffer, level[2 * i + 1] as Buffer));
      const forged1 = Buffer.from(t1);
      (level[0] as Buffer).copy(forged1, 0);
      writeFileSync(t0Path, forged0);
      writeFileSync(t1Path, forged1);
      const r = await run(bin, ["tiles", ...V, "-checkpoint", join(dir, "cp-70000"), "-dir", tilesDir]);
      writeFileSync(t0Path, t0);
      writeFileSync(t1Path, t1);
      assert.equal(r.code, 1, `a forged leaf carried through tile/0/000 and tile/1/000 must be detected:\n${r.out}`);
      assert.match(r.out, /tile\/1\/000/);
    }
    assert.equal((await run(bin, ["tiles", ...V, "-checkpoint", join(dir, "cp-70000"), "-dir", tilesDir])).code, 0, "restored tiles verify again");
    assert.equal((await run(bin, ["nonsense"])).code, 2, "usage errors exit 2");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
