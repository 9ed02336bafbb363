import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { generateSigner } from "../../src/ledger/note.ts";
import { Witness } from "../../src/witness/index.ts";
import { tempDir } from "../support/backends.ts";
import { dalil } from "../support/cli.ts";
import { serveWitness } from "../support/witness.ts";
import { signCheckpoint } from "../../src/ledger/checkpoint.ts";
import { MerkleAppender, arrayHashReader, consistencyProof } from "../../src/ledger/merkle.ts";
import { newSigner } from "../../src/ledger/note.ts";

test("witness commands: init once, key, add-log, logs; mistakes get a sentence and a non-zero exit", async () => {
  const dir = join(tempDir(), "w");
  const init = await dalil(["witness", "init", "--name", "witness.example/cli", "--data", dir]);
  assert.equal(init.code, 0, init.stderr);
  const vkey = init.stdout.trim().split("\n").pop()!;
  assert.match(vkey, /^witness\.example\/cli\+[0-9a-f]{8}\+B[A-P]/, "a type 0x04 key (base64 of 0x04 and 4 bits: B then A..P)");
  assert.equal((await dalil(["witness", "key", "--data", dir])).stdout.trim(), vkey);

  const again = await dalil(["witness", "init", "--name", "other", "--data", dir]);
  assert.equal(again.code, 1);
  assert.match(again.stderr, /already holds a witness/);
  const none = await dalil(["witness", "key", "--data", join(dir, "nope")]);
  assert.equal(none.code, 2);
  assert.match(none.stderr, /There is no witness in .*dalil witness init/);
  const badName = await dalil(["witness", "init", "--name", "has space", "--data", join(dir, "x")]);
  assert.notEqual(badName.code, 0);
  assert.match(badName.stderr, /name "has space" is not valid/);

  const log = generateSigner("dalil.archive/cli-log");
  const keyFile = join(dir, "..", "log.vkey");
  writeFileSync(keyFile, `${log.verifierKey}\n`);
  assert.match((await dalil(["witness", "add-log", keyFile, "--data", dir])).stdout, /now following dalil\.archive\/cli-log/);
  assert.match((await dalil(["witness", "add-log", log.verifierKey, "--data", dir])).stdout, /already following/);
  const bad = await dalil(["witness", "add-log", "not+a+key", "--data", dir]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /malformed/);
  assert.match((await dalil(["witness", "logs", "--data", dir])).stdout, /dalil\.archive\/cli-log {2}nothing cosigned yet/);
  const port = await dalil(["witness", "serve", "--port", "http", "--data", dir]);
  assert.equal(port.code, 2);
  assert.match(port.stderr, /--port takes a port number/);
});

test("a witness killed (SIGKILL) in the middle of a stream of checkpoints restarts holding the last one it cosigned", async () => {
  const dir = join(tempDir(), "w");
  const init = await dalil(["witness", "init", "--name", "witness.example/kill", "--data", dir, "--json"]);
  const vkey = (JSON.parse(init.stdout) as { vkey: string }).vkey;
  const logKeys = generateSigner("dalil.archive/kill");
  await dalil(["witness", "add-log", logKeys.verifierKey, "--data", dir]);
  const signer = newSigner(logKeys.signerKey);
  const app = MerkleAppender.empty();
  const stored: Buffer[] = [];
  const roots: Buffer[] = [app.root()];
  for (let i = 0; i < 400; i++) {
    stored.push(...app.appendLeaves([Buffer.from(`e${i}`)]).hashes);
    roots.push(app.root());
  }
  const request = async (old: number, n: number): Promise<string> =>
    `old ${old}\n${(old > 0 ? await consistencyProof(old, n, arrayHashReader(stored)) : []).map((h) => `${h.toString("base64")}\n`).join("")}\n${signCheckpoint({ origin: "dalil.archive/kill", size: n, rootHash: roots[n]!, extensions: [] }, [signer])}`;

  const w = await serveWitness(dir, "witness.example/kill", vkey);
  let held = 0;
  let answered = 0;
  const stream = (async () => {
    for (let n = 1; n <= 400; n++) {
      try {
        const r = await fetch(`${w.url}/add-checkpoint`, { method: "POST", body: await request(held, n) });
        if (r.status === 200) held = n;
        answered++;
        await r.text();
      } catch {
        return; // the process died under us
      }
    }
  })();
  while (answered < 20) await new Promise((r) => setTimeout(r, 5));
  await w.stop("SIGKILL");
  await stream;

  const view = new Witness(dir);
  try {
    const cosigned = view.cosignedOf("dalil.archive/kill");
    const last = cosigned[cosigned.length - 1]!;
    assert.ok(cosigned.length >= held, "every answered cosignature was persisted before the answer");
    assert.deepEqual(cosigned.map((c) => c.size), Array.from({ length: cosigned.length }, (_, i) => i + 1));
    assert.equal(view.logs()[0]!.size, last.size, "the state is the last cosigned checkpoint, never between");
    // And it carries on from there after a restart.
    const again = await serveWitness(dir, "witness.example/kill", vkey);
    try {
      const r = await fetch(`${again.url}/add-checkpoint`, { method: "POST", body: await request(last.size, last.size + 1) });
      assert.equal(r.status, 200, await r.text());
    } finally {
      await again.stop();
    }
  } finally {
    view.close();
  }
});
