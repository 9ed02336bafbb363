import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { IntegrityError, Invalid, NotFound } from "../../src/core/errors.ts";
import { signCheckpoint } from "../../src/ledger/checkpoint.ts";
import { signerFromSeed } from "../../src/ledger/note.ts";
import {
  assertTimestampCovers,
  buildTimeStampRequest,
  encodeTimestampRequest,
  parseTimestampToken,
  requestTimestamp,
  verifyTimestampWithOpenSSL,
} from "../../src/ledger/timestamp.ts";
import { TEST_TSA_POLICY, haveOpenssl, startTestTsa, type TestTsa } from "../support/tsa.ts";

const execFileP = promisify(execFile);

// Under CI the authority must run: a missing openssl is a failure there, not a skip.
const skip = !(await haveOpenssl()) && process.env.CI !== "true" ? "openssl is not installed" : false;

const signer = signerFromSeed("example.org/dalil-test-log", Buffer.alloc(32, 7));
const note = Buffer.from(signCheckpoint({ origin: signer.name, size: 42, rootHash: Buffer.alloc(32, 0xab), extensions: [] }, [signer]), "utf8");
const sha256 = (b: Buffer): Buffer => createHash("sha256").update(b).digest();

let tsa: TestTsa;
let other: TestTsa;
let tmp: string;

before(async () => {
  if (skip) return;
  [tsa, other] = await Promise.all([startTestTsa(), startTestTsa({ name: "other" })]);
  tmp = mkdtempSync(join(tmpdir(), "dalil-ts-test-"));
});

after(async () => {
  if (skip) return;
  await Promise.all([tsa.stop(), other.stop()]);
  rmSync(tmp, { recursive: true, force: true });
});

async function openssl(args: string[]): Promise<string> {
  const { stdout } = await execFileP("openssl", args);
  return stdout;
}

test("the request is byte for byte what openssl ts -query writes for the same digest and nonce", { skip }, async () => {
  const dataFile = join(tmp, "note.txt");
  writeFileSync(dataFile, note);
  const tsq = join(tmp, "openssl.tsq");
  await openssl(["ts", "-query", "-data", dataFile, "-sha256", "-cert", "-out", tsq]);
  const theirs = readFileSync(tsq);
  const text = await openssl(["ts", "-query", "-in", tsq, "-text"]);
  const nonceHex = /Nonce: 0x([0-9A-F]+)/.exec(text)?.[1];
  assert.ok(nonceHex, text);
  const ours = buildTimeStampRequest(note, { nonce: Buffer.from(nonceHex.length % 2 ? `0${nonceHex}` : nonceHex, "hex") });
  assert.deepEqual(ours.digest, sha256(note));
  assert.equal(ours.der.toString("hex"), theirs.toString("hex"));
});

test("a request openssl reads back: SHA-256 imprint, 64-bit nonce, certificate requested", { skip }, async () => {
  const req = buildTimeStampRequest(note);
  assert.equal(req.nonce.length, 8);
  assert.notDeepEqual(buildTimeStampRequest(note).nonce, req.nonce);
  const file = join(tmp, "ours.tsq");
  writeFileSync(file, req.der);
  const text = await openssl(["ts", "-query", "-in", file, "-text"]);
  assert.match(text, /Version: 1/);
  assert.match(text, /Hash Algorithm: sha256/);
  assert.match(text, /Certificate required: yes/);
  const nonce = /Nonce: 0x([0-9A-F]+)/.exec(text)?.[1] ?? "";
  assert.equal(BigInt(`0x${nonce}`), BigInt(`0x${req.nonce.toString("hex")}`));
  const hexDump = [...text.matchAll(/^\s+00[0-9a-f]0 - (.*?)\s{3}/gm)].map((m) => (m[1] ?? "").replace(/[ -]/g, "")).join("");
  assert.equal(hexDump, req.digest.toString("hex"));

  // A nonce with its top bit set is still a positive INTEGER (a leading zero byte), and certReq false is omitted.
  const high = buildTimeStampRequest(note, { nonce: Buffer.from("ff00000000000001", "hex"), certReq: false });
  writeFileSync(file, high.der);
  const text2 = await openssl(["ts", "-query", "-in", file, "-text"]);
  assert.match(text2, /Nonce: 0xFF00000000000001/);
  assert.match(text2, /Certificate required: no/);
  assert.ok(high.der.toString("hex").endsWith("020900ff00000000000001"), high.der.toString("hex"));
});

test("a checkpoint note timestamped by the local authority: parsed, and verified by openssl ts -verify", { skip }, async () => {
  const before = Date.now();
  const result = await requestTimestamp(tsa.url, note);
  const info = parseTimestampToken(result.token);
  assert.equal(info.genTime, result.genTime);
  assert.equal(info.serial, result.serial);
  assert.equal(info.policy, TEST_TSA_POLICY);
  assert.equal(result.policy, TEST_TSA_POLICY);
  assert.equal(info.hashAlgorithm, "sha256");
  assert.deepEqual(info.digest, sha256(note));
  assert.equal(info.tsaName, "CN=dalil test TSA,O=dalil tests");
  // genTime has whole seconds from this TSA: allow for the truncation.
  const t = Date.parse(info.genTime);
  assert.ok(t >= before - 2000 && t <= Date.now() + 1000, `genTime ${info.genTime} is not close to now`);

  // The parser agrees with OpenSSL's own reading of the same token.
  const tokenFile = join(tmp, "token.tst");
  writeFileSync(tokenFile, result.token);
  const text = await openssl(["ts", "-reply", "-in", tokenFile, "-token_in", "-text"]);
  assert.match(text, new RegExp(`Serial number: ${info.serial}\\n`));
  assert.match(text, /TSA: DirName:\/O=dalil tests\/CN=dalil test TSA/);
  const printed = /Time stamp: (.*)\n/.exec(text)?.[1] ?? "";
  assert.equal(Date.parse(printed), t);

  const verified = await verifyTimestampWithOpenSSL(result.token, note, tsa.caFile);
  assert.equal(verified.ok, true, verified.output);
  assert.match(verified.output, /Verification: OK/);
  // At genTime, as a verifier would check it once the TSA certificate has expired.
  assert.equal((await verifyTimestampWithOpenSSL(result.token, note, tsa.caFile, { attime: new Date(t) })).ok, true);
  const late = await verifyTimestampWithOpenSSL(result.token, note, tsa.caFile, { attime: new Date(t + 20 * 365 * 86_400_000) });
  assert.equal(late.ok, false);
  assert.match(late.output, /certificate has expired/);
  assert.deepEqual(assertTimestampCovers(result.token, note).digest, info.digest);
});

