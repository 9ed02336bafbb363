/**
 * A small, strict DER reader and writer: enough ASN.1 for RFC 3161 requests, replies and tokens. Strict means
 * DER only (definite, minimal lengths; minimal integers; canonical booleans; no trailing bytes), single-byte tags
 * only, and an element's children must fill it exactly — anything else is refused rather than guessed at, since
 * these bytes come from a remote server and end up in evidence.
 */

export class DerError extends Error {}

export const Tag = {
  BOOLEAN: 0x01,
  INTEGER: 0x02,
  BIT_STRING: 0x03,
  OCTET_STRING: 0x04,
  NULL: 0x05,
  OID: 0x06,
  UTF8_STRING: 0x0c,
  PRINTABLE_STRING: 0x13,
  TELETEX_STRING: 0x14,
  IA5_STRING: 0x16,
  GENERALIZED_TIME: 0x18,
  UNIVERSAL_STRING: 0x1c,
  BMP_STRING: 0x1e,
  SEQUENCE: 0x30,
  SET: 0x31,
} as const;

/** Tag byte of a context-specific [n] element (constructed unless said otherwise). */
export function contextTag(n: number, constructed = true): number {
  if (!Number.isInteger(n) || n < 0 || n > 30) throw new DerError(`context tag [${n}] is out of range`);
  return 0x80 | (constructed ? 0x20 : 0) | n;
}

export interface DerNode {
  /** The identifier octet (class, constructed bit and tag number). */
  tag: number;
  /** Content octets. */
  value: Buffer;
  /** The whole element: identifier, length and content. */
  der: Buffer;
}

const MAX_LENGTH_OCTETS = 4;

/** Reads the element at `offset`; returns it and the offset just past it. */
function readAt(buf: Buffer, offset: number): { node: DerNode; end: number } {
  if (offset >= buf.length) throw new DerError("unexpected end of data");
  const tag = buf[offset] as number;
  if ((tag & 0x1f) === 0x1f) throw new DerError(`multi-byte tag at offset ${offset} is not supported`);
  let pos = offset + 1;
  if (pos >= buf.length) throw new DerError("unexpected end of data in a length");
  const first = buf[pos++] as number;
  let length: number;
  if (first < 0x80) {
    length = first;
  } else {
    const n = first & 0x7f;
    if (n === 0) throw new DerError(`indefinite length at offset ${offset} (BER, not DER)`);
    if (n > MAX_LENGTH_OCTETS) throw new DerError(`length of ${n} octets at offset ${offset} is too large`);
    if (pos + n > buf.length) throw new DerError("unexpected end of data in a length");
    if (buf[pos] === 0) throw new DerError(`length at offset ${offset} is not minimally encoded`);
    length = 0;
    for (let i = 0; i < n; i++) length = length * 256 + (buf[pos + i] as number);
    pos += n;
    if (length < 0x80) throw new DerError(`length at offset ${offset} should use the short form`);
  }
  const end = pos + length;
  if (end > buf.length) throw new DerError(`element at offset ${offset} runs past the end of the data`);
  return { node: { tag, value: buf.subarray(pos, end), der: buf.subarray(offset, end) }, end };
}

/** Parses `buf` as exactly one DER element. */
export function readDer(buf: Buffer): DerNode {
  const { node, end } = readAt(buf, 0);
  if (end !== buf.length) throw new DerError(`${buf.length - end} trailing bytes after the element`);
  return node;
}

/** The elements inside a constructed element, in order. */
export function childrenOf(node: DerNode): DerNode[] {
  if ((node.tag & 0x20) === 0) throw new DerError(`element with tag 0x${hex2(node.tag)} is not constructed`);
  const out: DerNode[] = [];
  let pos = 0;
  while (pos < node.value.length) {
    const { node: child, end } = readAt(node.value, pos);
    out.push(child);
    pos = end;
  }
  return out;
}

function hex2(n: number): string {
  return n.toString(16).padStart(2, "0");
}

