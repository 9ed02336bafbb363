import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { loadConfig } from "../../src/core/config.ts";
import { openArchive } from "../../src/app/open-archive.ts";
import { backends } from "../support/backends.ts";
import { readyUser } from "../support/accounts.ts";
import { seedBodies, typed, investigator } from "../support/catalogue.ts";

const BIN = fileURLToPath(new URL("../../bin/dalil.js", import.meta.url));

function dalil(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { encoding: "utf8", env: { ...process.env, ...env } }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

const [sqlite] = await backends();

test("dalil review sample, assign and stats: options checked, JSON and text output", { skip: sqlite!.skip, timeout: 120_000 }, async () => {
  const fresh = await sqlite!.backend.fresh();
  try {
    const a = await openArchive(loadConfig({ data: fresh.dataDir }));
    const r1 = await readyUser(a, "forensic_reviewer");
    const r2 = await readyUser(a, "forensic_reviewer");
    await seedBodies(a, investigator, Array.from({ length: 20 }, (_, i) => ({ photoDate: i % 2 ? "2012-05-10" : "2012-06-10", numbers: [typed("branch", i % 4 ? "215" : "227")] })));
    await a.close();
    const env = {};
    const bad = await dalil(["--data", fresh.dataDir, "review", "sample", "--size", "4", "--seed", "s", "--double-share", "1.5"], env);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--double-share takes a number from 0 to 1/);
    const s = await dalil(["--data", fresh.dataDir, "--json", "review", "sample", "--size", "4", "--seed", "s", "--double-share", "0.5"], env);
    assert.equal(s.code, 0, s.stderr);
    const sample = JSON.parse(s.stdout) as { id: string; size: number; population: number; doubles: number; strata: { allocated: number; population: number }[] };
    assert.deepEqual([sample.size, sample.population, sample.doubles], [4, 20, 2]);
    assert.equal(sample.strata.reduce((n, x) => n + x.allocated, 0), 4);
    const asg = await dalil(["--data", fresh.dataDir, "--json", "review", "assign", "--reviewer", `${r1.email},${r2.id}`], env);
    assert.equal(asg.code, 0, asg.stderr);
    assert.equal((JSON.parse(asg.stdout) as { assigned: number }).assigned, 6);
    const st = await dalil(["--data", fresh.dataDir, "--json", "review", "stats"], env);
    assert.equal(st.code, 0, st.stderr);
    const stats = JSON.parse(st.stdout) as { items: number; overallMethod: string; counts: { sampled: number; inReview: number } };
    assert.deepEqual([stats.items, stats.overallMethod, stats.counts.sampled, stats.counts.inReview], [0, "pooled", 4, 4]);
    const text = await dalil(["--data", fresh.dataDir, "review", "stats"], env);
    assert.match(text.stdout, /overall \(pooled over codes\)/);
  } finally {
    await fresh.cleanup();
  }
});
