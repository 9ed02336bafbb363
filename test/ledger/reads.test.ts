import { test } from "node:test";
import assert from "node:assert/strict";
import { anonymousActor } from "../../src/access/policy.ts";
import type { Archive } from "../../src/app/context.ts";
import { operatorActor, type Actor, type Role } from "../../src/core/actor.ts";
import { Forbidden, Invalid, Unauthenticated } from "../../src/core/errors.ts";
import { custody } from "../../src/ledger/events.ts";
import { consistencyProof, cosignLatest, latestCheckpoint, logTile, logTiles, timestampLatestCheckpoint, verifierKey, witnessStates } from "../../src/ledger/reads.ts";
import { decodeEntryBundle } from "../../src/ledger/tiles.ts";
import { backends } from "../support/backends.ts";
import { freshArchive } from "../support/archive.ts";

const as = (role: Role): Actor => ({ kind: "user", id: `usr_${role}`, role });

async function appendN(a: Archive, n: number): Promise<void> {
  await a.db.transaction(async (tx) => {
    const at = a.clock.now();
    await a.log.appendMany(tx, Array.from({ length: n }, (_, i) => custody("validation", operatorActor(), at, [{ id: `x${i}`, role: "test" }], { i })));
  });
}

for (const b of await backends()) {
  test(`${b.backend.name}: the log's shape is anyone's, its entries a custodian's; the command and the route read the same`, { skip: b.skip }, async () => {
    const { archive: a, close } = await freshArchive(b.backend);
    try {
      await appendN(a, 3);
      const first = await latestCheckpoint(a, anonymousActor, { sign: true });
      assert.equal(first.size, 3);
      await appendN(a, 2);
      assert.equal((await latestCheckpoint(a, anonymousActor)).size, 3, "a reader gets the latest signed checkpoint, not a new one");
      const grown = await latestCheckpoint(a, operatorActor(), { sign: true });
      assert.equal(grown.size, 5, "the operator's command signs the grown log");

      assert.equal(verifierKey(a, anonymousActor).vkey, a.tree.verifierKey);
      const p = await consistencyProof(a, as("curator"), { from: 3 });
      assert.equal(p.from.size, 3);
      assert.equal(p.to.size, 5);

      assert.equal((await logTile(a, anonymousActor, { path: "tile/0/000.p/5", kind: "hash" })).bytes.length, 5 * 32);
      await assert.rejects(logTile(a, anonymousActor, { path: "tile/entries/000.p/5", kind: "entries" }), Unauthenticated);
      await assert.rejects(logTile(a, as("investigator"), { path: "tile/entries/000.p/5", kind: "entries" }), (e: unknown) => e instanceof Forbidden && /log\.entries/.test((e as Error).message));
      assert.equal(decodeEntryBundle((await logTile(a, as("archivist"), { path: "tile/entries/000.p/5", kind: "entries" })).bytes).length, 5);

      const hashesOnly = await logTiles(a, as("curator"));
      const paths: string[] = [];
      for await (const t of hashesOnly.tiles) paths.push(t.path);
      assert.ok(paths.length > 0 && paths.every((x) => !x.startsWith("tile/entries/")), paths.join(" "));
      await assert.rejects(logTiles(a, as("curator"), { entries: true }), Forbidden);
      const withEntries = await logTiles(a, operatorActor(), { entries: true });
      const all: string[] = [];
      for await (const t of withEntries.tiles) all.push(t.path);
      assert.ok(all.includes("tile/entries/000.p/5"), all.join(" "));

      // no authority configured: the sentence says what to set; a reader may not ask for one at all
      await assert.rejects(timestampLatestCheckpoint(a, operatorActor()), (e: unknown) => e instanceof Invalid && /DALIL_TSA_URL/.test((e as Error).message));
      await assert.rejects(timestampLatestCheckpoint(a, as("investigator")), Forbidden);
    } finally {
      await close();
    }
  });
}

test("the witnesses' state and a cosigning round are the operator's and the archivist's; without a policy, none and a sentence", async () => {
  const [b] = await backends();
  const { archive: a, close } = await freshArchive(b!.backend);
  try {
    await assert.rejects(witnessStates(a, anonymousActor), Unauthenticated);
    await assert.rejects(witnessStates(a, as("investigator")), Forbidden);
    await assert.rejects(cosignLatest(a, as("curator")), Forbidden);
    assert.equal(await witnessStates(a, operatorActor()), null, "no policy, no witnesses");
    await assert.rejects(cosignLatest(a, operatorActor()), (e: unknown) => e instanceof Invalid && /No witness policy/.test(e.message));
  } finally {
    await close();
  }
});
