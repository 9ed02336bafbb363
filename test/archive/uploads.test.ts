import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import { createHash } from "node:crypto";
import type { Actor } from "../../src/core/actor.ts";
import { Conflict, Forbidden, Invalid, NotFound, TooLarge } from "../../src/core/errors.ts";
import { createUpload, getUpload, receiveUploadFile, safeRelativePath, startUploadIngest, UPLOAD_LIMITS, uploadsRoot } from "../../src/archive/uploads.ts";
import { backends } from "../support/backends.ts";
import { demoCard, ensureAccounts, freshArchive } from "../support/archive.ts";

const archivist: Actor = { kind: "user", id: "usr_archivistaaaaaaaaaaaaaaaaaa", role: "archivist" };
const other: Actor = { kind: "user", id: "usr_otherarchivistaaaaaaaaaaaa", role: "archivist" };
const investigator: Actor = { kind: "user", id: "usr_investigatoraaaaaaaaaaaaaa", role: "investigator" };

const body = (bytes: Buffer | string) => Readable.from([Buffer.from(bytes)]);

function listFiles(dir: string, prefix = ""): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...listFiles(p, `${prefix}${name}/`));
    else out.push(`${prefix}${name}`);
  }
  return out;
}

test("a browser's relative path is split into safe names, or refused with the reason", () => {
  assert.deepEqual(safeRelativePath("DCIM/100NCD90/DSC_0001.JPG"), ["DCIM", "100NCD90", "DSC_0001.JPG"]);
  assert.deepEqual(safeRelativePath("صور/بطاقة ١.jpg"), ["صور", "بطاقة ١.jpg"]);
  const refused: [string, RegExp][] = [
    ["../etc/passwd", /'\.\.'/],
    ["DCIM/../../x", /'\.\.'/],
    ["/etc/passwd", /absolute/],
    ["DCIM//x.jpg", /empty/],
    ["./x.jpg", /'\.'/],
    ["DCIM\\..\\x.jpg", /backslash/],
    ["a\u0000b", /control/],
    ["a\nb", /control/],
    ["", /empty/],
    [`${"a".repeat(256)}/x`, /longer than 255 bytes/],
    [Array.from({ length: 40 }, () => "d").join("/"), /deeper/],
  ];
  for (const [raw, why] of refused) {
    assert.throws(() => safeRelativePath(raw), (e: unknown) => e instanceof Invalid && why.test(e.message), `refuses ${JSON.stringify(raw.slice(0, 40))}`);
  }
});

const [sqlite] = await backends();

test("files stream into the upload area, under their own path, with hash, size and the card's time", { skip: sqlite!.skip }, async () => {
  const a = await freshArchive(sqlite!.backend);
  try {
    const up = await createUpload(a.archive, archivist, { kind: "folder", label: "card A" });
    assert.match(up.id, /^upl_[a-z2-7]{26}$/);
    const bytes = Buffer.from("not really a photo, but bytes all the same");
    const when = Date.parse("2014-03-01T10:00:00Z");
    const r = await receiveUploadFile(a.archive, archivist, { id: up.id, path: "DCIM/100/IMG_1.JPG", body: body(bytes), declaredSize: bytes.length, modified: when });
    assert.deepEqual(r, { path: "DCIM/100/IMG_1.JPG", size: bytes.length, sha256: createHash("sha256").update(bytes).digest("hex") });
    const file = join(uploadsRoot(a.archive), up.id, "files", "DCIM", "100", "IMG_1.JPG");
    assert.ok(readFileSync(file).equals(bytes));
    assert.equal(statSync(file).mtimeMs, when, "the card's modification time is kept");
    // Sending the same path again replaces it (a retried upload); nothing is left half-written.
    await receiveUploadFile(a.archive, archivist, { id: up.id, path: "DCIM/100/IMG_1.JPG", body: body("again") });
    assert.equal(readFileSync(file, "utf8"), "again");
    assert.deepEqual(readdirSync(join(uploadsRoot(a.archive), up.id, "partial")), []);
    // Several files of one new folder at once: all arrive.
    await Promise.all(
      Array.from({ length: 8 }, (_, i) => receiveUploadFile(a.archive, archivist, { id: up.id, path: `DCIM/101/IMG_${i}.JPG`, body: body(`file ${i}`) })),
    );
    assert.equal(readdirSync(join(uploadsRoot(a.archive), up.id, "files", "DCIM", "101")).length, 8);
  } finally {
    await a.close();
  }
});

