/**
 * A package from an archive with a timestamp authority: the checkpoint's RFC 3161 token ships in the bag, our
 * verifier reads it, and OpenSSL verifies it exactly as VERIFY.txt tells a stranger to. Under CI=true never skipped.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { promisify } from "node:util";
import { operatorActor } from "../../src/core/actor.ts";
import { ingestCard } from "../../src/archive/intake.ts";
import { buildPackage, type PackageIndex } from "../../src/dossiers/package.ts";
import { verifyPackage } from "../../src/dossiers/package-verify.ts";
import { requestTimestamp } from "../../src/ledger/timestamp.ts";
import { backends, tempDir } from "../support/backends.ts";
import { demoCard, freshArchive } from "../support/archive.ts";
import { haveOpenssl, startTestTsa } from "../support/tsa.ts";

const execFileP = promisify(execFile);
const actor = operatorActor();
const [sqlite] = (await backends()).filter((b) => b.backend.name === "sqlite");
const skip = !(await haveOpenssl()) && process.env.CI !== "true" ? "openssl is not installed" : false;

/** VERIFY.txt's step 6, run in the package directory; the CA comes from the authority, not from the package. */
async function opensslVerify(dir: string, caFile: string): Promise<{ ok: boolean; output: string }> {
  try {
    const { stdout, stderr } = await execFileP("openssl", ["ts", "-verify", "-data", "data/log/checkpoint", "-in", "data/log/checkpoint.tsr", "-token_in", "-CAfile", caFile], { cwd: dir });
    return { ok: true, output: stdout + stderr };
  } catch (e) {
    const x = e as { stdout?: string; stderr?: string };
    return { ok: false, output: `${x.stdout ?? ""}${x.stderr ?? ""}` };
  }
}

test("a package carries its checkpoint's RFC 3161 token; OpenSSL verifies it as VERIFY.txt says; a token for another checkpoint is caught", { skip, timeout: 120_000 }, async () => {
  const tsa = await startTestTsa();
  const { dir: card } = await demoCard(1, false, "pkg-tsa");
  const a = await freshArchive(sqlite!.backend, { DALIL_TSA_URL: tsa.url });
  const root = tempDir("dalil-pkg-tsa-");
  try {
    await ingestCard(a.archive, actor, { path: card, label: "card" });
    const rows = await a.archive.db.db.selectFrom("originals").select("sha256").where("status", "=", "preserved").where("media_kind", "=", "image").limit(2).execute();
    const out = join(root, "pkg");
    await buildPackage(a.archive, actor, { originals: rows.map((r) => r.sha256), recipient: "IIIM", purpose: "timestamped copy", out });

    const index = JSON.parse(readFileSync(join(out, "data/package.json"), "utf8")) as PackageIndex;
    assert.equal(index.log.timestamped, true);
    assert.match(readFileSync(join(out, "VERIFY.txt"), "utf8"), /This package has a token\./);
    const v = await verifyPackage(out);
    assert.deepEqual(v.problems, []);
    assert.match(v.timestamp?.genTime ?? "", /^\d{4}-\d\d-\d\dT/);
    const ok = await opensslVerify(out, tsa.caFile);
    assert.equal(ok.ok, true, ok.output);
    assert.match(ok.output, /Verification: OK/);

    // A genuine token, but over another checkpoint: the manifests rewritten to match, as a forger would.
    const other = await requestTimestamp(tsa.url, Buffer.from("another checkpoint\n"));
    writeFileSync(join(out, "data/log/checkpoint.tsr"), other.token);
    for (const alg of ["sha256", "sha512"]) {
      const f = join(out, `manifest-${alg}.txt`);
      const digest = createHash(alg).update(other.token).digest("hex");
      writeFileSync(f, readFileSync(f, "utf8").replace(/^[0-9a-f]+( {2}data\/log\/checkpoint\.tsr)$/m, `${digest}$1`));
    }
    const bad = await verifyPackage(out);
    assert.ok(bad.problems.some((p) => /checkpoint\.tsr does not cover data\/log\/checkpoint/.test(p)), bad.problems.join(" | "));
    assert.equal((await opensslVerify(out, tsa.caFile)).ok, false, "OpenSSL refuses it too");
  } finally {
    await a.close();
    await tsa.stop();
  }
});
