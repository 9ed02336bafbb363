import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadConfig } from "../../src/core/config.ts";
import { openArchive } from "../../src/app/open-archive.ts";
import { operatorActor } from "../../src/core/actor.ts";
import { ingestCard } from "../../src/archive/intake.ts";
import { backends } from "../support/backends.ts";
import { demoCard } from "../support/archive.ts";

const BIN = fileURLToPath(new URL("../../bin/dalil.js", import.meta.url));

function dalil(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { encoding: "utf8" }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

const [sqlite] = await backends();

test("dalil dossier create, add, remove, freeze, versions, show and package; the package verifies", { skip: sqlite!.skip, timeout: 240_000 }, async () => {
  const fresh = await sqlite!.backend.fresh();
  try {
    const { dir: card } = await demoCard(2, false, "dossier-cli");
    const a = await openArchive(loadConfig({ data: fresh.dataDir }));
    await ingestCard(a, operatorActor(), { path: card, label: "card" });
    const [p1, p2] = (await a.db.db.selectFrom("originals").select("sha256").where("media_kind", "=", "image").orderBy("sha256").limit(2).execute()).map((r) => r.sha256);
    await a.close();
    const d = ["--data", fresh.dataDir];
    const created = await dalil([...d, "--json", "dossier", "create", "--name", "Branch 215"]);
    assert.equal(created.code, 0, created.stderr);
    const id = (JSON.parse(created.stdout) as { id: string }).id;
    const add1 = await dalil([...d, "dossier", "add", id, "--kind", "photo", "--ref", p1!, "--reasoning", "Card shows 215", "--evidence", `photo:${p1}`]);
    assert.equal(add1.code, 0, add1.stderr);
    assert.match(add1.stdout, /^E-0001: photo/);
    const add2 = await dalil([...d, "dossier", "add", id, "--kind", "photo", "--ref", p2!, "--reasoning", "Same corridor"]);
    assert.match(add2.stdout, /^E-0002/);
    const bad = await dalil([...d, "dossier", "add", id, "--kind", "car", "--ref", p2!, "--reasoning", "x"]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--kind is one of body, photo/);
    assert.equal((await dalil([...d, "dossier", "remove", id, "E-0002", "--reason", "duplicate of E-0001"])).code, 0);
    const fr = await dalil([...d, "dossier", "freeze", id, "--note", "filing 1"]);
    assert.match(fr.stdout, /version 1 frozen: 1 exhibit\(s\), 1 withdrawn, sha256 [0-9a-f]{64}/);
    const again = await dalil([...d, "dossier", "freeze", id]);
    assert.notEqual(again.code, 0);
    assert.match(again.stderr, /Nothing changed since version 1/);
    const vs = await dalil([...d, "dossier", "versions", id]);
    assert.match(vs.stdout, /^v1 .* 1 exhibit\(s\), 1 withdrawn .* — filing 1$/m);
    const show = await dalil([...d, "dossier", "show", id, "1"]);
    assert.match(show.stdout, /E-0002 {2}photo .*\[withdrawn: duplicate of E-0001\]/);
    const out = join(fresh.dataDir, "pkg");
    const pkg = await dalil([...d, "dossier", "package", id, "1", "--recipient", "OTP", "--clearance", "blurred", "--purpose", "Case 12", "--out", out, "--no-report"]);
    assert.equal(pkg.code, 0, pkg.stderr);
    assert.match(pkg.stdout, /package pkg_\S+ of dossier .* v1 \(blurred\): 1 photo\(s\)/);
    const v = await dalil(["package", "verify", out]);
    assert.equal(v.code, 0, v.stdout + v.stderr);
    assert.match(v.stdout, /^ok: 1 exhibit/);
  } finally {
    await fresh.cleanup();
  }
});
