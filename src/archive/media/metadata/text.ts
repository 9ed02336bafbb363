/** Limits, the problem collector and text decoding shared by the metadata parsers. */

/** Longest string kept in `parsed`; the full value stays in `raw` and in the original. */
export const MAX_PARSED_STRING = 4096;
/** Longest binary value shown as hex in `parsed`. */
export const MAX_HEX_BYTES = 64;
export const MAX_ARRAY = 1024;
export const MAX_XMP_CHARS = 2_000_000;
export const MAX_XML_DEPTH = 64;
export const MAX_XML_NODES = 50_000;
export const RESERVED_KEYS = new Set(["__proto__", "constructor", "prototype"]);

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
export type Obj = Record<string, unknown>;

export class Collector {
  readonly problems: string[] = [];
  private readonly seen = new Set<string>();
  add(sentence: string): void {
    if (this.problems.length >= 200 || this.seen.has(sentence)) return;
    this.seen.add(sentence);
    this.problems.push(sentence);
  }
}

export const utf8Strict = new TextDecoder("utf-8", { fatal: true });
export const utf8Loose = new TextDecoder("utf-8");

export function decodeUtf8(bytes: Uint8Array, what: string, p: Collector): string {
  try {
    return utf8Strict.decode(bytes);
  } catch {
    p.add(`${what} is not valid UTF-8; the undecodable bytes were replaced in the parsed view.`);
    return utf8Loose.decode(bytes);
  }
}

export function latin1(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");
}

export function printable(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/[\u0000-\u001f\u007f-\u009f]/g, "?");
}

export function hex(n: number, width = 4): string {
  return `0x${n.toString(16).padStart(width, "0")}`;
}

export function stripNul(s: string): string {
  let end = s.length;
  while (end > 0 && s.charCodeAt(end - 1) === 0) end--;
  return s.slice(0, end);
}

export function bytesNote(bytes: Uint8Array, where: string): string {
  if (bytes.length <= MAX_HEX_BYTES) return Buffer.from(bytes).toString("hex");
  return `[${bytes.length} bytes of binary data; kept in ${where}]`;
}
