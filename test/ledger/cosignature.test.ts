import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { Invalid } from "../../src/core/errors.ts";
import {
  cosignatureKeyId,
  cosignatureVerifier,
  cosignedMessage,
  cosignerFromSeed,
  cosignerVkey,
  generateCosigner,
  parseCosignerKey,
  parseCosignerVkey,
  verifyCosignatureLines,
} from "../../src/ledger/cosignature.ts";
import { generateSigner, newVerifier, openNote, signNote, signerFromSeed } from "../../src/ledger/note.ts";

interface Vector { name: string; seedHex: string; publicKeyHex: string; keyIdHex: string; vkey: string; time: number; checkpointText: string; message: string; line: string }
const { vectors } = JSON.parse(readFileSync(new URL("../fixtures/cosignature-vectors.json", import.meta.url), "utf8")) as { vectors: Vector[] };

test("cosignatures match the vectors computed independently with Go's crypto/ed25519 from the spec's text", () => {
  assert.ok(vectors.length >= 3);
  for (const v of vectors) {
    const c = cosignerFromSeed(v.name, Buffer.from(v.seedHex, "hex"));
    assert.equal(c.publicKey.toString("hex"), v.publicKeyHex);
    assert.equal(cosignatureKeyId(v.name, c.publicKey).toString(16).padStart(8, "0"), v.keyIdHex);
    assert.equal(cosignerVkey(v.name, c.publicKey), v.vkey);
    assert.equal(cosignedMessage(v.checkpointText, v.time).toString("utf8"), v.message);
    assert.equal(c.cosign(v.checkpointText, v.time), v.line);
    assert.equal(Buffer.from(v.line.trim().split(" ").pop()!, "base64").length, 76, "a 76-byte signature line");
    const [got] = verifyCosignatureLines(v.checkpointText, v.line, parseCosignerVkey(v.vkey));
    assert.deepEqual(got, { name: v.name, keyId: Number.parseInt(v.keyIdHex, 16), time: v.time, line: v.line });
  }
});

test("the spec's own example carries its timestamp where the vectors do (bytes 4..12 of the line)", () => {
  // C2SP tlog-cosignature's example line for time 1679315147: jWbPPw AAAABkGFDL …
  const raw = Buffer.from("jWbPPwAAAABkGFDLEZMHwSRaJNiIDoe9DYn/zXcrtPHeolMI5OWXEhZCB9dlrDJsX3b2oyin1nPZqhf5nNo0xUe+mbIUBkBIfZ+qnA==", "base64");
  assert.equal(raw.length, 76);
  assert.equal(raw.readBigUInt64BE(4), 1679315147n);
});

test("a cosignature over another checkpoint, another time or by another key does not verify", () => {
  const v = vectors[0]!;
  const key = parseCosignerVkey(v.vkey);
  const other = v.checkpointText.replace("20852163", "20852164");
  assert.throws(() => verifyCosignatureLines(other, v.line, key), (e: unknown) => e instanceof Invalid && /does not verify/.test(e.message));
  const raw = Buffer.from(v.line.trim().split(" ").pop()!, "base64");
  raw.writeBigUInt64BE(BigInt(v.time + 1), 4);
  assert.throws(() => verifyCosignatureLines(v.checkpointText, `— ${v.name} ${raw.toString("base64")}\n`, key), /does not verify/);
  // A line by a key the caller did not name is ignored, as tlog-witness asks of clients.
  assert.deepEqual(verifyCosignatureLines(v.checkpointText, vectors[1]!.line, key), []);
});

test("cosignatures travel in a signed note beside the log's signature and verify through the note parser", () => {
  const log = signerFromSeed("dalil.archive/test", Buffer.alloc(32, 7));
  const logVkey = generateSigner("x").verifierKey; // an unrelated key: ignored
  const text = "dalil.archive/test\n3\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n";
  const w = generateCosigner("witness.example/w9");
  const cosigner = parseCosignerKey(w.signerKey);
  const note = signNote(text, [log]) + cosigner.cosign(text, 1_800_000_000);
  const opened = openNote(note, [newVerifier(`dalil.archive/test+${log.keyId.toString(16).padStart(8, "0")}+${Buffer.concat([Buffer.from([1]), log.publicKey]).toString("base64")}`), newVerifier(logVkey), cosignatureVerifier(parseCosignerVkey(w.vkey))]);
  assert.deepEqual(opened.verified.map((s) => s.name), ["dalil.archive/test", "witness.example/w9"]);
});

test("keys of the wrong type or damaged are refused with a reason", () => {
  const logKey = generateSigner("dalil.archive/x").verifierKey;
  assert.throws(() => parseCosignerVkey(logKey), /signature type 0x01; a witness cosigns with type 0x04/);
  const v = vectors[0]!;
  assert.throws(() => parseCosignerVkey(v.vkey.replace(v.keyIdHex, "00000000")), /does not match its public key/);
  assert.throws(() => parseCosignerVkey("nonsense"), /malformed/);
  assert.throws(() => parseCosignerKey("PRIVATE+KEY+x+00000000+AAAA"), /malformed/);
});
