import { readFileSync } from "node:fs";
import type { Command } from "commander";
import { operatorActor } from "../core/actor.ts";
import { getReport, importReportsCsv, listCandidates, matchAll, type ReportImportReport } from "../families/index.ts";
import {
  acceptDuplicate,
  decide,
  DECISION_STATUSES,
  listDuplicates,
  listFlags,
  proposeDuplicates,
  rejectDuplicate,
  rerankIfBodiesChanged,
  createReferral,
  updateReferral,
  listReferrals,
  REFERRAL_STATUSES,
  REFERRAL_RESULTS,
  type ReferralView,
  type ReferralStatus,
  type ReferralResult,
  withdrawDisclosure,
  WITHDRAWAL_REASONS,
  type DecisionStatus,
  type WithdrawalReason,
  type DuplicateView,
} from "../families/index.ts";
import { globalOptions, positiveIntOption, print, rowProblemLines, withArchive } from "./shell.ts";

/**
 * `dalil families …`: missing-person reports and their candidates from the server's shell. The operator holds the
 * data directory and acts as an administrator; every read of a family's data is recorded under that name.
 */
function importText(r: ReportImportReport): string {
  const head = r.ok
    ? `${r.dryRun ? "checked (nothing written)" : "imported"}: ${r.rows} rows — ${r.created} reports${r.dryRun ? " would be created" : " created"}`
    : `nothing imported: ${r.rejected.length} problem(s) in ${r.rows} rows`;
  const lines = [head, ...rowProblemLines(r.rejected)];
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
    .description("rank the bodies for every open report; prints each report's ref and its candidates (the archive's reference, and the partner's in brackets) with score and band")
    .option("--top <k>", "candidates per report (default 10)", positiveIntOption("--top"))
    .action(async (o: { top?: number }, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (a) => {
        const lines = await matchAll(a, operatorActor(), { top: o.top ?? 10 });
        const text = lines
          .map((l) => [`${l.ref}`, ...l.candidates.map((c, i) => `  ${i + 1}. ${c.ref}${c.externalRef ? ` (${c.externalRef})` : ""}  ${c.score.toFixed(2)}  ${c.band}`)].join("\n"))
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
          lines.push(`  ${x.rank}. ${x.ref}${x.externalRef ? ` (${x.externalRef})` : ""}  ${x.score.toFixed(2)}  ${x.band}`);
          for (const e of x.evidence) lines.push(`       ${e.points >= 0 ? "+" : ""}${e.points.toFixed(2)}  ${e.text}`);
        }
        print(opts, { report, candidates: c.candidates }, lines.join("\n"));
      });
    });
  fam
    .command("duplicates")
    .description("look for reports that are likely the same person (proposals for a caseworker) and list those waiting")
    .option("--no-scan", "only list the proposals already made")
    .option("--full", "weigh every pair again, not only those with a report new or changed since the last scan")
    .action(async (o: { scan: boolean; full?: boolean }, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (a) => {
        const actor = operatorActor();
        if (o.scan) await proposeDuplicates(a, actor, { full: !!o.full });
        const list = await listDuplicates(a, actor);
        print(opts, list, list.map(duplicateText).join("\n") || "no duplicate proposals waiting");
      });
    });
  fam
    .command("merge <proposal>")
    .description("accept a duplicate proposal: the survivor keeps both reporters and all data; the other points to it")
    .option("--survivor <report>", "the report to keep (id or ref; default the earlier one)")
    .requiredOption("--reason <text>", "why they are the same person")
    .action(async (id: string, o: { survivor?: string; reason: string }, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (a) => {
        const r = await acceptDuplicate(a, operatorActor(), { id, reason: o.reason, ...(o.survivor ? { survivor: o.survivor } : {}) });
        print(opts, r, `${r.merged.ref} merged into ${r.survivor.ref}`);
      });
    });
  fam
    .command("not-duplicate <proposal>")
    .description("reject a duplicate proposal: the pair is never proposed again")
    .requiredOption("--reason <text>", "why they are different people")
    .action(async (id: string, o: { reason: string }, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (a) => {
        const r = await rejectDuplicate(a, operatorActor(), { id, reason: o.reason });
        print(opts, r, `${r.a.ref} and ${r.b.ref}: not the same person (recorded)`);
      });
    });
  fam
    .command("decide <report> <body> <status>")
    .description(`record a caseworker's decision on a candidate body: ${DECISION_STATUSES.join(", ")} (the report and the body by id or reference, e.g. R-000001 B-000004); confirmed identifies the body in the catalogue`)
    .requiredOption("--reason <text>", "why (kept with the decision; not written to the public log)")
    .action(async (report: string, body: string, status: string, o: { reason: string }, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (a) => {
        const d = await decide(a, operatorActor(), { report, bodyId: body, status: status as DecisionStatus, reason: o.reason });
        print(opts, d, `${report} × ${body}: ${d.status}${d.status === "confirmed" ? " (the body is identified in the catalogue)" : ""}`);
      });
    });
  const referralOptions = (c: Command): Command =>
    c
      .option("--body <body>", "the body the sample is compared with, by id or reference (B-000004)")
      .option("--status <status>", `where the referral stands: ${REFERRAL_STATUSES.join(", ")}`)
      .option("--sample-from <relationship>", "who gave the sample: their relationship to the missing person")
      .option("--sample-taken <date>", "when the sample was taken (YYYY-MM-DD)")
      .option("--lab <name>", "the laboratory")
      .option("--lab-ref <ref>", "the laboratory's reference")
      .option("--result <result>", `with --status result: ${REFERRAL_RESULTS.join(", ")}`)
      .option("--result-on <date>", "the result's date (YYYY-MM-DD)")
      .option("--note <text>", "a note (kept with the referral; not written to the public log)");
  type ReferralOpts = { body?: string; status?: string; sampleFrom?: string; sampleTaken?: string; lab?: string; labRef?: string; result?: string; resultOn?: string; note?: string };
  const referralFields = (o: ReferralOpts) => ({
    ...(o.body ? { bodyId: o.body } : {}),
    ...(o.status ? { status: o.status as ReferralStatus } : {}),
    ...(o.sampleFrom ? { sampleFrom: o.sampleFrom } : {}),
    ...(o.sampleTaken ? { sampleTakenOn: o.sampleTaken } : {}),
    ...(o.lab ? { lab: o.lab } : {}),
    ...(o.labRef ? { labRef: o.labRef } : {}),
    ...(o.result ? { result: o.result as ReferralResult } : {}),
    ...(o.resultOn ? { resultOn: o.resultOn } : {}),
    ...(o.note ? { note: o.note } : {}),
  });
  referralOptions(
    fam.command("refer <report>").description("record a DNA / ante-mortem referral for a report (only with the family's dnaReferral consent); prints the referral's id"),
  ).action(async (report: string, o: ReferralOpts, cmd: Command) => {
    const opts = globalOptions(cmd);
    await withArchive(opts, async (a) => {
      const r = await createReferral(a, operatorActor(), { report, ...referralFields(o) });
      print(opts, r, referralText(r));
    });
  });
  referralOptions(fam.command("referral <id>").description("change a referral (a new version; the earlier ones stay): its status, sample, laboratory or result")).action(
    async (id: string, o: ReferralOpts, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (a) => {
        const r = await updateReferral(a, operatorActor(), { id, ...referralFields(o) });
        print(opts, r, referralText(r));
      });
    },
  );
  fam
    .command("referrals <report>")
    .description("a report's DNA / ante-mortem referrals, each with its earlier versions")
    .action(async (report: string, _o: unknown, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (a) => {
        const rs = await listReferrals(a, operatorActor(), report);
        print(opts, rs, rs.map((r) => [referralText(r), ...r.history.map((h) => `    v${h.version} ${h.recordedAt.slice(0, 10)}  ${h.status}${h.result ? ` ${h.result}` : ""}`)].join("\n")).join("\n") || "no referrals");
      });
    });
  fam
    .command("withdraw <disclosure>")
    .description("take back a disclosure from the family member it was made to (and the later ones of the same match)")
    .requiredOption("--reason <reason>", `why, as the family will read it: ${WITHDRAWAL_REASONS.join(", ")}`)
    .option("--note <text>", "words to the family, shown as written beside the reason (required with other)")
    .action(async (id: string, o: { reason: string; note?: string }, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (a) => {
        const w = await withdrawDisclosure(a, operatorActor(), { id, reason: o.reason as WithdrawalReason, ...(o.note ? { note: o.note } : {}) });
        print(opts, w, `withdrawn: ${w.map((d) => `${d.id} (${d.stage})`).join(", ")}`);
      });
    });
  fam
    .command("flags")
    .description("reopened cases and families' requests waiting for a caseworker")
    .option("--all", "cleared ones too")
    .action(async (o: { all?: boolean }, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (a) => {
        const flags = await listFlags(a, operatorActor(), { all: !!o.all });
        print(opts, flags, flags.map((f) => `${f.id}  ${f.reportRef}  ${f.kind}${f.clearedAt ? " (cleared)" : ""}  ${f.detail}`).join("\n") || "no open flags");
      });
    });
  fam
    .command("rerank-if-changed")
    .description("re-rank every open report if a body changed since the last re-rank (what the watcher job does)")
    .action(async (_o: unknown, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (a) => {
        const r = await rerankIfBodiesChanged(a);
        print(opts, r, r.changed ? `re-ranked ${r.rerank?.reports ?? 0} reports against ${r.rerank?.bodies ?? 0} bodies; ${r.flagged} case(s) flagged` : "no body changed since the last re-rank");
      });
    });
}

function referralText(r: ReferralView): string {
  const what = r.status === "result" ? `result: ${r.result}${r.resultOn ? ` (${r.resultOn})` : ""}` : r.status;
  const lab = r.lab ? `  ${r.lab}${r.labRef ? ` ${r.labRef}` : ""}` : "";
  return `${r.id}  ${r.reportRef}${r.bodyRef ? ` × ${r.bodyRef}` : ""}  v${r.version}  ${what}${lab}`;
}

function duplicateText(d: DuplicateView): string {
  return [`${d.id}  ${d.a.ref} ~ ${d.b.ref}  ${d.score.toFixed(1)}`, ...d.reasons.map((r) => `    ${r}`)].join("\n");
}
