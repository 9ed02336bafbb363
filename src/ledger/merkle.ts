/**
 * The Merkle tree of RFC 9162 §2.1 (the same hashing as RFC 6962): leaf = SHA-256(0x00 ‖ data),
 * node = SHA-256(0x01 ‖ left ‖ right), empty tree = SHA-256(""); a tree of n > 1 leaves splits at the largest
 * power of two strictly smaller than n, so a lone right node moves up unchanged.
 *
 * Persisted form: "stored hashes". Every complete (perfect, aligned) subtree's hash is kept once, addressed by a
 * single integer. The hashes for leaf n are written at storedHashIndex(0, n), followed by the hash of every
 * subtree that leaf completes (level 1, 2, … while n's low bits are ones). So the stored hashes form an
 * append-only array with no gaps: after size leaves there are exactly storedHashCount(size) of them. This is the
 * indexing of Go's golang.org/x/mod/sumdb/tlog, so its tools can read our table; docs/formats/ledger.md derives it.
 *
 * Sizes and indexes are plain numbers. Arithmetic only (never 32-bit bit operations), so sizes work up to 2^53 - 1
 * for proofs and verification; stored-hash indexes (about twice the size) must stay below 2^53, i.e. sizes below
 * about 2^52, far beyond any archive.
 */
import { hash as sha256Once } from "node:crypto";
import { IntegrityError } from "../core/errors.ts";
import { say } from "../core/messages.ts";

export const HASH_SIZE = 32;

/** Reads stored hashes by index, in the order asked. Async so a database can back it; callers batch indexes. */
export type HashReader = (indexes: number[]) => Promise<Buffer[]>;

/** SHA-256 of the empty string: the root of the empty tree. */
export const EMPTY_ROOT: Buffer = sha256Once("sha256", Buffer.alloc(0), "buffer");

const nodeScratch = Buffer.alloc(1 + 2 * HASH_SIZE);
nodeScratch[0] = 0x01;

/** Leaves up to this size are framed in a reused buffer (verify hashes every leaf of the log; most are < 1 KiB). */
const LEAF_SCRATCH = 64 * 1024;
const leafScratch = Buffer.allocUnsafe(LEAF_SCRATCH);

export function leafHash(data: Uint8Array): Buffer {
  const need = 1 + data.length;
  // Safe to share for the same reason as nodeScratch: hashing is synchronous.
  const buf = need <= LEAF_SCRATCH ? leafScratch.subarray(0, need) : Buffer.allocUnsafe(need);
  buf[0] = 0x00;
  buf.set(data, 1);
  return sha256Once("sha256", buf, "buffer");
}

export function nodeHash(left: Uint8Array, right: Uint8Array): Buffer {
  // A shared scratch buffer is safe: hashing is synchronous. It saves an allocation per node.
  nodeScratch.set(left, 1);
  nodeScratch.set(right, 1 + HASH_SIZE);
  return sha256Once("sha256", nodeScratch, "buffer");
}

function assertSize(n: number, what: string): void {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`${what} must be a whole number from 0 to 2^53-1, not ${n}.`);
}

function popcount(n: number): number {
  let c = 0;
  while (n > 0) {
    c += n % 2;
    n = Math.floor(n / 2);
  }
  return c;
}

/** Largest power of two strictly smaller than n (n ≥ 2). */
function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

function isPowerOfTwo(n: number): boolean {
  if (n < 1) return false;
  while (n % 2 === 0) n /= 2;
  return n === 1;
}

/**
 * Index of the stored hash of the n-th perfect subtree at the given level (level 0 = leaves; the subtree covers
 * leaves [n·2^level, (n+1)·2^level)). Closed form of "hashes for leaf n come after everything for leaves < n":
 * 2^(level+1)·(n+1) − 2 − popcount(n).
 */
export function storedHashIndex(level: number, n: number): number {
  assertSize(level, "A tree level");
  assertSize(n, "A subtree number");
  const index = 2 ** (level + 1) * (n + 1) - 2 - popcount(n);
  if (!Number.isSafeInteger(index)) throw new RangeError(`The stored-hash index for level ${level}, subtree ${n} exceeds 2^53.`);
  return index;
}

