import { test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, cpSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { operatorActor } from "../../src/core/actor.ts";
import { ingestCard } from "../../src/archive/intake.ts";
import { blobLayout } from "../../src/archive/index.ts";
import { verifyArchive } from "../../src/app/verify.ts";
import { auditCopies } from "../../src/mirror/index.ts";
import { parseLeaf } from "../../src/ledger/events.ts";
import { backends, tempDir } from "../support/backends.ts";
import { demoCard, freshArchive } from "../support/archive.ts";

for (const { backend, skip } of await backends()) {
  test(`dalil audit copies finds a corrupted blob in a copy and a deleted one in the archive, repairs both from what agrees with the log, and logs it, on ${backend.name}`, { skip, timeout: 300_000 }, async () => {
    const { archive: a, dataDir, close } = await freshArchive(backend);
    try {
      const operator = operatorActor();
      const { dir } = await demoCard(2, false, "copies");
      await ingestCard(a, operator, { path: dir });
      const copy = join(tempDir("dalil-copy-"), "blobs");
      cpSync(join(dataDir, "blobs"), copy, { recursive: true });
      const copies = [{ name: "usb drive", kind: "folder" as const, path: copy }];

      const [first, second] = (await a.db.db.selectFrom("originals").select("sha256").orderBy("sha256").limit(2).execute()).map((r) => r.sha256);
      const keyOf = (sha: string): string => blobLayout.blob(a.blobs.nameOf(sha!));
      // one copy's blob rots (a byte flipped), the archive's own copy of another is deleted
      const rotten = join(copy, ...keyOf(first!).split("/"));
      const bytes = readFileSync(rotten);
      bytes[bytes.length - 5] = bytes[bytes.length - 5]! ^ 0xff;
      chmodSync(rotten, 0o600);
      writeFileSync(rotten, bytes);
      rmSync(join(dataDir, "blobs", ...keyOf(second!).split("/")));
      assert.equal((await a.blobs.verify(second!)).ok, false);

      const before = await a.log.size();
      const r = await auditCopies(a, operator, { copies });
      assert.deepEqual(
        r.findings.map((f) => `${f.copy} ${f.problem} ${f.key} ${f.repaired}`).sort(),
        [`archive missing ${keyOf(second!)} true`, `usb drive corrupt ${keyOf(first!)} true`].sort(),
      );
      assert.equal(r.archive.repaired, 1);
      assert.equal((await a.blobs.verify(second!)).ok, true, "the archive's object is back and decrypts to its hash");
      assert.deepEqual(readFileSync(rotten), readFileSync(join(dataDir, "blobs", ...keyOf(first!).split("/"))), "the copy holds the archive's bytes again");

      const events = (await a.db.db.selectFrom("custody_events").select("leaf").where("seq", ">=", before).orderBy("seq").execute()).map((x) => parseLeaf(x.leaf));
      assert.deepEqual(events.map((e) => `${e.type}:${String(e.detail.act ?? e.detail.audit)}`), ["replication:repaired", "replication:repaired", "fixity check:copies"]);
      assert.equal(events[2]!.outcome, "success");
      assert.ok(!JSON.stringify(events).includes("usb drive"), "the copy's name is a commitment in the log");

      const again = await auditCopies(a, operator, { copies });
      assert.deepEqual(again.findings, []);
      assert.deepEqual((await verifyArchive(a, operator)).findings, []);

      // a copy that cannot be read stops the audit with its reason, and nothing is logged as audited
      const size = await a.log.size();
      await assert.rejects(auditCopies(a, operator, { copies: [{ name: "gone", kind: "mirror", path: join(copy, "nowhere") }] }), /The copy "gone" cannot be read: .* is not a folder .*The audit did not run/);
      assert.equal(await a.log.size(), size);
    } finally {
      await close();
    }
  });
}
