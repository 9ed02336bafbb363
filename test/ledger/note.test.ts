import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { IntegrityError, Invalid } from "../../src/core/errors.ts";
import {
  decodeBase64Strict,
  generateSigner,
  keyIdFor,
  newSigner,
  newVerifier,
  openNote,
  signNote,
  signerFromSeed,
  verifierKeyFor,
} from "../../src/ledger/note.ts";

interface NoteVectors {
  official: { vkey: string; note: string };
  deterministicCheckpoint: {
    ed25519SeedHex: string;
    publicKeyHex: string;
    keyName: string;
    keyIdHex: string;
    vkey: string;
    checkpointText: string;
    signedCheckpoint: string;
  };
}
const v = (JSON.parse(readFileSync(new URL("../fixtures/merkle-vectors.json", import.meta.url), "utf8")) as { signedNote: NoteVectors }).signedNote;
const det = v.deterministicCheckpoint;
// The vector's seed field carries a note after the 64 hex digits.
const seed = Buffer.from(det.ed25519SeedHex.slice(0, 64), "hex");
const signer = signerFromSeed(det.keyName, seed);
const verifier = newVerifier(det.vkey);

test("the official C2SP example note verifies", () => {
  const opened = openNote(v.official.note, [newVerifier(v.official.vkey)]);
  assert.equal(opened.text, "This is an example message.\n");
  assert.deepEqual(opened.verified.map((s) => s.name), ["example.com/foo"]);
  assert.equal(opened.verified[0]?.keyId, 0x530d903a);
});

test("deterministic checkpoint: key, key ID, vkey and signature byte for byte", () => {
  assert.equal(signer.publicKey.toString("hex"), det.publicKeyHex);
  assert.equal(keyIdFor(det.keyName, signer.publicKey).toString(16).padStart(8, "0"), det.keyIdHex);
  assert.equal(verifierKeyFor(det.keyName, signer.publicKey), det.vkey);
  assert.equal(signNote(det.checkpointText, [signer]), det.signedCheckpoint);
  assert.equal(openNote(det.signedCheckpoint, [verifier]).text, det.checkpointText);
  assert.equal(openNote(Buffer.from(det.signedCheckpoint, "utf8"), [verifier]).text, det.checkpointText);
});

test("key strings round-trip in Go's format", () => {
  const { signerKey, verifierKey } = generateSigner("archive.example/log");
  assert.match(signerKey, /^PRIVATE\+KEY\+archive\.example\/log\+[0-9a-f]{8}\+[A-Za-z0-9+/]{44}$/);
  assert.match(verifierKey, /^archive\.example\/log\+[0-9a-f]{8}\+[A-Za-z0-9+/]{44}$/);
  const s = newSigner(signerKey);
  const vk = newVerifier(verifierKey);
  assert.equal(s.keyId, vk.keyId);
  assert.equal(verifierKeyFor(s.name, s.publicKey), verifierKey);
  const signed = signNote("hello\n", [s]);
  assert.equal(openNote(signed, [vk]).text, "hello\n");
  // The deterministic key as a signer string: base64(0x01 ‖ seed).
  const detSigner = newSigner(`PRIVATE+KEY+${det.keyName}+${det.keyIdHex}+${Buffer.concat([Buffer.from([1]), seed]).toString("base64")}`);
  assert.equal(signNote(det.checkpointText, [detSigner]), det.signedCheckpoint);
});

test("bad key strings are refused with a reason", () => {
  const name = det.keyName;
  const id = det.keyIdHex;
  const key = det.vkey.slice(name.length + id.length + 2); // base64 may itself contain "+"
  assert.throws(() => newVerifier(`${name}+00000000+${key}`), /does not match/);
  assert.throws(() => newVerifier(`${name}+${id}`), Invalid);
  assert.throws(() => newVerifier(`bad name+${id}+${key}`), Invalid);
  assert.throws(() => newVerifier(`${name}+${id}+${key.slice(0, -2)}`), Invalid);
  const otherAlg = Buffer.from(key, "base64");
  otherAlg[0] = 2;
  assert.throws(() => newVerifier(`${name}+${id}+${otherAlg.toString("base64")}`), /algorithm/);
  assert.throws(() => newSigner(det.vkey), /malformed/);
  assert.throws(() => newSigner(`PRIVATE+KEY+${det.keyName}+00000000+${Buffer.concat([Buffer.from([1]), seed]).toString("base64")}`), /does not match/);
  assert.throws(() => generateSigner("has+plus"), Invalid);
});