/** Inverse of storedHashIndex. */
export function splitStoredHashIndex(index: number): { level: number; n: number } {
  assertSize(index, "A stored-hash index");
  // index(0, n) = 2n − popcount(n) lies in [2n − 53, 2n], so the leaf whose hashes hold `index` is within 27 of index/2.
  let n = Math.floor((index + 53) / 2);
  while (2 * n - popcount(n) > index) n--;
  const level = index - (2 * n - popcount(n));
  return { level, n: Math.floor(n / 2 ** level) };
}

/** How many stored hashes a tree of `size` leaves has; also the index where leaf `size`'s hashes will start. */
export function storedHashCount(size: number): number {
  assertSize(size, "A tree size");
  return storedHashIndex(0, size);
}

/** The perfect aligned subtrees that tile leaves [lo, hi), left to right, as stored-hash indexes. */
function subtreeIndexes(lo: number, hi: number, out: number[]): number[] {
  while (lo < hi) {
    let width = 1;
    let level = 0;
    while (lo % (width * 2) === 0 && lo + width * 2 <= hi) {
      width *= 2;
      level++;
    }
    out.push(storedHashIndex(level, lo / width));
    lo += width;
  }
  return out;
}

function subtreeCount(lo: number, hi: number): number {
  let count = 0;
  while (lo < hi) {
    let width = 1;
    while (lo % (width * 2) === 0 && lo + width * 2 <= hi) width *= 2;
    lo += width;
    count++;
  }
  return count;
}

/** Folds the perfect-subtree hashes of a range (left to right) into the range's RFC 9162 hash. */
function foldRight(hashes: Buffer[], from: number, to: number): Buffer {
  let h = hashes[to - 1] as Buffer;
  for (let i = to - 2; i >= from; i--) h = nodeHash(hashes[i] as Buffer, h);
  return h;
}

async function readChecked(read: HashReader, indexes: number[]): Promise<Buffer[]> {
  if (indexes.length === 0) return [];
  const hashes = await read(indexes);
  if (hashes.length !== indexes.length) {
    throw new IntegrityError(say("log.hashStoreIncomplete", { got: hashes.length, asked: indexes.length }));
  }
  for (let i = 0; i < hashes.length; i++) {
    const h = hashes[i];
    if (!h || h.length !== HASH_SIZE) {
      throw new IntegrityError(say("log.hashMissing", { index: indexes[i]! }));
    }
  }
  return hashes;
}

/** Hashes of the given ranges [lo, hi), each computed from stored hashes, with one read for all of them. */
async function rangeHashes(ranges: Array<[number, number]>, read: HashReader): Promise<Buffer[]> {
  const indexes: number[] = [];
  for (const [lo, hi] of ranges) subtreeIndexes(lo, hi, indexes);
  const hashes = await readChecked(read, indexes);
  const out: Buffer[] = [];
  let at = 0;
  for (const [lo, hi] of ranges) {
    const count = subtreeCount(lo, hi);
    out.push(foldRight(hashes, at, at + count));
    at += count;
  }
  return out;
}

/** The stored hashes to append for leaf n (at indexes storedHashIndex(0, n), +1, …): the leaf and every subtree it completes. */
export async function storedHashesForLeaf(n: number, leaf: Buffer, read: HashReader): Promise<Buffer[]> {
  assertSize(n, "A leaf index");
  const siblings: number[] = [];
  for (let m = n, level = 0; m % 2 === 1; m = (m - 1) / 2, level++) siblings.push(storedHashIndex(level, m - 1));
  const lefts = await readChecked(read, siblings);
  const out = [leaf];
  let h = leaf;
  for (const left of lefts) {
    h = nodeHash(left, h);
    out.push(h);
  }
  return out;
}

/** Root hash of the tree of the first `size` leaves. */
export async function treeHash(size: number, read: HashReader): Promise<Buffer> {
  assertSize(size, "A tree size");
  if (size === 0) return EMPTY_ROOT;
  const [root] = await rangeHashes([[0, size]], read);
  return root as Buffer;
}

/** RFC 9162 §2.1.3.1 inclusion proof (audit path) of leaf `index` in the tree of `size` leaves, leaf's sibling first. */
export async function inclusionProof(index: number, size: number, read: HashReader): Promise<Buffer[]> {
  return rangeHashes(auditRanges(index, size), read);
}

