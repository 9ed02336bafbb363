import { test } from "node:test";
import assert from "node:assert/strict";
import {
  DerError,
  Fields,
  Tag,
  childrenOf,
  derBoolean,
  derInteger,
  derOid,
  derSequence,
  derTlv,
  readBoolean,
  readDer,
  readGeneralizedTime,
  readInteger,
  readOid,
  readString,
} from "../../src/ledger/asn1.ts";

const hex = (s: string): Buffer => Buffer.from(s.replace(/\s/g, ""), "hex");

test("integers: minimal two's complement both ways", () => {
  const cases: Array<[bigint, string]> = [
    [0n, "020100"],
    [1n, "020101"],
    [127n, "02017f"],
    [128n, "02020080"],
    [255n, "020200ff"],
    [256n, "02020100"],
    [-1n, "0201ff"],
    [-128n, "020180"],
    [-129n, "0202ff7f"],
    [2n ** 64n - 1n, "020900ffffffffffffffff"],
  ];
  for (const [n, der] of cases) {
    assert.equal(derInteger(n).toString("hex"), der, String(n));
    assert.equal(readInteger(readDer(hex(der)), "n"), n);
  }
  // Unsigned magnitude bytes (nonces): leading zeros dropped, a zero byte added when the top bit is set.
  assert.equal(derInteger(hex("0000ff")).toString("hex"), "020200ff");
  for (const bad of ["0200", "02020001", "0202ff80"]) {
    assert.throws(() => readInteger(readDer(hex(bad)), "n"), DerError, bad);
  }
});

test("object identifiers match their well-known encodings", () => {
  const cases: Array<[string, string]> = [
    ["2.16.840.1.101.3.4.2.1", "0609608648016503040201"],
    ["1.2.840.113549.1.9.16.1.4", "060b2a864886f70d0109100104"],
    ["1.3.14.3.2.26", "06052b0e03021a"],
    ["2.999.3", "0603883703"],
  ];
  for (const [oid, der] of cases) {
    assert.equal(derOid(oid).toString("hex"), der, oid);
    assert.equal(readOid(readDer(hex(der)), "oid"), oid);
  }
  assert.throws(() => readOid(readDer(hex("0603808001")), "oid"), /non-minimal/);
  assert.throws(() => readOid(readDer(hex("06022a86")), "oid"), /ends inside/);
  assert.throws(() => derOid("1.40"), DerError);
});

test("lengths must be definite and minimal, and nothing may trail", () => {
  const long = derTlv(Tag.OCTET_STRING, Buffer.alloc(300));
  assert.equal(long.subarray(0, 4).toString("hex"), "0482012c");
  assert.equal(readDer(long).value.length, 300);
  assert.throws(() => readDer(hex("3080 0500 0000")), /indefinite/);
  assert.throws(() => readDer(hex("048105")), /short form/);
  assert.throws(() => readDer(hex("04820005 0000000000")), /not minimally/);
  assert.throws(() => readDer(hex("0405 0000")), /runs past/);
  assert.throws(() => readDer(hex("0500 00")), /trailing/);
  assert.throws(() => readDer(hex("1f2100")), /multi-byte tag/);
  assert.throws(() => childrenOf(readDer(hex("3003 050005"))), DerError);
});

test("booleans, times and strings are read as DER allows them only", () => {
  assert.equal(readBoolean(readDer(derBoolean(true)), "b"), true);
  assert.equal(readBoolean(readDer(hex("010100")), "b"), false);
  assert.throws(() => readBoolean(readDer(hex("010101")), "b"), DerError);

  const time = (s: string): Buffer => derTlv(Tag.GENERALIZED_TIME, Buffer.from(s, "latin1"));
  assert.equal(readGeneralizedTime(readDer(time("20260301123456Z")), "t"), "2026-03-01T12:34:56Z");
  assert.equal(readGeneralizedTime(readDer(time("20260301123456.125Z")), "t"), "2026-03-01T12:34:56.125Z");
  for (const bad of ["20260301123456.120Z", "20260301123456", "20260301123456+0100", "20260230123456Z", "2026030112Z", "20260301123456.Z"]) {
    assert.throws(() => readGeneralizedTime(readDer(time(bad)), "t"), DerError, bad);
  }

  assert.equal(readString(readDer(derTlv(Tag.UTF8_STRING, Buffer.from("دليل"))), "s"), "دليل");
  assert.equal(readString(readDer(derTlv(Tag.BMP_STRING, hex("00410628"))), "s"), "A\u0628");
  assert.throws(() => readString(readDer(derTlv(Tag.UTF8_STRING, hex("c328"))), "s"), /UTF-8/);
});

test("Fields walks required and optional fields and refuses leftovers", () => {
  const seq = readDer(derSequence(derInteger(1n), derBoolean(true), derInteger(5n)));
  const f = new Fields(seq, "Thing");
  assert.equal(readInteger(f.next(Tag.INTEGER, "version"), "v"), 1n);
  assert.equal(f.optional(Tag.OID), undefined);
  assert.ok(f.optional(Tag.BOOLEAN));
  assert.throws(() => f.end(), /1 unexpected trailing/);
  f.next(Tag.INTEGER, "n");
  f.end();
  assert.throws(() => new Fields(seq, "Thing").next(Tag.OID, "oid"), /Thing's oid has tag 0x02, expected 0x06/);
  assert.throws(() => new Fields(readDer(derSequence()), "Empty").next(Tag.INTEGER, "x"), /Empty ends before its x/);
});
