import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync, truncateSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openCard } from "../../../src/archive/media/sources.ts";
import type { CardEntry, DeletedCardEntry } from "../../../src/archive/media/sources.ts";
import { parseBpb, shortNameChecksum } from "../../../src/archive/media/fat.ts";
import { Invalid, TooLarge } from "../../../src/core/errors.ts";
import { list, readAll, sha } from "../../support/card-media.ts";

const TOOLS = ["mkfs.fat", "mcopy", "mmd", "mdel", "mattrib", "mshowfat"];
const missing = TOOLS.filter((t) => spawnSync("sh", ["-c", `command -v ${t}`]).status !== 0);
// Under CI every test must run: a missing tool then fails the test instead of skipping it.
const skip = missing.length > 0 && process.env.CI !== "true" ? `needs ${missing.join(", ")} (Debian packages dosfstools and mtools)` : false;

const ENV = { ...process.env, MTOOLS_SKIP_CHECK: "1", LANG: "C.UTF-8", LC_ALL: "C.UTF-8" };

function run(cmd: string, ...args: string[]): string {
  const r = spawnSync(cmd, args, { env: ENV, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed: ${r.stderr || r.error?.message}`);
  return r.stdout;
}

function workdir(): string {
  return mkdtempSync(join(tmpdir(), "dalil-fat-"));
}

/** Copies `data` to `dest` inside the image (dest like "::/DCIM/X.JPG") through a temp file. */
function put(img: string, dir: string, dest: string, data: Buffer): void {
  const src = join(dir, "src-" + randomBytes(6).toString("hex"));
  writeFileSync(src, data);
  run("mcopy", "-i", img, src, dest);
  rmSync(src);
}

function clustersOf(img: string, path: string): number[][] {
  const out = run("mshowfat", "-i", img, path);
  return [...out.matchAll(/<(\d+)(?:-(\d+))?>/g)].map((m) => [Number(m[1]), Number(m[2] ?? m[1])]);
}

interface Layout {
  bps: number;
  spc: number;
  fatStart: number;
  fatBytes: number;
  fats: number;
  dataStart: number;
}

function layout(img: Buffer, offset = 0): Layout {
  const bps = img.readUInt16LE(offset + 11);
  const spc = img[offset + 13] as number;
  const rsvd = img.readUInt16LE(offset + 14);
  const fats = img[offset + 16] as number;
  const rootEnt = img.readUInt16LE(offset + 17);
  const fatSz = img.readUInt16LE(offset + 22) || img.readUInt32LE(offset + 36);
  const fatStart = offset + rsvd * bps;
  return { bps, spc, fatStart, fatBytes: fatSz * bps, fats, dataStart: fatStart + fats * fatSz * bps + Math.ceil((rootEnt * 32) / bps) * bps };
}

function setFat16(img: Buffer, l: Layout, cluster: number, value: number, copies = l.fats): void {
  for (let i = 0; i < copies; i++) img.writeUInt16LE(value, l.fatStart + i * l.fatBytes + cluster * 2);
}

/** Offset of the directory entry whose 8.3 name is `name11` (exactly 11 bytes, space padded). */
function dirEntry(img: Buffer, name11: string, from = 0): number {
  const at = img.indexOf(Buffer.from(name11, "latin1"), from);
  assert.ok(at >= 0, `no directory entry ${name11}`);
  return at;
}

test("FAT16 card: nested folders, long and Arabic names, hidden and empty files, a fragmented file, deleted entries", { skip }, async () => {
  const dir = workdir();
  try {
    const img = join(dir, "card16.img");
    run("mkfs.fat", "-C", img, "16384", "-F", "16", "-s", "2", "-n", "NIKON D750", "-i", "0BADF00D");
    for (const d of ["::/DCIM", "::/DCIM/100NIKON", "::/DCIM/100NIKON/SUB", "::/MISC"]) run("mmd", "-i", img, d);
    const files = new Map<string, Buffer>();
    const add = (path: string, data: Buffer) => {
      put(img, dir, "::/" + path, data);
      files.set(path, data);
    };
    add("DCIM/100NIKON/DSC_0001.JPG", randomBytes(3000));
    put(img, dir, "::/DCIM/100NIKON/DSC_0002.JPG", randomBytes(3000));
    add("DCIM/100NIKON/DSC_0003.JPG", randomBytes(3000));
    run("mdel", "-i", img, "::/DCIM/100NIKON/DSC_0002.JPG");
    // Written after a deletion, this file fills the freed hole and continues after DSC_0003: fragmented.
    add("DCIM/100NIKON/BIG_0004.JPG", randomBytes(9000));
    add("DCIM/100NIKON/Photo of body 12 (front).jpeg", randomBytes(2500));
    add("DCIM/100NIKON/صورة الجثة ١٢٣.jpg", randomBytes(1200));
    add("DCIM/100NIKON/SUB/DEEP.TXT", Buffer.from("nested\n"));
    add("MISC/.hidden", Buffer.from("every byte is evidence"));
    run("mattrib", "-i", img, "+h", "::/MISC/.hidden");
    add("MISC/EMPTY.DAT", Buffer.alloc(0));
    add("readme.txt", Buffer.from("lower-case 8.3 name\n"));
    put(img, dir, "::/DCIM/100NIKON/Deleted long name.jpg", randomBytes(1500));
    put(img, dir, "::/DCIM/GONE.JPG", randomBytes(700));
    run("mdel", "-i", img, "::/DCIM/100NIKON/Deleted long name.jpg");
    run("mdel", "-i", img, "::/DCIM/GONE.JPG");

    const big = clustersOf(img, "::/DCIM/100NIKON/BIG_0004.JPG");
    assert.ok(big.length >= 2, `BIG_0004.JPG should be fragmented, mshowfat says ${JSON.stringify(big)}`);

    const m = await openCard(img);
    try {
      assert.equal(m.kind, "fat-image");
      assert.equal(m.fsType, "FAT16");
      assert.equal(m.volumeLabel, "NIKON D750");
      assert.equal(m.volumeSerial, "0BAD-F00D");
      assert.equal(m.sha256, sha(readFileSync(img)));
      assert.equal(m.size, statSync(img).size);
      const entries = await list(m);
      const expected = [...files.keys()].sort((a, b) => {
        const as = a.split("/");
        const bs = b.split("/");
        for (let i = 0; i < Math.min(as.length, bs.length); i++) if (as[i] !== bs[i]) return (as[i] as string) < (bs[i] as string) ? -1 : 1;
        return as.length - bs.length;
      });
      assert.deepEqual(entries.map((e) => e.path), expected);
      for (const e of entries) {
        const want = files.get(e.path) as Buffer;
        assert.equal(e.size, want.length, e.path);
        assert.equal(e.refused, undefined, e.path);
        assert.match(e.modified ?? "", /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/, `${e.path} has a zone-less wall-clock time`);
        assert.equal(sha(await readAll(e)), sha(want), `${e.path} reads back exactly`);
      }
      assert.equal(m.deletedCount, 2);
      const deleted: DeletedCardEntry[] = [];
      for await (const d of m.deletedEntries?.() ?? []) deleted.push(d);
      assert.deepEqual(deleted.map((d) => d.path).sort(), ["DCIM/100NIKON/Deleted long name.jpg", "DCIM/?ONE.JPG"]);
      assert.equal(deleted.find((d) => d.path.endsWith("?ONE.JPG"))?.size, 700);
      assert.deepEqual(m.notes, []);
    } finally {
      await m.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("FAT32 card: root in a cluster chain, long names, label and serial", { skip }, async () => {
  const dir = workdir();
  try {
    const img = join(dir, "card32.img");
    run("mkfs.fat", "-C", img, "40000", "-F", "32", "-s", "1", "-n", "EOS_DIGITAL", "-i", "00C0FFEE");
    run("mmd", "-i", img, "::/DCIM");
    run("mmd", "-i", img, "::/DCIM/100CANON");
    const files = new Map<string, Buffer>();
    for (let i = 1; i <= 40; i++) {
      const p = `DCIM/100CANON/IMG_${String(i).padStart(4, "0")}.JPG`;
      const data = randomBytes(1000 + i * 37);
      files.set(p, data);
    }
    // One mcopy for many files keeps the test fast.
    const srcDir = join(dir, "src");
    run("mkdir", srcDir);
    for (const [p, data] of files) writeFileSync(join(srcDir, p.split("/").pop() as string), data);
    run("mcopy", "-i", img, ...[...files.keys()].map((p) => join(srcDir, p.split("/").pop() as string)), "::/DCIM/100CANON/");
    put(img, dir, "::/A rather long file name that needs several entries.cr2", randomBytes(5000));
    files.set("A rather long file name that needs several entries.cr2", Buffer.alloc(0));

    const m = await openCard(img);
    try {
      assert.equal(m.fsType, "FAT32");
      assert.equal(m.volumeLabel, "EOS_DIGITAL");
      assert.equal(m.volumeSerial, "00C0-FFEE");
      const entries = await list(m);
      assert.equal(entries.length, 41);
      assert.equal(entries[0]?.path, "A rather long file name that needs several entries.cr2");
      assert.equal(entries[0]?.size, 5000);
      for (const e of entries.slice(1)) assert.equal(sha(await readAll(e)), sha(files.get(e.path) as Buffer), e.path);
    } finally {
      await m.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("an MBR-partitioned card image is read from its FAT partition; other partitions are noted", { skip }, async () => {
  const dir = workdir();
  try {
    const vol = join(dir, "vol.img");
    run("mkfs.fat", "-C", vol, "8192", "-F", "16", "-s", "2", "-n", "PART");
    run("mmd", "-i", vol, "::/DCIM");
    const photo = randomBytes(4321);
    put(vol, dir, "::/DCIM/DSC_0001.JPG", photo);
    const volume = readFileSync(vol);
    const mbr = Buffer.alloc(512);
    const entry = (i: number, type: number, lba: number, sectors: number) => {
      const at = 446 + i * 16;
      mbr[at] = i === 0 ? 0x80 : 0;
      mbr[at + 4] = type;
      mbr.writeUInt32LE(lba, at + 8);
      mbr.writeUInt32LE(sectors, at + 12);
    };
    entry(0, 0x06, 2048, volume.length / 512);
    entry(1, 0x83, 2048 + volume.length / 512, 8);
    mbr[510] = 0x55;
    mbr[511] = 0xaa;
    const img = join(dir, "disk.img");
    writeFileSync(img, Buffer.concat([mbr, Buffer.alloc(2048 * 512 - 512), volume, Buffer.alloc(8 * 512)]));

    const m = await openCard(img);
    try {
      assert.equal(m.kind, "fat-image");
      assert.equal(m.volumeLabel, "PART");
      const entries = await list(m);
      assert.deepEqual(entries.map((e) => e.path), ["DCIM/DSC_0001.JPG"]);
      assert.equal(sha(await readAll(entries[0] as CardEntry)), sha(photo));
      assert.ok(m.notes.some((n) => /1 other partition/.test(n)), m.notes.join("\n"));
    } finally {
      await m.close();
    }

    // Partition tables without a FAT or exFAT volume are refused with a sentence saying what was found.
    const linux = Buffer.from(mbr);
    linux[446 + 4] = 0x83;
    writeFileSync(img, Buffer.concat([linux, Buffer.alloc(1024)]));
    await assert.rejects(openCard(img), (err: unknown) => err instanceof Invalid && /no FAT or exFAT partition \(types 0x83, 0x83\)/.test(err.message));
    // 0x07 holds exFAT or NTFS: the boot sector decides.
    const ntfs = Buffer.from(mbr);
    ntfs[446 + 4] = 0x07;
    ntfs.writeUInt32LE(2, 446 + 8);
    const ntfsBoot = Buffer.alloc(512);
    ntfsBoot.write("\xeb\x52\x90NTFS    ", 0, "latin1");
    writeFileSync(img, Buffer.concat([ntfs, Buffer.alloc(512), ntfsBoot]));
    await assert.rejects(openCard(img), (err: unknown) => err instanceof Invalid && /partition 1.*NTFS volume/.test(err.message));
    ntfs.writeUInt32LE(2048, 446 + 8);
    writeFileSync(img, Buffer.concat([ntfs, Buffer.alloc(1024)]));
    await assert.rejects(openCard(img), (err: unknown) => err instanceof Invalid && /starts at sector 2048, past the end of the image/.test(err.message));
    const gpt = Buffer.from(mbr);
    gpt[446 + 4] = 0xee;
    writeFileSync(img, Buffer.concat([gpt, Buffer.alloc(1024)]));
    await assert.rejects(openCard(img), (err: unknown) => err instanceof Invalid && /GPT/.test(err.message));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a damaged or hostile image: each broken file is refused with its reason, the rest still read", { skip }, async () => {
  const dir = workdir();
  try {
    const img = join(dir, "bad.img");
    run("mkfs.fat", "-C", img, "8192", "-F", "16", "-s", "2", "-n", "BAD");
    run("mmd", "-i", img, "::/DCIM");
    run("mmd", "-i", img, "::/DCIM/OUTER");
    run("mmd", "-i", img, "::/DCIM/OUTER/INNER");
    const good = randomBytes(2500);
    const names = ["LOOP", "TAIL", "OUTRANGE", "SHORT", "FREE", "BADCLUS", "FARSTART", "SLASHY", "LABEL"];
    for (const n of names) put(img, dir, `::/DCIM/${n}.JPG`, randomBytes(3000));
    put(img, dir, "::/DCIM/Photo with long name.jpg", randomBytes(100));
    put(img, dir, "::/DCIM/GOOD.JPG", good);
    put(img, dir, "::/DCIM/OUTER/INNER/KEPT.JPG", randomBytes(10));
    const first = (n: string) => (clustersOf(img, `::/DCIM/${n}.JPG`)[0] as number[])[0] as number;
    const c = Object.fromEntries(names.map((n) => [n, first(n)]));
    const buf = readFileSync(img);
    const l = layout(buf);
    setFat16(buf, l, (c.LOOP as number) + 1, c.LOOP as number);
    // A loop after the clusters the size needs leaves the file readable; it is noted, not refused.
    setFat16(buf, l, (c.TAIL as number) + 2, c.TAIL as number);
    setFat16(buf, l, c.OUTRANGE as number, 0xfff0);
    setFat16(buf, l, c.SHORT as number, 0xffff);
    setFat16(buf, l, (c.FREE as number) + 1, 0);
    setFat16(buf, l, c.BADCLUS as number, 0xfff7);
    buf.writeUInt16LE(0xffee, dirEntry(buf, "FARSTARTJPG") + 26);
    buf[dirEntry(buf, "LABEL   JPG") + 11] = 0x08;
    // A long name is trusted when its checksum fits; a '/' smuggled into one must not become a path separator.
    const lfn = buf.indexOf(Buffer.from("Photo", "utf16le"));
    buf.write("/", lfn, "utf16le");
    // INNER's entry made to point back at OUTER: a directory loop.
    const outer = dirEntry(buf, "OUTER      ");
    buf.writeUInt16LE(buf.readUInt16LE(outer + 26), dirEntry(buf, "INNER      ") + 26);
    writeFileSync(img, buf);

    const started = Date.now();
    const m = await openCard(img);
    try {
      const entries = await list(m);
      const by = new Map(entries.map((e) => [e.path, e]));
      const refusal = (p: string) => by.get(p)?.refused ?? "(not refused)";
      assert.match(refusal("DCIM/LOOP.JPG"), /loops back/);
      assert.equal(by.get("DCIM/TAIL.JPG")?.refused, undefined);
      assert.ok(m.notes.some((n) => n.startsWith("DCIM/TAIL.JPG: its cluster chain continues past its size")), m.notes.join("\n"));
      assert.match(refusal("DCIM/OUTRANGE.JPG"), /leaves the volume/);
      assert.match(refusal("DCIM/SHORT.JPG"), /ends after 1 clusters but its size needs 3/);
      assert.match(refusal("DCIM/FREE.JPG"), /free cluster/);
      assert.match(refusal("DCIM/BADCLUS.JPG"), /marked bad/);
      assert.match(refusal("DCIM/FARSTART.JPG"), /starts at cluster 65518, outside the volume/);
      assert.match(refusal("DCIM/LABEL.JPG"), /volume label yet points at data/);
      assert.match(refusal("DCIM/OUTER/INNER"), /directory loop/);
      const slashy = entries.find((e) => e.path.startsWith("DCIM/") && e.path.includes("\u2215"));
      assert.ok(slashy?.refused && /'\/'/.test(slashy.refused), "the name with '/' is refused, shown with a division slash");
      for (const e of entries) if (e.refused) assert.equal(e.open, undefined);
      assert.equal(sha(await readAll(by.get("DCIM/GOOD.JPG") as CardEntry)), sha(good));
      assert.ok(!by.has("DCIM/OUTER/INNER/KEPT.JPG"), "the looping directory was not descended");
      assert.ok(Date.now() - started < 5000);
    } finally {
      await m.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("volume-level observations: differing FAT copies, dirty flag, truncated image", { skip }, async () => {
  const dir = workdir();
  try {
    const img = join(dir, "obs.img");
    run("mkfs.fat", "-C", img, "8192", "-F", "16", "-s", "2");
    const early = randomBytes(2000);
    put(img, dir, "::/EARLY.JPG", early);
    put(img, dir, "::/LATE.JPG", randomBytes(200_000));
    const buf = readFileSync(img);
    const l = layout(buf);
    setFat16(buf, l, 4000, 0xffff, 1);
    buf.writeUInt16LE(buf.readUInt16LE(l.fatStart + 2) & 0x7fff, l.fatStart + 2);
    buf.writeUInt16LE(buf.readUInt16LE(l.fatStart + l.fatBytes + 2) & 0x7fff, l.fatStart + l.fatBytes + 2);
    writeFileSync(img, buf);
    const lateStart = (clustersOf(img, "::/LATE.JPG")[0] as number[])[0] as number;
    truncateSync(img, l.dataStart + (lateStart - 2 + 10) * l.bps * l.spc);

    const m = await openCard(img);
    try {
      assert.ok(m.notes.some((n) => /Copy 2 of the allocation table differs/.test(n)), m.notes.join("\n"));
      assert.ok(m.notes.some((n) => /dirty/.test(n)), m.notes.join("\n"));
      assert.ok(m.notes.some((n) => /truncated/.test(n)), m.notes.join("\n"));
      const entries = await list(m);
      assert.match(entries.find((e) => e.path === "LATE.JPG")?.refused ?? "", /beyond the end of the image/);
      assert.equal(sha(await readAll(entries.find((e) => e.path === "EARLY.JPG") as CardEntry)), sha(early));
    } finally {
      await m.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a looping FAT32 root directory and a forged huge volume stay bounded", { skip }, async () => {
  const dir = workdir();
  try {
    const img = join(dir, "root-loop.img");
    run("mkfs.fat", "-C", img, "40000", "-F", "32", "-s", "1");
    put(img, dir, "::/KEEP.JPG", Buffer.from("kept"));
    const buf = readFileSync(img);
    const l = layout(buf);
    const root = buf.readUInt32LE(44);
    for (let i = 0; i < l.fats; i++) buf.writeUInt32LE(root, l.fatStart + i * l.fatBytes + root * 4);
    writeFileSync(img, buf);
    const m = await openCard(img);
    try {
      const entries = await list(m);
      assert.deepEqual(entries.map((e) => e.path), ["KEEP.JPG"]);
      assert.ok(m.notes.some((n) => /The root directory: its cluster chain loops back/.test(n)), m.notes.join("\n"));
    } finally {
      await m.close();
    }
    buf.writeUInt32LE(0xfffffff0, 32);
    buf.writeUInt32LE(0x04000000, 36);
    writeFileSync(img, buf);
    await assert.rejects(openCard(img), (err: unknown) => err instanceof TooLarge && /clusters, more than/.test(err.message));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("kind is told from the bytes: a FAT image named .zip is an image; a JPEG named .img is refused", { skip }, async () => {
  const dir = workdir();
  try {
    const img = join(dir, "looks-like.zip");
    run("mkfs.fat", "-C", img, "2048", "-F", "12");
    const m = await openCard(img);
    assert.equal(m.kind, "fat-image");
    assert.equal(m.fsType, "FAT12");
    await m.close();
    const jpeg = join(dir, "card.img");
    writeFileSync(jpeg, Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(2000)]));
    await assert.rejects(openCard(jpeg), (err: unknown) => err instanceof Invalid && /looks like a jpeg file/.test(err.message));
    const exfat = Buffer.alloc(512);
    exfat.write("\xeb\x76\x90EXFAT   ", 0, "latin1");
    writeFileSync(jpeg, exfat);
    await assert.rejects(openCard(jpeg), (err: unknown) => err instanceof Invalid && /exFAT/.test(err.message));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("boot-sector parsing rejects impossible values and the 8.3 checksum matches the specification", () => {
  const s = Buffer.alloc(512);
  assert.match(String(parseBpb(s)), /jump/);
  s[0] = 0xeb;
  s[2] = 0x90;
  s.writeUInt16LE(500, 11);
  assert.match(String(parseBpb(s)), /sector size/);
  // Microsoft's FAT specification example routine over "FOO     BAR".
  let sum = 0;
  for (const b of Buffer.from("FOO     BAR")) sum = (((sum & 1) << 7) + (sum >> 1) + b) & 0xff;
  assert.equal(shortNameChecksum(Buffer.from("FOO     BAR")), sum);
});