/**
 * Inclusion proofs of many leaves in one tree, with one read of the stored hashes they need between them (an
 * evidence package proves thousands of events: one read instead of thousands). Same proofs as inclusionProof.
 */
export async function inclusionProofs(indexes: readonly number[], size: number, read: HashReader): Promise<Map<number, Buffer[]>> {
  // Per leaf, per audit-path range: the stored hashes that range folds from.
  const needs = new Map(indexes.map((i) => [i, auditRanges(i, size).map(([lo, hi]) => subtreeIndexes(lo, hi, []))]));
  const list = [...new Set([...needs.values()].flat(2))];
  const hashes = await readChecked(read, list);
  const byIndex = new Map(list.map((x, i) => [x, hashes[i]!]));
  return new Map(
    [...needs].map(([i, perRange]) => [
      i,
      perRange.map((stored) => {
        const hs = stored.map((x) => byIndex.get(x)!);
        return foldRight(hs, 0, hs.length);
      }),
    ]),
  );
}

/** The ranges whose hashes make the audit path of leaf index in a tree of size leaves, leaf's sibling first. */
function auditRanges(index: number, size: number): Array<[number, number]> {
  assertSize(index, "A leaf index");
  assertSize(size, "A tree size");
  if (index >= size) throw new RangeError(`Leaf ${index} is not in a tree of ${size} leaves.`);
  const ranges: Array<[number, number]> = [];
  let lo = 0;
  let hi = size;
  while (hi - lo > 1) {
    const k = splitPoint(hi - lo);
    if (index < lo + k) {
      ranges.push([lo + k, hi]);
      hi = lo + k;
    } else {
      ranges.push([lo, lo + k]);
      lo += k;
    }
  }
  return ranges.reverse();
}

/** RFC 9162 §2.1.4.1 consistency proof that the tree of size m is a prefix of the tree of size n (0 < m ≤ n). */
export async function consistencyProof(m: number, n: number, read: HashReader): Promise<Buffer[]> {
  assertSize(m, "The old tree size");
  assertSize(n, "The new tree size");
  if (m === 0) throw new RangeError("A consistency proof from the empty tree proves nothing; the old size must be at least 1.");
  if (m > n) throw new RangeError(`The old tree size ${m} is larger than the new tree size ${n}.`);
  const ranges: Array<[number, number]> = [];
  let lo = 0;
  let hi = n;
  let whole = true; // RFC's flag b: the old tree is still the whole left part, so the verifier knows its hash
  while (m !== hi) {
    const k = splitPoint(hi - lo);
    if (m <= lo + k) {
      ranges.push([lo + k, hi]);
      hi = lo + k;
    } else {
      ranges.push([lo, lo + k]);
      lo += k;
      whole = false;
    }
  }
  if (!whole) ranges.push([lo, hi]);
  ranges.reverse();
  return rangeHashes(ranges, read);
}

function isHash(h: unknown): h is Uint8Array {
  return h instanceof Uint8Array && h.length === HASH_SIZE;
}

function sameHash(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.compare(a, b) === 0;
}

