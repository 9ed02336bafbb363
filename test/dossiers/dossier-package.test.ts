import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { operatorActor, type Actor } from "../../src/core/actor.ts";
import { ingestCard } from "../../src/archive/intake.ts";
import { addExhibit, createDossier, freezeDossier, markRegion, verifyPackage, withdrawExhibit } from "../../src/dossiers/index.ts";
import { buildDossierPackage, enqueueDossierPackage, reportBuilder } from "../../src/dossiers/dossier-package.ts";
import type { PackageIndex } from "../../src/dossiers/package.ts";
import { isCommitment, openEvent, openingsOf } from "../../src/ledger/openings.ts";
import { parseLeaf } from "../../src/ledger/events.ts";
import { backends, tempDir } from "../support/backends.ts";
import { demoCard, ensureAccounts, freshArchive } from "../support/archive.ts";
import { seedBodies, investigator } from "../support/catalogue.ts";
import { createEntity } from "../../src/catalogue/index.ts";

const operator = operatorActor();
const archivist: Actor = { kind: "user", id: "usr_arch", role: "archivist" };
const root = tempDir("dalil-dpkg-");
process.on("exit", () => rmSync(root, { recursive: true, force: true }));

const sha = (b: Buffer | string): string => createHash("sha256").update(b).digest("hex");

/** Rewrites every manifest over the current bytes, as a forger covering tracks would. */
function remanifest(dir: string): void {
  for (const [file, alg] of [["manifest-sha256.txt", "sha256"], ["manifest-sha512.txt", "sha512"], ["tagmanifest-sha256.txt", "sha256"]] as const) {
    const f = join(dir, file);
    const lines = readFileSync(f, "utf8").split("\n").filter(Boolean).map((l) => {
      const path = l.slice(l.indexOf("  ") + 2);
      return `${createHash(alg).update(readFileSync(join(dir, path))).digest("hex")}  ${path}`;
    });
    writeFileSync(f, `${lines.join("\n")}\n`);
  }
}

async function caught(base: string, name: string, fn: (dir: string) => void, re: RegExp): Promise<void> {
  const dir = join(root, `t-${name.replace(/\W+/g, "-")}-${Math.random().toString(36).slice(2, 6)}`);
  cpSync(base, dir, { recursive: true });
  fn(dir);
  const v = await verifyPackage(dir);
  assert.equal(v.ok, false, `${name} was not caught`);
  assert.ok(v.problems.some((p) => re.test(p)), `${name}: ${v.problems.join(" | ")}`);
}

