import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { formatCheckpoint, signCheckpoint } from "../../src/ledger/checkpoint.ts";
import { parseCosignerVkey, verifyCosignatureLines } from "../../src/ledger/cosignature.ts";
import { EMPTY_ROOT, MerkleAppender, arrayHashReader, consistencyProof, leafHash } from "../../src/ledger/merkle.ts";
import { generateSigner, newSigner, type NoteSigner } from "../../src/ledger/note.ts";
import { Witness } from "../../src/witness/index.ts";
import { serveWitness, startWitness, type RunningWitness } from "../support/witness.ts";

const ORIGIN = "dalil.archive/protocol-test";
const keys = generateSigner(ORIGIN);
const log: NoteSigner = newSigner(keys.signerKey);
const stranger = newSigner(generateSigner(ORIGIN).signerKey);

/** A log of `n` leaves named by `tag` ("rewrite-K": the real log with entry K rewritten); its stored hashes and root. */
function tree(n: number, tag = "a"): { stored: Buffer[]; root: Buffer } {
  const app = MerkleAppender.empty();
  const rewritten = tag.startsWith("rewrite-") ? Number(tag.slice(8)) : -1;
  const { hashes } = app.appendLeaves(Array.from({ length: n }, (_, i) => Buffer.from(i === rewritten ? `rewritten-${i}` : `${rewritten >= 0 ? "a" : tag}-${i}`)));
  return { stored: hashes, root: app.root() };
}
const rootOf = (n: number, tag = "a"): Buffer => tree(n, tag).root;
const proofOf = async (m: number, n: number, tag = "a"): Promise<Buffer[]> => consistencyProof(m, n, arrayHashReader(tree(n, tag).stored));
const note = (size: number, root: Buffer, signer = log): string => signCheckpoint({ origin: ORIGIN, size, rootHash: root, extensions: [] }, [signer]);
const body = (old: number, proof: Buffer[], signed: string): string => `old ${old}\n${proof.map((h) => `${h.toString("base64")}\n`).join("")}\n${signed}`;

let w: RunningWitness;
before(async () => {
  w = await startWitness("witness.test/w1", [keys.verifierKey]);
});
after(async () => {
  await w?.stop();
});

async function post(text: string | Buffer): Promise<{ status: number; body: string; type: string | null }> {
  const r = await fetch(`${w.url}/add-checkpoint`, { method: "POST", body: text });
  return { status: r.status, body: await r.text(), type: r.headers.get("content-type") };
}

test("a real witness process answers every add-checkpoint rule of tlog-witness v1.0.0 with its status", async () => {
  // 200: first checkpoint, old 0, no proof; the answer is a cosignature over the checkpoint body.
  const cp5 = note(5, rootOf(5));
  const ok = await post(body(0, [], cp5));
  assert.equal(ok.status, 200, ok.body);
  const cos = verifyCosignatureLines(formatCheckpoint({ origin: ORIGIN, size: 5, rootHash: rootOf(5), extensions: [] }), ok.body, parseCosignerVkey(w.vkey));
  assert.equal(cos.length, 1);
  assert.ok(Math.abs(cos[0]!.time - Date.now() / 1000) < 120);

  // 409 with text/x.tlog.size when the old size is not the size held.
  const stale = await post(body(0, [], note(9, rootOf(9))));
  assert.equal(stale.status, 409);
  assert.equal(stale.type, "text/x.tlog.size");
  assert.equal(stale.body, "5\n");

  // 200 with a proof from 5 to 9; then 422 for a proof that does not verify.
  assert.equal((await post(body(5, await proofOf(5, 9), note(9, rootOf(9))))).status, 200);
  const badProof = await post(body(9, await proofOf(9, 12, "b"), note(12, rootOf(12, "b"))));
  assert.equal(badProof.status, 422);
  assert.match(badProof.body, /does not verify/);
  // The real log with one older entry rewritten, grown past what the witness holds: its honest proof fails too.
  const rewritten = await post(body(9, await proofOf(9, 14, "rewrite-3"), note(14, rootOf(14, "rewrite-3"))));
  assert.equal(rewritten.status, 422);
  assert.notDeepEqual(rootOf(14, "rewrite-3"), rootOf(14));

  // 400: malformed bodies and an old size above the checkpoint's.
  assert.equal((await post("old 09\n\n" + cp5)).status, 400);
  assert.equal((await post("nonsense")).status, 400);
  assert.equal((await post(body(9, [Buffer.alloc(3)], note(10, rootOf(10))))).status, 400);
  assert.equal((await post(body(12, [], note(10, rootOf(10))))).status, 400);
  assert.equal((await post(`old 9\n${"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n".repeat(64)}\n${note(10, rootOf(10))}`)).status, 400, "more than 63 proof lines");

  // 403: signed only by another key of the same name, or a trusted key's signature that fails.
  const foreign = await post(body(9, await proofOf(9, 10), note(10, rootOf(10), stranger)));
  assert.equal(foreign.status, 403);
  const tampered = note(10, rootOf(10)).replace(rootOf(10).toString("base64"), rootOf(10, "z").toString("base64"));
  assert.equal((await post(body(9, await proofOf(9, 10), tampered))).status, 403);

  // 404: a log the witness does not follow.
  const other = generateSigner("dalil.archive/unknown");
  const unknown = await post(body(0, [], signCheckpoint({ origin: "dalil.archive/unknown", size: 1, rootHash: rootOf(1), extensions: [] }, [newSigner(other.signerKey)])));
  assert.equal(unknown.status, 404);

  // 405 and 404 for other methods and paths.
  assert.equal((await fetch(`${w.url}/add-checkpoint`)).status, 405);
  assert.equal((await fetch(`${w.url}/elsewhere`)).status, 404);
});

