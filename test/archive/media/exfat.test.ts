import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { crc32 } from "node:zlib";
import { openCard } from "../../../src/archive/media/sources.ts";
import type { CardEntry } from "../../../src/archive/media/sources.ts";
import { bootRegionHolds, entrySetChecksum, exfatTime, MAX_EXFAT_CLUSTERS, parseExfatBoot } from "../../../src/archive/media/exfat.ts";
import { Invalid, TooLarge } from "../../../src/core/errors.ts";
import { inWorkdir, list, readAll, sha } from "../../support/card-media.ts";
import { buildExfat, LINUX_DATA, resealBootRegion, resealGptHeader, setChecksum, wrapGpt, wrapMbr } from "../../support/exfat-image.ts";
import type { ExfatNode } from "../../support/exfat-image.ts";

const TOOLS = ["fsck.exfat", "mkfs.exfat", "sgdisk", "mkfs.fat"];
const missing = TOOLS.filter((t) => spawnSync("sh", ["-c", `command -v ${t}`]).status !== 0);
// Under CI every test must run: a missing tool then fails the test instead of skipping it.
const skip = missing.length > 0 && process.env.CI !== "true" ? `needs ${missing.join(", ")} (Debian packages exfatprogs, gdisk, dosfstools)` : false;

function tool(cmd: string, ...args: string[]): { status: number | null; out: string } {
  const r = spawnSync(cmd, args, { encoding: "utf8", env: { ...process.env, LANG: "C.UTF-8" } });
  if (r.error) throw r.error;
  return { status: r.status, out: r.stdout + r.stderr };
}

function bytes(n: number, seed: number): Buffer {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = (i * 31 + seed * 7 + (i >> 8)) & 0xff;
  return b;
}

const ARABIC = "شهادة/صورة الجثمان ١.jpg";
const CARD: ExfatNode[] = [
  { path: "DCIM/100CANON/IMG_0001.JPG", data: bytes(10_000, 1), modified: { year: 2025, month: 3, day: 1, hour: 14, minute: 30, second: 13, centis: 34, offset: 180 } },
  { path: "DCIM/100CANON/IMG_0002.JPG", data: bytes(20_000, 2), fragmented: true, modified: { year: 2025, month: 3, day: 1, hour: 9, minute: 0, second: 0, offset: -300 } },
  { path: "DCIM/100CANON/MVI_0003.MOV", data: bytes(70_000, 3), fragmented: true },
  { path: ARABIC, data: bytes(300, 4), modified: { year: 2024, month: 12, day: 31, hour: 23, minute: 59, second: 58, offset: 345 } },
  { path: "MISC/partial.bin", data: bytes(9000, 5), validLength: 5000 },
  { path: "MISC/empty.txt", data: Buffer.alloc(0) },
  { path: "A file name longer than thirty characters, over three name entries.JPG", data: bytes(5, 6) },
  // Enough entries that DCIM/100CANON spans several clusters when clusters are 512 bytes.
  ...Array.from({ length: 8 }, (_, i) => ({ path: `DCIM/100CANON/IMG_${1000 + i}.JPG`, data: bytes(600 + i, 10 + i) })),
];

test("exFAT timestamps are reported as recorded: wall clock, with the UTC offset only when marked valid", () => {
  const s = ((2025 - 1980) << 25) | (3 << 21) | (1 << 16) | (14 << 11) | (30 << 5) | 6;
  assert.equal(exfatTime(s >>> 0, 0, 0), "2025-03-01T14:30:12");
  assert.equal(exfatTime(s >>> 0, 150, 0x80 | 12), "2025-03-01T14:30:13.500+03:00");
  assert.equal(exfatTime(s >>> 0, 0, 0x80 | (-20 & 0x7f)), "2025-03-01T14:30:12-05:00");
  assert.equal(exfatTime(s >>> 0, 0, 0x80 | 23), "2025-03-01T14:30:12+05:45");
  assert.equal(exfatTime(s >>> 0, 0, 0x80), "2025-03-01T14:30:12+00:00", "an offset of zero marked valid is UTC, said so");
  assert.equal(exfatTime(s >>> 0, 0, 12), "2025-03-01T14:30:12", "an offset not marked valid is not reported");
  assert.equal(exfatTime(0, 0, 0x80), undefined);
});

