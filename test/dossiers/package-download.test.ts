import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Actor } from "../../src/core/actor.ts";
import { buildHttpApp } from "../../src/http/app.ts";
import { enqueueDossierPackage } from "../../src/dossiers/dossier-package.ts";
import { backends, tempDir } from "../support/backends.ts";
import { ensureAccounts, freshArchive } from "../support/archive.ts";
import { frozenPhotoDossier } from "./package-fixtures.ts";
import { investigator } from "../catalogue/fixtures.ts";

const BIN = fileURLToPath(new URL("../../bin/dalil.js", import.meta.url));
const archivist: Actor = { kind: "user", id: "usr_arch", role: "archivist" };
const root = tempDir("dalil-pkgdl-");
process.on("exit", () => rmSync(root, { recursive: true, force: true }));

function run(cmd: string, args: string[], cwd?: string): { code: number; out: string } {
  const r = spawnSync(cmd, args, { cwd, encoding: "utf8" });
  return { code: r.status ?? 1, out: `${r.stdout}${r.stderr}` };
}

for (const { backend, skip } of await backends()) {
  test(`a finished package downloads as .tar and .zip that extract and pass dalil package verify; paths outside packages/ refused (${backend.name})`, { skip, timeout: 300_000 }, async () => {
    const t = await freshArchive(backend);
    try {
      const a = t.archive;
      await ensureAccounts(a, [archivist, investigator]);
      const { dossierId } = await frozenPhotoDossier(a, "pkg-download");
      const q = await enqueueDossierPackage(a, archivist, { dossierId, version: 1, recipient: "ICC", clearance: "original", purpose: "Case 12", report: false });

      const actors = new Map<string, Actor>([["archivist", archivist], ["investigator", investigator]]);
      const http = await buildHttpApp(a, { actorFor: (req) => actors.get(String(req.headers["x-test-actor"] ?? "")) });
      const get = (url: string, who = "archivist") => http.app.inject({ method: "GET", url, headers: { "x-test-actor": who } });
      try {
        assert.equal((await get(`/api/packages/${q.job}/download`)).statusCode, 422, "not finished yet: refused");
        await a.jobs.work({ once: true });
        assert.equal((await a.jobs.get(q.job)).status, "done");
        assert.equal((await get(`/api/packages/${q.job}/download`, "investigator")).statusCode, 403, "only custodians take packages away");

        for (const format of ["tar", "zip"] as const) {
          const r = await get(`/api/packages/${q.job}/download?format=${format}`);
          assert.equal(r.statusCode, 200, r.body);
          assert.match(String(r.headers["content-disposition"]), new RegExp(`attachment; filename="out_[\\w-]+\\.${format}"`));
          const file = join(root, `${backend.name}.${format}`);
          writeFileSync(file, r.rawPayload);
          const into = join(root, `${backend.name}-${format}`);
          mkdirSync(into);
          const x = format === "tar" ? run("tar", ["-xf", file, "-C", into]) : run("unzip", ["-q", file, "-d", into]);
          assert.equal(x.code, 0, x.out);
          const v = run(process.execPath, [BIN, "package", "verify", join(into, q.out.split("/").at(-1)!)]);
          assert.equal(v.code, 0, v.out);
          assert.match(v.out, /ok/);
        }

        // A job whose recorded directory points elsewhere is not followed, nor is another kind of job.
        const outside = join(t.dataDir, "elsewhere");
        mkdirSync(outside);
        await a.db.db.updateTable("jobs").set({ result: JSON.stringify({ dir: `${t.dataDir}/packages/../elsewhere` }) }).where("id", "=", q.job).execute();
        assert.equal((await get(`/api/packages/${q.job}/download`)).statusCode, 404);
        symlinkSync(outside, join(t.dataDir, "packages", "out_link"));
        await a.db.db.updateTable("jobs").set({ result: JSON.stringify({ dir: join(t.dataDir, "packages", "out_link") }) }).where("id", "=", q.job).execute();
        assert.equal((await get(`/api/packages/${q.job}/download`)).statusCode, 404, "a symlink out of packages/ is not followed");
        assert.equal((await get(`/api/packages/job_none/download`)).statusCode, 404);
        assert.equal((await get(`/api/packages/${q.job}/download?format=rar`)).statusCode, 422);
      } finally {
        await http.app.close();
      }
    } finally {
      await t.close();
    }
  });
}
