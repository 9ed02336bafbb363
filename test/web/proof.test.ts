import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { operatorActor } from "../../src/core/actor.ts";
import { custody } from "../../src/ledger/events.ts";
import { checkProofBundle } from "../../src/ledger/proof-check.ts";
import { generateSigner } from "../../src/ledger/note.ts";
import { checkCheckpoint, checkProof, verifyInclusion } from "../../web/src/proof/verify.ts";
import { backends } from "../support/backends.ts";
import { freshArchive } from "../support/archive.ts";

/**
 * The browser's proof check (web/src/proof/verify.ts, WebCrypto only) against what the server hands out, and
 * against the server's own check (src/ledger/proof-check.ts): the two must agree on every proof, good or
 * altered. Node ≥ 20 has the same WebCrypto (with Ed25519) that Chromium has.
 */
const vectors = JSON.parse(readFileSync(join(import.meta.dirname, "..", "fixtures", "merkle-vectors.json"), "utf8")) as {
  inclusion: { leafIndex: number; treeSize: number; leafHashHex: string; rootHex: string; proofHex: string[] }[];
};
const hex = (h: string) => new Uint8Array(Buffer.from(h, "hex"));

test("the browser's inclusion check passes the RFC 9162 vectors and fails on any altered input", async () => {
  assert.ok(vectors.inclusion.length >= 5);
  for (const v of vectors.inclusion) {
    const proof = v.proofHex.map(hex);
    assert.equal(await verifyInclusion(hex(v.leafHashHex), v.leafIndex, v.treeSize, proof, hex(v.rootHex)), true, `${v.leafIndex}/${v.treeSize}`);
    const root = hex(v.rootHex);
    root[0]! ^= 1;
    assert.equal(await verifyInclusion(hex(v.leafHashHex), v.leafIndex, v.treeSize, proof, root), false);
    // The neighbour's index: the same hashes combined in the other order.
    const neighbour = v.leafIndex % 2 === 0 ? v.leafIndex + 1 : v.leafIndex - 1;
    if (neighbour < v.treeSize) assert.equal(await verifyInclusion(hex(v.leafHashHex), neighbour, v.treeSize, proof, hex(v.rootHex)), false);
    assert.equal(await verifyInclusion(hex(v.leafHashHex), v.leafIndex, v.treeSize, [...proof, hex(v.rootHex)], hex(v.rootHex)), false, "a longer path");
  }
});

/** The proof with one bit of its first audit-path hash flipped. */
function alterFirstHash(proof: string): string {
  const lines = proof.split("\n");
  const at = lines.findIndex((l) => l.startsWith("index ")) + 1;
  const h = Buffer.from(lines[at]!, "base64");
  h[0]! ^= 1;
  lines[at] = h.toString("base64");
  return lines.join("\n");
}

const [sqlite] = await backends();

test("proofs the server hands out verify in the browser's code, and every alteration is caught as the server's check catches it", { skip: sqlite!.skip }, async () => {
  const a = await freshArchive(sqlite!.backend);
  try {
    const ctx = a.archive;
    const shas: string[] = [];
    await ctx.db.transaction(async (tx) => {
      for (let i = 0; i < 13; i++) {
        const sha = (i + 1).toString(16).padStart(64, "0");
        shas.push(sha);
        // Arabic in the detail: the leaf bytes are UTF-8, and the page re-encodes the JSON string it receives.
        await ctx.log.append(tx, custody("ingestion", operatorActor(), ctx.clock.now(), [{ sha256: sha, role: "original" }], { note: `صورة ${i}` }));
      }
    });
    await ctx.tree.checkpoint();
    const key = ctx.tree.verifierKey;
    const other = generateSigner("someone.else/log").verifierKey;
    for (const seq of [0, 5, 12]) {
      const p = await ctx.tree.proveEvent(seq);
      const leafBytes = new TextEncoder().encode(p.leaf.toString("utf8"));
      assert.ok(Buffer.from(leafBytes).equals(p.leaf), "the leaf survives the JSON round trip byte for byte");
      const ok = await checkProof({ proofText: p.proof, leafBytes, verifierKey: key });
      assert.deepEqual(ok, { ...(checkProofBundle({ proofText: p.proof, leafBytes, verifierKeys: [key] }) as object), ok: true });
      assert.ok(ok.ok && ok.index === seq && ok.size === 13 && ok.origin === ctx.tree.origin);

      const cases: [string, { proofText: string; leafBytes: Uint8Array; verifierKey: string }, string][] = [
        ["altered leaf", { proofText: p.proof, leafBytes: new TextEncoder().encode(p.leaf.toString("utf8").replace("ingestion", "quarantine")), verifierKey: key }, "mismatch"],
        ["altered path", { proofText: alterFirstHash(p.proof), leafBytes, verifierKey: key }, "mismatch"],
        ["other index", { proofText: p.proof.replace(`index ${seq}\n`, `index ${seq === 0 ? 1 : seq - 1}\n`), leafBytes, verifierKey: key }, "mismatch"],
        ["another log's key", { proofText: p.proof, leafBytes, verifierKey: other }, "untrusted"],
        ["a damaged key", { proofText: p.proof, leafBytes, verifierKey: key.slice(0, -4) + "AAAA" }, "malformed-key"],
        ["not a proof", { proofText: "hello\n", leafBytes, verifierKey: key }, "malformed-proof"],
      ];
      const sigLine = p.proof.split("\n").find((l) => l.startsWith("\u2014 "))!;
      const sig = sigLine.split(" ").pop()!;
      const flipped = Buffer.from(sig, "base64");
      flipped[10]! ^= 1;
      cases.push(["altered signature", { proofText: p.proof.replace(sig, flipped.toString("base64")), leafBytes, verifierKey: key }, "bad-signature"]);
      const root = p.proof.split("\n\n")[1]!.split("\n")[2]!;
      const badRoot = Buffer.from(root, "base64");
      badRoot[0]! ^= 1;
      cases.push(["altered checkpoint", { proofText: p.proof.replace(root, badRoot.toString("base64")), leafBytes, verifierKey: key }, "bad-signature"]);
      for (const [what, input, reason] of cases) {
        const mine = await checkProof(input);
        const server = checkProofBundle({ proofText: input.proofText, leafBytes: input.leafBytes, verifierKeys: [input.verifierKey] });
        assert.deepEqual(mine, { ok: false, reason }, `${what}: the browser says ${JSON.stringify(mine)}`);
        assert.equal(server.ok, false, `${what}: the server's check agrees`);
      }
    }
    const cp = await ctx.tree.checkpoint();
    const opened = await checkCheckpoint(cp.note, key);
    assert.ok(opened.ok && opened.checkpoint.size === 13);
    assert.deepEqual(await checkCheckpoint(cp.note, other), { ok: false, reason: "untrusted" });
    assert.deepEqual(await checkCheckpoint(cp.note.replace("\n13\n", "\n14\n"), key), { ok: false, reason: "bad-signature" });
    assert.deepEqual(await checkCheckpoint("no blank line\n", key), { ok: false, reason: "malformed-note" });
  } finally {
    await a.close();
  }
});
