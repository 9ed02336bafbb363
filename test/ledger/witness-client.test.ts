import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { operatorActor } from "../../src/core/actor.ts";
import type { Archive } from "../../src/app/context.ts";
import { custody } from "../../src/ledger/events.ts";
import { cosignatureVerifier, parseCosignerVkey } from "../../src/ledger/cosignature.ts";
import { generateSigner, newVerifier, openNote } from "../../src/ledger/note.ts";
import { quorumMet } from "../../src/ledger/witness-policy.ts";
import { verifyLedger } from "../../src/ledger/verify.ts";
import { buildHttpApp } from "../../src/http/app.ts";
import { Witness } from "../../src/witness/index.ts";
import { backends, tempDir } from "../support/backends.ts";
import { freshArchive } from "../support/archive.ts";
import { startWitness } from "../support/witness.ts";

const actor = operatorActor();

async function appendN(a: Archive, n: number, tag: string): Promise<void> {
  await a.db.transaction(async (tx) => {
    const at = a.clock.now();
    await a.log.appendMany(tx, Array.from({ length: n }, (_, i) => custody("validation", actor, at, [{ id: `${tag}${i}`, role: "test" }], { i })));
  });
}

for (const { backend, skip } of await backends()) {
  test(`${backend.name}: every new checkpoint is cosigned by both witnesses, a 409 is answered with a proof, a fork is refused by both and raises alarms`, { skip }, async () => {
    const logKey = generateSigner(`dalil.archive/client-${backend.name}-${process.pid}`);
    const [w1, w2] = await Promise.all([startWitness("witness.test/one", [logKey.verifierKey]), startWitness("witness.test/two", [logKey.verifierKey])]);
    const policyFile = join(tempDir(), "witnesses.policy");
    writeFileSync(policyFile, `log ${logKey.verifierKey}\nwitness one ${w1.vkey} ${w1.url}\nwitness two ${w2.vkey} ${w2.url}\ngroup both all one two\nquorum both\n`);
    // The log key is read from the process environment (never the config): both archives sign as one log.
    process.env.DALIL_LOG_KEY = logKey.signerKey;
    const env = { DALIL_WITNESS_POLICY: policyFile };
    const a = await freshArchive(backend, env);
    const fork = await freshArchive(backend, env);
    if (backend.name === "sqlite") {
      // A policy written for another archive's log is refused at start, with the reason.
      const foreign = join(tempDir(), "foreign.policy");
      writeFileSync(foreign, `log ${generateSigner("dalil.archive/someone-else").verifierKey}\nwitness one ${w1.vkey} ${w1.url}\nquorum one\n`);
      await assert.rejects(freshArchive(backend, { DALIL_WITNESS_POLICY: foreign }), /foreign\.policy lists logs, but not this archive's/);
    }
    delete process.env.DALIL_LOG_KEY;
    try {
      const client = a.archive.tree.witnesses!;
      assert.ok(client, "the policy was loaded from DALIL_WITNESS_POLICY");
      const cosigners = [w1, w2].map((w) => cosignatureVerifier(parseCosignerVkey(w.vkey)));
      const logVerifier = newVerifier(logKey.verifierKey);

      await appendN(a.archive, 5, "a");
      const cp5 = await a.archive.tree.checkpoint();
      const opened = openNote(cp5.published, [logVerifier, ...cosigners]);
      assert.deepEqual(opened.verified.map((s) => s.name).sort(), [logKey.verifierKey.split("+")[0], "witness.test/one", "witness.test/two"].sort());
      assert.ok(cp5.published.startsWith(cp5.note), "the log's note, then the cosignatures");

      // Growth: each witness gets a proof from the size it last cosigned.
      await appendN(a.archive, 7, "b");
      const cp12 = await a.archive.tree.checkpoint();
      assert.equal(openNote(cp12.published, [logVerifier, ...cosigners]).verified.length, 3);
      // The published checkpoint and every proof carry them.
      assert.equal((await a.archive.tree.latestCheckpoint())!.published, cp12.published);
      assert.ok((await a.archive.tree.proveEvent(3)).proof.endsWith(cp12.published));

      // The archive forgets what witness two holds (a restored database): it sends old 0, gets 409 "12", answers with a proof from 12.
      await a.archive.db.db.deleteFrom("checkpoint_cosignatures").where("witness_name", "=", "two").execute();
      await appendN(a.archive, 4, "c");
      const cp16 = await a.archive.tree.checkpoint();
      assert.equal(openNote(cp16.published, [logVerifier, ...cosigners]).verified.length, 3, "cosigned after the 409");
      assert.equal((await client.states()).every((s) => s.alarms === 0), true, "a 409 answered is not an alarm");
      // Anyone fetching the checkpoint over HTTP gets it with both cosignatures.
      const http = await buildHttpApp(a.archive);
      try {
        const r = await http.app.inject({ method: "GET", url: "/log/checkpoint" });
        assert.equal(r.statusCode, 200);
        assert.equal(r.body, cp16.published);
      } finally {
        await http.app.close();
      }

      // A fork: another database, the same log key, another history of the same size as what the witnesses hold.
      await appendN(fork.archive, 16, "forged");
      const forged = await fork.archive.tree.checkpoint();
      assert.equal(forged.size, 16);
      assert.equal(forged.published, forged.note, "no witness cosigned the fork");
      const states = await fork.archive.tree.witnesses!.states();
      for (const s of states) {
        assert.equal(s.alarms, 1, s.name);
        assert.equal(s.lastAlarm!.kind, "refused");
        assert.equal(s.lastAlarm!.status, 409);
      }
      // A longer fork is refused too (422: no proof from 16 to it verifies against the real 16).
      await appendN(fork.archive, 3, "forged-more");
      const longer = await fork.archive.tree.checkpoint();
      assert.equal(longer.published, longer.note);
      assert.deepEqual((await fork.archive.tree.witnesses!.states()).map((s) => s.lastAlarm!.status), [422, 422]);
      assert.equal(quorumMet(client.policy, new Set()), false);

      // Both witnesses kept the forks as evidence, and still hold the real 16.
      await Promise.all([w1.stop(), w2.stop()]);
      for (const w of [w1, w2]) {
        const view = new Witness(w.dir);
        try {
          const refused = view.refusedOf(logKey.verifierKey.split("+")[0]!);
          assert.deepEqual(refused.map((r) => r.status), [409, 422]);
          assert.deepEqual(view.cosignedOf(logKey.verifierKey.split("+")[0]!).map((c) => c.size), [5, 12, 16]);
        } finally {
          view.close();
        }
      }

      // A kept cosignature altered in the table (witness one's line put on checkpoint 12 in place of 16's): dalil verify finds it.
      assert.deepEqual((await verifyLedger(a.archive)).findings, []);
      const line12 = await a.archive.db.db.selectFrom("checkpoint_cosignatures").select("line").where("size", "=", 12).where("witness_name", "=", "one").executeTakeFirstOrThrow();
      await a.archive.db.db.updateTable("checkpoint_cosignatures").set({ line: line12.line }).where("size", "=", 16).where("witness_name", "=", "one").execute();
      const found = (await verifyLedger(a.archive)).findings;
      assert.equal(found.length, 1, JSON.stringify(found));
      assert.equal(found[0]!.item, "checkpoint 16, cosignature by one");
      assert.match(found[0]!.problem, /does not verify/);

      // A witness that does not answer: an alarm, and the checkpoint is still signed and published with what there is.
      await appendN(a.archive, 1, "d");
      const lonely = await a.archive.tree.checkpoint();
      assert.equal(lonely.published, lonely.note);
      const after = await client.states();
      assert.deepEqual(after.map((s) => s.lastAlarm?.kind), ["unreachable", "unreachable"]);
      assert.equal(after[0]!.lastCosigned!.size, 16);
    } finally {
      await Promise.all([w1.stop(), w2.stop()]);
      await a.close();
      await fork.close();
    }
  });
}
