/**
 * Canonical JSON per RFC 8785 (JCS) for the values the archive serialises: objects with string keys, arrays,
 * strings, finite numbers, booleans and null. Keys are sorted by UTF-16 code units; strings use JSON.stringify's
 * escaping, which matches JCS (ES2019 well-formed JSON.stringify); numbers use ECMAScript's shortest form.
 * A verifier in another language reproduces these bytes with any JCS library.
 */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export function canonicalJson(value: unknown): string {
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

export function canonicalBytes(value: unknown): Buffer {
  return Buffer.from(canonicalJson(value), "utf8");
}
