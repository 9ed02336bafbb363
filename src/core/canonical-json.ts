/**
 * Canonical JSON per RFC 8785 (JCS) for the values the archive serialises: objects with string keys, arrays,
 * strings, finite numbers, booleans and null. Keys are sorted by UTF-16 code units; strings use JSON.stringify's
 * escaping, which matches JCS (ES2019 well-formed JSON.stringify); numbers use ECMAScript's shortest form.
 * A verifier in another language reproduces these bytes with any JCS library.
 */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export function canonicalJson(value: unknown): string {
  // A value already in canonical order (plain objects with their keys sorted, as the custody log builds its events)
  // is written by JSON.stringify alone, whose output then is the canonical one: the same escaping (ES2019), the same
  // shortest numbers, -0 as 0, and no other key order to apply.
  if (typeof value === "object" && value !== null && inCanonicalOrder(value)) return JSON.stringify(value);
  if (value === null) return "null";
  switch (typeof value) {
    case "boolean":
      return value ? "true" : "false";
    case "number":
      if (!Number.isFinite(value)) throw new TypeError("canonical JSON cannot hold NaN or Infinity");
      return Object.is(value, -0) ? "0" : String(value);
    case "string":
      return JSON.stringify(value);
    case "object": {
      // Built by concatenation, not map/join: the custody log serialises every event this way (a hot path).
      if (Array.isArray(value)) {
        let out = "[";
        for (let i = 0; i < value.length; i++) out += (i ? "," : "") + canonicalJson(value[i]);
        return `${out}]`;
      }
      const obj = value as Record<string, unknown>;
      // sort() without a comparator orders strings by UTF-16 code units, as RFC 8785 asks.
      const keys = Object.keys(obj).sort();
      let out = "{";
      let first = true;
      for (const k of keys) {
        const v = obj[k];
        if (v === undefined) continue;
        out += `${first ? "" : ","}${JSON.stringify(k)}:${canonicalJson(v)}`;
        first = false;
      }
      return `${out}}`;
    }
    default:
      throw new TypeError(`canonical JSON cannot hold a ${typeof value}`);
  }
}

/**
 * Whether JSON.stringify of v gives its canonical form: only plain objects and arrays, finite numbers, strings,
 * booleans and null (no undefined in an array: JSON.stringify would write null where canonicalJson refuses); every
 * object's keys, in the order JSON.stringify takes them (which puts index-like keys first), in UTF-16 order.
 */
function inCanonicalOrder(v: unknown): boolean {
  switch (typeof v) {
    case "string":
    case "boolean":
      return true;
    case "number":
      return Number.isFinite(v);
    case "object": {
      if (v === null) return true;
      if (Array.isArray(v)) {
        for (let i = 0; i < v.length; i++) if (!inCanonicalOrder(v[i])) return false;
        return true;
      }
      const proto = Object.getPrototypeOf(v) as unknown;
      if (proto !== Object.prototype && proto !== null) return false;
      const obj = v as Record<string, unknown>;
      let prev: string | undefined;
      for (const k in obj) {
        if (!Object.hasOwn(obj, k)) return false;
        if (prev !== undefined && !(prev < k)) return false;
        prev = k;
        const x = obj[k];
        if (x !== undefined && !inCanonicalOrder(x)) return false;
      }
      return true;
    }
    default:
      return false;
  }
}

export function canonicalBytes(value: unknown): Buffer {
  return Buffer.from(canonicalJson(value), "utf8");
}
