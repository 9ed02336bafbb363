import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, writeFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { spawn } from "node:child_process";
import { sql } from "kysely";
import { operatorActor } from "../../src/core/actor.ts";
import { custody } from "../../src/ledger/events.ts";
import { checkProofBundle } from "../../src/ledger/proof-check.ts";
import { generateSigner, newSigner } from "../../src/ledger/note.ts";
import { signCheckpoint, openCheckpoint } from "../../src/ledger/checkpoint.ts";
import { newVerifier } from "../../src/ledger/note.ts";
import { parseConsistencyProof } from "../../src/ledger/tlog-proof.ts";
import { storedHashIndex, verifyConsistency } from "../../src/ledger/merkle.ts";
import { VERIFY_PAGE } from "../../src/ledger/verify.ts";
import { verifyArchive } from "../../src/app/verify.ts";
import { loadConfig } from "../../src/core/config.ts";
import { openArchive } from "../../src/app/open-archive.ts";
import type { Archive } from "../../src/app/context.ts";
import { backends } from "../support/backends.ts";
import { freshArchive } from "../support/archive.ts";

const actor = operatorActor();

async function appendN(a: Archive, n: number, tag = "x"): Promise<void> {
  await a.db.transaction(async (tx) => {
    const at = a.clock.now();
    await a.log.appendMany(
      tx,
      Array.from({ length: n }, (_, i) => custody("validation", actor, at, [{ id: `${tag}${i}`, role: "test" }], { i })),
    );
  });
}

async function dropAppendOnlyGuards(a: Archive): Promise<void> {
  if (a.db.dialect === "postgres") await sql`drop trigger custody_events_append_only on custody_events`.execute(a.db.db);
  else {
    await sql`drop trigger custody_events_no_update`.execute(a.db.db);
    await sql`drop trigger custody_events_no_delete`.execute(a.db.db);
  }
}

function problems(findings: { item: string; problem: string }[]): string {
  return findings.map((f) => `${f.item}: ${f.problem}`).join("\n");
}

