import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { comparePaths, dosWallClock, openCard } from "../../../src/archive/media/sources.ts";
import type { CardEntry } from "../../../src/archive/media/sources.ts";
import { Conflict, Invalid, NotFound } from "../../../src/core/errors.ts";

function workdir(): string {
  return mkdtempSync(join(tmpdir(), "dalil-src-"));
}

async function readAll(e: CardEntry | undefined): Promise<Buffer> {
  assert.ok(e?.open, `${e?.path} should be readable, refused: ${e?.refused}`);
  const parts: Buffer[] = [];
  for await (const c of await e.open()) parts.push(c as Buffer);
  return Buffer.concat(parts);
}

test("comparePaths orders segment by segment, so a folder can be walked in the same order", () => {
  const paths = ["a.txt", "a/b", "B", "a", "DCIM/100/x", "DCIM/100.txt", "DCIM/1000/y", "é", "z"];
  assert.deepEqual([...paths].sort(comparePaths), ["B", "DCIM/100/x", "DCIM/100.txt", "DCIM/1000/y", "a", "a/b", "a.txt", "z", "é"]);
});

test("dosWallClock gives a zone-less ISO time and refuses impossible dates", () => {
  const date = ((2014 - 1980) << 9) | (3 << 5) | 9;
  const time = (23 << 11) | (59 << 5) | 29;
  assert.equal(dosWallClock(date, time), "2014-03-09T23:59:58");
  assert.equal(dosWallClock(date, time, 150), "2014-03-09T23:59:59.500");
  assert.equal(dosWallClock(0, 0), undefined);
  assert.equal(dosWallClock(((2015 - 1980) << 9) | (2 << 5) | 29, 0), undefined, "no 29 February in 2015");
  assert.equal(dosWallClock(((2016 - 1980) << 9) | (2 << 5) | 29, 0), "2016-02-29T00:00:00");
  assert.equal(dosWallClock(date, 24 << 11), undefined);
});

test("a folder is walked whole and sorted: hidden files included, symlinks and pipes refused, nothing followed", async () => {
  const dir = workdir();
  try {
    const card = join(dir, "card");
    mkdirSync(join(card, "DCIM/100NIKON"), { recursive: true });
    mkdirSync(join(card, "DCIM/empty"));
    const outside = join(dir, "outside-secret.txt");
    writeFileSync(outside, "must never be read");
    const files: Record<string, Buffer> = {
      "DCIM/100NIKON/DSC_0001.JPG": randomBytes(70_000),
      "DCIM/100NIKON/DSC_0002.JPG": randomBytes(10),
      "DCIM/100NIKON/.DS_Store": Buffer.from("hidden"),
      "DCIM/100.txt": Buffer.from("sorted after the folder DCIM/100NIKON? no: after DCIM/100NIKON/..."),
      "zero.bin": Buffer.alloc(0),
    };
    for (const [p, b] of Object.entries(files)) writeFileSync(join(card, p), b);
    symlinkSync(outside, join(card, "DCIM/100NIKON/DSC_0003.JPG"));
    symlinkSync(join(dir), join(card, "DCIM/loop-to-parent"));
    const fifo = spawnSync("mkfifo", [join(card, "DCIM/pipe")]).status === 0;

    const m = await openCard(card);
    try {
      assert.equal(m.kind, "folder");
      assert.equal(m.sha256, undefined);
      const entries: CardEntry[] = [];
      for await (const e of m.entries()) entries.push(e);
      const expected = [...Object.keys(files), "DCIM/100NIKON/DSC_0003.JPG", "DCIM/loop-to-parent", ...(fifo ? ["DCIM/pipe"] : [])].sort(comparePaths);
      assert.deepEqual(entries.map((e) => e.path), expected);
      for (const [p, b] of Object.entries(files)) {
        const e = entries.find((x) => x.path === p);
        assert.equal(e?.size, b.length);
        assert.match(e?.modified ?? "", /Z$/);
        assert.deepEqual(await readAll(e), b, p);
      }
      const link = entries.find((e) => e.path === "DCIM/100NIKON/DSC_0003.JPG");
      assert.equal(link?.refused, `symbolic link to ${outside} not followed`);
      assert.equal(link?.open, undefined);
      assert.equal(entries.find((e) => e.path === "DCIM/loop-to-parent")?.refused, `symbolic link to ${dir} not followed`);
      if (fifo) assert.match(entries.find((e) => e.path === "DCIM/pipe")?.refused ?? "", /named pipe/);
      // Listing twice gives the same answer.
      const again: string[] = [];
      for await (const e of m.entries()) again.push(e.path);
      assert.deepEqual(again, expected);
    } finally {
      await m.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a file changed or swapped for a symlink after listing is not read", async () => {
  const dir = workdir();
  try {
    const card = join(dir, "card");
    mkdirSync(card);
    writeFileSync(join(card, "grows.jpg"), "abc");
    writeFileSync(join(card, "swapped.jpg"), "abc");
    writeFileSync(join(dir, "elsewhere"), "abc");
    const m = await openCard(card);
    const entries: CardEntry[] = [];
    for await (const e of m.entries()) entries.push(e);
    appendFileSync(join(card, "grows.jpg"), "def");
    rmSync(join(card, "swapped.jpg"));
    symlinkSync(join(dir, "elsewhere"), join(card, "swapped.jpg"));
    await assert.rejects(readAll(entries.find((e) => e.path === "grows.jpg")), (err: unknown) => err instanceof Conflict && /changed on disk/.test(err.message));
    await assert.rejects(readAll(entries.find((e) => e.path === "swapped.jpg")), (err: unknown) => (err as NodeJS.ErrnoException).code === "ELOOP");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a sub-folder that cannot be listed is an entry refused with the reason, not a silent gap", async () => {
  // Listing is lazy: "a.jpg" is handed out before folder "b" is read, so removing "b" in between makes its
  // listing fail deterministically (and works for root, whom permissions would not stop).
  const dir = workdir();
  try {
    writeFileSync(join(dir, "a.jpg"), "x");
    mkdirSync(join(dir, "b"));
    writeFileSync(join(dir, "b/c.jpg"), "x");
    const m = await openCard(dir);
    const entries: CardEntry[] = [];
    for await (const e of m.entries()) {
      entries.push(e);
      if (e.path === "a.jpg") rmSync(join(dir, "b"), { recursive: true });
    }
    assert.deepEqual(entries.map((e) => e.path), ["a.jpg", "b"]);
    assert.match(entries[1]?.refused ?? "", /could not be listed \(ENOENT/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("openCard refuses what is not a card with a sentence", async () => {
  const dir = workdir();
  try {
    await assert.rejects(openCard(join(dir, "nope")), (err: unknown) => err instanceof NotFound && /no file or folder/.test(err.message));
    await assert.rejects(openCard("/dev/null"), (err: unknown) => err instanceof Invalid && /disk image of the card first/.test(err.message));
    writeFileSync(join(dir, "notes.zip"), "just some words, not a zip at all\n");
    await assert.rejects(openCard(join(dir, "notes.zip")), (err: unknown) => err instanceof Invalid && /looks like a text file/.test(err.message));
    writeFileSync(join(dir, "empty"), "");
    await assert.rejects(openCard(join(dir, "empty")), (err: unknown) => err instanceof Invalid);
    // A zip whose end record is missing starts like a zip but cannot be read: a sentence, not a crash.
    writeFileSync(join(dir, "cut.zip"), Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), randomBytes(100)]));
    await assert.rejects(openCard(join(dir, "cut.zip")), (err: unknown) => err instanceof Invalid && /truncated or damaged/.test(err.message));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