test("openssl ts -verify fails for data changed by one byte, for another CA, and for a token changed by one byte", { skip }, async () => {
  const { token } = await requestTimestamp(tsa.url, note);
  const changed = Buffer.from(note);
  changed[3] = (changed[3] as number) ^ 0x01;
  const wrongData = await verifyTimestampWithOpenSSL(token, changed, tsa.caFile);
  assert.equal(wrongData.ok, false);
  assert.match(wrongData.output, /message imprint mismatch/);
  assert.throws(() => assertTimestampCovers(token, changed), IntegrityError);

  const wrongCa = await verifyTimestampWithOpenSSL(token, note, other.caFile);
  assert.equal(wrongCa.ok, false);
  assert.match(wrongCa.output, /Verification: FAILED/);

  // Flip a byte of the signature (the token's last bytes): structure intact, signature not.
  const tampered = Buffer.from(token);
  tampered[tampered.length - 5] = (tampered[tampered.length - 5] as number) ^ 0x01;
  assert.equal((await verifyTimestampWithOpenSSL(tampered, note, tsa.caFile)).ok, false);

  // A token from the other authority verifies with its own CA only.
  const fromOther = await requestTimestamp(other.url, note);
  assert.equal((await verifyTimestampWithOpenSSL(fromOther.token, note, other.caFile)).ok, true);
  assert.equal((await verifyTimestampWithOpenSSL(fromOther.token, note, tsa.caFile)).ok, false);

  await assert.rejects(verifyTimestampWithOpenSSL(token, note, join(tmp, "no-such-ca.pem")), NotFound);
});

test("serial numbers differ from token to token", { skip }, async () => {
  const a = await requestTimestamp(tsa.url, note);
  const b = await requestTimestamp(tsa.url, note);
  assert.notEqual(a.serial, b.serial);
  assert.match(a.serial, /^0x([0-9A-F]{2})+$/);
});

test("a misbehaving authority's reply is refused with a sentence saying why", { skip }, async (t) => {
  const cases: Array<[Parameters<TestTsa["setMode"]>[0], new (...a: never[]) => Error, RegExp, { timeoutMs?: number; maxBytes?: number }?]> = [
    ["wrong-nonce", IntegrityError, /nonce does not match the request's .*not kept/],
    ["wrong-imprint", IntegrityError, /different message imprint .*not kept/],
    ["no-cert", Invalid, /did not include its certificate/],
    ["reject", Invalid, /did not grant a timestamp: rejection \(badAlg .*"test authority refuses"\)/],
    ["wrong-content-type", Invalid, /content type text\/html, not application\/timestamp-reply/],
    ["oversize", Invalid, /more than the 65536 bytes accepted/, { maxBytes: 65536 }],
    ["http-500", Invalid, /answered HTTP 500/],
    ["hang", Invalid, /did not answer within 300 ms/, { timeoutMs: 300 }],
  ];
  try {
    for (const [mode, cls, message, opts] of cases) {
      await t.test(mode, async () => {
        tsa.setMode(mode);
        await assert.rejects(requestTimestamp(tsa.url, note, opts), (err: unknown) => {
          assert.ok(err instanceof cls, `${mode}: ${String(err)}`);
          assert.match((err as Error).message, message);
          return true;
        });
      });
    }
  } finally {
    tsa.setMode("normal");
  }
  // And the same authority, behaving again, works.
  assert.ok((await requestTimestamp(tsa.url, note)).token.length > 0);
});

test("an unreachable authority or a bad address gives a clear sentence", async () => {
  const port = await new Promise<number>((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
  await assert.rejects(requestTimestamp(`http://127.0.0.1:${port}/tsa`, note), (err: unknown) => {
    assert.ok(err instanceof Invalid);
    assert.match(err.message, new RegExp(`Could not reach the timestamp authority at http://127.0.0.1:${port}/tsa \\(ECONNREFUSED\\); check DALIL_TSA_URL`));
    return true;
  });
  await assert.rejects(requestTimestamp("not a url", note), /is not a URL; set DALIL_TSA_URL/);
  await assert.rejects(requestTimestamp("ftp://tsa.example/", note), /must be http:\/\/ or https:\/\//);
});

test("malformed tokens are refused, not guessed at", { skip }, async () => {
  const { token } = await requestTimestamp(tsa.url, note);
  assert.throws(() => parseTimestampToken(Buffer.concat([token, Buffer.from([0])])), /trailing bytes/);
  assert.throws(() => parseTimestampToken(token.subarray(0, token.length - 1)), Invalid);
  assert.throws(() => parseTimestampToken(Buffer.from("not DER at all")), Invalid);
  // The request is not a token either.
  assert.throws(() => parseTimestampToken(encodeTimestampRequest(sha256(note), Buffer.from([1]))), /not a well-formed RFC 3161 structure/);
});
