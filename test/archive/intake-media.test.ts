import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { operatorActor } from "../../src/core/actor.ts";
import { ingestCard } from "../../src/archive/intake.ts";
import { verifyArchive } from "../../src/app/verify.ts";
import { openDatabase } from "../../src/db/database.ts";
import { backends, tempDir } from "../support/backends.ts";
import { demoCard, freshArchive } from "../support/archive.ts";

const actor = operatorActor();
const haveMtools = spawnSync("mcopy", ["--version"]).status === 0 && spawnSync("mkfs.fat", ["--help"]).status !== null;
const needTools = !haveMtools && process.env.CI !== "true" ? "mkfs.fat/mcopy (dosfstools, mtools) not installed" : false;

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

for (const { backend, skip } of await backends()) {
  test(`an intake killed with SIGKILL resumes and converges to the same state (${backend.name})`, { skip }, async () => {
    const { dir } = await demoCard(8, true, "crash");
    const killed = await freshArchive(backend);
    const clean = await freshArchive(backend);
    try {
      const env = { ...process.env, ...killed.env };
      const child = spawn(process.execPath, ["--import", "tsx", "src/cli/main.ts", "--data", killed.dataDir, "ingest", dir, "--json"], {
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
