/** The parsed view made JSON-safe: bounded strings, arrays and depth, no prototype keys. */
import { Collector, bytesNote, MAX_ARRAY, MAX_PARSED_STRING, RESERVED_KEYS, type Json, type Obj } from "./text.ts";

export function toJson(v: unknown, path: string, p: Collector, depth = 0): Json | undefined {
  if (depth > 16) {
    p.add(`The metadata at ${path} is nested too deeply; it was cut.`);
    return undefined;
  }
  if (v === null || v === undefined) return v === null ? null : undefined;
  if (typeof v === "string") {
    if (v.includes("\uFFFD")) p.add(`The metadata field ${path} holds bytes that are not valid text; they were replaced.`);
    if (v.length > MAX_PARSED_STRING) {
      p.add(`The metadata field ${path} is ${v.length} characters long; the parsed view keeps the first ${MAX_PARSED_STRING}.`);
      return `${v.slice(0, MAX_PARSED_STRING)}…`;
    }
    return v;
  }
  if (typeof v === "number") {
    if (Number.isFinite(v)) return v;
    p.add(`The metadata field ${path} is not a finite number (a zero denominator?); it is shown as null.`);
    return null;
  }
  if (typeof v === "boolean") return v;
  if (typeof v === "bigint") return v.toString();
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? null : v.toISOString();
  if (v instanceof Uint8Array) return bytesNote(v, "raw");
  if (ArrayBuffer.isView(v) || Array.isArray(v)) {
    const arr = Array.from(v as ArrayLike<unknown>);
    if (arr.length > MAX_ARRAY) {
      p.add(`The metadata field ${path} has ${arr.length} values; the parsed view keeps the first ${MAX_ARRAY}.`);
    }
    const out: Json[] = [];
    for (let i = 0; i < Math.min(arr.length, MAX_ARRAY); i++) {
      const x = toJson(arr[i], `${path}[${i}]`, p, depth + 1);
      out.push(x === undefined ? null : x);
    }
    return out;
  }
  if (typeof v === "object") {
    const out: { [k: string]: Json } = {};
    for (const k of Object.keys(v)) {
      if (RESERVED_KEYS.has(k)) {
        p.add(`A metadata field named "${k}" at ${path} was dropped (the name is reserved).`);
        continue;
      }
      const x = toJson((v as Obj)[k], path ? `${path}.${k}` : k, p, depth + 1);
      if (x !== undefined) out[k] = x;
    }
    return out;
  }
  return String(v);
}

export function str(v: Json | undefined): string | undefined {
  if (typeof v === "number") return String(v);
  if (typeof v !== "string") return undefined;
  const s = v.trim();
  return s === "" ? undefined : s;
}

export function get(o: Json | undefined, ...path: string[]): Json | undefined {
  let cur: Json | undefined = o;
  for (const k of path) {
    if (typeof cur !== "object" || cur === null || Array.isArray(cur)) return undefined;
    cur = Object.prototype.hasOwnProperty.call(cur, k) ? cur[k] : undefined;
  }
  return cur;
}
