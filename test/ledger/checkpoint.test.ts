import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { IntegrityError, Invalid } from "../../src/core/errors.ts";
import { formatCheckpoint, openCheckpoint, parseCheckpoint, signCheckpoint } from "../../src/ledger/checkpoint.ts";
import { newVerifier, signerFromSeed } from "../../src/ledger/note.ts";

const det = (
  JSON.parse(readFileSync(new URL("../fixtures/merkle-vectors.json", import.meta.url), "utf8")) as {
    signedNote: { deterministicCheckpoint: { ed25519SeedHex: string; keyName: string; vkey: string; checkpointText: string; signedCheckpoint: string } };
  }
).signedNote.deterministicCheckpoint;
const signer = signerFromSeed(det.keyName, Buffer.from(det.ed25519SeedHex.slice(0, 64), "hex"));
const root8 = Buffer.from("5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328", "hex");

test("the deterministic checkpoint is formatted and signed byte for byte", () => {
  const cp = { origin: det.keyName, size: 8, rootHash: root8, extensions: [] };
  assert.equal(formatCheckpoint(cp), det.checkpointText);
  assert.equal(signCheckpoint(cp, [signer]), det.signedCheckpoint);
  const opened = openCheckpoint(det.signedCheckpoint, [newVerifier(det.vkey)]);
  assert.deepEqual(opened.checkpoint, cp);
});

test("extension lines round-trip and are signed", () => {
  const cp = { origin: "example.org/log", size: 0, rootHash: Buffer.alloc(32), extensions: ["ext one", "ext two"] };
  const text = formatCheckpoint(cp);
  assert.equal(text, `example.org/log\n0\n${Buffer.alloc(32).toString("base64")}\next one\next two\n`);
  assert.deepEqual(parseCheckpoint(text), cp);
  const signed = signCheckpoint(cp, [signer]);
  assert.throws(() => openCheckpoint(signed.replace("ext two", "ext 2"), [newVerifier(det.vkey)]), IntegrityError);
});

test("malformed checkpoint text is refused", () => {
  const root = root8.toString("base64");
  const bad: Array<[string, string]> = [
    [`o\n8\n${root}`, "no final newline"],
    [`o\n8\n`, "two lines"],
    [`\n8\n${root}\n`, "empty origin"],
    [`o\n08\n${root}\n`, "leading zero"],
    [`o\n-1\n${root}\n`, "negative"],
    [`o\n+8\n${root}\n`, "plus sign"],
    [`o\n 8\n${root}\n`, "space"],
    [`o\n9007199254740992\n${root}\n`, "beyond 2^53-1"],
    [`o\n8\n${root.slice(0, -1)}\n`, "unpadded root"],
    [`o\n8\n${Buffer.alloc(31).toString("base64")}\n`, "31-byte root"],
    [`o\n8\n${root8.toString("hex")}\n`, "hex root"],
    [`o\n8\n${root}\n\n`, "empty extension line"],
  ];
  for (const [text, why] of bad) assert.throws(() => parseCheckpoint(text), Invalid, why);
  assert.equal(parseCheckpoint(`o\n0\n${root}\n`).size, 0);
  assert.throws(() => formatCheckpoint({ origin: "a\nb", size: 1, rootHash: root8, extensions: [] }), Invalid);
  assert.throws(() => formatCheckpoint({ origin: "a", size: 1.5, rootHash: root8, extensions: [] }), Invalid);
});
