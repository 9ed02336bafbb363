import { test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { backends, tempDir } from "../support/backends.ts";
import { dalil } from "../support/cli.ts";
import { demoCard } from "../support/archive.ts";
import { serveArchive, startFollow } from "../support/mirror.ts";
import { parseCosignerVkey, verifyCosignatureLines } from "../../src/ledger/cosignature.ts";
import { decodeEntryBundle } from "../../src/ledger/tiles.ts";

async function ok(args: string[], env: Record<string, string> = {}): Promise<string> {
  const r = await dalil(args, env);
  assert.equal(r.code, 0, `dalil ${args.join(" ")}: ${r.stderr}`);
  return r.stdout;
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

for (const { backend, skip } of await backends()) {
  // Real processes: `dalil serve` of the archive, `dalil mirror follow` killed with SIGKILL and run again.
  test(`${backend.name}: a granted mirror follows the served archive, survives kill -9 mid-follow, resumes, cosigns what it holds; the restore drill passes dalil verify; revoked, it is refused`, { skip, timeout: 600_000 }, async () => {
    const fresh = await backend.fresh();
    const env: Record<string, string> = fresh.databaseUrl ? { DALIL_DATABASE_URL: fresh.databaseUrl } : {};
    const data = join(fresh.dataDir, "archive");
    const mirror = join(tempDir("dalil-mirror-"), "m");
    const card = await demoCard(3, false, "mirror");
    let served: Awaited<ReturnType<typeof serveArchive>> | undefined;
    try {
      await ok(["init", "--data", data], env);
      await ok(["ingest", card.dir, "--data", data], env);
      const grant = JSON.parse(await ok(["mirror", "grant", "Museum of Memory", "--data", data, "--json"], env)) as { token: string };
      assert.match(grant.token, /^dalilm_/);
      const logKey = (await ok(["log", "key", "--data", data], env)).trim();
      // the jobs the ingest queued run now and the grant is signed now, so that the served archive's log and its
      // latest checkpoint stand still while the mirror follows (`serve` signs a grown log every ten seconds)
      await ok(["worker", "--once", "--data", data], env);
      await ok(["log", "checkpoint", "--data", data], env);
      // slow enough that the kill lands in the middle of the blobs
      served = await serveArchive(data, { ...env, DALIL_MIRROR_RATE: "15" });
      await ok(["mirror", "init", served.url, "--token", grant.token, "--log-key", logKey, "--data", mirror, "--name", "museum.test/mirror"]);

      const first = startFollow(mirror);
      const deadline = Date.now() + 60_000;
      while (filesUnder(join(mirror, "blobs")).length < 20 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      first.child.kill("SIGKILL");
      const killed = await first.done;
      assert.equal(killed.signal, "SIGKILL", `the follow was to be killed mid-way, but it ended: ${killed.out}`);
      assert.equal(existsSync(join(mirror, "state.json")), false, "nothing was declared held before the copy was complete");

      const resumed = startFollow(mirror);
      const r = await resumed.done;
      assert.equal(r.code, 0, r.out);
      const state = JSON.parse(readFileSync(join(mirror, "state.json"), "utf8")) as { size: number; checkpoint: string; objects: number };
      const served1 = await fetch(`${served.url}/log/checkpoint`).then((x) => x.text());
      assert.equal(state.checkpoint, served1, "the mirror holds the archive's latest signed checkpoint");

      // every object of the archive's store, byte for byte, and no temporaries left behind by the kill
      const listing = await fetch(`${served.url}/mirror/objects`, { headers: { authorization: `Bearer ${grant.token}` } }).then((x) => x.text());
      const keys = listing.trim().split("\n").map((l) => l.split(" ")[1]!);
      const manifest = JSON.parse(readFileSync(join(mirror, "blobs.json"), "utf8")) as Record<string, { sha256: string; size: number }>;
      assert.deepEqual(Object.keys(manifest).sort(), [...keys].sort());
      for (const k of keys) {
        const bytes = readFileSync(join(mirror, "blobs", k));
        assert.equal(createHash("sha256").update(bytes).digest("hex"), manifest[k]!.sha256, k);
      }
      assert.deepEqual(filesUnder(mirror).filter((f) => f.endsWith(".tmp")), []);

      // the entries it holds are the log's; none carries the custodian's name
      const bundles = filesUnder(join(mirror, "log", "tile", "entries"));
      const leaves = bundles.flatMap((f) => decodeEntryBundle(readFileSync(f)).map((l) => l.toString("utf8")));
      assert.ok(leaves.length >= state.size);
      assert.ok(leaves.some((l) => l.includes('"act":"granted"')));
      assert.ok(!leaves.some((l) => l.includes("Museum of Memory")), "the grant's leaf carries a commitment, not the name");

      // its cosignature over the checkpoint it stored verifies with its own key (tlog-cosignature)
      const vkey = (await ok(["mirror", "key", "--data", mirror])).trim();
      const published = readFileSync(join(mirror, "log", "checkpoint"), "utf8");
      const body = published.slice(0, published.indexOf("\n\n") + 1);
      assert.equal(verifyCosignatureLines(body, published.slice(published.indexOf("\n\n") + 2), parseCosignerVkey(vkey)).length, 1);

      // a token that is not a grant's, and the grant's token on anything else, are refused
      assert.equal((await fetch(`${served.url}/mirror/objects`, { headers: { authorization: "Bearer dalilm_notagrantnotagrantnotagrant" } })).status, 401);
      assert.equal((await fetch(`${served.url}/api/originals`, { headers: { authorization: `Bearer ${grant.token}` } })).status, 403);
      assert.equal((await fetch(`${served.url}/mirror/objects`)).status, 401);

      // the drill: an archive rebuilt from the mirror and the keys backup passes `dalil verify` with the same log
      const target = await backend.fresh();
      try {
        const tenv: Record<string, string> = target.databaseUrl ? { DALIL_DATABASE_URL: target.databaseUrl } : {};
        const noOpenings = join(tempDir("dalil-keys-"), "keys");
        cpSync(join(data, "keys"), noOpenings, { recursive: true });
        rmSync(join(noOpenings, "mirror-openings.key"));
        const refusedRestore = await dalil(["restore", "--from", mirror, "--keys", noOpenings, "--data", join(target.dataDir, "refused")], tenv);
        assert.notEqual(refusedRestore.code, 0);
        assert.match(refusedRestore.stderr, /has no mirror-openings\.key/);
        const restoredDir = join(target.dataDir, "restored");
        const restored = await ok(["restore", "--from", mirror, "--keys", join(data, "keys"), "--data", restoredDir, "--json"], tenv);
        assert.equal((JSON.parse(restored) as { events: number }).events, state.size);
        const verified = await dalil(["verify", "--data", restoredDir], tenv);
        assert.equal(verified.code, 0, verified.stdout + verified.stderr);
        const original = await ok(["verify", "--data", data], env);
        assert.equal(/intact: (\d+) objects/.exec(verified.stdout)?.[1], /intact: (\d+) objects/.exec(original)?.[1], "every object is back and opens");
        const cp = (await ok(["log", "checkpoint", "--data", restoredDir], tenv)).split("\n");
        assert.equal(cp[0], state.checkpoint.split("\n")[0], "the same log (origin and key)");
        assert.ok(Number(cp[1]) > state.size, "continued by the restore's own event (and the verify's)");
        const proof = JSON.parse(await ok(["log", "consistency", "--from", String(state.size), "--data", restoredDir, "--json"], tenv)) as { fromNote: string };
        assert.equal(proof.fromNote, state.checkpoint.slice(0, state.checkpoint.indexOf("\n\n") + 2) + state.checkpoint.slice(state.checkpoint.indexOf("\n\n") + 2).split("\n").filter((l) => l.startsWith(`\u2014 ${cp[0]} `)).map((l) => `${l}\n`).join(""), "the checkpoint the mirror held is the restored log's, as signed");
      } finally {
        await target.cleanup();
      }

      // revoked: the token stops working at once, and the mirror says why
      await ok(["mirror", "revoke", "Museum of Memory", "--data", data], env);
      const list = await ok(["mirror", "list", "--data", data], env);
      assert.match(list, /Museum of Memory {2}granted \S+ {2}revoked \S+ {2}last fetched /);
      const refused = await dalil(["mirror", "follow", "--once", "--data", mirror]);
      assert.notEqual(refused.code, 0);
      assert.match(refused.stderr, /refused the mirror's token \(401\).*revoked/);
    } finally {
      await served?.stop();
      await fresh.cleanup();
    }
  });
}

/** The size of the archive's latest signed checkpoint. */
async function signedSize(data: string, env: Record<string, string>): Promise<number> {
  return Number((await ok(["log", "checkpoint", "--data", data], env)).split("\n")[1]);
}

for (const { backend, skip } of await backends()) {
  // The forks are made as a custodian could make one: archives restored from the mirror's copy (with the keys
  // backup, so the same log key) that then go on apart from the original. Restored into the same kind of
  // database, so the whole path runs on each.
  test(`${backend.name}: a forked archive stops the mirror with its evidence: the same size with another root, then a rewritten older entry`, { skip, timeout: 600_000 }, async () => {
    const fresh = await backend.fresh();
    const forks = [await backend.fresh(), await backend.fresh()];
    const envOf = (f: { databaseUrl?: string }): Record<string, string> => (f.databaseUrl ? { DALIL_DATABASE_URL: f.databaseUrl } : {});
    const env = envOf(fresh);
    const a = join(fresh.dataDir, "a");
    const mirror = join(tempDir("dalil-fork-"), "m");
    let served: Awaited<ReturnType<typeof serveArchive>> | undefined;
    try {
      await ok(["init", "--data", a], env);
      const grant = JSON.parse(await ok(["mirror", "grant", "Museum of Memory", "--data", a, "--json"], env)) as { token: string };
      await ok(["log", "checkpoint", "--data", a], env);
      served = await serveArchive(a, env);
      const port = Number(new URL(served.url).port);
      await ok(["mirror", "init", served.url, "--token", grant.token, "--data", mirror]);
      await ok(["mirror", "follow", "--once", "--data", mirror]);
      await served.stop();
      served = undefined;

      // B and C: the archive as the mirror holds it, restored twice; each restore is an event of its own
      const [b, c] = forks.map((f) => join(f.dataDir, "fork"));
      for (const [i, dir] of [b!, c!].entries()) await ok(["restore", "--from", mirror, "--keys", join(a, "keys"), "--data", dir], envOf(forks[i]!));
      const [envB, envC] = forks.map(envOf) as [Record<string, string>, Record<string, string>];
      const sizeB = await signedSize(b!, envB);

      // A goes on to B's size with acts of its own, and the mirror follows it there
      for (let n = 0; (await signedSize(a, env)) < sizeB; n++) await ok(["mirror", "grant", `Court ${n}`, "--data", a], env);
      assert.equal(await signedSize(a, env), sizeB, "the original and the fork are the same size");
      served = await serveArchive(a, env, port);
      await ok(["mirror", "follow", "--once", "--data", mirror]);
      const held = JSON.parse(readFileSync(join(mirror, "state.json"), "utf8")) as { size: number; checkpoint: string };
      assert.equal(held.size, sizeB);
      await served.stop();

      // B served at the same address: the same size, another root
      served = await serveArchive(b!, envB, port);
      const r = await dalil(["mirror", "follow", "--once", "--data", mirror]);
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /ALARM: the archive signed two different roots for the same \d+ events \(a split view\)/);
      const [evidence] = readdirSync(join(mirror, "evidence"));
      const text = readFileSync(join(mirror, "evidence", evidence!), "utf8");
      assert.ok(text.includes(held.checkpoint), "the evidence holds the checkpoint the mirror held, as signed");
      const forked = await fetch(`${served.url}/log/checkpoint`).then((x) => x.text());
      assert.ok(text.includes(forked), "and the one the archive serves now, as signed");
      assert.equal(JSON.parse(readFileSync(join(mirror, "state.json"), "utf8")).size, held.size, "the mirror keeps what it held");
      const again = await dalil(["mirror", "follow", "--once", "--data", mirror]);
      assert.match(again.stderr, /stopped on an inconsistency and follows no further/);
      await served.stop();

      // C, grown past what the mirror holds: an older entry it held comes back with other bytes
      rmSync(join(mirror, "ALARM"));
      rmSync(join(mirror, "evidence"), { recursive: true });
      // grants are not in the log, so a restored archive has none: the fork grants this mirror its own token
      const forkGrant = JSON.parse(await ok(["mirror", "grant", "Museum of Memory", "--data", c!, "--json"], envC)) as { token: string };
      writeFileSync(join(mirror, "keys", "token"), `${forkGrant.token}\n`);
      for (let n = 0; (await signedSize(c!, envC)) <= held.size; n++) await ok(["mirror", "grant", `Other ${n}`, "--data", c!], envC);
      served = await serveArchive(c!, envC, port);
      const r2 = await dalil(["mirror", "follow", "--once", "--data", mirror]);
      assert.notEqual(r2.code, 0);
      assert.match(r2.stderr, /ALARM: entry \d+, which this mirror already held, came back with other bytes \(a rewritten older entry\)/);
      const [evidence2] = readdirSync(join(mirror, "evidence"));
      const text2 = readFileSync(join(mirror, "evidence", evidence2!), "utf8");
      assert.ok(text2.includes(held.checkpoint));
      assert.match(text2, /consistency proof the archive served \(from \d+ to \d+\) does NOT verify|served no consistency proof/);
    } finally {
      await served?.stop();
      for (const f of [fresh, ...forks]) await f.cleanup();
    }
  });
}
