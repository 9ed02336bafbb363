import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Actor } from "../../src/core/actor.ts";
import { buildHttpApp } from "../../src/http/app.ts";
import { enqueueDossierPackage } from "../../src/dossiers/dossier-package.ts";
import { removeExpiredPackages } from "../../src/dossiers/package-download.ts";
import type { ScopedActor } from "../../src/access/policy.ts";
import { Forbidden } from "../../src/core/errors.ts";
import { backends, tempDir } from "../support/backends.ts";
import { ensureAccounts, freshArchive } from "../support/archive.ts";
import { frozenPhotoDossier } from "../support/packages.ts";
import { investigator } from "../support/catalogue.ts";

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

      // an archivist's API token scoped to package.export alone: it may not read the dossier, so it gets no package of it
      const scoped: ScopedActor = { ...archivist, scopes: ["package.export"] };
      await assert.rejects(enqueueDossierPackage(a, scoped, { dossierId, version: 1, recipient: "ICC", clearance: "original", purpose: "p", report: false }), (e: unknown) => e instanceof Forbidden && /dossier\.read/.test(e.message));
      const actors = new Map<string, Actor>([["archivist", archivist], ["investigator", investigator], ["scoped", scoped], ["prosecutor", { kind: "user", id: "usr_pros", role: "prosecutor" }]]);
      const http = await buildHttpApp(a, { actorFor: (req) => actors.get(String(req.headers["x-test-actor"] ?? "")) });
      const get = (url: string, who = "archivist") => http.app.inject({ method: "GET", url, headers: { "x-test-actor": who } });
      try {
        assert.equal((await get(`/api/packages/${q.job}/download`)).statusCode, 422, "not finished yet: refused");
        await a.jobs.work({ once: true });
        assert.equal((await a.jobs.get(q.job)).status, "done");
        // the dossier's packages: this one, with its recipient, version, who asked and that it is done
        const listed = await get(`/api/dossiers/${dossierId}/packages`);
        assert.equal(listed.statusCode, 200, listed.body);
        const items = listed.json<{ items: { job: string; version: number; recipient: string; requestedBy: string; status: string; finishedAt: string | null }[] }>().items;
        assert.deepEqual(items.map((i) => [i.job, i.version, i.recipient, i.requestedBy, i.status, i.finishedAt !== null]), [[q.job, 1, "ICC", archivist.id, "done", true]]);
        assert.equal((await get(`/api/dossiers/${dossierId}/packages`, "investigator")).statusCode, 403, "the packages are the custodians' to see");
        assert.equal((await get(`/api/packages/${q.job}/download`, "investigator")).statusCode, 403, "only custodians take packages away");
        assert.equal((await get(`/api/packages/${q.job}/download`, "prosecutor")).statusCode, 403, "a recipient does not take its own package: the custodian hands it over");
        assert.equal((await get(`/api/packages/${q.job}/download`, "scoped")).statusCode, 403, "nor does someone who may not read the dossier");
        // another account on the server finds the bag closed: directories 0700, files 0600
        for (const rel of readdirSync(q.out, { recursive: true }).map(String)) {
          const st = statSync(join(q.out, rel));
          assert.equal(st.mode & 0o777, st.isDirectory() ? 0o700 : 0o600, rel);
        }
        assert.equal(statSync(q.out).mode & 0o777, 0o700);

        for (const format of ["tar", "zip"] as const) {
          const r = await get(`/api/packages/${q.job}/download?format=${format}`);
          assert.equal(r.statusCode, 200, r.body);
          // named after the dossier and the version packaged, not an id
          assert.equal(String(r.headers["content-disposition"]), `attachment; filename="Branch 215 - v1.${format}"; filename*=UTF-8''Branch%20215%20-%20v1.${format}`);
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

        // each download is a transfer custody event naming the package and the dossier, with no typed words in it
        const transfers = (await a.log.eventsFor(dossierId)).map((e) => e.event).filter((e) => e.type === "transfer");
        assert.deepEqual(transfers.map((e) => [e.actor.id, e.detail.format]), [[archivist.id, "tar"], [archivist.id, "zip"]]);
        assert.ok(!JSON.stringify(transfers).includes("ICC") && !JSON.stringify(transfers).includes("Case 12"));

        // a payload rewritten in the database (another dossier named) is refused, not logged as a transfer of it
        const stored = await a.db.db.selectFrom("jobs").select("payload").where("id", "=", q.job).executeTakeFirstOrThrow();
        await a.db.db.updateTable("jobs").set({ payload: stored.payload.replace(dossierId, "dos_other") }).where("id", "=", q.job).execute();
        const forged = await get(`/api/packages/${q.job}/download`);
        assert.equal(forged.statusCode, 409, forged.body);
        assert.match(forged.body, /does not carry the archive's authentication/);
        await a.db.db.updateTable("jobs").set({ payload: stored.payload }).where("id", "=", q.job).execute();

        // a bag left on the server past its time is removed, and the removal recorded; the download then finds nothing
        assert.deepEqual((await removeExpiredPackages(a, archivist)).removed, [], "not yet: the default TTL is days");
        const gone = await removeExpiredPackages(a, archivist, { olderThanMs: 0 });
        assert.equal(gone.removed.length, 1);
        assert.equal(existsSync(q.out), false);
        const deletion = (await a.log.eventsFor(q.job)).map((e) => e.event).find((e) => e.type === "deletion");
        assert.equal(deletion?.detail.reason, "expired");
        assert.equal((await get(`/api/packages/${q.job}/download`)).statusCode, 404);
        assert.ok((await a.jobs.list({ kind: "dossiers.package-expiry" })).length >= 1, "the build queued its own expiry");

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
