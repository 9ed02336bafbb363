import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { crc32, deflateRawSync } from "node:zlib";
import { openCard } from "../../../src/archive/media/sources.ts";
import type { CardEntry, CardMedium, CardOptions } from "../../../src/archive/media/sources.ts";
import { IntegrityError, TooLarge } from "../../../src/core/errors.ts";

/** One zip entry as the hostile writer below should lay it out; every field a liar would touch can be set. */
interface Spec {
  name: string | Buffer;
  data?: Buffer;
  method?: number;
  /** Bytes stored as the entry's data (defaults to the deflated or stored `data`). */
  payload?: Buffer;
  declaredSize?: number;
  declaredCompressed?: number;
  crc?: number;
  flags?: number;
  madeBy?: number;
  unixMode?: number;
  /** Reuse an earlier entry's local header and data instead of writing one (overlapping entries). */
  sameDataAs?: number;
}

function buildZip(specs: Spec[]): Buffer {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  const offsets: number[] = [];
  let pos = 0;
  specs.forEach((s, i) => {
    const name = typeof s.name === "string" ? Buffer.from(s.name, "utf8") : s.name;
    const data = s.data ?? Buffer.alloc(0);
    const method = s.method ?? 8;
    const payload = s.payload ?? (method === 8 ? deflateRawSync(data) : data);
    const crc = s.crc ?? crc32(data);
    const usize = s.declaredSize ?? data.length;
    const csize = s.declaredCompressed ?? payload.length;
    const flags = (s.flags ?? 0) | (typeof s.name === "string" ? 0x800 : 0);
    const time = (10 << 11) | (30 << 5) | 7;
    const date = ((2013 - 1980) << 9) | (8 << 5) | 21;
    let lho: number;
    if (s.sameDataAs !== undefined) lho = offsets[s.sameDataAs] as number;
    else {
      lho = pos;
      const local = Buffer.alloc(30);
      local.writeUInt32LE(0x04034b50, 0);
      local.writeUInt16LE(20, 4);
      local.writeUInt16LE(flags, 6);
      local.writeUInt16LE(method, 8);
      local.writeUInt16LE(time, 10);
      local.writeUInt16LE(date, 12);
      local.writeUInt32LE(crc >>> 0, 14);
      local.writeUInt32LE(csize, 18);
      local.writeUInt32LE(usize, 22);
      local.writeUInt16LE(name.length, 26);
      parts.push(local, name, payload);
      pos += 30 + name.length + payload.length;
    }
    offsets[i] = lho;
    const c = Buffer.alloc(46);
    c.writeUInt32LE(0x02014b50, 0);
    c.writeUInt16LE(s.madeBy ?? 0x031e, 4);
    c.writeUInt16LE(20, 6);
    c.writeUInt16LE(flags, 8);
    c.writeUInt16LE(method, 10);
    c.writeUInt16LE(time, 12);
    c.writeUInt16LE(date, 14);
    c.writeUInt32LE(crc >>> 0, 16);
    c.writeUInt32LE(csize, 20);
    c.writeUInt32LE(usize, 24);
    c.writeUInt16LE(name.length, 28);
    c.writeUInt32LE(((s.unixMode ?? 0o100644) * 0x10000) >>> 0, 38);
    c.writeUInt32LE(lho, 42);
    central.push(c, name);
  });
  const cd = Buffer.concat(central);
  const eocd = Buffer.alloc(22);
  eocd.writeUInt32LE(0x06054b50, 0);
  eocd.writeUInt16LE(specs.length, 8);
  eocd.writeUInt16LE(specs.length, 10);
  eocd.writeUInt32LE(cd.length, 12);
  eocd.writeUInt32LE(pos, 16);
  return Buffer.concat([...parts, cd, eocd]);
}

function workdir(): string {
  return mkdtempSync(join(tmpdir(), "dalil-zip-"));
}

function sha(b: Buffer): string {
  return createHash("sha256").update(b).digest("hex");
}

