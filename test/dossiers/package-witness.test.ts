/**
 * A package from an archive with witnesses: its checkpoint carries both witnesses' cosignatures, it ships the
 * policy, `dalil package verify` checks the quorum (the package's policy, or one given apart from it), and the
 * timestamp token still covers the note as the log signed it. Real witness processes, a real TSA.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { operatorActor } from "../../src/core/actor.ts";
import { ingestCard } from "../../src/archive/intake.ts";
import { buildPackage } from "../../src/dossiers/package.ts";
import { verifyPackage } from "../../src/dossiers/package-verify.ts";
import { generateCosigner } from "../../src/ledger/cosignature.ts";
import { backends, tempDir } from "../support/backends.ts";
import { demoCard, freshArchive } from "../support/archive.ts";
import { dalil } from "../support/cli.ts";
import { haveOpenssl, startTestTsa } from "../support/tsa.ts";
import { startWitness, type RunningWitness } from "../support/witness.ts";
import { buildVerifyGo, goVerifierSkip } from "../support/verify-go.ts";

const execFileP = promisify(execFile);
const actor = operatorActor();
const [sqlite] = (await backends()).filter((b) => b.backend.name === "sqlite");
const skip = !(await haveOpenssl()) && process.env.CI !== "true" ? "openssl is not installed" : false;

test("a package's checkpoint is cosigned by the quorum; verify checks it against the package's or a given policy; the token covers the log-signed note", { skip, timeout: 180_000 }, async () => {
  const tsa = await startTestTsa();
  const root = tempDir("dalil-pkg-witness-");
  const policyFile = join(root, "witnesses.policy");
  writeFileSync(policyFile, "quorum none\n");
  const a = await freshArchive(sqlite!.backend, { DALIL_TSA_URL: tsa.url, DALIL_WITNESS_POLICY: policyFile });
  const witnesses: RunningWitness[] = [];
  try {
    // The witnesses follow this archive's log; the policy names them (the archive re-reads it on open).
    witnesses.push(...(await Promise.all([startWitness("witness.test/p1", [a.archive.tree.verifierKey]), startWitness("witness.test/p2", [a.archive.tree.verifierKey])])));
    const [w1, w2] = witnesses as [RunningWitness, RunningWitness];
    const policy = `log ${a.archive.tree.verifierKey}\nwitness p1 ${w1.vkey} ${w1.url}\nwitness p2 ${w2.vkey} ${w2.url}\ngroup both all p1 p2\nquorum both\n`;
    writeFileSync(policyFile, policy);
    await a.archive.close();
    const { loadConfig } = await import("../../src/core/config.ts");
    const { openArchive } = await import("../../src/app/open-archive.ts");
    const archive = await openArchive(loadConfig({ data: a.dataDir }, { DALIL_TSA_URL: tsa.url, DALIL_WITNESS_POLICY: policyFile }));
    try {
      const { dir: card } = await demoCard(1, false, "pkg-witness");
      await ingestCard(archive, actor, { path: card, label: "card" });
      const rows = await archive.db.db.selectFrom("originals").select("sha256").where("status", "=", "preserved").where("media_kind", "=", "image").limit(2).execute();
      const out = join(root, "pkg");
      await buildPackage(archive, actor, { originals: rows.map((r) => r.sha256), recipient: "IIIM", purpose: "witnessed copy", out });

      const checkpoint = readFileSync(join(out, "data/log/checkpoint"), "utf8");
      assert.match(checkpoint, /\n— witness\.test\/p1 .*\n— witness\.test\/p2 .*\n$/);
      assert.equal(readFileSync(join(out, "data/log/witnesses.policy"), "utf8"), policy);
      assert.match(readFileSync(join(out, "VERIFY.txt"), "utf8"), /7\. Witnesses saw the same log/);
      const v = await verifyPackage(out);
      assert.deepEqual(v.problems, []);
      assert.deepEqual(v.witnesses, { policy: "package", cosignedBy: ["p1", "p2"], quorum: "all of (p1, p2)", met: true });
      assert.ok(v.timestamp, "the token covers data/log/checkpoint.log-signed");
      const { stdout } = await execFileP("openssl", ["ts", "-verify", "-data", "data/log/checkpoint.log-signed", "-in", "data/log/checkpoint.tsr", "-token_in", "-CAfile", tsa.caFile], { cwd: out });
      assert.match(stdout, /Verification: OK/);

      // A policy given apart from the package that needs a witness which never saw this checkpoint: not verified.
      const third = generateCosigner("witness.test/p3").vkey;
      const stricter = join(root, "stricter.policy");
      writeFileSync(stricter, `witness p1 ${w1.vkey}\nwitness p3 ${third}\ngroup both all p1 p3\nquorum both\n`);
      const refused = await dalil(["package", "verify", out, "--witness-policy", stricter]);
      assert.equal(refused.code, 1, refused.stdout);
      assert.match(refused.stdout, /not cosigned by the quorum of the witness policy given: it needs all of \(p1, p3\); it is cosigned by p1\./);
      const enough = join(root, "enough.policy");
      writeFileSync(enough, `witness p2 ${w2.vkey}\nquorum p2\n`);
      const accepted = await dalil(["package", "verify", out, "--witness-policy", enough]);
      assert.equal(accepted.code, 0, accepted.stdout + accepted.stderr);
      assert.match(accepted.stdout, /cosigned by p2 \(quorum met: p2\)/);

      // The Go verifier checks the same quorum with Go's ed25519 over the message the spec defines.
      const goSkip = goVerifierSkip();
      if (!goSkip) {
        const bin = join(root, "verify-go");
        const built = buildVerifyGo(bin);
        assert.equal(built.status, 0, built.output);
        const go = (policyPath: string) => execFileP(bin, ["checkpoint", "-vkey", "@data/log/log.vkey", "-checkpoint", "data/log/checkpoint", "-policy", policyPath], { cwd: out }).then(
          (r) => ({ code: 0, out: r.stdout + r.stderr }),
          (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: e.stdout + e.stderr }),
        );
        const goOk = await go("data/log/witnesses.policy");
        assert.equal(goOk.code, 0, goOk.out);
        assert.match(goOk.out, /cosigned by p1, p2; quorum met/);
        const goBad = await go(stricter);
        assert.equal(goBad.code, 1, goBad.out);
        assert.match(goBad.out, /quorum not met/);
        const first = readdirSync(join(out, "data/events")).find((n) => n.endsWith(".tlog-proof"))!;
        const proofOk = await execFileP(bin, ["proof", "-vkey", "@data/log/log.vkey", "-proof", `data/events/${first}`, "-leaf", `data/events/${first.replace(".tlog-proof", ".json")}`, "-policy", "data/log/witnesses.policy"], { cwd: out });
        assert.match(proofOk.stdout + proofOk.stderr, /quorum met/);
      }

      // A cosignature line altered (the manifests rewritten to match, as a forger would): the package fails.
      const forged = checkpoint.replace(/(— witness\.test\/p2 [A-Za-z0-9+/]{20})([A-Za-z0-9+/])/, (_m, head: string, c: string) => head + (c === "A" ? "B" : "A"));
      writeFileSync(join(out, "data/log/checkpoint"), forged);
      const bad = await verifyPackage(out);
      assert.ok(bad.problems.some((p) => /witness p2: The cosignature by witness.test\/p2 .* does not verify/.test(p)), bad.problems.join(" | "));
    } finally {
      await archive.close();
    }
  } finally {
    await Promise.all(witnesses.map((w) => w.stop()));
    await tsa.stop();
  }
});

