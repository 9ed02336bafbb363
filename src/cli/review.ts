import type { Command } from "commander";
import { operatorActor } from "../core/actor.ts";
import { agreementStats, assignSample, drawReviewSample, type AgreementStats, type SampleView } from "../review/index.ts";
import { globalOptions, positiveIntOption, print, underFlags, withArchive } from "./shell.ts";

/**
 * `dalil review …`: drawing and assigning samples and reading agreement statistics from the server's shell, as
 * the operator. Reviews themselves are recorded by forensic reviewers signed in (web or API), never here.
 */
function collect(v: string, prev: string[] = []): string[] {
  return [...prev, ...v.split(",").map((s) => s.trim()).filter(Boolean)];
}


function sampleText(s: SampleView): string {
  const lines = [
    `sample ${s.id}: ${s.size} of ${s.population} unreviewed bodies, seed "${s.seed}", ${s.doubles} for blind double review`,
    `  frame sha256 ${s.populationSha256}`,
    "  strata (branch | month): population → drawn",
  ];
  for (const st of s.strata) lines.push(`    ${st.key}: ${st.population} → ${st.allocated}`);
  return lines.join("\n");
}

const fmt = (v: number | null) => (v === null ? "undefined" : v.toFixed(3));

function statsText(s: AgreementStats): string {
  const lines = [
    `${s.counts.samples} samples, ${s.counts.sampled} bodies sampled: ${s.counts.reviewed} reviewed, ${s.counts.inReview} in review, ${s.counts.disputed} disputed, ${s.counts.resolved} resolved`,
    `${s.items} bodies with both blind reviews in`,
    `overall (pooled over codes): kappa ${fmt(s.pooled.kappa)}  observed ${fmt(s.pooled.observed)}  expected ${fmt(s.pooled.expected)}  n ${s.pooled.n};  mean of per-code kappas ${fmt(s.meanKappa)}`,
  ];
  for (const c of s.codes) {
    lines.push(`  ${c.code.padEnd(20)} kappa ${fmt(c.kappa)}  po ${fmt(c.observed)}  pe ${fmt(c.expected)}  both ${c.both} onlyA ${c.onlyA} onlyB ${c.onlyB} neither ${c.neither}`);
  }
  lines.push(`cause-of-death indicators (pooled): kappa ${fmt(s.causes.kappa)}  n ${s.causes.n}`);
  return lines.join("\n");
}

export function registerReviewCommands(program: Command): void {
  const review = program.command("review").description("forensic review: samples, assignment, agreement statistics");
  review
    .command("sample")
    .description("draw a reproducible sample of unreviewed bodies, stratified by branch and month, proportional allocation")
    .requiredOption("--size <n>", "bodies to draw", positiveIntOption("--size"))
    .requiredOption("--seed <seed>", "the seed (record it: the same seed and catalogue give the same sample)")
    .option("--double-share <share>", "share of the sample reviewed blind by two reviewers (0..1)", Number, 0)
    .action(async (o: { size: number; seed: string; doubleShare: number }, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (a) => {
        const s = await underFlags({ doubleShare: "--double-share", size: "--size", seed: "--seed" }, () => drawReviewSample(a, operatorActor(), { size: o.size, seed: o.seed, doubleShare: o.doubleShare }));
        print(opts, s, sampleText(s));
      });
    });
  review
    .command("assign")
    .description("deal a sample's unassigned bodies to forensic reviewers (default: the latest sample)")
    .requiredOption("--reviewer <id-or-email>", "a forensic reviewer (repeatable, or comma-separated)", collect, [])
    .option("--sample <id>", "the sample (default: the most recent)")
    .action(async (o: { reviewer: string[]; sample?: string }, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (a) => {
        const r = await assignSample(a, operatorActor(), { reviewers: o.reviewer, ...(o.sample ? { sampleId: o.sample } : {}) });
        print(opts, r, `${r.assigned} assignments from sample ${r.sampleId}: ${Object.entries(r.perReviewer).map(([k, v]) => `${k} ${v}`).join(", ")}`);
      });
    });
  review
    .command("stats")
    .description("agreement between blind double reviews: Cohen's kappa per finding code and pooled")
    .option("--sample <id>", "one sample only")
    .action(async (o: { sample?: string }, cmd: Command) => {
      const opts = globalOptions(cmd);
      await withArchive(opts, async (a) => {
        const s = await agreementStats(a, operatorActor(), o.sample ? { sampleId: o.sample } : {});
        print(opts, s, statsText(s));
      });
    });
}
