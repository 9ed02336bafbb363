import { test } from "node:test";
import assert from "node:assert/strict";
import { Invalid, NotFound } from "../../src/core/errors.ts";
import { MerkleAppender, arrayHashReader, rootFromLeafHashes } from "../../src/ledger/merkle.ts";
import {
  allTiles,
  decodeEntryBundle,
  encodeEntryBundle,
  parseTilePath,
  tileForPath,
  tilePath,
  tilesBetween,
  tilesForSize,
  type EntryReader,
  type TileCoord,
} from "../../src/ledger/tiles.ts";

test("tile paths: 3-digit groups with x prefixes, partial suffix, entries", () => {
  const cases: Array<[TileCoord, string]> = [
    [{ kind: "hash", level: 0, index: 0, width: 256 }, "tile/0/000"],
    [{ kind: "hash", level: 0, index: 5, width: 256 }, "tile/0/005"],
    [{ kind: "hash", level: 4, index: 1234067, width: 256 }, "tile/4/x001/x234/067"],
    [{ kind: "hash", level: 1, index: 1000, width: 17 }, "tile/1/x001/000.p/17"],
    [{ kind: "entries", index: 999, width: 256 }, "tile/entries/999"],
    [{ kind: "entries", index: 123456789, width: 1 }, "tile/entries/x123/x456/789.p/1"],
    [{ kind: "hash", level: 63, index: 2 ** 50, width: 255 }, "tile/63/x001/x125/x899/x906/x842/624.p/255"],
  ];
  for (const [coord, path] of cases) {
    assert.equal(tilePath(coord), path);
    assert.deepEqual(parseTilePath(path), coord);
  }
  for (const bad of [
    "tile/0/5",
    "tile/0/0005",
    "tile/0/x000/005",
    "tile/0/001/234",
    "tile/00/005",
    "tile/64/005",
    "tile/0/005.p/256",
    "tile/0/005.p/0",
    "tile/0/005.p/017",
    "tile/0/005.p",
    "tile/data/005",
    "tile/entries/x1/005",
    "tiles/0/005",
    "tile/0/005/",
  ]) {
    assert.throws(() => parseTilePath(bad), Invalid, bad);
  }
});

test("the tiles of a tree: the tlog-tiles example sizes", () => {
  const count = (size: number): Record<string, number> => {
    const out: Record<string, number> = {};
    for (const t of tilesForSize(size)) {
      const key = `${t.kind === "entries" ? "e" : t.level}${t.width === 256 ? "" : `.p/${t.width}`}`;
      out[key] = (out[key] ?? 0) + 1;
    }
    return out;
  };
  // "a tree of size 70,000 will be represented by 273 full level 0 tiles, one partial level 0 tile of width 112,
  // one full level 1 tile, one partial level 1 tile of width 17, and one partial level 2 tile of width 1"
  assert.deepEqual(count(70000), { "0": 273, "0.p/112": 1, e: 273, "e.p/112": 1, "1": 1, "1.p/17": 1, "2.p/1": 1 });
  // "a tree of size 256 will be represented by a full level 0 tile and a partial level 1 tile of width 1"
  assert.deepEqual(count(256), { "0": 1, e: 1, "1.p/1": 1 });
  assert.deepEqual(tilesForSize(0), []);
  assert.deepEqual(count(1), { "0.p/1": 1, "e.p/1": 1 });
});

test("tilesBetween lists newly full tiles and the new partial tiles only", () => {
  const paths = (a: number, b: number): string[] => tilesBetween(a, b).map(tilePath);
  assert.deepEqual(paths(10, 10), []);
  assert.deepEqual(paths(10, 20), ["tile/0/000.p/20", "tile/entries/000.p/20"]);
  assert.deepEqual(paths(250, 260), ["tile/0/000", "tile/entries/000", "tile/0/001.p/4", "tile/entries/001.p/4", "tile/1/000.p/1"]);
  assert.deepEqual(paths(260, 300), ["tile/0/001.p/44", "tile/entries/001.p/44"]);
  assert.deepEqual(paths(300, 512), ["tile/0/001", "tile/entries/001", "tile/1/000.p/2"]);
  // Growing in steps publishes every full tile exactly once.
  const stepped = new Set<string>();
  for (let s = 0; s < 70000; s += 997) for (const p of paths(s, Math.min(s + 997, 70000))) stepped.add(p);
  for (const p of paths(0, 70000)) assert.ok(stepped.has(p), p);
  assert.throws(() => tilesBetween(5, 4), RangeError);
});

