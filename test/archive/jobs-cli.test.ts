import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { backends } from "../support/backends.ts";
import { dalil } from "../support/cli.ts";

/** The jobs and log commands go through the same use cases as their routes: same views, same refusals. */
const sqlite = (await backends()).find((b) => b.backend.name === "sqlite")!;

test("dalil jobs fixity queues one audit, jobs list and show print it without a payload, a bad status is refused; log tiles writes hash tiles", { skip: sqlite.skip, timeout: 120_000 }, async () => {
  const fresh = await sqlite.backend.fresh();
  const d = ["--data", join(fresh.dataDir, "archive")];
  try {
    assert.equal((await dalil([...d, "init"])).code, 0);
    const queued = JSON.parse((await dalil([...d, "--json", "jobs", "fixity"])).stdout) as { id: string };
    assert.deepEqual(JSON.parse((await dalil([...d, "--json", "jobs", "fixity"])).stdout), queued, "one audit waits at a time");
    const list = JSON.parse((await dalil([...d, "--json", "jobs", "list"])).stdout) as { id: string; kind: string }[];
    assert.deepEqual(list.map((j) => [j.id, j.kind]), [[queued.id, "archive.fixity-audit"]]);
    assert.ok(list.every((j) => !("payload" in j)));
    const shown = JSON.parse((await dalil([...d, "--json", "jobs", "show", queued.id])).stdout) as { status: string };
    assert.equal(shown.status, "queued");
    const missing = await dalil([...d, "jobs", "show", "job_none"]);
    assert.notEqual(missing.code, 0);
    assert.match(missing.stderr, /There is no such background job, or you may not see it\./);
    const bad = await dalil([...d, "jobs", "list", "--status", "finished"]);
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /finished/);

    const tiles = join(fresh.dataDir, "tiles");
    const r = await dalil([...d, "--json", "log", "tiles", tiles]);
    assert.equal(r.code, 0, r.stderr);
    const wrote = JSON.parse(r.stdout) as { size: number; tiles: number; entries: boolean };
    assert.equal(wrote.entries, false);
    assert.ok(existsSync(join(tiles, "checkpoint")), "the checkpoint");
    assert.equal(existsSync(join(tiles, "tile", "0")), wrote.size > 0, `hash tiles for ${wrote.size} events`);
    assert.equal(existsSync(join(tiles, "tile", "entries")), false, "no entry bundles unless asked");
  } finally {
    await fresh.cleanup();
  }
});
