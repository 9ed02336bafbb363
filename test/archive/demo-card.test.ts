import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import exifr from "exifr";
import sharp from "sharp";
import { Conflict, Invalid } from "../../src/core/errors.ts";
import { writeDemoCard } from "../../src/archive/demo-card/index.ts";
import { plannedPaths } from "../../src/archive/demo-card/card.ts";
import type { DemoCardTruth } from "../../src/archive/demo-card/index.ts";
import { BodyFactory, BRANCHES, photosPerBody } from "../../src/archive/demo-card/bodies.ts";
import { cardFragment, chooseCardStyle, toArabicIndic } from "../../src/archive/demo-card/paper-card.ts";
import { Rng } from "../../src/archive/demo-card/prng.ts";
import { isoLocal, parseStartDate, WorkClock } from "../../src/archive/demo-card/schedule.ts";

let tmp = "";
let cardA = "";
let truth: DemoCardTruth;

async function listFiles(root: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const e of await readdir(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) await walk(p);
      else out.push(relative(root, p).split("\\").join("/"));
    }
  };
  await walk(root);
  return out.sort();
}

async function hashes(root: string): Promise<Map<string, string>> {
  const m = new Map<string, string>();
  for (const f of await listFiles(root)) {
    m.set(f, createHash("sha256").update(await readFile(join(root, f))).digest("hex"));
  }
  return m;
}

const OPTS = { bodies: 3, seed: "test-seed-1", withFaults: true, filesPerFolder: 8 };

before(async () => {
  tmp = await mkdtemp(join(tmpdir(), "dalil-demo-card-"));
  cardA = join(tmp, "a");
  truth = await writeDemoCard(cardA, OPTS);
});

