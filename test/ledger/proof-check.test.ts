import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { checkProofBundle } from "../../src/ledger/proof-check.ts";
import { generateSigner, newSigner } from "../../src/ledger/note.ts";
import { signCheckpoint } from "../../src/ledger/checkpoint.ts";
import { formatTlogProof, parseTlogProof } from "../../src/ledger/tlog-proof.ts";

const v = JSON.parse(readFileSync(new URL("../fixtures/merkle-vectors.json", import.meta.url), "utf8")) as {
  signedNote: { deterministicCheckpoint: { vkey: string }; deterministicTlogProof: { leafDataHex: string; tlogProof: string } };
};
const vkey = v.signedNote.deterministicCheckpoint.vkey;
const proofText = v.signedNote.deterministicTlogProof.tlogProof;
const leafBytes = Buffer.from(v.signedNote.deterministicTlogProof.leafDataHex, "hex");

test("a good proof bundle checks out", () => {
  assert.deepEqual(checkProofBundle({ proofText, leafBytes, verifierKeys: [vkey] }), {
    ok: true,
    index: 5,
    size: 8,
    origin: "example.org/evidence-test-log",
    rootHash: "XcnaeacGWamtVZy3Ad7ZoqudgjqtL0lgz+Nw7/RgQyg=",
    signedBy: ["example.org/evidence-test-log"],
  });
  const other = generateSigner("other.example/log").verifierKey;
  assert.equal(checkProofBundle({ proofText, leafBytes, verifierKeys: [other, vkey] }).ok, true, "extra trusted keys do no harm");
  assert.equal(checkProofBundle({ proofText, leafBytes, verifierKeys: [vkey], origin: "example.org/evidence-test-log" }).ok, true);
});

function reason(r: ReturnType<typeof checkProofBundle>): string {
  assert.equal(r.ok, false);
  return r.ok ? "" : r.reason;
}

test("every kind of tampering fails with a sentence", () => {
  const cases: Array<[Parameters<typeof checkProofBundle>[0], RegExp]> = [
    [{ proofText, leafBytes: Buffer.concat([leafBytes, Buffer.from([0])]), verifierKeys: [vkey] }, /bytes differ/],
    [{ proofText, leafBytes, verifierKeys: [] }, /No verifier key/],
    [{ proofText, leafBytes, verifierKeys: ["nonsense"] }, /malformed/],
    [{ proofText, leafBytes, verifierKeys: [generateSigner("example.org/evidence-test-log").verifierKey] }, /not signed by any trusted key/],
    [{ proofText: proofText.replace("index 5", "index 4"), leafBytes, verifierKeys: [vkey] }, /not entry 4/],
    [{ proofText: proofText.replace("index 5", "index 8"), leafBytes, verifierKeys: [vkey] }, /only 8 entries/],
    [{ proofText: proofText.replace("vBoGQ7Eu", "vBoGQ7Ev"), leafBytes, verifierKeys: [vkey] }, /proof hashes were altered/],
    [{ proofText: proofText.replace("\n8\n", "\n9\n"), leafBytes, verifierKeys: [vkey] }, /does not verify/],
    [{ proofText: proofText.replace("c2sp.org", "c2sp.com"), leafBytes, verifierKeys: [vkey] }, /not a tlog-proof/],
    [{ proofText, leafBytes, verifierKeys: [vkey], origin: "example.org/another-log" }, /not "example.org\/another-log"/],
  ];
  for (const [bundle, re] of cases) {
    const why = reason(checkProofBundle(bundle));
    assert.match(why, re);
    assert.match(why, /^[A-Z].*\.$/, "a sentence");
  }
});

test("a checkpoint re-signed by another key is refused even with a valid proof", () => {
  const impostor = newSigner(generateSigner("example.org/evidence-test-log").signerKey);
  const parsed = parseTlogProof(proofText);
  const root = Buffer.from("XcnaeacGWamtVZy3Ad7ZoqudgjqtL0lgz+Nw7/RgQyg=", "base64");
  const resigned = signCheckpoint({ origin: "example.org/evidence-test-log", size: 8, rootHash: root, extensions: [] }, [impostor]);
  const text = formatTlogProof({ ...parsed, checkpoint: resigned });
  assert.match(reason(checkProofBundle({ proofText: text, leafBytes, verifierKeys: [vkey] })), /not signed by any trusted key/);
});
