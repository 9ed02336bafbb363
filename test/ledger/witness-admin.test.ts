import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Actor } from "../../src/core/actor.ts";
import type { DalilError } from "../../src/core/errors.ts";
import { custody, parseLeaf } from "../../src/ledger/events.ts";
import { generateCosigner } from "../../src/ledger/cosignature.ts";
import { parseWitnessPolicy } from "../../src/ledger/witness-policy.ts";
import type { WitnessClient } from "../../src/ledger/witness-client.ts";
import { addWitness, removeWitness, setWitnessQuorum, showWitnessPolicy } from "../../src/ledger/witness-admin.ts";
import { backends, tempDir } from "../support/backends.ts";
import { freshArchive } from "../support/archive.ts";
import { startWitness } from "../support/witness.ts";

const admin: Actor = { kind: "user", id: "usr_admin", role: "admin" };
const archivist: Actor = { kind: "user", id: "usr_archivist", role: "archivist" };

/** A refusal with its message key (the sentence a person reads), not only a failure. */
function refusedWith(key: string): (err: unknown) => boolean {
  return (err) => {
    assert.equal((err as DalilError).key, key, (err as Error).message);
    return true;
  };
}

for (const { backend, skip } of await backends()) {
  test(`an admin adds and removes witnesses and sets the quorum; the file is valid tlog-policy, logged without names, and in force without a restart, on ${backend.name}`, { skip, timeout: 120_000 }, async () => {
    const { archive: a, dataDir, close } = await freshArchive(backend);
    const live = await startWitness("witness.test/live", [a.tree.verifierKey]);
    try {
      const file = join(dataDir, "witnesses.policy");
      assert.deepEqual(await showWitnessPolicy(a, admin), { file, exists: false, witnesses: [], groups: [], quorum: "none" });
      // read at each use (a getter), so no narrowing from one use to the next
      const inForce = (): WitnessClient | undefined => a.tree.witnesses;
      assert.equal(inForce(), undefined);
      await assert.rejects(addWitness(a, archivist, { name: "live", vkey: live.vkey }), /Your role \(archivist\) may not do this \(witness.manage\)/);

      const before = await a.log.size();
      const other = generateCosigner("witness.test/offline");
      await addWitness(a, admin, { name: "live", vkey: live.vkey, url: live.url });
      const v = await addWitness(a, admin, { name: "offline", vkey: other.vkey });
      assert.deepEqual(v.witnesses.map((w) => [w.name, w.url]), [["live", live.url], ["offline", null]]);
      const text = readFileSync(file, "utf8");
      const parsed = parseWitnessPolicy(text);
      assert.deepEqual(parsed.logs.map((l) => l.vkey), [a.tree.verifierKey], "the policy names this archive's log");
      assert.deepEqual(parsed.witnesses.map((w) => w.key.vkey), [live.vkey, other.vkey]);

      // in force at once: the running archive's next checkpoint goes to the witness just added, and is cosigned
      assert.deepEqual(inForce()?.policy.witnesses.map((w) => w.name), ["live", "offline"]);
      await a.db.transaction((tx) => a.log.append(tx, custody("validation", admin, a.clock.now(), [{ id: "x_1", role: "test" }], {})));
      await a.tree.checkpoint();
      const states = await inForce()!.states();
      assert.ok(states.find((s) => s.name === "live")?.lastCosigned, "the witness added on screen cosigned the next checkpoint");

      // refusals, each with its sentence
      await assert.rejects(addWitness(a, admin, { name: "live", vkey: generateCosigner("w.test/x").vkey }), refusedWith("witness.nameTaken"));
      await assert.rejects(addWitness(a, admin, { name: "again", vkey: live.vkey }), refusedWith("witness.keyTaken"));
      await assert.rejects(addWitness(a, admin, { name: "bad", vkey: "not+a+key" }), refusedWith("witness.vkeyInvalid"));
      await assert.rejects(addWitness(a, admin, { name: "ftp", vkey: generateCosigner("w.test/y").vkey, url: "ftp://w.example" }), refusedWith("witness.urlInvalid"));
      await assert.rejects(setWitnessQuorum(a, admin, { threshold: 3, members: ["live", "offline"] }), refusedWith("witness.quorumThreshold"));
      await assert.rejects(setWitnessQuorum(a, admin, { quorum: "nobody" }), refusedWith("witness.quorumUnknown"));
      await assert.rejects(removeWitness(a, admin, { name: "nobody" }), refusedWith("witness.notInPolicy"));

      // quorum: 1 of the two; a witness removed leaves the group; then the live witness alone (the group goes),
      // which can then not be removed
      const q = await setWitnessQuorum(a, admin, { threshold: 1, members: ["live", "offline"] });
      assert.deepEqual([q.quorum, q.groups], ["quorum", [{ name: "quorum", threshold: 1, members: ["live", "offline"] }]]);
      assert.match(readFileSync(file, "utf8"), /^group quorum any live offline\nquorum quorum$/m);
      const r = await removeWitness(a, admin, { name: "offline" });
      assert.deepEqual(r.groups, [{ name: "quorum", threshold: 1, members: ["live"] }], "taken out of the group too");
      assert.deepEqual(inForce()?.policy.witnesses.map((w) => w.name), ["live"]);
      const one = await setWitnessQuorum(a, admin, { quorum: "live" });
      assert.deepEqual([one.quorum, one.groups], ["live", []], "the group the earlier quorum wrote is gone");
      await assert.rejects(removeWitness(a, admin, { name: "live" }), refusedWith("witness.isQuorum"));

      // every change is one event: what changed and counts; the name only as a commitment, no key, no address
      const events = (await a.db.db.selectFrom("custody_events").select("leaf").where("seq", ">=", before).orderBy("seq").execute()).map((x) => parseLeaf(x.leaf)).filter((e) => e.type === "witness policy change");
      assert.deepEqual(events.map((e) => e.detail.change), ["witness added", "witness added", "quorum set", "witness removed", "quorum set"]);
      const leaves = JSON.stringify(events);
      for (const typed of ["offline", live.vkey, other.vkey, live.url, "witness.test"]) assert.ok(!leaves.includes(typed), `${typed} is not in a leaf in the clear`);

      // a policy file changed by another hand (an editor, the CLI in another process) is read at the next use;
      // one that does not parse leaves the policy read before in force
      writeFileSync(file, `log ${a.tree.verifierKey}\nquorum none\n`);
      assert.deepEqual(inForce()?.policy.witnesses, []);
      writeFileSync(file, "witness broken\n");
      assert.deepEqual(inForce()?.policy.quorum, "none");
    } finally {
      await live.stop();
      await close();
    }
  });

  test(`with DALIL_WITNESS_POLICY set, the admin's edits go to that file, on ${backend.name}`, { skip }, async () => {
    const elsewhere = join(tempDir("dalil-policy-"), "archive.policy");
    writeFileSync(elsewhere, "quorum none\n");
    const { archive: a, dataDir, close } = await freshArchive(backend, { DALIL_WITNESS_POLICY: elsewhere });
    try {
      const w = generateCosigner("witness.test/elsewhere");
      const v = await addWitness(a, admin, { name: "elsewhere", vkey: w.vkey, url: "https://witness.example/prefix/" });
      assert.equal(v.file, elsewhere);
      assert.ok(!existsSync(join(dataDir, "witnesses.policy")));
      assert.match(readFileSync(elsewhere, "utf8"), /^witness elsewhere \S+ https:\/\/witness\.example\/prefix$/m);
      assert.deepEqual(a.tree.witnesses?.policy.witnesses.map((x) => x.url), ["https://witness.example/prefix"]);
    } finally {
      await close();
    }
  });
}