for (const { backend, skip } of await backends()) {
  test(`events get gapless indexes; proofs and consistency verify with no archive (${backend.name})`, { skip }, async () => {
    const h = await freshArchive(backend);
    const a = h.archive;
    try {
      await appendN(a, 5);
      const cp1 = await a.tree.checkpoint();
      assert.equal(cp1.size, 5);
      await appendN(a, 12, "y");
      const cp2 = await a.tree.checkpoint();
      assert.equal(cp2.size, 17);
      assert.equal((await a.tree.checkpoint()).size, 17, "no new checkpoint when the log has not grown");
      const seqs = (await a.db.db.selectFrom("custody_events").select("seq").orderBy("seq").execute()).map((r) => r.seq);
      assert.deepEqual(seqs, Array.from({ length: 17 }, (_, i) => i));

      for (const seq of [0, 4, 5, 16]) {
        const p = await a.tree.proveEvent(seq);
        const r = checkProofBundle({ proofText: p.proof, leafBytes: p.leaf, verifierKeys: [a.tree.verifierKey] });
        assert.ok(r.ok, JSON.stringify(r));
        const tampered = Buffer.from(p.leaf);
        tampered.writeUInt8(tampered.readUInt8(tampered.length - 2) ^ 1, tampered.length - 2);
        assert.equal(checkProofBundle({ proofText: p.proof, leafBytes: tampered, verifierKeys: [a.tree.verifierKey] }).ok, false);
      }
      const c = await a.tree.proveConsistency(5);
      const parsed = parseConsistencyProof(c.text);
      assert.ok(verifyConsistency(5, 17, parsed.proof, cp1.root, cp2.root));
      const v = [newVerifier(a.tree.verifierKey)];
      assert.equal(openCheckpoint(cp2.note, v).checkpoint.size, 17);
      assert.deepEqual((await verifyArchive(a, actor)).findings, []);
    } finally {
      await h.close();
    }
  });

  test(`tampering with events is detected and named by verify (${backend.name})`, { skip }, async () => {
    for (const attack of ["edit", "delete", "reorder", "insert", "truncate-end"] as const) {
      const h = await freshArchive(backend);
      const a = h.archive;
      try {
        await appendN(a, 10);
        await a.tree.checkpoint();
        await dropAppendOnlyGuards(a);
        const db = a.db.db;
        if (attack === "edit") {
          const row = await db.selectFrom("custody_events").select("leaf").where("seq", "=", 3).executeTakeFirstOrThrow();
          const leaf = Buffer.from(row.leaf.toString("utf8").replace('"i":3', '"i":9'));
          await db.updateTable("custody_events").set({ leaf }).where("seq", "=", 3).execute();
        } else if (attack === "delete") {
          await db.deleteFrom("custody_events").where("seq", "=", 4).execute();
        } else if (attack === "reorder") {
          const r2 = await db.selectFrom("custody_events").selectAll().where("seq", "=", 2).executeTakeFirstOrThrow();
          const r6 = await db.selectFrom("custody_events").selectAll().where("seq", "=", 6).executeTakeFirstOrThrow();
          await db.deleteFrom("custody_events").where("seq", "in", [2, 6]).execute();
          await db.insertInto("custody_events").values([{ ...r2, seq: 6 }, { ...r6, seq: 2 }]).execute();
        } else if (attack === "insert") {
          const r = await db.selectFrom("custody_events").selectAll().where("seq", "=", 9).executeTakeFirstOrThrow();
          const ev = JSON.parse(r.leaf.toString("utf8")) as { id: string };
          ev.id = "evt_forged";
          await db.insertInto("custody_events").values({ ...r, seq: 10, id: "evt_forged", leaf: Buffer.from(JSON.stringify(ev)) }).execute();
        } else {
          await db.deleteFrom("custody_events").where("seq", "=", 9).execute();
          await db.updateTable("log_state").set({ size: 9 }).execute();
        }
        const report = await verifyArchive(a, actor);
        const text = problems(report.findings);
        assert.ok(report.findings.length > 0, `${attack} detected`);
        const expectItem = { edit: "event 3", delete: "event 4", reorder: "event 2", insert: "event 10", "truncate-end": "checkpoint 10" }[attack];
        assert.match(text, new RegExp(expectItem), `${attack} names ${expectItem}:\n${text}`);
      } finally {
        await h.close();
      }
    }
  });

  test(`verify reads the log in pages: events deleted across a page's end are named, and the rest still checked (${backend.name})`, { skip }, async () => {
    const h = await freshArchive(backend);
    const a = h.archive;
    try {
      const n = VERIFY_PAGE + 5;
      await appendN(a, n);
      await a.tree.checkpoint();
      assert.deepEqual((await verifyArchive(a, actor)).findings, [], "a log longer than a page verifies clean");
      await dropAppendOnlyGuards(a);
      const db = a.db.db;
      const gone = [VERIFY_PAGE - 2, VERIFY_PAGE - 1, VERIFY_PAGE, VERIFY_PAGE + 1];
      await db.deleteFrom("custody_events").where("seq", "in", gone).execute();
      const row = await db.selectFrom("custody_events").select("leaf").where("seq", "=", VERIFY_PAGE + 3).executeTakeFirstOrThrow();
      const i = VERIFY_PAGE + 3;
      await db.updateTable("custody_events").set({ leaf: Buffer.from(row.leaf.toString("utf8").replace(`"i":${i}`, `"i":${i + 1}`)) }).where("seq", "=", i).execute();
      const text = problems((await verifyArchive(a, actor)).findings);
      assert.match(text, new RegExp(`events ${VERIFY_PAGE - 2}…${VERIFY_PAGE + 1} are missing`), text);
      assert.match(text, new RegExp(`event ${VERIFY_PAGE + 3}: the event's bytes differ`), text);
      assert.match(text, new RegExp(`checkpoint ${n}: its signed root differs`), text);
    } finally {
      await h.close();
    }
  });

  test(`verify checks every stored hash of the tree and each event's indexed columns, past a page on worker threads (${backend.name})`, { skip }, async () => {
    const h = await freshArchive(backend);
    const a = h.archive;
    try {
      const n = VERIFY_PAGE + 40;
      await appendN(a, n);
      await a.tree.checkpoint();
      assert.deepEqual((await verifyArchive(a, actor)).findings, []);
      await dropAppendOnlyGuards(a);
      const db = a.db.db;
      // The stored hash of events 2k and 2k+1 (level 1), in the second range: the events are untouched, so only
      // proofs through that hash would fail, and verify says so by the event that completed it.
      const k = (VERIFY_PAGE + 10) / 2;
      await db.updateTable("log_hashes").set({ hash: Buffer.alloc(32, 7) }).where("idx", "=", storedHashIndex(1, k)).execute();
      await db.updateTable("custody_events").set({ type: "review" }).where("seq", "=", 5).execute();
      let report = await verifyArchive(a, actor);
      let text = problems(report.findings);
      assert.match(text, new RegExp(`event ${VERIFY_PAGE + 11}: the tree's stored hash of the 2 events ending here differs`), text);
      assert.match(text, /event 5: the event's indexed columns differ from its leaf bytes/, text);
      assert.doesNotMatch(text, /signed root differs|bytes differ/, "the events and the signed roots are intact");
      assert.equal(report.findings.length, 2, text);

      // A leaf's stored hash removed: the range is read again row by row, and the event named.
      await db.deleteFrom("log_hashes").where("idx", "=", storedHashIndex(0, VERIFY_PAGE + 30)).execute();
      report = await verifyArchive(a, actor);
      text = problems(report.findings);
      assert.match(text, new RegExp(`event ${VERIFY_PAGE + 30}: no hash was stored for this event`), text);
      assert.match(text, new RegExp(`event ${VERIFY_PAGE + 11}: the tree's stored hash`), text);
    } finally {
      await h.close();
    }
  });

  test(`a checkpoint re-signed with another key, a fork, and a replaced key file are detected (${backend.name})`, { skip }, async () => {
    const h = await freshArchive(backend);
    const a = h.archive;
    try {
      await appendN(a, 6);
      const cp = await a.tree.checkpoint();
      // Re-signed by a stranger's key with the same name: the archive's key does not verify it.
      const stranger = newSigner(generateSigner(a.tree.origin).signerKey);
      const forged = signCheckpoint({ origin: a.tree.origin, size: cp.size, rootHash: cp.root, extensions: [] }, [stranger]);
      await a.db.db.updateTable("checkpoints").set({ note: forged }).where("size", "=", cp.size).execute();
      let report = await verifyArchive(a, actor);
      assert.match(problems(report.findings), /checkpoint 6: signature or content invalid/);
      await a.db.db.updateTable("checkpoints").set({ note: cp.note }).where("size", "=", cp.size).execute();

      // A fork: a checkpoint of the same size with another root, signed with the archive's own key.
      const keyFile = join(h.dataDir, "keys", "log.key");
      const signer = newSigner(readFileSync(keyFile, "utf8"));
      const otherRoot = Buffer.alloc(32, 7);
      const fork = signCheckpoint({ origin: a.tree.origin, size: 6, rootHash: otherRoot, extensions: [] }, [signer]);
      await a.db.db.updateTable("checkpoints").set({ note: fork, root: otherRoot }).where("size", "=", 6).execute();
      report = await verifyArchive(a, actor);
      assert.match(problems(report.findings), /checkpoint 6: its signed root differs .* forked/);
      await a.db.db.updateTable("checkpoints").set({ note: cp.note, root: cp.root }).where("size", "=", 6).execute();
      assert.deepEqual((await verifyArchive(a, actor)).findings, []);

      // The log key file replaced: reopening the archive finds a key nobody registered, and signs nothing.
      await a.close();
      writeFileSync(keyFile, `${generateSigner(a.tree.origin).signerKey}\n`);
      const reopened = await openArchive(loadConfig({ data: h.dataDir }, h.env));
      try {
        report = await verifyArchive(reopened, actor);
        assert.match(problems(report.findings), /log key: .*replaced/);
        await appendN(reopened, 1);
        await assert.rejects(reopened.tree.checkpoint(), /Refusing to sign/);
      } finally {
        await reopened.close();
      }
    } finally {
      await h.close().catch(() => {});
    }
  });

  test(`a blob changed by one byte is named by verify (${backend.name})`, { skip }, async () => {
    const h = await freshArchive(backend);
    const a = h.archive;
    try {
      const put = await a.blobs.putBuffer(Buffer.from("an original's bytes ".repeat(5000)));
      const { newId } = await import("../../src/core/ids.ts");
      const src = newId("src");
      await a.db.transaction(async (tx) => {
        const now = a.clock.now().toISOString();
        await tx.insertInto("sources").values({ id: src, label: "t", kind: "folder", intake_path: "/x", medium_sha256: null, medium_size: null, volume_label: null, volume_serial: null, fs_type: null, status: "complete", started_at: now, finished_at: now, actor: actor.id, files: 1, ingested: 1, duplicates: 0, quarantined: 0, bytes: put.size }).execute();
        await tx.insertInto("originals").values({ sha256: put.sha256, size: put.size, format: "text", mime: "text/plain", media_kind: "text", status: "preserved", quarantine_reason: null, first_seen_at: now, first_source_id: src, width: null, height: null, phash: null, capture_time: null, camera_make: null, camera_model: null, camera_serial: null, metadata_json: null, exif_raw: null, xmp_raw: null }).execute();
        await a.log.append(tx, custody("accession", actor, a.clock.now(), [{ id: src, role: "source" }]));
        await a.log.append(tx, custody("ingestion", actor, a.clock.now(), [{ sha256: put.sha256, role: "original" }]));
      });
      assert.deepEqual((await verifyArchive(a, actor)).findings, []);
      const blobFile = findFile(join(h.dataDir, "blobs"), a.blobs.nameOf(put.sha256));
      const bytes = readFileSync(blobFile);
      const mid = Math.floor(bytes.length / 2);
      bytes.writeUInt8(bytes.readUInt8(mid) ^ 0x01, mid);
      writeFileSync(blobFile, bytes);
      const report = await verifyArchive(a, actor);
      assert.equal(report.findings.length, 1, problems(report.findings));
      assert.equal(report.findings[0]!.item, put.sha256);
    } finally {
      await h.close();
    }
  });
}

function findFile(dir: string, name: string): string {
  for (const entry of readdirSync(dir)) {
    const p = join(dir, entry);
    if (entry === name) return p;
    if (statSync(p).isDirectory()) {
      try {
        return findFile(p, name);
      } catch {
        /* keep looking */
      }
    }
  }
  throw new Error(`no file named ${name} under ${dir}`);
}

for (const { backend, skip } of await backends()) {
  test(`several server processes appending at once never share or skip an index (${backend.name})`, { skip }, async () => {
    const h = await freshArchive(backend);
    try {
      const run = (tag: string) =>
        new Promise<void>((resolve, reject) => {
          const child = spawn(process.execPath, ["--import", "tsx", "test/support/append-worker.ts", h.dataDir, tag, "8", "5"], {
            env: { ...process.env, ...h.env },
            stdio: ["ignore", "inherit", "inherit"],
          });
          child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`worker ${tag} exited ${code}`))));
        });
      await Promise.all(["p1", "p2", "p3"].map(run));
      const seqs = (await h.archive.db.db.selectFrom("custody_events").select("seq").orderBy("seq").execute()).map((r) => r.seq);
      assert.deepEqual(seqs, Array.from({ length: 120 }, (_, i) => i));
      await h.archive.tree.checkpoint();
      assert.deepEqual((await verifyArchive(h.archive, actor)).findings, []);
    } finally {
      await h.close();
    }
  });
}