/** RFC 9162 §2.1.3.2. Never throws: anything malformed is simply not a valid proof. */
export function verifyInclusion(leaf: Uint8Array, index: number, size: number, proof: readonly Uint8Array[], root: Uint8Array): boolean {
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(size) || index < 0 || index >= size) return false;
  if (!isHash(leaf) || !isHash(root) || !proof.every(isHash)) return false;
  let fn = index;
  let sn = size - 1;
  let r: Uint8Array = leaf;
  for (const p of proof) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = nodeHash(p, r);
      while (fn % 2 === 0 && fn !== 0) {
        fn /= 2;
        sn = Math.floor(sn / 2);
      }
    } else {
      r = nodeHash(r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && sameHash(r, root);
}

/** RFC 9162 §2.1.4.2, plus: equal sizes need an empty proof and equal roots; the empty old tree is rejected. */
export function verifyConsistency(m: number, n: number, proof: readonly Uint8Array[], oldRoot: Uint8Array, newRoot: Uint8Array): boolean {
  if (!Number.isSafeInteger(m) || !Number.isSafeInteger(n) || m < 1 || m > n) return false;
  if (!isHash(oldRoot) || !isHash(newRoot) || !proof.every(isHash)) return false;
  if (m === n) return proof.length === 0 && sameHash(oldRoot, newRoot);
  if (proof.length === 0) return false;
  const path: readonly Uint8Array[] = isPowerOfTwo(m) ? [oldRoot, ...proof] : proof;
  let fn = m - 1;
  let sn = n - 1;
  while (fn % 2 === 1) {
    fn = (fn - 1) / 2;
    sn = Math.floor(sn / 2);
  }
  let fr = path[0] as Uint8Array;
  let sr = fr;
  for (let i = 1; i < path.length; i++) {
    const c = path[i] as Uint8Array;
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      while (fn % 2 === 0 && fn !== 0) {
        fn /= 2;
        sn = Math.floor(sn / 2);
      }
    } else {
      sr = nodeHash(sr, c);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && sameHash(fr, oldRoot) && sameHash(sr, newRoot);
}

/**
 * Appends leaves with the tree's right edge (the hashes of the perfect subtrees covering [0, size)) held in
 * memory, so a batch costs one read to open plus the hashing. Produce the stored hashes, write them at
 * consecutive indexes from `firstStoredIndex`, in the same transaction as the leaves.
 */
export class MerkleAppender {
  private constructor(
    private count: number,
    private readonly edge: Buffer[],
  ) {}

  static empty(): MerkleAppender {
    return new MerkleAppender(0, []);
  }

  /** Opens the tree of `size` leaves already stored (reads at most 53 hashes). */
  static async open(size: number, read: HashReader): Promise<MerkleAppender> {
    assertSize(size, "A tree size");
    const edge = await readChecked(read, subtreeIndexes(0, size, []));
    return new MerkleAppender(size, edge);
  }

  get size(): number {
    return this.count;
  }

  /** Where the stored hashes of the next leaf go. */
  get nextStoredIndex(): number {
    return storedHashCount(this.count);
  }

  root(): Buffer {
    if (this.edge.length === 0) return EMPTY_ROOT;
    return foldRight(this.edge, 0, this.edge.length);
  }

  /** Appends one leaf hash; returns its stored hashes (the leaf first), to be written from the old nextStoredIndex. */
  appendLeafHash(leaf: Buffer, out: Buffer[] = []): Buffer[] {
    if (leaf.length !== HASH_SIZE) throw new RangeError("A leaf hash must be 32 bytes.");
    let h = leaf;
    out.push(h);
    for (let m = this.count; m % 2 === 1; m = (m - 1) / 2) {
      h = nodeHash(this.edge.pop() as Buffer, h);
      out.push(h);
    }
    this.edge.push(h);
    this.count++;
    return out;
  }

  /** Appends leaves (their bytes); returns where they and their stored hashes go. */
  appendLeaves(leaves: readonly Uint8Array[]): { firstLeafIndex: number; firstStoredIndex: number; leafHashes: Buffer[]; hashes: Buffer[] } {
    const firstLeafIndex = this.count;
    const firstStoredIndex = this.nextStoredIndex;
    const leafHashes: Buffer[] = [];
    const hashes: Buffer[] = [];
    for (const data of leaves) {
      const lh = leafHash(data);
      leafHashes.push(lh);
      this.appendLeafHash(lh, hashes);
    }
    return { firstLeafIndex, firstStoredIndex, leafHashes, hashes };
  }
}

/** Root of a tree given all its leaf hashes, in memory. */
export function rootFromLeafHashes(hashes: readonly Buffer[]): Buffer {
  const appender = MerkleAppender.empty();
  const scratch: Buffer[] = [];
  for (const h of hashes) {
    scratch.length = 0;
    appender.appendLeafHash(h, scratch);
  }
  return appender.root();
}

/** A HashReader over an in-memory array of stored hashes (tests, benchmarks, recomputing a log during verify). */
export function arrayHashReader(stored: readonly Buffer[]): HashReader {
  return (indexes) => Promise.resolve(indexes.map((i) => stored[i] as Buffer));
}