test("an upload refuses what could escape it, lie about its size, or exceed the limits", { skip: sqlite!.skip }, async () => {
  const a = await freshArchive(sqlite!.backend);
  const saved = UPLOAD_LIMITS.fileBytes;
  try {
    const up = await createUpload(a.archive, archivist, { kind: "folder" });
    const area = join(uploadsRoot(a.archive), up.id);
    await assert.rejects(receiveUploadFile(a.archive, archivist, { id: up.id, path: "../../keys/x", body: body("x") }), Invalid);
    // A symbolic link planted inside the area (it cannot come from the browser) is not followed.
    mkdirSync(join(area, "outside"));
    symlinkSync(join(area, "outside"), join(area, "files", "link"));
    await assert.rejects(receiveUploadFile(a.archive, archivist, { id: up.id, path: "link/x.jpg", body: body("x") }), (e: unknown) => e instanceof Conflict);
    assert.deepEqual(readdirSync(join(area, "outside")), [], "nothing was written through the link");
    // The announced size must be the size that arrives.
    await assert.rejects(
      receiveUploadFile(a.archive, archivist, { id: up.id, path: "short.jpg", body: body("1234"), declaredSize: 10 }),
      (e: unknown) => e instanceof Invalid && /4 bytes, not the 10 announced/.test(e.message),
    );
    assert.equal(existsSync(join(area, "files", "short.jpg")), false, "a short file never appears in the upload");
    UPLOAD_LIMITS.fileBytes = 16;
    await assert.rejects(receiveUploadFile(a.archive, archivist, { id: up.id, path: "big.jpg", body: body("x".repeat(17)), declaredSize: 17 }), TooLarge);
    await assert.rejects(receiveUploadFile(a.archive, archivist, { id: up.id, path: "big.jpg", body: body("x".repeat(40)) }), TooLarge, "refused while streaming, without a declared size");
    assert.equal(existsSync(join(area, "files", "big.jpg")), false);
    UPLOAD_LIMITS.fileBytes = saved;
    // A container upload holds one file at the top.
    const zip = await createUpload(a.archive, archivist, { kind: "container" });
    await receiveUploadFile(a.archive, archivist, { id: zip.id, path: "card.zip", body: body("PK") });
    await assert.rejects(receiveUploadFile(a.archive, archivist, { id: zip.id, path: "second.zip", body: body("PK") }), Invalid);
    await assert.rejects(receiveUploadFile(a.archive, archivist, { id: zip.id, path: "dir/card.zip", body: body("PK") }), Invalid);
  } finally {
    UPLOAD_LIMITS.fileBytes = saved;
    await a.close();
  }
});

test("an upload area is its opener's: others get 'not found', roles without ingest are refused", { skip: sqlite!.skip }, async () => {
  const a = await freshArchive(sqlite!.backend);
  try {
    const up = await createUpload(a.archive, archivist, { kind: "folder" });
    await assert.rejects(receiveUploadFile(a.archive, other, { id: up.id, path: "x.jpg", body: body("x") }), NotFound);
    await assert.rejects(getUpload(a.archive, other, up.id), NotFound);
    await assert.rejects(startUploadIngest(a.archive, other, { id: up.id }), NotFound);
    await assert.rejects(createUpload(a.archive, investigator, { kind: "folder" }), (e: unknown) => e instanceof Forbidden && /investigator/.test(e.message));
    await assert.rejects(getUpload(a.archive, archivist, "upl_../../keys"), NotFound, "an id not of the exact form names nothing");
    await assert.rejects(createUpload(a.archive, archivist, { kind: "folder", label: "two\nlines" }), Invalid);
  } finally {
    await a.close();
  }
});

for (const { backend, skip } of await backends()) {
  test(`an uploaded card is taken in by a job, once; the upload then takes no more files, and no plaintext copy of the card is left on the server (${backend.name})`, { skip, timeout: 60_000 }, async () => {
    const { dir } = await demoCard(1, false, "uploads");
    const a = await freshArchive(backend);
    try {
      await ensureAccounts(a.archive, [archivist]);
      const up = await createUpload(a.archive, archivist, { kind: "folder", label: "uploaded card" });
      await assert.rejects(startUploadIngest(a.archive, archivist, { id: up.id }), Invalid, "nothing to take in yet");
      const files = listFiles(dir).filter((f) => f !== "truth.json");
      for (const f of files) await receiveUploadFile(a.archive, archivist, { id: up.id, path: f, body: Readable.from([readFileSync(join(dir, f))]) });
      const { job } = await startUploadIngest(a.archive, archivist, { id: up.id });
      assert.deepEqual(await startUploadIngest(a.archive, archivist, { id: up.id }), { job }, "asking again gives the same job");
      assert.equal((await getUpload(a.archive, archivist, up.id)).job, job);
      await assert.rejects(receiveUploadFile(a.archive, archivist, { id: up.id, path: "late.jpg", body: body("x") }), Conflict);
      await a.archive.jobs.work({ once: true });
      const done = await a.archive.jobs.get(job);
      assert.equal(done.status, "done", done.error ?? "");
      const result = done.result as { source: string; files: number; ingested: number; duplicates: number; quarantined: number };
      assert.equal(result.files, files.length);
      assert.equal(result.ingested + result.duplicates + result.quarantined, files.length);
      const source = await a.archive.db.db.selectFrom("sources").selectAll().where("id", "=", result.source).executeTakeFirstOrThrow();
      assert.equal(source.label, "uploaded card");
      assert.equal(source.actor, archivist.id, "the intake is recorded under the person who uploaded it");
      const paths = (await a.archive.db.db.selectFrom("sightings").select("path").where("source_id", "=", result.source).execute()).map((s) => s.path).sort();
      assert.deepEqual(paths, [...files].sort(), "paths on the medium are the card's own, relative to its folder");
      // the card's files are gone from the upload area once in the encrypted store; the removal is a custody event
      assert.equal(existsSync(join(uploadsRoot(a.archive), up.id, "files")), false, "no plaintext copy of the card is left");
      assert.equal((done.result as { uploadRemoved: boolean }).uploadRemoved, true);
      const removal = (await a.archive.log.eventsFor(result.source)).map((e) => e.event).find((e) => e.type === "deletion");
      assert.deepEqual([removal?.detail.what, removal?.detail.files], ["upload", files.length]);
      assert.equal((await getUpload(a.archive, archivist, up.id)).job, job, "the upload still names its job");
    } finally {
      await a.close();
    }
  });
}
