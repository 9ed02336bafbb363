import { readFileSync } from "node:fs";
import type { Command } from "commander";
import { operatorActor } from "../core/actor.ts";
import { buildPackage } from "../dossiers/index.ts";
import { verifyPackage } from "../dossiers/index.ts";
import { removeExpiredPackages } from "../dossiers/index.ts";
import { parseDuration } from "../core/config.ts";
import { globalOptions, print, withArchive } from "./shell.ts";

export function registerPackageCommands(program: Command): void {
  const pkg = program.command("package").description("evidence packages (BagIt 1.0) for prosecutors and other custodians");

  pkg
    .command("build")
    .description("bag originals with their custody events, proofs and the signed checkpoint; logs the handover")
    .requiredOption("--sha256 <hex...>", "the originals to include (exhibits are numbered in this order)")
    .requiredOption("--recipient <name>", "who receives the package (logged)")
    .requiredOption("--purpose <text>", "why it is handed over (logged)")
    .requiredOption("--out <dir>", "a new or empty directory to write the bag into")
    .option("--organization <name>", "Source-Organization in bag-info.txt", "dalil archive")
    .action(async (o: { sha256: string[]; recipient: string; purpose: string; out: string; organization: string }, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (a) => {
        const shas = o.sha256.flatMap((s) => s.split(/[\s,]+/)).filter(Boolean);
        const r = await buildPackage(a, operatorActor(), { originals: shas, recipient: o.recipient, purpose: o.purpose, out: o.out, sourceOrganization: o.organization });
        const resumed = r.resumed ? `an earlier build into ${r.dir} (package ${r.resumed}) had been interrupted: its handover is now logged as failed and its partial bag was cleared\n` : "";
        print(opts, r, `${resumed}package ${r.id}: ${r.exhibits} exhibit(s), ${r.events} event proofs, handover logged as entry ${r.handoverSeq}, checkpoint ${r.checkpointSize} — ${r.dir}`);
      });
    });

  pkg
    .command("expire")
    .description("remove the bags of package jobs older than DALIL_PACKAGE_TTL (default 7d) from DATA/packages/; each removal is logged")
    .option("--older-than <duration>", "another age than DALIL_PACKAGE_TTL: 30m, 48h, 7d")
    .action(async (o: { olderThan?: string }, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (a) => {
        const r = await removeExpiredPackages(a, operatorActor(), o.olderThan ? { olderThanMs: parseDuration(o.olderThan, "--older-than") } : {});
        print(opts, r, r.removed.length ? r.removed.map((x) => `removed the bag of ${x.package ?? "an unfinished package"} (job ${x.job})`).join("\n") : "no expired package bags");
      });
    });

  pkg
    .command("verify <dir>")
    .description("check a package: the bag, every proof, every exhibit's hash, the handover — no archive, no network")
    .option("--key <vkey-or-file>", "a log verifier key you trust (repeatable); default: the package's own log.vkey", (v: string, prev: string[] = []) => [...prev, v])
    .action(async (dir: string, o: { key?: string[] }, cmd: Command) => {
      const opts = globalOptions(cmd);
      const keys = (o.key ?? []).map((k) => (k.includes("+") ? k : readFileSync(k, "utf8").trim()));
      const r = await verifyPackage(dir, keys.length ? { trustedKeys: keys } : {});
      const summary = `${r.exhibits} exhibit(s), ${r.events} event proofs${r.checkpoint ? `, log ${r.checkpoint.origin} at ${r.checkpoint.size}` : ""}${r.timestamp ? `, timestamped ${r.timestamp.genTime}` : ""}`;
      print(opts, r, r.ok ? `ok: ${summary}` : `NOT VERIFIED (${r.problems.length} problem(s)):\n${r.problems.map((p) => `  - ${p}`).join("\n")}`);
      if (!r.ok) process.exitCode = 1;
    });
}
