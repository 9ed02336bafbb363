import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../src/core/config.ts";
import { openArchive } from "../../src/app/open-archive.ts";
import { operatorActor } from "../../src/core/actor.ts";
import { ingestCard } from "../../src/archive/intake.ts";
import { metadataFindings } from "../../src/exhibitions/index.ts";
import { backends, tempDir } from "../support/backends.ts";
import { demoCard } from "../support/archive.ts";
import { dalil } from "../support/cli.ts";

const [sqlite] = await backends();

test("dalil exhibition demo publishes an exhibition with every layer; list --json names it; export writes the same folder twice", { skip: sqlite!.skip, timeout: 240_000 }, async () => {
  const fresh = await sqlite!.backend.fresh();
  try {
    const { dir: card } = await demoCard(2, false, "exhibition-cli");
    const a = await openArchive(loadConfig({ data: fresh.dataDir }));
    await ingestCard(a, operatorActor(), { path: card, label: "card" });
    await a.close();
    const d = ["--data", fresh.dataDir];
    const empty = await dalil([...d, "exhibition", "list"]);
    assert.equal(empty.code, 0, empty.stderr);
    assert.match(empty.stdout, /no exhibitions/);

    const demo = await dalil([...d, "--json", "exhibition", "demo"]);
    assert.equal(demo.code, 0, demo.stderr);
    const made = JSON.parse(demo.stdout) as { ref: string; status: string; items: number };
    assert.deepEqual([made.ref, made.status, made.items], ["X-0001", "published", 5]);
    assert.match(demo.stderr, /curator@demo\.dalil/);

    const list = await dalil([...d, "--json", "exhibition", "list"]);
    assert.equal(list.code, 0, list.stderr);
    const rows = JSON.parse(list.stdout) as { ref: string; status: string; languages: string[] }[];
    assert.deepEqual(rows.map((r) => [r.ref, r.status, r.languages.join(",")]), [["X-0001", "published", "ar,en"]]);

    const show = await dalil([...d, "--json", "exhibition", "show", "X-0001"]);
    const items = (JSON.parse(show.stdout) as { items: { layers: Record<string, unknown>; regions: { layer: string }[]; reviewed: { current: boolean } | null }[] }).items;
    const layersUsed = new Set(items.flatMap((i) => i.regions.map((r) => r.layer)));
    assert.deepEqual([...layersUsed].sort(), ["background", "everything", "faces", "marks", "numbers"], "every layer has a region");
    assert.ok(items.some((i) => i.layers.everything === "silhouette") && items.some((i) => i.layers.everything === "hidden"));
    assert.ok(items.every((i) => i.reviewed?.current), "every item reviewed by the second person");

    const out1 = join(tempDir("dalil-exh-cli-"), "site");
    const out2 = join(tempDir("dalil-exh-cli-"), "site");
    const e1 = await dalil([...d, "exhibition", "export", "X-0001", out1]);
    assert.equal(e1.code, 0, e1.stderr);
    assert.match(e1.stdout, /exported to .*: 3 image\(s\)/);
    const e2 = await dalil([...d, "exhibition", "export", "X-0001", out2]);
    assert.equal(e2.code, 0, e2.stderr);
    const files = (dir: string) => readdirSync(dir, { recursive: true, withFileTypes: true }).filter((f) => f.isFile()).map((f) => join(f.parentPath, f.name).slice(dir.length + 1)).sort();
    assert.deepEqual(files(out1), files(out2));
    for (const f of files(out1)) assert.ok(readFileSync(join(out1, f)).equals(readFileSync(join(out2, f))), `${f} identical`);
    for (const f of files(out1).filter((x) => x.endsWith(".jpg"))) assert.deepEqual(metadataFindings(readFileSync(join(out1, f))), []);

    const again = await dalil([...d, "exhibition", "export", "X-0001", out1]);
    assert.notEqual(again.code, 0);
    assert.match(again.stderr, /is not empty; export into a new or empty folder/);
  } finally {
    await fresh.cleanup();
  }
});
