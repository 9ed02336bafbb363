import type { Command } from "commander";
import { operatorActor } from "../core/actor.ts";
import { ingestCard } from "../archive/index.ts";
import { writeDemoCard } from "../archive/index.ts";
import { verifyArchive } from "../app/verify.ts";
import { globalOptions, positiveIntOption, print, progressBar, underFlags, withArchive } from "./shell.ts";
import { Invalid } from "../core/errors.ts";
import { english } from "../core/messages.ts";

export function registerArchiveCommands(program: Command): void {
  program
    .command("init")
    .description("create the archive in the data dir (idempotent)")
    .action(async (_o, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(
        opts,
        async (a) => {
          print(opts, { dataDir: a.config.dataDir, database: a.db.dialect }, `archive ready in ${a.config.dataDir} (${a.db.dialect})`);
        },
        { create: true },
      );
    });

  program
    .command("demo-card")
    .description("write a synthetic memory card (never real photographs) with OUT/truth.json")
    .argument("<out>", "folder to write the card into")
    .requiredOption("--bodies <n>", "number of bodies", positiveIntOption("--bodies"))
    .option("--seed <seed>", "seed: the same seed writes the same card", "1")
    .option("--with-faults", "add broken and hostile files an intake must survive")
    .option("--with-anomalies", "change six photos afterwards (editor re-save, other camera, shifted time, swapped thumbnail, appended bytes, crop) for the authenticity analysis to find")
    .option("--resume", "go on with a card this command began in OUT and did not finish (or wrote in shards), with the same options")
    .option("--shard <i/n>", "draw only the i-th of n parts (0-based) and write no truth.json; run n of these at once, then once with --resume")
    .action(async (out: string, o: { bodies: number; seed: string; withFaults?: boolean; withAnomalies?: boolean; resume?: boolean; shard?: string }, cmd: Command) => {
      const opts = globalOptions(cmd);
      const bar = progressBar("demo-card");
      const m = o.shard === undefined ? null : /^(\d+)\/(\d+)$/.exec(o.shard);
      if (o.shard !== undefined && !m) throw new Invalid(`--shard ${english("demoCard.shard")}`, "--shard");
      const shard = m ? { index: Number(m[1]), of: Number(m[2]) } : undefined;
      const truth = await underFlags({ shard: "--shard" }, () =>
        writeDemoCard(out, { bodies: o.bodies, seed: o.seed, withFaults: Boolean(o.withFaults), withAnomalies: Boolean(o.withAnomalies), resume: Boolean(o.resume), shard }, (d, t) => bar.update(d, t)),
      );
      bar.end();
      if (shard) {
        print(opts, { out, shard: o.shard, bodies: truth.bodies.length }, `drew part ${o.shard} of the card (${truth.bodies.length} bodies) in ${out}; when every part is done, run again with --resume`);
        return;
      }
      const summary = { out, bodies: truth.bodies.length, photos: truth.photos.length, faults: truth.faults.length };
      print(opts, summary, `wrote ${summary.photos} photos of ${summary.bodies} bodies (${summary.faults} faults) to ${out}`);
    });

  program
    .command("ingest")
    .description("take in a memory card: a folder, a .zip, or a raw disk image (FAT or exFAT; bare, MBR or GPT)")
    .argument("<path>", "the card")
    .option("--source <label>", "a label for this source medium (not the identity of the person who handed it over)")
    .action(async (path: string, o: { source?: string }, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (a) => {
        const bar = progressBar("ingest");
        const s = await ingestCard(a, operatorActor(), { path, label: o.source }, (p) => bar.update(p.done, p.total, p.path));
        bar.end();
        const json = { files: s.files, ingested: s.ingested, duplicates: s.duplicates, quarantined: s.quarantined, bytes: s.bytes };
        print(
          opts,
          opts.json ? json : { source: s.source, ...json, resumed: s.resumed },
          `${s.files} files: ${s.ingested} ingested, ${s.duplicates} duplicates, ${s.quarantined} quarantined (${s.bytes} bytes)` +
            `${s.resumed ? " — resumed an interrupted intake" : ""}\nsource ${s.source}`,
        );
      });
    });

  program
    .command("verify")
    .description("check every original, rendition, event and checkpoint; exit 1 with findings")
    .action(async (_o, cmd: Command) => {
      const opts = globalOptions(cmd);
      const report = await withArchive(opts, async (a) => {
        const bar = progressBar("verify");
        const r = await verifyArchive(a, operatorActor(), (d, t) => bar.update(d, t));
        bar.end();
        return r;
      });
      const text = report.findings.length
        ? `${report.findings.length} problem(s):\n${report.findings.map((f) => `  ${f.what} ${f.item}: ${f.problem}`).join("\n")}`
        : `intact: ${report.checked} objects, ${report.events} events${report.checkpoints !== undefined ? `, ${report.checkpoints} checkpoints` : ""}`;
      print(opts, { ok: report.findings.length === 0, ...report }, text);
      if (report.findings.length) process.exitCode = 1;
    });
}