/** Walks a SEQUENCE's fields in order, with optional ones taken only when their tag matches. */
export class Fields {
  private i = 0;
  private readonly items: DerNode[];

  constructor(
    node: DerNode,
    private readonly what: string,
    expectTag: number = Tag.SEQUENCE,
  ) {
    expect(node, expectTag, what);
    this.items = childrenOf(node);
  }

  next(tag: number, field: string): DerNode {
    const node = this.items[this.i];
    if (!node) throw new DerError(`${this.what} ends before its ${field}`);
    expect(node, tag, `${this.what}'s ${field}`);
    this.i++;
    return node;
  }

  /** The next field whatever its tag (for ANY-typed fields). */
  nextAny(field: string): DerNode {
    const node = this.items[this.i];
    if (!node) throw new DerError(`${this.what} ends before its ${field}`);
    this.i++;
    return node;
  }

  optional(tag: number): DerNode | undefined {
    const node = this.items[this.i];
    if (!node || node.tag !== tag) return undefined;
    this.i++;
    return node;
  }

  end(): void {
    if (this.i !== this.items.length) throw new DerError(`${this.what} has ${this.items.length - this.i} unexpected trailing field(s)`);
  }
}

export function expect(node: DerNode, tag: number, what: string): DerNode {
  if (node.tag !== tag) throw new DerError(`${what} has tag 0x${hex2(node.tag)}, expected 0x${hex2(tag)}`);
  return node;
}

/** The single element inside an EXPLICIT-tagged wrapper. */
export function explicitInner(node: DerNode, what: string): DerNode {
  const inner = childrenOf(node);
  if (inner.length !== 1 || !inner[0]) throw new DerError(`${what} should hold exactly one element`);
  return inner[0];
}

export function readInteger(node: DerNode, what: string): bigint {
  const v = node.value;
  if (v.length === 0) throw new DerError(`${what} is an empty INTEGER`);
  if (v.length > 1 && ((v[0] === 0x00 && (v[1] as number) < 0x80) || (v[0] === 0xff && (v[1] as number) >= 0x80))) {
    throw new DerError(`${what} is not a minimally encoded INTEGER`);
  }
  let n = BigInt(`0x${v.toString("hex")}`);
  if ((v[0] as number) >= 0x80) n -= 1n << BigInt(v.length * 8);
  return n;
}

export function readBoolean(node: DerNode, what: string): boolean {
  if (node.value.length !== 1 || (node.value[0] !== 0x00 && node.value[0] !== 0xff)) {
    throw new DerError(`${what} is not a DER BOOLEAN`);
  }
  return node.value[0] === 0xff;
}

export function readNull(node: DerNode, what: string): void {
  if (node.value.length !== 0) throw new DerError(`${what} is not an empty NULL`);
}

export function readOid(node: DerNode, what: string): string {
  const v = node.value;
  if (v.length === 0) throw new DerError(`${what} is an empty OBJECT IDENTIFIER`);
  const arcs: bigint[] = [];
  let cur = 0n;
  let started = false;
  for (const b of v) {
    if (!started && b === 0x80) throw new DerError(`${what} has a non-minimal sub-identifier`);
    started = true;
    cur = (cur << 7n) | BigInt(b & 0x7f);
    if ((b & 0x80) === 0) {
      arcs.push(cur);
      cur = 0n;
      started = false;
    }
  }
  if (started) throw new DerError(`${what} ends inside a sub-identifier`);
  const head = arcs[0] as bigint;
  const first = head < 40n ? 0n : head < 80n ? 1n : 2n;
  return [first, head - first * 40n, ...arcs.slice(1)].join(".");
}