test("an exFAT card built after the specification (checked by fsck.exfat) is read file by file, bare and in an MBR", { skip }, async () => {
  await inWorkdir("dalil-exfat-", async (dir) => {
    const img = join(dir, "card.img");
    const mbr = join(dir, "mbr.img");
    const chained = buildExfat(CARD, { label: "كاميرا", serial: 0xc0ffee11 }).image;
    const contiguous = buildExfat(CARD, { label: "كاميرا", serial: 0xc0ffee11, contiguousDirs: true, clusterShift: 0, clusterCount: 4096 }).image;
    for (const [path, image] of [[img, chained], [img, contiguous], [mbr, wrapMbr(chained, 0x07)]] as const) {
      writeFileSync(path, image);
      if (path === img) {
        const fsck = tool("fsck.exfat", "-n", img);
        assert.equal(fsck.status, 0, fsck.out);
        assert.match(fsck.out, /clean/);
      }
      const m = await openCard(path);
      try {
        assert.equal(m.kind, "fat-image");
        assert.equal(m.fsType, "exFAT");
        assert.equal(m.volumeLabel, "كاميرا");
        assert.equal(m.volumeSerial, "C0FF-EE11");
        assert.equal(m.sha256, sha(readFileSync(path)));
        const entries = await list(m);
        const files = CARD.filter((n) => n.data);
        assert.deepEqual(entries.map((e) => e.path).sort(), files.map((n) => n.path).sort());
        for (const n of files) {
          const e = entries.find((x) => x.path === n.path) as CardEntry;
          assert.equal(e.size, n.data?.length);
          const want = Buffer.from(n.data as Buffer);
          if (n.validLength !== undefined) want.fill(0, n.validLength);
          assert.equal(sha(await readAll(e)), sha(want), `${n.path} reads byte for byte`);
        }
        const at = (p: string) => entries.find((e) => e.path === p) as CardEntry;
        assert.equal(at("DCIM/100CANON/IMG_0001.JPG").modified, "2025-03-01T14:30:13.340+03:00");
        assert.equal(at("DCIM/100CANON/IMG_0002.JPG").modified, "2025-03-01T09:00:00-05:00");
        assert.equal(at(ARABIC).modified, "2024-12-31T23:59:58+05:45");
        assert.equal(at("DCIM/100CANON/MVI_0003.MOV").modified, "2024-05-17T09:41:30", "no valid offset: no zone");
        assert.deepEqual(m.notes, ["MISC/partial.bin: only its first 5000 of 9000 bytes were written (ValidDataLength); the rest reads as zeros, as exFAT defines, and was extracted as zeros."]);
      } finally {
        await m.close();
      }
    }
  });
});

test("mkfs.exfat's own volume: its boot checksum verifies, and it reads as an empty card; a bad boot region falls back or is refused", { skip }, async () => {
  await inWorkdir("dalil-exfat-", async (dir) => {
    const img = join(dir, "mkfs.img");
    writeFileSync(img, Buffer.alloc(0));
    spawnSync("truncate", ["-s", "64M", img]);
    const made = tool("mkfs.exfat", "-L", "EOS 5D", img);
    assert.equal(made.status, 0, made.out);
    const image = readFileSync(img);
    const boot = parseExfatBoot(image.subarray(0, 512));
    assert.ok(typeof boot !== "string", String(boot));
    assert.ok(bootRegionHolds(image.subarray(0, 12 * 512), boot.bytesPerSector), "mkfs.exfat's main boot region checksum");
    assert.ok(bootRegionHolds(image.subarray(12 * 512, 24 * 512), boot.bytesPerSector), "mkfs.exfat's backup boot region checksum");
    assert.equal(boot.volumeLength * boot.bytesPerSector, 64 * 1024 * 1024);
    const m = await openCard(img);
    try {
      assert.equal(m.fsType, "exFAT");
      assert.equal(m.volumeLabel, "EOS 5D");
      assert.deepEqual(await list(m), []);
      assert.deepEqual(m.notes, []);
    } finally {
      await m.close();
    }
    // A byte changed in sector 5 of the main boot region: the backup region is used, with a note.
    image[5 * 512 + 100] = (image[5 * 512 + 100] as number) ^ 0xff;
    writeFileSync(img, image);
    const fallback = await openCard(img);
    assert.ok(fallback.notes.some((n) => /main boot region fails its checksum.*backup/.test(n)), fallback.notes.join("\n"));
    await fallback.close();
    image[17 * 512 + 100] = (image[17 * 512 + 100] as number) ^ 0xff;
    writeFileSync(img, image);
    await assert.rejects(openCard(img), (err: unknown) => err instanceof Invalid && /checksum.*and so does the backup boot region/.test(err.message));
  });
});

