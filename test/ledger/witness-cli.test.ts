import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/backends.ts";
import { dalil } from "../support/cli.ts";
import { startWitness } from "../support/witness.ts";

test("dalil log cosign and log witnesses: a witness cosigns the archive's checkpoint; one that does not answer is an alarm; a bad policy stops the archive with its line", { timeout: 300_000 }, async () => {
  const data = join(tempDir(), "archive");
  assert.equal((await dalil(["init", "--data", data])).code, 0);
  const noPolicy = await dalil(["log", "witnesses", "--data", data]);
  assert.match(noPolicy.stdout, /no witness policy/);

  const logKey = (await dalil(["log", "key", "--data", data])).stdout.trim();
  const w = await startWitness("witness.test/cli", [logKey]);
  try {
    writeFileSync(join(data, "witnesses.policy"), `log ${logKey}\nwitness museum ${w.vkey} ${w.url}\nwitness gone ${(await startDeadKey())} http://127.0.0.1:9\ngroup any-one any museum gone\nquorum any-one\n`);
    const cosign = await dalil(["log", "cosign", "--data", data]);
    assert.equal(cosign.code, 0, cosign.stdout + cosign.stderr);
    assert.match(cosign.stdout, /quorum met\nmuseum: cosigned\ngone: unreachable — /);
    const cp = await dalil(["log", "checkpoint", "--data", data]);
    assert.match(cp.stdout, /\n— witness\.test\/cli /, "the published checkpoint carries the cosignature");
    const states = await dalil(["log", "witnesses", "--data", data]);
    assert.match(states.stdout, /quorum any of \(museum, gone\)/);
    assert.match(states.stdout, /museum {2}http:\/\/127\.0\.0\.1:\d+\n {4}cosigned size \d+ at /);
    assert.match(states.stdout, /gone {2}http:\/\/127\.0\.0\.1:9\n {4}has cosigned nothing\n {4}ALARM \(1\): unreachable at size \d+/);
  } finally {
    await w.stop();
  }
  writeFileSync(join(data, "witnesses.policy"), "witness museum nonsense\nquorum museum\n");
  const bad = await dalil(["log", "checkpoint", "--data", data]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /witnesses\.policy, line 1: .*malformed/);
});

/** A witness key nobody serves (the policy's second witness is down). */
async function startDeadKey(): Promise<string> {
  const { generateCosigner } = await import("../../src/ledger/cosignature.ts");
  return generateCosigner("witness.test/gone").vkey;
}

test("dalil log witness-policy: add, quorum, remove edit the policy file with the admin screen's checks", { timeout: 120_000 }, async () => {
  const data = join(tempDir(), "archive");
  assert.equal((await dalil(["init", "--data", data])).code, 0);
  const { generateCosigner } = await import("../../src/ledger/cosignature.ts");
  const vkey = generateCosigner("witness.test/console").vkey;
  const policy = (...args: string[]) => dalil(["log", "witness-policy", ...args, "--data", data]);
  assert.match((await policy("show")).stdout, /witnesses\.policy \(not written yet\)\nquorum none/);
  const added = await policy("add", "console", vkey, "https://w.example/console");
  assert.equal(added.code, 0, added.stderr);
  assert.match(readFileSync(join(data, "witnesses.policy"), "utf8"), new RegExp(`^witness console ${vkey.replace(/\+/g, "\\+")} https://w\\.example/console$`, "m"));
  assert.equal((await policy("quorum", "1", "console")).code, 0);
  assert.match((await policy("show")).stdout, /group quorum: 1 of console\nquorum quorum/);
  const again = await policy("add", "console", generateCosigner("witness.test/other").vkey);
  assert.equal(again.code, 1, again.stderr);
  assert.match(again.stderr, /The name console is already used/);
  assert.equal((await policy("quorum", "none")).code, 0);
  const removed = await policy("remove", "console");
  assert.equal(removed.code, 0, removed.stderr);
  assert.match(removed.stdout, /witnesses\.policy\nquorum none\n$/, "no witness, no group left");
});