/** GeneralizedTime as DER restricts it (UTC, "Z", fraction without trailing zeros) → RFC 3339 text. */
export function readGeneralizedTime(node: DerNode, what: string): string {
  const s = node.value.toString("latin1");
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(?:\.(\d*[1-9]))?Z$/.exec(s);
  if (!m) throw new DerError(`${what} is not a DER GeneralizedTime: ${JSON.stringify(s)}`);
  const [, y, mo, d, h, mi, sec, frac] = m;
  const iso = `${y}-${mo}-${d}T${h}:${mi}:${sec}${frac ? `.${frac}` : ""}Z`;
  if (Number.isNaN(Date.parse(iso)) || new Date(Date.parse(iso)).getUTCDate() !== Number(d)) {
    throw new DerError(`${what} is not a real date: ${s}`);
  }
  return iso;
}

/** A character string of the common directory string types (UTF8, Printable, IA5, Teletex as Latin-1, BMP). */
export function readString(node: DerNode, what: string): string {
  switch (node.tag) {
    case Tag.UTF8_STRING: {
      const s = node.value.toString("utf8");
      if (!Buffer.from(s, "utf8").equals(node.value)) throw new DerError(`${what} is not valid UTF-8`);
      return s;
    }
    case Tag.PRINTABLE_STRING:
    case Tag.IA5_STRING:
    case Tag.TELETEX_STRING:
      return node.value.toString("latin1");
    case Tag.BMP_STRING: {
      if (node.value.length % 2 !== 0) throw new DerError(`${what} is not valid BMPString`);
      return Buffer.from(node.value).swap16().toString("utf16le");
    }
    default:
      throw new DerError(`${what} is not a supported string type (tag 0x${hex2(node.tag)})`);
  }
}

// ---- writing ----

function encodeLength(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v % 256);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

export function derTlv(tag: number, content: Buffer): Buffer {
  return Buffer.concat([Buffer.from([tag]), encodeLength(content.length), content]);
}

export function derSequence(...items: Buffer[]): Buffer {
  return derTlv(Tag.SEQUENCE, Buffer.concat(items));
}

/** INTEGER from a bigint, or from unsigned big-endian magnitude bytes. */
export function derInteger(value: bigint | Buffer): Buffer {
  let n = typeof value === "bigint" ? value : value.length === 0 ? 0n : BigInt(`0x${value.toString("hex")}`);
  if (n === 0n) return derTlv(Tag.INTEGER, Buffer.from([0]));
  const negative = n < 0n;
  let bytes = 1;
  // Smallest two's-complement width holding n.
  while (negative ? n < -(1n << BigInt(bytes * 8 - 1)) : n >= 1n << BigInt(bytes * 8 - 1)) bytes++;
  if (negative) n += 1n << BigInt(bytes * 8);
  return derTlv(Tag.INTEGER, Buffer.from(n.toString(16).padStart(bytes * 2, "0"), "hex"));
}

export function derBoolean(value: boolean): Buffer {
  return derTlv(Tag.BOOLEAN, Buffer.from([value ? 0xff : 0x00]));
}

export function derNull(): Buffer {
  return derTlv(Tag.NULL, Buffer.alloc(0));
}

export function derOctetString(value: Buffer): Buffer {
  return derTlv(Tag.OCTET_STRING, value);
}

export function derUtf8String(value: string): Buffer {
  return derTlv(Tag.UTF8_STRING, Buffer.from(value, "utf8"));
}

export function derOid(dotted: string): Buffer {
  if (!/^[0-2](\.(0|[1-9]\d*))+$/.test(dotted)) throw new DerError(`not an OID: ${dotted}`);
  const arcs = dotted.split(".").map((a) => BigInt(a));
  const [a0, a1, ...rest] = arcs as [bigint, bigint, ...bigint[]];
  if (a0 < 2n && a1 >= 40n) throw new DerError(`not an OID: ${dotted}`);
  const out: number[] = [];
  for (const arc of [a0 * 40n + a1, ...rest]) {
    const chunk: number[] = [Number(arc & 0x7fn)];
    for (let v = arc >> 7n; v > 0n; v >>= 7n) chunk.unshift(Number(v & 0x7fn) | 0x80);
    out.push(...chunk);
  }
  return derTlv(Tag.OID, Buffer.from(out));
}