test("unknown keys are ignored; a failing known key rejects; no known key rejects", () => {
  const other = signerFromSeed("witness.example/w1", Buffer.alloc(32, 7));
  const sameNameOtherKey = signerFromSeed(det.keyName, Buffer.alloc(32, 9));
  const both = signNote(det.checkpointText, [other, signer]);
  const opened = openNote(both, [verifier]);
  assert.deepEqual(opened.verified.map((s) => s.name), [det.keyName]);
  assert.deepEqual(opened.unverified.map((s) => s.name), ["witness.example/w1"]);
  // Same name, different key ID: unknown, ignored.
  assert.equal(openNote(signNote(det.checkpointText, [sameNameOtherKey, signer]), [verifier]).verified.length, 1);
  assert.throws(() => openNote(signNote(det.checkpointText, [sameNameOtherKey]), [verifier]), IntegrityError);
  assert.throws(() => openNote(signNote(det.checkpointText, [other]), [verifier]), /not signed by any trusted key/);

  // A known key whose signature fails: altered text, or a signature line moved under another note.
  const altered = det.signedCheckpoint.replace("\n8\n", "\n9\n");
  assert.throws(() => openNote(altered, [verifier]), /does not verify/);
  const sig = Buffer.from(det.signedCheckpoint.split(" ").pop() as string, "base64");
  sig[10] = (sig[10] as number) ^ 1;
  const flipped = `${det.checkpointText}\n— ${det.keyName} ${sig.toString("base64")}\n`;
  assert.throws(() => openNote(flipped, [verifier]), IntegrityError);
  // Even alongside a valid signature from the same key, a bad one rejects the note.
  assert.throws(() => openNote(`${det.signedCheckpoint}— ${det.keyName} ${sig.toString("base64")}\n`, [verifier]), IntegrityError);
});

test("strict parsing of signed notes", () => {
  const good = det.signedCheckpoint;
  const sigLine = good.slice(good.indexOf("\n\n") + 2);
  const bad: Array<[string, string]> = [
    [good.slice(0, -1), "no final newline"],
    [good.replace("\u2014 ", "- "), "hyphen instead of em dash"],
    [good.replace("\u2014 ", "\u2013 "), "en dash"],
    [good.replace("\u2014 ", "\u2014"), "no space after the dash"],
    [good.replace("\n\n", "\n"), "no blank line"],
    [good.replace("\n\n", "\n\n\n"), "two blank lines"],
    [`${good}\n`, "blank line after the signatures"],
    [`\n${good}`, "blank line before the text"],
    [good.replace("example.org", "example.org\t"), "control character"],
    [good.replace("example.org", "example.org\r"), "carriage return"],
    [`${det.checkpointText}\n— ${det.keyName}\n`, "no signature"],
    [`${det.checkpointText}\n— ${det.keyName} AAAA\n`, "signature too short"],
    [`${det.checkpointText}\n— ${det.keyName} ${sigLine.split(" ").pop()?.replace("=", "") ?? ""}`, "unpadded base64"],
    [`${det.checkpointText}\n— ${det.keyName}  ${sigLine.split(" ").pop() ?? ""}`, "two spaces"],
    [`${det.checkpointText}\n`, "no signature lines"],
    [`${det.checkpointText}\n\n`, "no signature lines (blank)"],
  ];
  for (const [text, why] of bad) assert.throws(() => openNote(text, [verifier]), Invalid, why);
  assert.throws(() => openNote(Buffer.from([0x61, 0x0a, 0x0a, 0xff, 0x0a]), [verifier]), /UTF-8/);
  // Interior blank lines are allowed by signed-note; the split is at the last one.
  const multi = signNote("a\n\nb\n", [signer]);
  assert.equal(openNote(multi, [verifier]).text, "a\n\nb\n");
});

test("signNote refuses text it could not be opened from", () => {
  for (const text of ["", "no newline", "\nleading blank\n", "trailing blank\n\n", "tab\there\n"]) {
    assert.throws(() => signNote(text, [signer]), Invalid, JSON.stringify(text));
  }
  assert.throws(() => signNote("x\n", []), Invalid);
});

test("strict base64", () => {
  assert.deepEqual(decodeBase64Strict("AAEC"), Buffer.from([0, 1, 2]));
  assert.deepEqual(decodeBase64Strict(""), Buffer.alloc(0));
  // Unpadded, trailing junk, URL alphabet, spaces, and non-zero padding bits (non-canonical) are all refused.
  for (const s of ["AAE", "AAE=x", "AA-_", "AAE C", "AAF=", "AB=="]) assert.equal(decodeBase64Strict(s), null, s);
});
