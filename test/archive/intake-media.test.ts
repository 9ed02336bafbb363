import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { operatorActor } from "../../src/core/actor.ts";
import { ingestCard } from "../../src/archive/intake.ts";
import { verifyArchive } from "../../src/app/verify.ts";
import { openDatabase } from "../../src/db/database.ts";
import { backends, tempDir } from "../support/backends.ts";
import { demoCard, freshArchive } from "../support/archive.ts";
import { BIN, dalil } from "../support/cli.ts";
import { buildExfat, wrapGpt } from "../support/exfat-image.ts";
import type { ExfatNode } from "../support/exfat-image.ts";

const actor = operatorActor();
const haveMtools = spawnSync("mcopy", ["--version"]).status === 0 && spawnSync("mkfs.fat", ["--help"]).status !== null;
const needTools = !haveMtools && process.env.CI !== "true" ? "mkfs.fat/mcopy (dosfstools, mtools) not installed" : false;
const haveExfatTools = spawnSync("sh", ["-c", "command -v fsck.exfat && command -v sgdisk"]).status === 0;
const needExfatTools = !haveExfatTools && process.env.CI !== "true" ? "fsck.exfat/sgdisk (exfatprogs, gdisk) not installed" : false;

/** A raw FAT32 image of the card's DCIM folder, as `dd` of a real card would give. */
function fatImageOf(cardDir: string): string {
  const img = join(tempDir("dalil-img-"), "card.img");
  execFileSync("mkfs.fat", ["-C", "-F", "32", "-n", "NIKON D90", img, String(64 * 1024)], { stdio: "ignore" });
  execFileSync("mcopy", ["-s", "-i", img, join(cardDir, "DCIM"), "::/"], { stdio: "ignore" });
  return img;
}

/** A zip of the card written by Python's zipfile (an independent writer). */
function zipOf(cardDir: string): string {
  const zip = join(tempDir("dalil-zip-"), "card.zip");
  execFileSync("python3", ["-c", "import shutil,sys; shutil.make_archive(sys.argv[1][:-4], 'zip', sys.argv[2], 'DCIM')", zip, cardDir]);
  return zip;
}

test("a raw FAT image and a zip of the same card give the same originals, each medium kept whole", { skip: needTools }, async () => {
  const { dir, truth } = await demoCard(3, false, "media");
  const first = (await backends())[0]!;
  const a = await freshArchive(first.backend);
  try {
    const img = fatImageOf(dir);
    const fromImage = await ingestCard(a.archive, actor, { path: img, label: "card image" });
    const unique = new Set(truth.photos.map((p) => p.sha256)).size;
    assert.equal(fromImage.files, truth.photos.length);
    assert.equal(fromImage.ingested, unique);
    const imgSha = createHash("sha256").update(readFileSync(img)).digest("hex");
    const source = await a.archive.db.db.selectFrom("sources").selectAll().where("id", "=", fromImage.source).executeTakeFirstOrThrow();
    assert.equal(source.medium_sha256, imgSha, "the image's own SHA-256 is the source medium's hash");
    assert.equal(source.fs_type, "FAT32");
    assert.ok((await a.archive.blobs.stat(imgSha))?.size === statSync(img).size, "the image itself is preserved");

    const fromZip = await ingestCard(a.archive, actor, { path: zipOf(dir), label: "card zip" });
    assert.equal(fromZip.files, truth.photos.length);
    assert.equal(fromZip.ingested, 0, "every photo was already preserved from the image");
    assert.equal(fromZip.duplicates, truth.photos.length);
    assert.deepEqual((await verifyArchive(a.archive, actor)).findings, []);
  } finally {
    await a.close();
  }
});