test("tile contents: hashes at level 8L, entries length-prefixed, checked against the tree", async () => {
  const size = 66000;
  const leaves = Array.from({ length: size }, (_, i) => Buffer.from(`event ${i}`.repeat(1 + (i % 3))));
  const app = MerkleAppender.empty();
  const { hashes, leafHashes } = app.appendLeaves(leaves);
  const read = arrayHashReader(hashes);
  const readEntries: EntryReader = async (start, end) => leaves.slice(start, end);
  const files = new Map((await allTiles(size, read, readEntries)).map((f) => [f.path, f.bytes]));
  assert.equal(files.size, tilesForSize(size).length);

  // Level 0: the leaf hashes themselves.
  assert.deepEqual(files.get("tile/0/000"), Buffer.concat(leafHashes.slice(0, 256)));
  assert.deepEqual(files.get("tile/0/257.p/208"), Buffer.concat(leafHashes.slice(257 * 256)));
  // Level 1: each hash is the root of a full level-0 tile.
  const l1 = files.get("tile/1/000") as Buffer;
  assert.equal(l1.length, 256 * 32);
  for (const j of [0, 1, 100, 255]) assert.deepEqual(l1.subarray(j * 32, j * 32 + 32), rootFromLeafHashes(leafHashes.slice(j * 256, j * 256 + 256)));
  assert.deepEqual(files.get("tile/1/001.p/1"), rootFromLeafHashes(leafHashes.slice(65536, 65536 + 256)));
  // Level 2: the root of the first 65,536 leaves.
  assert.deepEqual(files.get("tile/2/000.p/1"), rootFromLeafHashes(leafHashes.slice(0, 65536)));
  // Entry bundles hold the exact leaf bytes.
  assert.deepEqual(decodeEntryBundle(files.get("tile/entries/001") as Buffer), leaves.slice(256, 512));
  const lastBundle = files.get("tile/entries/257.p/208") as Buffer;
  assert.equal(lastBundle.readUInt16BE(0), leaves[257 * 256]?.length);
  assert.deepEqual(decodeEntryBundle(lastBundle), leaves.slice(257 * 256));

  // One tile by path, for an HTTP handler.
  assert.deepEqual((await tileForPath("tile/0/001", size, "hash", read, readEntries)).bytes, Buffer.concat(leafHashes.slice(256, 512)));
  assert.deepEqual((await tileForPath("tile/0/257.p/10", size, "hash", read, readEntries)).bytes, Buffer.concat(leafHashes.slice(257 * 256, 257 * 256 + 10)));
  await assert.rejects(tileForPath("tile/0/257", size, "hash", read, readEntries), NotFound);
  await assert.rejects(tileForPath("tile/0/257.p/209", size, "hash", read, readEntries), NotFound);
  await assert.rejects(tileForPath("tile/1/001", size, "hash", read, readEntries), NotFound);
  await assert.rejects(tileForPath("tile/0/5", size, "hash", read, readEntries), NotFound);
  await assert.rejects(tileForPath("../etc/passwd", size, "hash", read, readEntries), NotFound);
  // The route for hash tiles never answers with an entry bundle, and the entries route never with hashes.
  await assert.rejects(tileForPath("tile/entries/001", size, "hash", read, readEntries), NotFound);
  await assert.rejects(tileForPath("tile/0/001", size, "entries", read, readEntries), NotFound);
  assert.deepEqual(decodeEntryBundle((await tileForPath("tile/entries/001", size, "entries", read, readEntries)).bytes), leaves.slice(256, 512));
});

test("entry bundles: encoding limits and truncation", () => {
  const e = [Buffer.from("a"), Buffer.alloc(0), Buffer.alloc(65535, 1)];
  const b = encodeEntryBundle(e);
  assert.equal(b.length, 2 + 1 + 2 + 2 + 65535);
  assert.deepEqual(decodeEntryBundle(b), e);
  assert.throws(() => encodeEntryBundle([Buffer.alloc(65536)]), /65,535/);
  assert.throws(() => decodeEntryBundle(b.subarray(0, b.length - 1)), Invalid);
  assert.throws(() => decodeEntryBundle(Buffer.from([0])), Invalid);
});