for (const { backend, skip } of await backends()) {
  test(`a frozen dossier version packaged per recipient: originals or redacted copies tied to their originals, the version and its events, the handover logged; tampering caught (${backend.name})`, { skip, timeout: 240_000 }, async () => {
    const { dir: card } = await demoCard(2, false, "dossier-pkg");
    const t = await freshArchive(backend);
    try {
      const a = t.archive;
      await ensureAccounts(a, [archivist, investigator]);
      await ingestCard(a, operator, { path: card, label: "card" });
      const photos = (await a.db.db.selectFrom("originals").select("sha256").where("status", "=", "preserved").where("media_kind", "=", "image").orderBy("sha256").limit(4).execute()).map((r) => r.sha256);
      assert.equal(photos.length, 4);
      const [body] = await seedBodies(a, investigator, [{ photos: [{ sha256: photos[0]! }, { sha256: photos[1]! }] }]);
      const d = await createDossier(a, investigator, { name: "Branch 215" });
      await addExhibit(a, investigator, { dossierId: d.id, kind: "body", ref: body!.id, reasoning: "Card reads 215" });
      await addExhibit(a, investigator, { dossierId: d.id, kind: "photo", ref: photos[2]!, reasoning: "Corridor of the branch" });
      await addExhibit(a, investigator, { dossierId: d.id, kind: "photo", ref: photos[3]!, reasoning: "withdrawn later" });
      await withdrawExhibit(a, investigator, { dossierId: d.id, number: "E-0003", reason: "not relevant" });
      await markRegion(a, investigator, { sha256: photos[0]!, x: 10, y: 10, w: 100, h: 80, label: "face" });
      const v1 = await freezeDossier(a, investigator, { id: d.id });

      await assert.rejects(buildDossierPackage(a, investigator, { dossierId: d.id, version: 1, recipient: "r", clearance: "original", purpose: "p", out: join(root, "no") }), /package\.export/);
      await assert.rejects(buildDossierPackage(a, archivist, { dossierId: d.id, version: 2, recipient: "r", clearance: "original", purpose: "p", out: join(root, "no") }), /no frozen version 2/);

      // Originals for the prosecutor.
      const origDir = join(root, `orig-${backend.name}`);
      const steps: number[] = [];
      const ro = await buildDossierPackage(a, archivist, { dossierId: d.id, version: 1, recipient: "Office of the Prosecutor", clearance: "original", purpose: "Case 12", out: origDir, report: false, onProgress: (done, total) => steps.push(done / total) });
      assert.equal(ro.exhibits, 3, "the body's two photos and the photo exhibit; not the withdrawn one");
      assert.equal(steps.at(-1), 1);
      const vo = await verifyPackage(origDir);
      assert.deepEqual(vo.problems, []);
      const io = JSON.parse(readFileSync(join(origDir, "data/package.json"), "utf8")) as PackageIndex;
      assert.deepEqual(io.exhibits.map((e) => [e.exhibit, e.dossierExhibit, e.sha256]), [["E-0001-1", "E-0001", photos[0]], ["E-0001-2", "E-0001", photos[1]], ["E-0002", "E-0002", photos[2]]]);
      assert.equal(sha(readFileSync(join(origDir, "data/dossier/version.json"))), v1.sha256, "the version exactly as frozen");
      const snap = JSON.parse(readFileSync(join(origDir, "data/dossier/version.json"), "utf8")) as { exhibits: { number: string; reasoning: string; status: string }[] };
      assert.equal(snap.exhibits.find((e) => e.number === "E-0001")!.reasoning, "Card reads 215");
      assert.equal(snap.exhibits.find((e) => e.number === "E-0003")!.status, "withdrawn");

      // Redacted copies for a UN body: no original bytes, each copy tied to its original by a manifest.
      const redDir = join(root, `red-${backend.name}`);
      const rr = await buildDossierPackage(a, archivist, { dossierId: d.id, version: 1, recipient: "UN Commission of Inquiry", clearance: "redacted", purpose: "Pattern of deaths in Branch 215", out: redDir, report: false });
      const vr = await verifyPackage(redDir);
      assert.deepEqual(vr.problems, []);
      for (const [tool, file] of [["sha256sum", "manifest-sha256.txt"], ["sha512sum", "manifest-sha512.txt"], ["sha256sum", "tagmanifest-sha256.txt"]] as const) {
        const r = spawnSync(tool, ["-c", "--strict", file], { cwd: redDir, encoding: "utf8" });
        assert.equal(r.status, 0, `${tool} -c ${file}: ${r.stdout}${r.stderr}`);
      }
      const ir = JSON.parse(readFileSync(join(redDir, "data/package.json"), "utf8")) as PackageIndex;
      assert.equal(ir.clearance, "redacted");
      const filled = ir.exhibits[0]!;
      assert.equal(filled.copy?.method, "filled");
      assert.deepEqual(filled.copy?.regions, [{ x: 10, y: 10, w: 100, h: 80 }]);
      assert.equal(ir.exhibits[1]!.copy?.method, "blurred", "no region marked: blurred whole");
      const manifest = JSON.parse(readFileSync(join(redDir, filled.copy!.manifest), "utf8")) as { original: { sha256: string }; copy: { sha256: string; file: string } };
      assert.equal(manifest.original.sha256, photos[0]);
      assert.equal(manifest.copy.sha256, sha(readFileSync(join(redDir, filled.file))));
      for (const ex of ir.exhibits) {
        const files = readdirSync(join(redDir, "data", ex.exhibit));
        assert.ok(!files.some((f) => f.startsWith("original")), `${ex.exhibit} holds no original`);
        for (const f of files.filter((f) => /\.(jpg|tif|nef)$/i.test(f))) assert.notEqual(sha(readFileSync(join(redDir, "data", ex.exhibit, f))), ex.sha256);
      }
      const howTo = readFileSync(join(redDir, "VERIFY.txt"), "utf8");
      assert.match(howTo, /redaction\.json is the redaction manifest/);
      assert.match(howTo, /sha256sum data\/dossier\/version\.json/);
      // The originals in the archive are untouched.
      for (const p of photos) {
        const h = createHash("sha256");
        for await (const c of await a.blobs.get(p)) h.update(c as Buffer);
        assert.equal(h.digest("hex"), p);
      }

      // The handover: recipient, what, why — in the package and in the archive's log, naming the dossier.
      // Recipient and purpose are commitments in the leaf, opened beside it in the package and in the archive's table.
      const sealed = parseLeaf(readFileSync(join(redDir, `data/events/${rr.handoverSeq}.json`)));
      const inPackage = JSON.parse(readFileSync(join(redDir, `data/events/${rr.handoverSeq}.openings.json`), "utf8")) as { field: string; salt: string; value: unknown }[];
      const h = openEvent(sealed, inPackage.map((o) => ({ seq: rr.handoverSeq, eventId: sealed.id, field: o.field, salt: o.salt, value: JSON.stringify(o.value) })));
      assert.ok(isCommitment(sealed.detail.recipient) && isCommitment(sealed.detail.purpose));
      assert.equal(h.type, "export");
      assert.deepEqual([h.detail.recipient, h.detail.purpose, h.detail.content, h.detail.dossier, h.detail.version, h.detail.versionSha256], ["UN Commission of Inquiry", "Pattern of deaths in Branch 215", "redacted", d.id, 1, v1.sha256]);
      assert.equal((h.detail.copies as Record<string, string>)["E-0001-1"], filled.copy!.sha256);
      const appended = await a.log.eventsFor(d.id);
      const openings = await openingsOf(a.db.db, appended.map((e) => e.seq));
      const logged = appended.map((e) => openEvent(e.event, openings.get(e.seq)));
      assert.deepEqual(logged.filter((e) => e.type === "export").map((e) => e.detail.recipient), ["Office of the Prosecutor", "UN Commission of Inquiry"]);
      assert.ok(ir.dossier!.events.includes(rr.handoverSeq), "the dossier's events in the package include this handover");

      // Tampering.
      await caught(redDir, "copy byte", (x) => {
        const f = join(x, filled.file);
        const b = readFileSync(f);
        b[Math.floor(b.length / 2)]! ^= 1;
        writeFileSync(f, b);
      }, /does not match its sha256/);
      await caught(redDir, "copy byte, re-manifested", (x) => {
        const f = join(x, filled.file);
        const b = readFileSync(f);
        b[Math.floor(b.length / 2)]! ^= 1;
        writeFileSync(f, b);
        remanifest(x);
      }, /E-0001-1: .* hashes to [0-9a-f]{64}, not the copy's SHA-256/);
      await caught(redDir, "copy swapped, package.json and manifest edited to match", (x) => {
        const f = join(x, filled.file);
        const b = readFileSync(f);
        b[Math.floor(b.length / 2)]! ^= 1;
        writeFileSync(f, b);
        const forged = sha(b);
        for (const rel of ["data/package.json", filled.copy!.manifest]) writeFileSync(join(x, rel), readFileSync(join(x, rel), "utf8").replaceAll(filled.copy!.sha256, forged));
        remanifest(x);
      }, /the handover event records the copy [0-9a-f]{64}, but the package holds the copy/);
      await caught(redDir, "redaction manifest edited", (x) => {
        const f = join(x, filled.copy!.manifest);
        writeFileSync(f, readFileSync(f, "utf8").replace(photos[0]!, photos[3]!));
      }, /redaction\.json does not match its sha256/);
      await caught(redDir, "redaction manifest edited, re-manifested", (x) => {
        const f = join(x, filled.copy!.manifest);
        writeFileSync(f, readFileSync(f, "utf8").replace(photos[0]!, photos[3]!));
        remanifest(x);
      }, /ties the copy to the original [0-9a-f]{64}, not the exhibit's/);
      await caught(redDir, "original put in place of a copy", (x) => {
        const f = join(x, filled.file);
        writeFileSync(f, readFileSync(join(origDir, io.exhibits[0]!.file)));
        remanifest(x);
      }, /hashes to [0-9a-f]{64}, not the copy's SHA-256/);
      await caught(redDir, "dossier version edited", (x) => {
        const f = join(x, "data/dossier/version.json");
        writeFileSync(f, readFileSync(f, "utf8").replace("Card reads 215", "Card reads 216"));
        remanifest(x);
      }, /version\.json hashes to [0-9a-f]{64}, not the frozen version's SHA-256/);

      // As a job: queued, run by a worker with progress, and the result verifies.
      const q = await enqueueDossierPackage(a, archivist, { dossierId: d.id, version: 1, recipient: "ICC", clearance: "blurred", purpose: "Preliminary examination", report: false });
      await a.jobs.work({ once: true });
      const job = await a.jobs.get(q.job);
      assert.equal(job.status, "done", job.error ?? "");
      assert.equal(job.progress.done, job.progress.total);
      assert.ok(job.progress.total >= 6);
      assert.ok(existsSync(join(q.out, "bagit.txt")));
      const vj = await verifyPackage(q.out);
      assert.deepEqual(vj.problems, []);
      const ij = JSON.parse(readFileSync(join(q.out, "data/package.json"), "utf8")) as PackageIndex;
      assert.ok(ij.exhibits.every((e) => e.copy?.method === "blurred"), "blurred clearance: every photo blurred, regions or not");
    } finally {
      await t.close();
    }
  });
}

const [sqlite] = (await backends()).filter((b) => b.backend.name === "sqlite");
const build = await reportBuilder();
test("a dossier package carries the report when the report module is present, named in the handover", { skip: build ? sqlite!.skip : "the report module (src/dossiers/report) is not present", timeout: 300_000 }, async () => {
  const { dir: card } = await demoCard(2, false, "dossier-pkg");
  const t = await freshArchive(sqlite!.backend);
  try {
    const a = t.archive;
    await ingestCard(a, operator, { path: card, label: "card" });
    const photos = (await a.db.db.selectFrom("originals").select("sha256").where("status", "=", "preserved").where("media_kind", "=", "image").orderBy("sha256").limit(2).execute()).map((r) => r.sha256);
    const [body] = await seedBodies(a, investigator, [{ photos: photos.map((sha256) => ({ sha256 })) }]);
    const d = await createDossier(a, investigator, { name: "Branch 215" });
    await addExhibit(a, investigator, { dossierId: d.id, kind: "body", ref: body!.id, reasoning: "Card reads 215" });
    const branch = await createEntity(a, investigator, { kind: "facility", nameEn: "Branch 215 compound", number: "215" });
    const other = await createEntity(a, investigator, { kind: "facility", nameEn: "Mezzeh airport" });
    await addExhibit(a, investigator, { dossierId: d.id, kind: "facility", ref: branch.id, reasoning: "Where the body was photographed" });
    await addExhibit(a, investigator, { dossierId: d.id, kind: "facility", ref: other.id, reasoning: "Selected by mistake" });
    await withdrawExhibit(a, investigator, { dossierId: d.id, number: "E-0003", reason: "wrong facility" });
    await freezeDossier(a, investigator, { id: d.id });
    const out = join(root, "with-report");
    const r = await buildDossierPackage(a, archivist, { dossierId: d.id, version: 1, recipient: "OTP", clearance: "redacted", purpose: "Case 12", out, report: true });
    assert.equal(r.report, true);
    const v = await verifyPackage(out);
    assert.deepEqual(v.problems, []);
    const index = JSON.parse(readFileSync(join(out, "data/package.json"), "utf8")) as PackageIndex;
    assert.ok(index.report && index.report.pages > 0);
    assert.equal(sha(readFileSync(join(out, index.report.pdf))), index.report.pdfSha256);
    // Every exhibit number is findable: entity exhibits get a section, withdrawn ones a row of Annex C.
    const text = spawnSync("pdftotext", ["-enc", "UTF-8", join(out, index.report.pdf), "-"], { encoding: "utf8" }).stdout.replace(/\s+/g, " ");
    for (const s of ["Exhibit E-0001", "Exhibit E-0002", "Branch 215 compound", "Where the body was photographed", "Annex C", "E-0003", "wrong facility"]) assert.ok(text.includes(s), `report: ${s}`);
    assert.ok(!text.includes("Exhibit E-0003"), "a withdrawn exhibit has no section");
    assert.equal(parseLeaf(readFileSync(join(out, `data/events/${r.handoverSeq}.json`))).detail.report, index.report.pdfSha256);
    await caught(out, "report swapped", (x) => {
      const f = join(x, index.report!.pdf);
      writeFileSync(f, Buffer.concat([readFileSync(f), Buffer.from("%tampered\n")]));
      remanifest(x);
    }, /report/);
  } finally {
    await t.close();
  }
});