/** An exFAT volume of the card's DCIM folder, each file recorded at a time of its own with a UTC offset of +03:00; every other file fragmented. */
function exfatOf(cardDir: string): { image: Buffer; times: Map<string, string> } {
  const nodes: ExfatNode[] = [];
  const times = new Map<string, string>();
  const walk = (rel: string) => {
    for (const d of readdirSync(join(cardDir, rel), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const path = `${rel}/${d.name}`;
      if (d.isDirectory()) walk(path);
      else {
        const i = nodes.length;
        const minute = i % 60;
        nodes.push({ path, data: readFileSync(join(cardDir, path)), fragmented: i % 2 === 1, modified: { year: 2025, month: 2, day: 3, hour: 10, minute, second: 20, offset: 180 } });
        times.set(path, `2025-02-03T10:${String(minute).padStart(2, "0")}:20+03:00`);
      }
    }
  };
  walk("DCIM");
  const bytes = nodes.reduce((n, x) => n + (x.data?.length ?? 0), 0);
  return { image: buildExfat(nodes, { clusterCount: Math.ceil(bytes / 4096) * 2 + nodes.length * 2 + 64, label: "EOS R6" }).image, times };
}

test("an exFAT image and a GPT disk holding it are ingested as a FAT image is: every file byte for byte, with the card's recorded times", { skip: needExfatTools }, async () => {
  const { dir, truth } = await demoCard(3, false, "media");
  const first = (await backends())[0]!;
  const a = await freshArchive(first.backend);
  try {
    const { image, times } = exfatOf(dir);
    const img = join(tempDir("dalil-exfat-"), "card.img");
    writeFileSync(img, image);
    assert.equal(spawnSync("fsck.exfat", ["-n", img]).status, 0, "fsck.exfat finds the image clean");
    const before = createHash("sha256").update(readFileSync(img)).digest("hex");
    const fromImage = await ingestCard(a.archive, actor, { path: img, label: "exfat card" });
    assert.equal(createHash("sha256").update(readFileSync(img)).digest("hex"), before, "the image is read, never written");
    assert.equal(fromImage.files, truth.photos.length);
    assert.equal(fromImage.ingested, new Set(truth.photos.map((p) => p.sha256)).size);
    const db = a.archive.db.db;
    const source = await db.selectFrom("sources").selectAll().where("id", "=", fromImage.source).executeTakeFirstOrThrow();
    assert.equal(source.fs_type, "exFAT");
    assert.equal(source.volume_label, "EOS R6");
    assert.equal(source.medium_sha256, before);
    const sightings = await db.selectFrom("sightings").select(["path", "modified", "original_sha256", "size"]).where("source_id", "=", fromImage.source).execute();
    const bySha = new Map(truth.photos.map((p) => [p.path, p.sha256]));
    assert.equal(sightings.length, truth.photos.length);
    for (const s of sightings) {
      assert.equal(s.original_sha256, bySha.get(s.path) ?? createHash("sha256").update(readFileSync(join(dir, s.path))).digest("hex"), `${s.path} byte for byte`);
      assert.equal(s.modified, times.get(s.path), `${s.path}: the time the card recorded, with its offset`);
    }

    // The same volume in a GPT disk, through the command line.
    const disk = join(tempDir("dalil-gpt-"), "disk.img");
    writeFileSync(disk, wrapGpt([{ volume: image }]).image);
    assert.equal(spawnSync("sgdisk", ["-v", disk]).status, 0);
    const run = await dalil(["--data", a.dataDir, "ingest", disk, "--json", "--source", "gpt card"], a.env);
    assert.equal(run.code, 0, run.stderr);
    const out = JSON.parse(run.stdout) as { files: number; ingested: number; duplicates: number };
    assert.deepEqual([out.files, out.ingested, out.duplicates], [truth.photos.length, 0, truth.photos.length], "every photo was already preserved from the exFAT image");
    assert.deepEqual((await verifyArchive(a.archive, actor)).findings, []);
  } finally {
    await a.close();
  }
});

for (const { backend, skip } of await backends()) {
  test(`an intake killed with SIGKILL resumes and converges to the same state (${backend.name})`, { skip }, async () => {
    const { dir } = await demoCard(8, true, "crash");
    const killed = await freshArchive(backend);
    const clean = await freshArchive(backend);
    try {
      const env = { ...process.env, ...killed.env };
      const child = spawn(process.execPath, [BIN, "--data", killed.dataDir, "ingest", dir, "--json"], {
        env,
        stdio: "ignore",
      });
      // Watch the records from another connection and kill the intake in the middle of its work.
      const watcher = await openDatabase({ url: killed.env.DALIL_DATABASE_URL, sqlitePath: join(killed.dataDir, "archive.sqlite"), migrate: false });
      const deadline = Date.now() + 120_000;
      let seen = 0;
      while (Date.now() < deadline) {
        const row = await watcher.db.selectFrom("sightings").select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirst();
        seen = Number(row?.n ?? 0);
        if (seen >= 12) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      child.kill("SIGKILL");
      await new Promise((r) => child.once("exit", r));
      await watcher.close();
      assert.ok(seen >= 12, "the intake was killed part-way");

      const resumed = await ingestCard(killed.archive, actor, { path: dir });
      assert.equal(resumed.resumed, true, "the interrupted intake is resumed, not started again");
      const reference = await ingestCard(clean.archive, actor, { path: dir });
      for (const k of ["files", "ingested", "duplicates", "quarantined", "bytes"] as const) {
        assert.equal(resumed[k], reference[k], `${k} after resuming equals an uninterrupted intake`);
      }
      const state = async (h: typeof killed) => {
        const db = h.archive.db.db;
        const originals = (await db.selectFrom("originals").select(["sha256", "status"]).orderBy("sha256").execute()).map((o) => `${o.sha256}:${o.status}`);
        const sightings = (await db.selectFrom("sightings").select(["entry_no", "path", "outcome", "original_sha256"]).orderBy("entry_no").execute()).map(
          (s) => `${s.entry_no}:${s.path}:${s.outcome}:${s.original_sha256}`,
        );
        const renditions = (await db.selectFrom("renditions").select(["original_sha256", "kind"]).orderBy("original_sha256").orderBy("kind").execute()).map(
          (r) => `${r.original_sha256}:${r.kind}`,
        );
        return { originals, sightings, renditions };
      };
      assert.deepEqual(await state(killed), await state(clean));
      assert.equal((await killed.archive.db.db.selectFrom("sources").select("id").execute()).length, 1, "one source, resumed");
      assert.deepEqual((await verifyArchive(killed.archive, actor)).findings, []);
    } finally {
      await killed.close();
      await clean.close();
    }
  });
}