test("a split view (another root at a size already cosigned) is refused and kept as evidence; the state does not move", async () => {
  const size = (await fetch(`${w.url}/${createHashHex(ORIGIN)}/checkpoint`).then((r) => r.text())).split("\n")[1];
  const held = Number(size);
  const fork = await post(body(held, [], note(held, rootOf(held, "fork"))));
  assert.equal(fork.status, 409, fork.body);
  assert.equal(fork.body, `${held}\n`);
  // The witness's own record, read from its database after the process answered.
  const view = new Witness(w.dir);
  try {
    const refused = view.refusedOf(ORIGIN);
    const split = refused.find((r) => r.status === 409);
    assert.ok(split, "the split view is kept");
    assert.match(split.reason, /another root for size/);
    assert.ok(split.request.toString("utf8").includes(rootOf(held, "fork").toString("base64")), "the signed fork is kept byte for byte");
    assert.equal(refused.filter((r) => r.status === 422).length, 2, "the bad proof and the rewritten entry are kept too");
    assert.deepEqual(view.cosignedOf(ORIGIN).map((c) => c.size), [5, 9], "every cosigned checkpoint is kept, not only the last");
    assert.equal(view.logs()[0]!.size, held);
  } finally {
    view.close();
  }
  // The monitoring endpoint serves the latest cosigned checkpoint with both signatures.
  const latest = await fetch(`${w.url}/${createHashHex(ORIGIN)}/checkpoint`).then((r) => r.text());
  assert.match(latest, new RegExp(`— ${ORIGIN} .*\n— witness.test/w1 `));
});

test("the empty tree: size zero must carry the empty root, and old 0 needs an empty proof", async () => {
  const k = generateSigner("dalil.archive/empty");
  const s = newSigner(k.signerKey);
  const w2 = new Witness(w.dir);
  try {
    w2.addLog(k.verifierKey);
    const mk = (size: number, root: Buffer): string => signCheckpoint({ origin: "dalil.archive/empty", size, rootHash: root, extensions: [] }, [s]);
    assert.equal(w2.addCheckpoint(Buffer.from(body(0, [], mk(0, leafHash(Buffer.from("x")))))).status, 422);
    assert.equal(w2.addCheckpoint(Buffer.from(body(0, [rootOf(1)], mk(3, rootOf(3))))).status, 422);
    assert.equal(w2.addCheckpoint(Buffer.from(body(0, [], mk(0, EMPTY_ROOT)))).status, 200);
  } finally {
    w2.close();
  }
});

function createHashHex(s: string): string {
  return createHash("sha256").update(s).digest("hex");
}

test("two witness processes on one database: of many racing requests from the same old size exactly one is cosigned", async () => {
  const twin = await serveWitness(w.dir, w.name, w.vkey);
  try {
    const held = Number((await fetch(`${w.url}/${createHashHex(ORIGIN)}/checkpoint`).then((r) => r.text())).split("\n")[1]);
    const sizes = Array.from({ length: 16 }, (_, i) => held + 1 + i);
    const answers = await Promise.all(
      sizes.map(async (n, i) => {
        const r = await fetch(`${(i % 2 ? twin : w).url}/add-checkpoint`, { method: "POST", body: body(held, await proofOf(held, n), note(n, rootOf(n))) });
        return { n, status: r.status, text: await r.text() };
      }),
    );
    const won = answers.filter((a) => a.status === 200);
    assert.equal(won.length, 1, JSON.stringify(answers.map((a) => a.status)));
    for (const a of answers.filter((x) => x.status !== 200)) {
      assert.equal(a.status, 409);
      assert.equal(a.text, `${won[0]!.n}\n`, "the losers are told the size the winner left");
    }
  } finally {
    await twin.stop();
  }
});
