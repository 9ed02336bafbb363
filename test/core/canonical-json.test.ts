import { test } from "node:test";
import assert from "node:assert/strict";
import { canonicalJson } from "../../src/core/canonical-json.ts";

/**
 * Canonical JSON (RFC 8785) is the custody log's leaf format: one changed byte is a different leaf. canonicalJson
 * writes a value already in canonical order with JSON.stringify alone; these tests hold both of its paths to the
 * RFC's own examples and to a plain reference implementation over many random values.
 */

/** RFC 8785 by the letter: keys sorted by UTF-16 code units at every level, undefined members left out. */
function reference(v: unknown): string {
  if (v === null) return "null";
  if (typeof v === "boolean") return v ? "true" : "false";
  if (typeof v === "number") {
    if (!Number.isFinite(v)) throw new TypeError("not finite");
    return Object.is(v, -0) ? "0" : String(v);
  }
  if (typeof v === "string") return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(reference).join(",")}]`;
  if (typeof v === "object") {
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${keys.map((k) => `${JSON.stringify(k)}:${reference(o[k])}`).join(",")}}`;
  }
  throw new TypeError(`cannot hold ${typeof v}`);
}

test("RFC 8785's examples: key order by UTF-16 code units, numbers and string escapes", () => {
  // §3.2.3: the sorting example (a surrogate pair sorts by its code units, before U+FB33)
  const sorting = { "\u20ac": "Euro Sign", "\r": "Carriage Return", "\ufb33": "Hebrew Letter Dalet With Dagesh", "1": "One", "\ud83d\ude00": "Emoji: Grinning Face", "\u0080": "Control", "\u00f6": "Latin Small Letter O With Diaeresis" };
  assert.deepEqual(
    [...canonicalJson(sorting).matchAll(/"((?:[^"\\]|\\.)*)":/g)].map((m) => JSON.parse(`"${m[1]!}"`) as string),
    ["\r", "1", "\u0080", "\u00f6", "\u20ac", "\ud83d\ude00", "\ufb33"],
  );
  // §3.2.2: numbers in their shortest form, strings with JSON's minimal escapes
  const example = {
    // the RFC's own literal: it has more digits than a double holds, which is the point of the example
    // eslint-disable-next-line no-loss-of-precision
    numbers: [333333333.33333329, 1e30, 4.5, 2e-3, 0.000000000000000000000000001],
    string: "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"/",
    literals: [null, true, false],
  };
  assert.equal(canonicalJson(example), String.raw`{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`);
});

test("a value already in canonical order and one that is not give the same bytes", () => {
  const sorted = { a: 1, b: { c: [1, -0, "x"], d: null }, e: "é" };
  const unsorted = { e: "é", b: { d: null, c: [1, -0, "x"] }, a: 1 };
  assert.equal(canonicalJson(sorted), '{"a":1,"b":{"c":[1,0,"x"],"d":null},"e":"é"}');
  assert.equal(canonicalJson(unsorted), canonicalJson(sorted));
});

test("keys that look like array indexes are ordered as strings, not as JavaScript orders them", () => {
  // JavaScript keeps "9" before "10" whatever the insertion order; RFC 8785 wants "10" first.
  assert.equal(canonicalJson({ "10": "b", "9": "a" }), '{"10":"b","9":"a"}');
  assert.equal(canonicalJson({ x: { "2": 1, "10": 2, a: 3 } }), '{"x":{"10":2,"2":1,"a":3}}');
});

test("what canonical JSON cannot hold is refused on either path", () => {
  assert.throws(() => canonicalJson({ a: Number.NaN }), /NaN or Infinity/);
  assert.throws(() => canonicalJson({ b: 1, a: Infinity }), /NaN or Infinity/);
  assert.throws(() => canonicalJson({ a: [1, undefined] }), /cannot hold a undefined/);
  assert.throws(() => canonicalJson({ a: () => 1 }), /cannot hold a function/);
  assert.throws(() => canonicalJson({ a: 1n }), /cannot hold a bigint/);
  // members that are undefined are left out, as JSON does
  assert.equal(canonicalJson({ a: undefined, b: 1 }), '{"b":1}');
  // a Date is an object with no own keys here, on either path, as before
  assert.equal(canonicalJson({ a: new Date(0) }), '{"a":{}}');
});

test("many random values: the same bytes as the reference implementation", () => {
  let seed = 20261205;
  const rnd = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const KEYS = ["a", "b", "z", "A", "é", "\u20ac", "\ud83d\ude00", "1", "10", "9", "1a", "", "_", "aa", "ab", "detail", "id"];
  const STRINGS = ["", "x", "é ش", "\u0000\u001f", '"\\', "\ud800", "line\nbreak", "مرحبا"];
  const NUMBERS = [0, -0, 1, -1, 0.1, 1e21, 1e-7, 123456789012, 5e-324, 2 ** 53];
  const value = (depth: number): unknown => {
    const k = rnd(depth > 3 ? 5 : 8);
    if (k === 0) return null;
    if (k === 1) return rnd(2) === 0;
    if (k === 2) return NUMBERS[rnd(NUMBERS.length)];
    if (k === 3 || k === 4) return STRINGS[rnd(STRINGS.length)];
    if (k === 5) return Array.from({ length: rnd(4) }, () => value(depth + 1));
    const keys = Array.from({ length: rnd(5) }, () => KEYS[rnd(KEYS.length)]!);
    // half the objects are built in sorted order, so the fast path is taken wherever it may be
    if (rnd(2) === 0) keys.sort();
    const o: Record<string, unknown> = {};
    for (const key of keys) o[key] = rnd(10) === 0 ? undefined : value(depth + 1);
    return o;
  };
  for (let i = 0; i < 5000; i++) {
    const v = { ...(value(0) as object), n: i };
    assert.equal(canonicalJson(v), reference(v), JSON.stringify(v));
  }
});