async function withZip(specs: Spec[] | Buffer, fn: (m: CardMedium, entries: CardEntry[]) => Promise<void>, options?: CardOptions): Promise<void> {
  const dir = workdir();
  try {
    const file = join(dir, "card.bin");
    writeFileSync(file, Buffer.isBuffer(specs) ? specs : buildZip(specs));
    const m = await openCard(file, options);
    try {
      const entries: CardEntry[] = [];
      for await (const e of m.entries()) entries.push(e);
      await fn(m, entries);
    } finally {
      await m.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function readAll(e: CardEntry | undefined): Promise<Buffer> {
  assert.ok(e?.open, `${e?.path} should be readable, refused: ${e?.refused}`);
  const parts: Buffer[] = [];
  for await (const c of await e.open()) parts.push(c as Buffer);
  return Buffer.concat(parts);
}

function find(entries: CardEntry[], path: string): CardEntry {
  const e = entries.find((x) => x.path === path);
  assert.ok(e, `no entry ${JSON.stringify(path)} among ${JSON.stringify(entries.map((x) => x.path))}`);
  return e;
}

test("a zip made by the zip command: sorted entries, folders skipped, symlinks refused, exact bytes, UTC times", async () => {
  const dir = workdir();
  try {
    const src = join(dir, "card");
    mkdirSync(join(src, "DCIM/100NIKON"), { recursive: true });
    mkdirSync(join(src, "EMPTY"));
    const files: Record<string, Buffer> = {
      "DCIM/100NIKON/DSC_0001.JPG": randomBytes(5000),
      "DCIM/100NIKON/DSC_0002.JPG": Buffer.alloc(4000, 7),
      "DCIM/.hidden": Buffer.from("hidden"),
      "a.txt": Buffer.from("first"),
    };
    for (const [p, b] of Object.entries(files)) writeFileSync(join(src, p), b);
    symlinkSync("/etc/passwd", join(src, "DCIM/link.jpg"));
    const zipPath = join(dir, "card.zip");
    const hasZip = spawnSync("sh", ["-c", "command -v zip"]).status === 0;
    if (hasZip) {
      const r = spawnSync("zip", ["-q", "-r", "-y", zipPath, "."], { cwd: src });
      assert.equal(r.status, 0, String(r.stderr));
    } else {
      writeFileSync(zipPath, buildZip([
        ...Object.entries(files).map(([name, data]) => ({ name, data })),
        { name: "DCIM/link.jpg", data: Buffer.from("/etc/passwd"), method: 0, unixMode: 0o120777 },
        { name: "EMPTY/", unixMode: 0o040755 },
      ]));
    }
    const m = await openCard(zipPath);
    try {
      assert.equal(m.kind, "zip");
      assert.equal(m.sha256, sha(readFileSync(zipPath)));
      const entries: CardEntry[] = [];
      for await (const e of m.entries()) entries.push(e);
      assert.deepEqual(entries.map((e) => e.path), ["DCIM/.hidden", "DCIM/100NIKON/DSC_0001.JPG", "DCIM/100NIKON/DSC_0002.JPG", "DCIM/link.jpg", "a.txt"]);
      for (const [p, b] of Object.entries(files)) {
        const e = find(entries, p);
        assert.equal(e.size, b.length);
        assert.equal(sha(await readAll(e)), sha(b), p);
        if (hasZip) assert.match(e.modified ?? "", /Z$/, "Info-ZIP's UT field records an instant");
      }
      const link = find(entries, "DCIM/link.jpg");
      assert.equal(link.refused, "symbolic link to /etc/passwd not followed");
      assert.equal(link.open, undefined);
    } finally {
      await m.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("hostile names are refused one by one and never cost the honest entries", async () => {
  const honest = randomBytes(300);
  await withZip(
    [
      { name: "../../etc/passwd", data: Buffer.from("x") },
      { name: "/etc/shadow", data: Buffer.from("x") },
      { name: "C:/Windows/evil.jpg", data: Buffer.from("x") },
      { name: "..\\..\\evil.jpg", data: Buffer.from("x") },
      { name: "DCIM/a\0.jpg", data: Buffer.from("x") },
      { name: "DCIM/./dot.jpg", data: Buffer.from("x") },
      { name: "DCIM//double.jpg", data: Buffer.from("x") },
      { name: "../up/", data: Buffer.alloc(0) },
      { name: "DCIM\\100CANON\\IMG_0001.JPG", data: honest },
      { name: Buffer.from([0x63, 0x61, 0x66, 0x82, 0x2e, 0x6a, 0x70, 0x67]), data: Buffer.from("cp437") },
    ],
    async (_m, entries) => {
      const refused = (p: string) => find(entries, p).refused ?? "(not refused)";
      assert.match(refused("../../etc/passwd"), /path traversal/);
      assert.match(refused("/etc/shadow"), /absolute path/);
      assert.match(refused("C:/Windows/evil.jpg"), /drive letter/);
      assert.match(refused("..\\..\\evil.jpg"), /path traversal/);
      assert.match(refused("DCIM/a\u2400.jpg"), /NUL/);
      assert.match(refused("DCIM/./dot.jpg"), /segments/);
      assert.match(refused("DCIM//double.jpg"), /segments/);
      assert.match(refused("../up"), /path traversal/);
      for (const e of entries) if (e.refused) assert.equal(e.open, undefined);
      // Backslashes as separators (as some Windows tools write them) are read as "/" when otherwise safe.
      assert.equal(sha(await readAll(find(entries, "DCIM/100CANON/IMG_0001.JPG"))), sha(honest));
      assert.equal((await readAll(find(entries, "café.jpg"))).toString(), "cp437");
    },
  );
});

test("symlinks, special files, encryption, unknown methods, lying stored sizes, folders with data: refused with reasons", async () => {
  await withZip(
    [
      { name: "link", data: Buffer.from("../../../root/.ssh/id_rsa"), method: 0, unixMode: 0o120777 },
      { name: "fifo", unixMode: 0o010644 },
      { name: "secret.jpg", data: Buffer.from("x"), flags: 0x1 },
      { name: "lzma.jpg", data: Buffer.from("x"), method: 14, payload: Buffer.from("x") },
      { name: "stored-liar.jpg", data: Buffer.alloc(20), method: 0, declaredSize: 10 },
      { name: "folder/", data: Buffer.from("hidden in a folder entry"), method: 0, unixMode: 0o040755 },
      { name: "ok.jpg", data: Buffer.from("fine") },
    ],
    async (_m, entries) => {
      assert.equal(find(entries, "link").refused, "symbolic link to ../../../root/.ssh/id_rsa not followed");
      assert.match(find(entries, "fifo").refused ?? "", /named pipe/);
      assert.match(find(entries, "secret.jpg").refused ?? "", /encrypted/);
      assert.match(find(entries, "lzma.jpg").refused ?? "", /method 14/);
      assert.match(find(entries, "stored-liar.jpg").refused ?? "", /sizes lie/);
      assert.match(find(entries, "folder").refused ?? "", /folder but carries 24 bytes/);
      assert.equal((await readAll(find(entries, "ok.jpg"))).toString(), "fine");
    },
  );
});

test("zip bombs: ratio, per-entry and total limits, overlapping entries", async () => {
  const zeros = Buffer.alloc(20 * 1024 * 1024);
  await withZip(
    [
      { name: "bomb.jpg", data: zeros },
      { name: "big.jpg", data: randomBytes(3000) },
      { name: "t1.jpg", data: randomBytes(1000) },
      { name: "t2.jpg", data: randomBytes(1000) },
      { name: "t3.jpg", data: randomBytes(1000) },
      { name: "shared-a.jpg", data: randomBytes(500) },
      { name: "shared-b.jpg", data: randomBytes(500), sameDataAs: 5 },
      { name: "truncated.jpg", data: Buffer.from("x"), declaredCompressed: 1_000_000 },
    ],
    async (_m, entries) => {
      assert.match(find(entries, "bomb.jpg").refused ?? "", /zip bomb/);
      assert.match(find(entries, "big.jpg").refused ?? "", /per-file limit/);
      assert.match(find(entries, "shared-a.jpg").refused ?? "", /overlaps.*shared-b\.jpg/);
      assert.match(find(entries, "shared-b.jpg").refused ?? "", /overlaps.*shared-a\.jpg/);
      assert.match(find(entries, "truncated.jpg").refused ?? "", /past the end of the zip/);
      // Sorted order decides which entries fit under the total: t1 and t2 (2000 bytes) do, t3 does not.
      assert.equal(find(entries, "t1.jpg").refused, undefined);
      assert.equal(find(entries, "t2.jpg").refused, undefined);
      assert.match(find(entries, "t3.jpg").refused ?? "", /declared total past the limit/);
      assert.equal(find(entries, "bomb.jpg").size, zeros.length, "the declared size is still reported");
    },
    { maxEntryBytes: 2000, maxTotalBytes: 2500 },
  );
});

test("streams hold entries to their declared size and CRC: a lying deflate stream is cut off", async () => {
  const flood = deflateRawSync(Buffer.alloc(50 * 1024 * 1024, 0x41));
  await withZip(
    [
      { name: "liar.jpg", payload: flood, declaredSize: 1000, crc: 0 },
      { name: "short.jpg", data: Buffer.from("only ten b"), declaredSize: 4000 },
      { name: "crc.jpg", data: Buffer.from("payload"), crc: 12345 },
    ],
    async (_m, entries) => {
      const liar = find(entries, "liar.jpg");
      assert.equal(liar.refused, undefined, "its metadata looks harmless");
      assert.ok(liar.open);
      let received = 0;
      await assert.rejects(
        (async () => {
          for await (const c of await (liar.open as () => Promise<NodeJS.ReadableStream>)()) received += (c as Buffer).length;
        })(),
        (err: unknown) => err instanceof TooLarge && /more than the 1000 bytes/.test(err.message),
      );
      assert.ok(received <= 1000, `received ${received} bytes`);
      await assert.rejects(readAll(find(entries, "short.jpg")), (err: unknown) => err instanceof IntegrityError && /holds 10 bytes/.test(err.message));
      await assert.rejects(readAll(find(entries, "crc.jpg")), (err: unknown) => err instanceof IntegrityError && /CRC-32/.test(err.message));
    },
  );
});

test("duplicates are both listed and each reads its own bytes; nested zips are plain files; DOS times have no zone", async () => {
  const inner = buildZip([{ name: "inner.jpg", data: Buffer.from("inside") }]);
  await withZip(
    [
      { name: "DCIM/dup.jpg", data: Buffer.from("first copy") },
      { name: "DCIM/dup.jpg", data: Buffer.from("second copy") },
      { name: "nested.zip", data: inner, method: 0 },
    ],
    async (_m, entries) => {
      assert.deepEqual(entries.map((e) => e.path), ["DCIM/dup.jpg", "DCIM/dup.jpg", "nested.zip"]);
      assert.equal((await readAll(entries[0])).toString(), "first copy");
      assert.equal((await readAll(entries[1])).toString(), "second copy");
      assert.equal(sha(await readAll(entries[2])), sha(inner));
      assert.equal(entries[0]?.modified, "2013-08-21T10:30:14");
    },
  );
});

test("a central directory broken part-way keeps what was read and says what is missing", async () => {
  await withZip(
    [
      { name: "a.jpg", data: Buffer.from("a") },
      { name: "b.jpg", data: Buffer.from("b"), flags: 0x41 },
      { name: "c.jpg", data: Buffer.from("c") },
    ],
    async (m, entries) => {
      assert.deepEqual(entries.map((e) => e.path), ["a.jpg"]);
      assert.match(m.notes[0] ?? "", /past entry 1 of the 3.*remaining 2 entries are not listed/);
    },
  );
});

test("an empty zip lists nothing; too many entries is refused as a whole", async () => {
  await withZip([], async (m, entries) => {
    assert.equal(m.kind, "zip");
    assert.deepEqual(entries, []);
  });
  await assert.rejects(
    withZip([{ name: "a", data: Buffer.from("a") }, { name: "b", data: Buffer.from("b") }], async () => {}, { maxEntries: 1 }),
    (err: unknown) => err instanceof TooLarge,
  );
});

test("local headers are checked at listing; damaged deflate data fails the stream with a sentence; abandoning a stream is safe", async () => {
  const good = randomBytes(200_000);
  const zip = buildZip([
    { name: "b.jpg", data: Buffer.from("bbbb") },
    { name: "a.jpg", data: Buffer.from("aaaa") },
    { name: "broken.jpg", data: Buffer.alloc(0), payload: Buffer.from([0xff, 0xff, 0xff, 0xff]), declaredSize: 100 },
    { name: "long.jpg", data: good, method: 0 },
  ]);
  // Break a.jpg's local header signature, and rename b.jpg in its local header only.
  zip.writeUInt32LE(0x11111111, zip.indexOf(Buffer.from("a.jpg")) - 30);
  const bLocal = zip.indexOf(Buffer.from("b.jpg"));
  zip.write("x", bLocal, "latin1");
  await withZip(zip, async (m, entries) => {
    assert.match(find(entries, "a.jpg").refused ?? "", /local header is missing or damaged/);
    assert.equal((await readAll(find(entries, "b.jpg"))).toString(), "bbbb");
    assert.ok(m.notes.some((n) => /1 entry is named differently in the zip's local headers/.test(n)), m.notes.join("\n"));
    await assert.rejects(readAll(find(entries, "broken.jpg")), (err: unknown) => err instanceof IntegrityError && /broken\.jpg could not be read from the zip/.test(err.message));
    const long = find(entries, "long.jpg");
    const stream = await (long.open as () => Promise<NodeJS.ReadableStream & { destroy(): void }>)();
    for await (const _chunk of stream) break;
    assert.equal(sha(await readAll(long)), sha(good), "another stream of the same entry still reads whole");
  });
});