test("a GPT disk (checked by sgdisk -v) is read from its first basic data partition, FAT or exFAT; other partitions are noted", { skip }, async () => {
  await inWorkdir("dalil-exfat-", async (dir) => {
    const ex = buildExfat(CARD.slice(0, 2)).image;
    const fatVol = join(dir, "fat.img");
    assert.equal(tool("mkfs.fat", "-C", "-F", "16", "-s", "2", "-n", "GPTFAT", fatVol, "8192").status, 0);
    const cases = [
      { parts: [{ volume: ex }], fsType: "exFAT", label: undefined, files: 2, others: false },
      { parts: [{ volume: Buffer.alloc(1024 * 1024), type: LINUX_DATA }, { volume: ex }], fsType: "exFAT", label: undefined, files: 2, others: true },
      { parts: [{ volume: readFileSync(fatVol) }, { volume: ex }], fsType: "FAT16", label: "GPTFAT", files: 0, others: false },
    ];
    for (const c of cases) {
      const img = join(dir, "disk.img");
      writeFileSync(img, wrapGpt(c.parts).image);
      const v = tool("sgdisk", "-v", img);
      assert.equal(v.status, 0, v.out);
      assert.match(v.out, /No problems found/);
      const m = await openCard(img);
      try {
        assert.equal(m.fsType, c.fsType);
        assert.equal(m.volumeLabel, c.label);
        const entries = await list(m);
        assert.equal(entries.length, c.files);
        for (const e of entries) assert.equal(sha(await readAll(e)), sha(CARD.find((n) => n.path === e.path)?.data as Buffer));
        assert.equal(m.notes.some((n) => /\(GPT\) lists 1 other partition\(s\); only partition 2 \(the first FAT or exFAT one\)/.test(n)), c.others, m.notes.join("\n"));
        assert.equal(m.notes.some((n) => /lists 1 other partition\(s\); only partition 1/.test(n)), c.fsType === "FAT16", m.notes.join("\n"));
      } finally {
        await m.close();
      }
    }
  });
});

test("a damaged or hostile GPT is refused with a sentence: bad CRCs, an array past the end, absurd counts, no data partition", { skip }, async () => {
  await inWorkdir("dalil-exfat-", async (dir) => {
    const img = join(dir, "disk.img");
    const refused = async (disk: Buffer, why: RegExp) => {
    writeFileSync(img, disk);
    await assert.rejects(openCard(img), (err: unknown) => err instanceof Invalid && why.test(err.message), why.source);
    };
    const good = wrapGpt([{ volume: buildExfat(CARD.slice(0, 1)).image }]).image;
    const h = 512;
    const edit = (f: (d: Buffer) => void, reseal = true) => {
      const d = Buffer.from(good);
      f(d);
      if (reseal) resealGptHeader(d);
      return d;
    };
    const badHeader = edit((d) => (d[h + 60] = (d[h + 60] as number) ^ 1), false);
    await refused(badHeader, /GPT header at sector 1 fails its CRC32 check/);
    writeFileSync(img, badHeader);
    assert.match(tool("sgdisk", "-v", img).out, /Invalid CRC on main header/, "sgdisk sees it too");
    await refused(edit((d) => (d[1024 + 40] = 9), false), /partition entry array fails its CRC32 check/);
    await refused(edit((d) => d.writeBigUInt64LE(BigInt(d.length / 512), h + 72)), /entry array lies past the end of the image/);
    await refused(edit((d) => d.writeUInt32LE(0x10000000, h + 80)), /declares 268435456 partition entries/);
    await refused(edit((d) => d.writeUInt32LE(100, h + 84)), /impossible partition entry size/);
    await refused(edit((d) => d.write("NOT PART", h, "latin1")), /announces a GPT, but sector 1 holds no GPT header/);
    // A partition whose bounds lie outside the usable sectors: noted, and with it the only data partition gone.
    const outside = edit((d) => {
      d.writeBigUInt64LE(BigInt(d.length), 1024 + 40);
      d.writeUInt32LE(crc32(d.subarray(1024, 1024 + 128 * 128)), h + 88);
    });
    await refused(outside, /no Microsoft basic data partition/);
    // A partition inside the table's bounds but past the image's end (a truncated image).
    const truncated = good.subarray(0, 2048 * 512 + 512 - 1);
    await refused(truncated, /past the end of the image/);
    // A damaged backup header is only noted: the primary checks out.
    const backup = Buffer.from(good);
    backup[backup.length - 512 + 60] = (backup[backup.length - 512 + 60] as number) ^ 1;
    writeFileSync(img, backup);
    const m = await openCard(img);
    assert.ok(m.notes.some((n) => /backup header is not intact/.test(n)), m.notes.join("\n"));
    assert.equal((await list(m)).length, 1);
    await m.close();
  });
});