test("with DALIL_TSA_URL every new checkpoint carries an RFC 3161 token that OpenSSL verifies", async () => {
  const { startTestTsa } = await import("../support/tsa.ts");
  const { verifyTimestampWithOpenSSL } = await import("../../src/ledger/timestamp.ts");
  const tsa = await startTestTsa();
  const first = (await backends())[0]!;
  const h = await freshArchive(first.backend, { DALIL_TSA_URL: tsa.url });
  try {
    await appendN(h.archive, 3);
    const cp = await h.archive.tree.checkpoint();
    assert.ok(cp.timestampToken, "the checkpoint was timestamped");
    const stored = (await h.archive.tree.checkpoints())[0]!;
    const token = stored.timestampToken;
    assert.ok(token && token.equals(cp.timestampToken));
    const ok = await verifyTimestampWithOpenSSL(token, Buffer.from(stored.note, "utf8"), tsa.caFile);
    assert.ok(ok.ok, ok.output);
    assert.deepEqual((await verifyArchive(h.archive, actor)).findings, []);
    // A token moved onto another checkpoint no longer covers it.
    await appendN(h.archive, 2);
    const cp2 = await h.archive.tree.checkpoint();
    await h.archive.db.db.updateTable("checkpoints").set({ timestamp_token: token }).where("size", "=", cp2.size).execute();
    assert.match(problems((await verifyArchive(h.archive, actor)).findings), new RegExp(`checkpoint ${cp2.size}: its timestamp token does not cover it`));
  } finally {
    await h.close();
    await tsa.stop();
  }
});
