import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { loadConfig } from "../src/core/config.ts";
import { openArchive } from "../src/app/open-archive.ts";
import type { Archive } from "../src/app/context.ts";
import { cdb } from "../src/catalogue/tables.ts";
import { originalFacts } from "../src/archive/index.ts";
import { generateBenchData } from "./search.ts";
import { row, timed } from "./support.ts";

/**
 * A body's photos with their originals' capture time and size, as getBody and the search text read them: through
 * archive's exported `originalFacts` (body_photos, then the originals by hash, two queries) against the join into
 * archive's table that catalogue keeps (the baseline; allowed in scripts/check-modules.mjs for this reason).
 * SQLite, 2,000 bodies of 5 photos, every body read once per pass, best of 3 passes (docs/modules.md, 0014).
 */
async function joined(a: Archive, ids: string[]): Promise<number> {
  let n = 0;
  for (const id of ids) {
    const rows = await cdb(a.db.db)
      .selectFrom("body_photos")
      .innerJoin("originals", "originals.sha256", "body_photos.original_sha256")
      .select(["body_photos.original_sha256", "body_photos.role", "body_photos.position", "originals.capture_time", "originals.width", "originals.height"])
      .where("body_photos.body_id", "=", id)
      .orderBy("body_photos.position")
      .execute();
    n += rows.length;
  }
  return n;
}

async function throughArchive(a: Archive, ids: string[]): Promise<number> {
  let n = 0;
  for (const id of ids) {
    const photos = await cdb(a.db.db).selectFrom("body_photos").select(["original_sha256", "role", "position"]).where("body_id", "=", id).orderBy("position").execute();
    const facts = await originalFacts(a.db.db, photos.map((p) => p.original_sha256));
    n += photos.filter((p) => facts.has(p.original_sha256)).length;
  }
  return n;
}

export async function benchBounds(bodies = 2000): Promise<void> {
  console.log(`\nbounds — a body's photos with their originals' facts, ${bodies} bodies × 5 photos (SQLite)`);
  const data = mkdtempSync(join(tmpdir(), "dalil-bench-bounds-"));
  try {
    const a = await openArchive(loadConfig({ data }, {}));
    try {
      await generateBenchData(a, bodies, 5);
      const ids = (await cdb(a.db.db).selectFrom("bodies").select("id").orderBy("ref_no").execute()).map((r) => r.id);
      let best = { joined: Infinity, through: Infinity };
      for (let pass = 0; pass < 3; pass++) {
        const j = await timed(() => joined(a, ids));
        const t = await timed(() => throughArchive(a, ids));
        if (j.value !== t.value) throw new Error(`the two reads disagree: ${j.value} against ${t.value} photos`);
        best = { joined: Math.min(best.joined, j.seconds), through: Math.min(best.through, t.seconds) };
      }
      const per = (s: number) => `${((s / ids.length) * 1e6).toFixed(0)} µs/body`;
      row("through originalFacts (2 queries)", per(best.through), { label: "one join (kept)", value: per(best.joined), ratio: best.through / best.joined });
    } finally {
      await a.close();
    }
  } finally {
    rmSync(data, { recursive: true, force: true });
  }
}