test("a damaged or hostile exFAT volume: each broken file is refused with its reason, the rest still read, nothing hangs", { skip }, async () => {
  await inWorkdir("dalil-exfat-", async (dir) => {
    const img = join(dir, "card.img");
    const nodes: ExfatNode[] = [
      { path: "DCIM/LOOP.JPG", data: bytes(16_384, 1), fragmented: true },
      { path: "DCIM/PAST.JPG", data: bytes(5000, 2) },
      { path: "DCIM/HUGE.JPG", data: bytes(10, 3) },
      { path: "DCIM/ABSURD.JPG", data: bytes(10, 4) },
      { path: "DCIM/CHECKSUM.JPG", data: bytes(10, 5) },
      { path: "DCIM/GONE.JPG", data: bytes(10, 6) },
      { path: "DCIM/VALID.JPG", data: bytes(10, 7) },
      { path: "DCIM/OUTER/INNER/X.JPG", data: bytes(10, 8) },
      { path: "DCIM/OK.JPG", data: bytes(7000, 9), fragmented: true },
      { path: "LAST.JPG", data: bytes(9000, 10) },
    ];
    const built = buildExfat(nodes);
    const v = Buffer.from(built.image);
    const set = (p: string) => built.entrySet.get(p) as number;
    const reseal = (p: string) => {
      const at = set(p);
      const b = v.subarray(at, at + 32 * (1 + (v[at + 1] as number)));
      b.writeUInt16LE(setChecksum(b), 2);
    };
    const fatAt = (c: number) => built.fatOffset + c * 4;
    // LOOP.JPG: its four clusters' chain turns back from the third to the first.
    const loop = built.firstCluster.get("DCIM/LOOP.JPG") as number;
    const second = v.readUInt32LE(fatAt(loop));
    const third = v.readUInt32LE(fatAt(second));
    v.writeUInt32LE(loop, fatAt(third));
    // PAST.JPG: starts at the last cluster of the heap, and runs past it.
    v.writeUInt32LE(1025, set("DCIM/PAST.JPG") + 52);
    reseal("DCIM/PAST.JPG");
    // HUGE.JPG: a length of 1 TiB (valid data too) on a 4 MiB volume; ABSURD.JPG: a length past 2^53.
    v.writeBigUInt64LE(2n ** 40n, set("DCIM/HUGE.JPG") + 56);
    v.writeBigUInt64LE(2n ** 40n, set("DCIM/HUGE.JPG") + 40);
    reseal("DCIM/HUGE.JPG");
    v.writeBigUInt64LE(2n ** 62n, set("DCIM/ABSURD.JPG") + 56);
    reseal("DCIM/ABSURD.JPG");
    // CHECKSUM.JPG: a size changed without its set's checksum.
    v.writeBigUInt64LE(11n, set("DCIM/CHECKSUM.JPG") + 56);
    // GONE.JPG: deleted (InUse cleared on all its entries).
    for (let i = 0; i < 3; i++) v[set("DCIM/GONE.JPG") + 32 * i] = (v[set("DCIM/GONE.JPG") + 32 * i] as number) & 0x7f;
    // VALID.JPG: a valid data length past its data length.
    v.writeBigUInt64LE(99n, set("DCIM/VALID.JPG") + 40);
    reseal("DCIM/VALID.JPG");
    // DCIM/OUTER/INNER points back at DCIM/OUTER: a directory loop.
    v.writeUInt32LE(built.firstCluster.get("DCIM/OUTER") as number, set("DCIM/OUTER/INNER") + 52);
    reseal("DCIM/OUTER/INNER");
    writeFileSync(img, v);
    assert.notEqual(tool("fsck.exfat", "-n", img).status, 0, "fsck.exfat sees the damage too");

    const m = await openCard(img);
    const entries = await list(m);
    const refusal = (p: string) => entries.find((e) => e.path === p)?.refused ?? `(not refused: ${p})`;
    assert.match(refusal("DCIM/LOOP.JPG"), /loops back to cluster/);
    assert.match(refusal("DCIM/PAST.JPG"), /clusters run to cluster 1026 after 1 clusters, outside the cluster heap/);
    assert.match(refusal("DCIM/HUGE.JPG"), /needs 268435456 clusters, more than the volume's 1024/);
    assert.match(refusal("DCIM/ABSURD.JPG"), /absurd data length/);
    assert.match(refusal("DCIM/CHECKSUM.JPG"), /fails its checksum/);
    assert.match(refusal("DCIM/VALID.JPG"), /valid data length \(99\) past its data length \(10\)/);
    assert.match(refusal("DCIM/OUTER/INNER"), /directory loop/);
    assert.equal(entries.find((e) => e.path === "DCIM/GONE.JPG"), undefined, "deleted entries are not listed");
    assert.ok(m.notes.some((n) => /^1 deleted file entry set/.test(n)), m.notes.join("\n"));
    assert.equal(sha(await readAll(entries.find((e) => e.path === "DCIM/OK.JPG") as CardEntry)), sha(bytes(7000, 9)), "the rest still read");
    await m.close();

    // A truncated image: the last file's clusters are gone; the rest still read.
    const lastAt = built.heapOffset + ((built.firstCluster.get("LAST.JPG") as number) - 2) * built.clusterBytes;
    writeFileSync(img, built.image.subarray(0, lastAt + 100));
    const t = await openCard(img);
    const tEntries = await list(t);
    assert.match(tEntries.find((e) => e.path === "LAST.JPG")?.refused ?? "", /beyond the end of the image/);
    assert.ok(t.notes.some((n) => /image is truncated/.test(n)), t.notes.join("\n"));
    assert.equal(sha(await readAll(tEntries.find((e) => e.path === "DCIM/OK.JPG") as CardEntry)), sha(bytes(7000, 9)));
    await t.close();
  });
});

test("a looping root directory and a forged huge volume stay bounded", { skip }, async () => {
  await inWorkdir("dalil-exfat-", async (dir) => {
    const img = join(dir, "card.img");
    const built = buildExfat(CARD.slice(0, 1));
    const v = Buffer.from(built.image);
    const root = built.firstCluster.get("/") as number;
    v.writeUInt32LE(root, built.fatOffset + root * 4);
    writeFileSync(img, v);
    const m = await openCard(img);
    assert.equal((await list(m)).length, 1);
    assert.ok(m.notes.some((n) => /root directory: its cluster chain loops back/.test(n)), m.notes.join("\n"));
    await m.close();

    // A boot sector claiming 2^31 clusters, self-consistent and with a valid checksum, in a 4 MiB image.
    const forged = Buffer.from(built.image);
    const count = 2 ** 31;
    forged.writeUInt32LE(count, 92);
    forged.writeUInt32LE(Math.ceil(((count + 2) * 4) / 512), 84);
    forged.writeUInt32LE(32 + Math.ceil(((count + 2) * 4) / 512), 88);
    forged.writeBigUInt64LE(BigInt(32 + Math.ceil(((count + 2) * 4) / 512) + count * 8), 72);
    resealBootRegion(forged);
    assert.ok(typeof parseExfatBoot(forged.subarray(0, 512)) !== "string");
    writeFileSync(img, forged);
    const started = Date.now();
    await assert.rejects(openCard(img), (err: unknown) => err instanceof TooLarge && new RegExp(`${count} clusters, more than the ${MAX_EXFAT_CLUSTERS}`).test(err.message));
    assert.ok(Date.now() - started < 5000);
  });
});

test("exFAT boot sector parsing rejects impossible values; the entry set checksum matches the builder's", () => {
  const s = buildExfat([]).image.subarray(0, 512);
  const broken = (f: (b: Buffer) => void) => {
    const b = Buffer.from(s);
    f(b);
    return String(parseExfatBoot(b));
  };
  assert.match(broken((b) => (b[108] = 8)), /sector size/);
  assert.match(broken((b) => (b[109] = 20)), /cluster size/);
  assert.match(broken((b) => (b[40] = 1)), /bytes 11–63 must be zero/);
  assert.match(broken((b) => b.writeUInt32LE(5000, 96)), /root directory at cluster 5000/);
  assert.match(broken((b) => b.writeUInt32LE(1, 84)), /FAT too small/);
  assert.match(broken((b) => b.writeUInt32LE(33, 88)), /cluster heap over the FAT/);
  assert.match(broken((b) => b.writeBigUInt64LE(100n, 72)), /past the volume's declared length/);
  assert.match(broken((b) => (b[110] = 3)), /3 FATs/);
  const set = Buffer.alloc(96);
  set[0] = 0x85;
  set[1] = 2;
  set[32] = 0xc0;
  set[64] = 0xc1;
  set.write("x", 66, "utf16le");
  assert.equal(entrySetChecksum(set), setChecksum(set));
});
