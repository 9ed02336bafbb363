import type { Command } from "commander";
import { readdir, readFile, stat, writeFile } from "node:fs/promises";
import { createHash } from "node:crypto";
import { join, relative } from "node:path";
import { existsSync } from "node:fs";
import { operatorActor } from "../core/actor.ts";
import { Invalid } from "../core/errors.ts";
import { analyseCard, errorLevel, reportText, runAuthenticity, showAuthenticity, type PhotoInput, type RunView } from "../authenticity/index.ts";
import { globalOptions, print, progressBar, withArchive } from "./shell.ts";
import { say } from "../core/messages.ts";

/** `dalil authenticity …`: analyse a card in the archive (a custody event), read an analysis, or analyse files outside it. */
function lang(v: string): "en" | "ar" {
  if (v !== "en" && v !== "ar") throw new Invalid(say("cli.langOption", { value: v }), "--lang");
  return v;
}

function quality(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 50 || n > 99) throw new Invalid(say("cli.qualityOption", { value: v }), "--quality");
  return n;
}

function runText(v: RunView, l: "en" | "ar"): string {
  const title = `${v.source.label} — ${v.run} (dalil ${v.softwareVersion}, ${v.runAt}, content checks ${v.parameters.content ? "on" : "off"}, report sha256 ${v.reportSha256})`;
  return reportText(v.report, l, title);
}

async function jpegFiles(paths: string[]): Promise<{ path: string; rel: string }[]> {
  const out: { path: string; rel: string }[] = [];
  for (const root of paths) {
    const s = await stat(root);
    if (s.isFile()) out.push({ path: root, rel: root });
    else {
      for (const e of await readdir(root, { recursive: true, withFileTypes: true })) {
        if (e.isFile() && /\.jpe?g$/i.test(e.name)) {
          const p = join(e.parentPath, e.name);
          out.push({ path: p, rel: relative(root, p) });
        }
      }
    }
  }
  return out.sort((a, b) => a.rel.localeCompare(b.rel));
}

export function registerAuthenticityCommands(program: Command): void {
  const a = program.command("authenticity").description("authenticity: whether a card's photographs are what they claim to be (JPEG headers, camera sequence, content)");

  a.command("run <source>")
    .description("analyse a card in the archive (by source id or label) and record the analysis as a custody event")
    .option("--no-content", "header and sequence checks only (no decoding of pixels)")
    .option("--lang <lang>", "language of the printed report: en or ar", lang, "en" as const)
    .action(async (source: string, o: { content: boolean; lang: "en" | "ar" }, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (arc) => {
        const bar = progressBar("analysing");
        const v = await runAuthenticity(arc, operatorActor(), { source, content: o.content }, (d, t) => bar.update(d, t));
        bar.end();
        print(opts, v, runText(v, o.lang));
      });
    });

  a.command("show <source>")
    .alias("report")
    .description("the latest analysis of a card (or --run ID), in English or Arabic")
    .option("--run <id>", "a named run instead of the latest")
    .option("--lang <lang>", "en or ar", lang, "en" as const)
    .action(async (source: string, o: { run?: string; lang: "en" | "ar" }, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (arc) => {
        const v = await showAuthenticity(arc, operatorActor(), { source, run: o.run });
        print(opts, v, runText(v, o.lang));
      });
    });

  a.command("analyse <paths...>")
    .description("analyse JPEG files or folders outside the archive (nothing is recorded; the report only)")
    .option("--no-content", "header and sequence checks only")
    .option("--lang <lang>", "en or ar", lang, "en" as const)
    .action(async (paths: string[], o: { content: boolean; lang: "en" | "ar" }, cmd: Command) => {
      const opts = globalOptions(cmd);
      const files = await jpegFiles(paths);
      if (files.length === 0) throw new Invalid(say("cli.noJpegs"), "paths");
      const inputs: PhotoInput[] = [];
      for (const f of files) {
        const bytes = await readFile(f.path);
        inputs.push({ sha256: createHash("sha256").update(bytes).digest("hex"), path: f.rel, phash: null, bytes: async () => readFile(f.path) });
      }
      const bar = progressBar("analysing");
      const report = await analyseCard(inputs, { content: o.content }, (d, t) => bar.update(d, t));
      bar.end();
      print(opts, report, reportText(report, o.lang, `${files.length} files`));
    });

  a.command("ela <sha256>")
    .description("write the error-level map of one photo as PNG (a derived image of the original: logged)")
    .requiredOption("--out <file>", "where to write the PNG")
    .option("--quality <q>", "JPEG quality of the re-save, 50–99", quality, 90)
    .action(async (sha256: string, o: { out: string; quality: number }, cmd: Command) => {
      const opts = globalOptions(cmd);
      if (!/^[0-9a-f]{64}$/.test(sha256)) throw new Invalid(say("cli.photoBySha"), "sha256");
      if (existsSync(o.out)) throw new Invalid(say("cli.outExists", { path: o.out }), "--out");
      await withArchive(opts, async (arc) => {
        const r = await errorLevel(arc, operatorActor(), { sha256, quality: o.quality });
        await writeFile(o.out, r.png, { flag: "wx" });
        print(opts, { file: o.out, sha256: r.sha256, quality: r.quality }, `error-level map written to ${o.out} (sha256 ${r.sha256})`);
      });
    });
}