after(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

test("file names are a camera's: DCIM/1xxNCD90/DSC_nnnn, numbers rising, a new folder after the configured count", async () => {
  const files = (await listFiles(cardA)).filter((f) => f !== "truth.json");
  const camera = truth.photos
    .filter((p) => p.kind !== "exact-duplicate")
    .map((p) => p.path)
    .concat(truth.faults.map((f) => f.path));
  for (const f of files) {
    assert.match(f, /^DCIM\/(\d{3}NCD90\/[DCS]SC_\d{4}\.(JPG|PNG|NEF|AVI)|900_COPY\/DSC_\d{4}\.JPG)$/, f);
  }
  const numbers = camera.map((p) => Number(/_(\d{4})\./.exec(p)?.[1])).sort((a, b) => a - b);
  assert.deepEqual(numbers, Array.from({ length: numbers.length }, (_, i) => i + 1), "one number per camera file, 1..n");
  const perFolder = new Map<string, number>();
  for (const p of camera) perFolder.set(p.slice(0, p.lastIndexOf("/")), (perFolder.get(p.slice(0, p.lastIndexOf("/"))) ?? 0) + 1);
  assert.ok(perFolder.size >= 2, "more than one DCIM folder with 8 files per folder");
  for (const [folder, n] of perFolder) assert.ok(n <= 8, `${folder} holds ${n} files`);
  // Folder n+1 only starts once folder n is full.
  const folders = [...perFolder.keys()].sort();
  for (const f of folders.slice(0, -1)) assert.equal(perFolder.get(f), 8, f);
});

test("truth matches the card: every file listed once, with its SHA-256 and size", async () => {
  const onDisk = await hashes(cardA);
  onDisk.delete("truth.json");
  const listed = [...truth.photos.map((p) => [p.path, p.sha256, p.bytes] as const), ...truth.faults.map((f) => [f.path, f.sha256, f.bytes] as const)];
  assert.equal(listed.length, onDisk.size, "no file on the card is missing from truth.json, none listed twice");
  for (const [path, sha, bytes] of listed) {
    assert.equal(onDisk.get(path), sha, path);
    assert.equal((await stat(join(cardA, path))).size, bytes, path);
  }
  const fromFile = JSON.parse(await readFile(join(cardA, "truth.json"), "utf8")) as DemoCardTruth;
  assert.deepEqual(fromFile, JSON.parse(JSON.stringify(truth)));
  assert.equal(fromFile.version, 1);
});

test("each body has 3 to 8 originals, and its photo list is exactly the files that show it", () => {
  assert.equal(truth.bodies.length, 3);
  for (const b of truth.bodies) {
    const mine = truth.photos.filter((p) => p.body === b.ref);
    const originals = mine.filter((p) => p.kind === "original");
    assert.ok(originals.length >= 3 && originals.length <= 8, `${b.ref}: ${originals.length} originals`);
    assert.deepEqual([...b.photos].sort(), mine.map((p) => p.path).sort());
    assert.match(b.detainee_no, /^\d{4,5}$/);
    assert.ok(BRANCHES.some(([n]) => n === b.branch_no), b.branch_no);
    assert.match(b.examiner_no, /^\d{4}(\/[بح])?$/);
    assert.ok(["latin", "arabic-indic"].includes(b.digits));
    assert.ok(b.age_min < b.age_max);
    assert.match(b.photo_date, /^\d{4}-\d{2}-\d{2}$/);
  }
});

test("photos per body are drawn from 3 to 8 with a mean near 5", () => {
  const rng = new Rng("test/photos-per-body");
  const draws = Array.from({ length: 20000 }, () => photosPerBody(rng));
  assert.equal(Math.min(...draws), 3);
  assert.equal(Math.max(...draws), 8);
  const mean = draws.reduce((a, b) => a + b, 0) / draws.length;
  assert.ok(mean > 4.8 && mean < 5.3, `mean ${mean}`);
});

test("bodies: about a third written in Arabic-Indic digits, detainee numbers unique, examiner numbers rising", () => {
  const f = new BodyFactory(new Rng("test/bodies"));
  const bodies = Array.from({ length: 3000 }, (_, i) => f.make(i, 3000, "Military Hospital 601"));
  const arabic = bodies.filter((b) => b.digits === "arabic-indic").length / bodies.length;
  assert.ok(arabic > 0.28 && arabic < 0.39, `share ${arabic}`);
  assert.equal(new Set(bodies.map((b) => b.detaineeNo)).size, bodies.length);
  const exam = bodies.map((b) => Number(b.examinerNo));
  for (let i = 1; i < exam.length; i++) assert.ok((exam[i] as number) > (exam[i - 1] as number));
  assert.ok(bodies.some((b) => b.sex === "female") && bodies.some((b) => b.marks.length > 0));
});

test("the card shows the numbers in the body's digits, with labels in the card's language", () => {
  const rng = new Rng("test/card");
  const nums = { detaineeNo: "29354", branchNo: "215", examinerNo: "1234/ب" };
  const arabic = cardFragment({ ...nums, digits: "arabic-indic" }, chooseCardStyle(rng, "arabic-indic"));
  const latin = cardFragment({ ...nums, digits: "latin" }, chooseCardStyle(rng, "latin"));
  assert.equal(toArabicIndic("29354"), "٢٩٣٥٤");
  for (const d of "٢٩٣٥٤١") assert.ok(arabic.includes(`>${d}<`), d);
  assert.ok(!/>[0-9]</.test(arabic), "no Latin digit on an Arabic card");
  assert.ok(arabic.includes(">رقم<") && arabic.includes(">فرع<") && arabic.includes(">طبيب<"));
  for (const d of "293541") assert.ok(latin.includes(`>${d}<`), d);
  assert.ok(latin.includes(">No.<") && latin.includes(">Branch<") && latin.includes(">Exam<"));
});

test("EXIF: one camera, owner field set, DateTimeOriginal rising through working hours Sunday to Thursday", async () => {
  const originals = truth.photos.filter((p) => p.kind === "original");
  let last = "";
  for (const p of originals) {
    const e = (await exifr.parse(join(cardA, p.path), { reviveValues: false, translateValues: false })) as Record<string, unknown>;
    assert.equal(e.Make, truth.camera.make);
    assert.equal(e.Model, "NIKON D90");
    assert.equal(e.SerialNumber, truth.camera.serial, "BodySerialNumber");
    assert.equal(e.Artist, truth.camera.artist);
    assert.equal(e.OwnerName, truth.camera.artist, "CameraOwnerName");
    assert.equal(e.Orientation, p.orientation);
    const dto = e.DateTimeOriginal as string;
    const offset = e.OffsetTimeOriginal as string;
    assert.match(offset, /^\+0[23]:00$/);
    const iso = `${dto.slice(0, 10).replace(/:/g, "-")}T${dto.slice(11)}${offset}`;
    assert.equal(iso, p.capture_time, p.path);
    assert.ok(iso > last, `${p.path} taken after the one before`);
    last = iso;
    const hour = Number(dto.slice(11, 13));
    assert.ok(hour >= 8 && hour < 15, `${dto} inside 08:00-15:00`);
    const day = new Date(`${dto.slice(0, 10).replace(/:/g, "-")}T00:00:00Z`).getUTCDay();
    assert.ok(day <= 4, `${dto} is a Sunday-Thursday`);
  }
});

test("pictures are JPEGs of about 1600x1200, portrait ones turned by EXIF orientation, sized like camera files", async () => {
  for (const p of truth.photos) {
    const m = await sharp(join(cardA, p.path)).metadata();
    assert.equal(m.format, "jpeg");
    assert.equal(m.orientation ?? 1, p.orientation);
    assert.deepEqual([m.autoOrient.width, m.autoOrient.height], [p.width, p.height], p.path);
    if (p.kind === "original") {
      assert.ok(Math.max(p.width, p.height) === 1600 && Math.min(p.width, p.height) === 1200);
      assert.ok(p.bytes > 250_000 && p.bytes < 800_000, `${p.path}: ${p.bytes} bytes`);
    }
  }
});

test("exact duplicates are the same bytes elsewhere; near duplicates differ but keep the capture time", async () => {
  const byPath = new Map(truth.photos.map((p) => [p.path, p]));
  const exact = truth.photos.filter((p) => p.kind === "exact-duplicate");
  const near = truth.photos.filter((p) => p.kind === "near-duplicate");
  assert.ok(exact.length >= 1 && near.length >= 1);
  for (const d of exact) {
    const o = byPath.get(d.duplicate_of ?? "");
    assert.ok(o && o.kind === "original");
    assert.equal(d.sha256, o.sha256);
    assert.notEqual(d.path.slice(0, d.path.lastIndexOf("/")), o.path.slice(0, o.path.lastIndexOf("/")));
  }
  for (const d of near) {
    const o = byPath.get(d.duplicate_of ?? "");
    assert.ok(o && o.kind === "original" && o.body === d.body);
    assert.notEqual(d.sha256, o.sha256);
    assert.match(d.path, d.variant === "small" ? /\/SSC_\d{4}\.JPG$/ : /\/CSC_\d{4}\.JPG$/);
    const e = (await exifr.parse(join(cardA, d.path), { reviveValues: false })) as Record<string, unknown>;
    assert.equal(e.DateTimeOriginal, (await exifr.parse(join(cardA, o.path), { reviveValues: false }))?.DateTimeOriginal);
    assert.equal(d.capture_time, o.capture_time);
  }
});

test("--with-faults: every fault is on the card and is what truth says it is", async () => {
  const byName = new Map(truth.faults.map((f) => [f.fault, f]));
  const expected: Record<string, "quarantine" | "preserve"> = {
    "truncated-jpeg": "quarantine",
    "zero-bytes": "quarantine",
    "jpeg-named-png": "preserve",
    "png-named-jpg": "preserve",
    "not-an-image": "quarantine",
    "decompression-bomb-png": "quarantine",
    "decompression-bomb-jpeg": "quarantine",
    "hostile-exif": "preserve",
    "raw-nef": "preserve",
    "movie-avi": "preserve",
  };
  assert.deepEqual([...byName.keys()].sort(), Object.keys(expected).sort());
  for (const [name, expect] of Object.entries(expected)) assert.equal(byName.get(name)?.expect, expect, name);
  for (const f of truth.faults) assert.ok(f.reason.length > 20, f.fault);
  const read = (name: string): Promise<Buffer> => readFile(join(cardA, byName.get(name)?.path ?? "missing"));

  const trunc = await read("truncated-jpeg");
  assert.deepEqual([...trunc.subarray(0, 2)], [0xff, 0xd8]);
  assert.notDeepEqual([...trunc.subarray(-2)], [0xff, 0xd9]);
  await assert.rejects(sharp(trunc).raw().toBuffer(), /premature end|truncated/i);
  assert.equal(truth.faults.at(-1)?.fault, "truncated-jpeg", "the last file the camera wrote");

  assert.equal((await read("zero-bytes")).length, 0);
  assert.match(byName.get("jpeg-named-png")?.path ?? "", /\.PNG$/);
  assert.equal((await sharp(await read("jpeg-named-png")).metadata()).format, "jpeg");
  assert.match(byName.get("png-named-jpg")?.path ?? "", /\.JPG$/);
  assert.equal((await sharp(await read("png-named-jpg")).metadata()).format, "png");
  const text = await read("not-an-image");
  assert.ok([...text].every((c) => c === 9 || c === 10 || c === 13 || (c >= 32 && c < 127)));
  await assert.rejects(sharp(text).metadata(), /unsupported image format/);

  for (const bomb of ["decompression-bomb-png", "decompression-bomb-jpeg"]) {
    const b = await read(bomb);
    assert.ok(b.length < 200_000, `${bomb} is small: ${b.length}`);
    const m = await sharp(b, { limitInputPixels: false }).metadata();
    assert.deepEqual([m.width, m.height], [30000, 30000], bomb);
    await assert.rejects(sharp(b).raw().toBuffer(), /pixel limit/, bomb);
  }

  const hostile = await read("hostile-exif");
  const px = await sharp(hostile).raw().toBuffer({ resolveWithObject: true });
  assert.equal(px.info.width, 800, "the pixels decode");
  const started = performance.now();
  await exifr.parse(hostile).catch(() => undefined);
  assert.ok(performance.now() - started < 2000, "exifr finishes quickly");
  assert.ok(hostile.includes(Buffer.from("Exif\0\0II*\0", "latin1")));

  const nef = await read("raw-nef");
  assert.deepEqual([...nef.subarray(0, 4)], [0x49, 0x49, 0x2a, 0x00]);
  assert.match(byName.get("raw-nef")?.path ?? "", /\.NEF$/);
  assert.equal((await sharp(nef).metadata()).format, "tiff");
  const avi = await read("movie-avi");
  assert.equal(avi.toString("latin1", 0, 4), "RIFF");
  assert.equal(avi.toString("latin1", 8, 12), "AVI ");
  assert.equal(avi.readUInt32LE(4), avi.length - 8);
});

test("the same seed writes the same card, byte for byte", async () => {
  const b = join(tmp, "b");
  await writeDemoCard(b, OPTS);
  const [ha, hb] = await Promise.all([hashes(cardA), hashes(b)]);
  assert.deepEqual([...hb.entries()], [...ha.entries()]);
});

test("a card the size of the case (11,000 bodies, numbers past 9,999 used again): no two files share a path", () => {
  const paths = plannedPaths({ bodies: 11000, seed: "bench", withFaults: true });
  assert.ok(paths.length > 50_000, `planned ${paths.length}`);
  assert.equal(new Set(paths).size, paths.length, "every path once");
  const copies = paths.filter((p) => p.startsWith("DCIM/900_COPY/"));
  assert.ok(copies.some((p) => / \(2\)\.JPG$/.test(p)), "a second copy of a reused number is named as a computer names it");
});

test("a card drawn in shards, or stopped and resumed, is the same card byte for byte", async () => {
  const ha = await hashes(cardA);
  // two shards at once, then a resume that reads them back and writes the truth
  const sharded = join(tmp, "sharded");
  await Promise.all([writeDemoCard(sharded, { ...OPTS, shard: { index: 0, of: 2 } }), writeDemoCard(sharded, { ...OPTS, shard: { index: 1, of: 2 } })]);
  assert.ok(!(await listFiles(sharded)).includes("truth.json"), "a shard writes no truth");
  const progress: number[] = [];
  const again = await writeDemoCard(sharded, { ...OPTS, resume: true }, (d) => progress.push(d));
  assert.deepEqual([...(await hashes(sharded)).entries()], [...ha.entries()]);
  assert.deepEqual(again, truth);
  assert.equal(progress.at(-1), truth.photos.length + truth.faults.length, "read-back files count as progress");

  // a run stopped mid-way: one file gone, one half-written (its time never set), one left aside
  const stopped = join(tmp, "stopped");
  await writeDemoCard(stopped, OPTS);
  await rm(join(stopped, "truth.json"));
  const [gone, half] = truth.photos.filter((p) => p.kind === "original").map((p) => p.path);
  await rm(join(stopped, gone!));
  await writeFile(join(stopped, half!), "half a JPEG");
  await writeFile(join(stopped, `${gone!}.writing`), "the write in flight");
  await writeDemoCard(stopped, { ...OPTS, resume: true });
  assert.deepEqual([...(await hashes(stopped)).entries()], [...ha.entries()]);

  await assert.rejects(writeDemoCard(stopped, { ...OPTS, resume: true }), (e: unknown) => e instanceof Conflict && /complete/.test(e.message));
  await assert.rejects(writeDemoCard(join(tmp, "bad-shard"), { ...OPTS, shard: { index: 2, of: 2 } }), (e: unknown) => e instanceof Invalid && e.field === "shard");
});

test("another seed writes another card; without --with-faults there are none", async () => {
  const tc = await writeDemoCard(join(tmp, "c"), { bodies: 1, seed: 42 });
  assert.equal(tc.seed, "42", "a number and its decimal string are one seed");
  assert.notEqual(tc.camera.serial + tc.bodies[0]?.detainee_no, truth.camera.serial + truth.bodies[0]?.detainee_no);
  assert.notEqual(tc.photos[0]?.sha256, truth.photos[0]?.sha256);
  assert.deepEqual(tc.faults, []);
});

test("refuses a folder that is not empty, and options it cannot honour, saying why", async () => {
  const busy = join(tmp, "busy");
  await mkdir(busy);
  await writeFile(join(busy, "note.txt"), "x");
  await assert.rejects(writeDemoCard(busy, { bodies: 1 }), (e: unknown) => e instanceof Conflict && /not empty/.test(e.message));
  await assert.rejects(writeDemoCard(join(tmp, "e"), { bodies: 0 }), (e: unknown) => e instanceof Invalid && e.field === "bodies");
  await assert.rejects(
    writeDemoCard(join(tmp, "f"), { bodies: 1, startDate: "2012-02-30" }),
    (e: unknown) => e instanceof Invalid && e.field === "startDate",
  );
});

test("the work clock skips Friday and Saturday and knows Damascus summer time", () => {
  const clock = new WorkClock("2012-05-04"); // a Friday
  const rng = new Rng("test/clock");
  clock.nextBody(rng);
  assert.match(isoLocal(clock.now()), /^2012-05-06T08:/, "starts on Sunday morning");
  assert.equal(isoLocal(parseStartDate("2012-07-01") + 9 * 3600_000), "2012-07-01T09:00:00+03:00");
  assert.equal(isoLocal(parseStartDate("2012-01-15") + 9 * 3600_000), "2012-01-15T09:00:00+02:00");
  const days = new Set<string>();
  for (let i = 0; i < 400; i++) {
    clock.nextBody(rng);
    const t = clock.now();
    days.add(isoLocal(t).slice(0, 10));
    const d = new Date(t);
    assert.ok(d.getUTCDay() <= 4 && d.getUTCHours() >= 8 && d.getUTCHours() < 15, isoLocal(t));
  }
  assert.ok(days.size > 3, "a full day rolls over to the next working day");
});

test("the fonts the card is drawn with are installed (fonts-noto-core, fonts-dejavu-core, fonts-liberation)", () => {
  const families = ["Noto Naskh Arabic", "Noto Sans Arabic", "Noto Sans", "DejaVu Sans", "Liberation Sans"];
  for (const family of families) {
    const r = spawnSync("fc-match", ["--format=%{family}", `${family}:bold`], { encoding: "utf8" });
    assert.equal(r.error, undefined, "fc-match (fontconfig) is needed to check the fonts");
    assert.ok(r.stdout.split(",").includes(family), `${family} resolves to "${r.stdout}": install its font package`);
  }
});
