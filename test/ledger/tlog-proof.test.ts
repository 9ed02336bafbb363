import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { Invalid } from "../../src/core/errors.ts";
import { MerkleAppender, arrayHashReader, consistencyProof, inclusionProof, leafHash, verifyInclusion } from "../../src/ledger/merkle.ts";
import { signCheckpoint, openCheckpoint } from "../../src/ledger/checkpoint.ts";
import { newVerifier, signerFromSeed } from "../../src/ledger/note.ts";
import { formatConsistencyProof, formatTlogProof, parseConsistencyProof, parseTlogProof } from "../../src/ledger/tlog-proof.ts";

interface V {
  leavesHex: string[];
  signedNote: {
    deterministicCheckpoint: { ed25519SeedHex: string; keyName: string; vkey: string; signedCheckpoint: string };
    deterministicTlogProof: { leafDataHex: string; leafIndex: number; tlogProof: string };
  };
}
const v = JSON.parse(readFileSync(new URL("../fixtures/merkle-vectors.json", import.meta.url), "utf8")) as V;
const det = v.signedNote.deterministicCheckpoint;
const vec = v.signedNote.deterministicTlogProof;

test("the deterministic tlog-proof is produced byte for byte from the tree and checkpoint", async () => {
  const app = MerkleAppender.empty();
  const { hashes } = app.appendLeaves(v.leavesHex.map((h) => Buffer.from(h, "hex")));
  const signer = signerFromSeed(det.keyName, Buffer.from(det.ed25519SeedHex.slice(0, 64), "hex"));
  const checkpoint = signCheckpoint({ origin: det.keyName, size: 8, rootHash: app.root(), extensions: [] }, [signer]);
  assert.equal(checkpoint, det.signedCheckpoint);
  const proof = await inclusionProof(vec.leafIndex, 8, arrayHashReader(hashes));
  assert.equal(formatTlogProof({ index: vec.leafIndex, proof, checkpoint }), vec.tlogProof);

  const parsed = parseTlogProof(vec.tlogProof);
  assert.equal(parsed.index, 5);
  assert.deepEqual(parsed.proof, proof);
  assert.equal(parsed.checkpoint, det.signedCheckpoint);
  assert.equal(parsed.extra, undefined);
  const { checkpoint: cp } = openCheckpoint(parsed.checkpoint, [newVerifier(det.vkey)]);
  assert.ok(verifyInclusion(leafHash(Buffer.from(vec.leafDataHex, "hex")), parsed.index, cp.size, parsed.proof, cp.rootHash));
});

test("extra data and empty proofs round-trip", () => {
  const p = { index: 0, proof: [], checkpoint: det.signedCheckpoint, extra: Buffer.from("context") };
  const text = formatTlogProof(p);
  assert.ok(text.startsWith(`c2sp.org/tlog-proof@v1\nextra ${Buffer.from("context").toString("base64")}\nindex 0\n\n`));
  assert.deepEqual(parseTlogProof(text), p);
});

test("malformed tlog-proofs are refused", () => {
  const good = vec.tlogProof;
  const bad: Array<[string, string]> = [
    [good.replace("c2sp.org/tlog-proof@v1", "c2sp.org/tlog-proof@v2"), "version"],
    [good.replace("index 5", "index 05"), "leading zero"],
    [good.replace("index 5", "index5"), "no space"],
    [good.replace("index 5\n", ""), "no index"],
    [good.replace("vBoGQ7EuTS18d5GPROD095qDi2z57FtcKD4fTYhZnms=", "vBoGQ7EuTS18d5GPROD095qDi2z57FtcKD4fTYhZnms"), "unpadded hash"],
    [good.replace("vBoGQ7EuTS18d5GPROD095qDi2z57FtcKD4fTYhZnms=\n", "AAAA\n"), "short hash"],
    [good.slice(0, good.indexOf("\n\n") + 2), "no checkpoint"],
    [good.slice(0, good.indexOf("\n\n")), "no blank line"],
    [good.replace("index 5", "extra !!\nindex 5"), "bad extra"],
  ];
  for (const [text, why] of bad) assert.throws(() => parseTlogProof(text), Invalid, why);
});

test("consistency proof files round-trip and are strict", async () => {
  const app = MerkleAppender.empty();
  const { hashes } = app.appendLeaves(v.leavesHex.map((h) => Buffer.from(h, "hex")));
  const proof = await consistencyProof(6, 8, arrayHashReader(hashes));
  const text = formatConsistencyProof({ oldSize: 6, newSize: 8, proof });
  assert.equal(text.split("\n").slice(0, 3).join("\n"), "dalil.tlog-consistency@v1\nold 6\nnew 8");
  assert.deepEqual(parseConsistencyProof(text), { oldSize: 6, newSize: 8, proof });
  assert.deepEqual(parseConsistencyProof(formatConsistencyProof({ oldSize: 8, newSize: 8, proof: [] })), { oldSize: 8, newSize: 8, proof: [] });
  for (const t of [text.slice(0, -1), text.replace("old 6", "old 06"), text.replace("new 8", "newer 8"), `${text}\n`, text.replace("@v1", "@v2")]) {
    assert.throws(() => parseConsistencyProof(t), Invalid, JSON.stringify(t.slice(0, 60)));
  }
});
