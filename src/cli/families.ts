import { readFileSync } from "node:fs";
import type { Command } from "commander";
import { operatorActor } from "../core/actor.ts";
import { getReport, importReportsCsv, listCandidates, matchAll, type ReportImportReport } from "../families/index.ts";
import { globalOptions, positiveIntOption, print, withArchive } from "./shell.ts";

/**
 * `dalil families …`: missing-person reports and their candidates from the server's shell. The operator holds the
 * data directory and acts as an administrator; every read of a family's data is recorded under that name.
 */
function importText(r: ReportImportReport): string {
  const head = r.ok
    ? `${r.dryRun ? "checked (nothing written)" : "imported"}: ${r.rows} rows — ${r.created} reports${r.dryRun ? " would be created" : " created"}`
    : `nothing imported: ${r.rejected.length} problem(s) in ${r.rows} rows`;
  const lines = [head, ...r.rejected.map((x) => `  row ${x.row}${x.column ? `, ${x.column}` : ""}: ${x.message}`)];
  if (r.ignoredColumns.length) lines.push(`ignored columns: ${r.ignoredColumns.join(", ")}`);
  return lines.join("\n");
}

export function registerFamiliesCommands(program: Command): void {
  const fam = program.command("families").description("missing-person reports, candidates and disclosures");
  fam
    .command("import")
    .description("import missing-person reports from a CSV file (all or nothing; every rejected row is reported)")
    .argument("<file>", "the CSV file (UTF-8); columns in docs/families-csv.md")
    .option("--dry-run", "check every row and report, write nothing")
    .action(async (file: string, o: { dryRun?: boolean }, cmd: Command) => {
      const opts = globalOptions(cmd);
      const csv = readFileSync(file, "utf8");
      await withArchive(opts, async (a) => {
        const r = await importReportsCsv(a, operatorActor(), { csv, dryRun: !!o.dryRun });
        print(opts, r, importText(r));
        if (!r.ok) process.exitCode = 2;
      });
    });
  fam
    .command("match")
    .description("rank the bodies for every open report; prints each report's ref and its candidates with score and band")
    .option("--top <k>", "candidates per report (default 10)", positiveIntOption("--top"))
    .action(async (o: { top?: number }, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (a) => {
        const lines = await matchAll(a, operatorActor(), { top: o.top ?? 10 });
        const text = lines
          .map((l) => [`${l.ref}`, ...l.candidates.map((c, i) => `  ${i + 1}. ${c.ref}  ${c.score.toFixed(2)}  ${c.band}`)].join("\n"))
          .join("\n");
        print(opts, lines, text || "no open reports");
      });
    });
  fam
    .command("show <report>")
    .description("one report and its candidates with the evidence for each (a recorded read)")
    .option("--top <k>", "candidates to show (default 5)", positiveIntOption("--top"))
    .action(async (ref: string, o: { top?: number }, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (a) => {
        const actor = operatorActor();
        const report = await getReport(a, actor, ref);
        const c = await listCandidates(a, actor, ref, { top: o.top ?? 5 });
        const lines = [`${report.ref}  ${report.nameAr ?? ""} ${report.nameLat ?? ""}`.trim()];
        for (const x of c.candidates) {
          lines.push(`  ${x.rank}. ${x.ref}  ${x.score.toFixed(2)}  ${x.band}`);
          for (const e of x.evidence) lines.push(`       ${e.points >= 0 ? "+" : ""}${e.points.toFixed(2)}  ${e.text}`);
        }
        print(opts, { report, candidates: c.candidates }, lines.join("\n"));
      });
    });
}
