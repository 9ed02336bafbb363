import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { bodiesHiddenFrom, Vocabularies } from "../catalogue/index.ts";
import { presenceKappa, type Presence } from "./kappa.ts";
import { doublePairs } from "./reviews.ts";
import { rdb } from "./tables.ts";
import type * as contracts from "./contracts.ts";

/**
 * Agreement between the two blind reviews of each double-reviewed body, on each reviewer's first submitted review
 * (what they found while blind: neither a later correction nor a resolution changes what the two first said).
 *
 * Per finding code: a 2×2 table (present/absent by reviewer A × reviewer B) over all double-reviewed bodies, and
 * Cohen's kappa of it. "A" is slot 1 and "B" slot 2 of the assignment, whoever the people were (Cohen's kappa
 * treats the two ratings as two raters; with rotating pairs it measures agreement between two independent
 * reviews, not between two fixed persons).
 *
 * Overall: the **pooled** kappa — the per-code 2×2 tables summed into one table (every body × code decision
 * counts once) and kappa computed on that — is the headline; the unweighted mean of the per-code kappas that
 * are defined is reported beside it. Codes neither reviewer ever used are left out (they would only add
 * agreement on absence).
 */
export type CodeAgreement = contracts.CodeAgreement;

export type AgreementStats = contracts.AgreementStats;

export async function agreementStats(ctx: Ctx, actor: Actor, input: { sampleId?: string } = {}): Promise<AgreementStats> {
  ctx.policy.require(actor, "review.stats");
  const tx = ctx.db.db;
  // bodies above the reader's clearance count nowhere: not in the agreement, not in the counts
  const all = await doublePairs(tx, input.sampleId);
  const hidden = await bodiesHiddenFrom(ctx, actor, all.map(([a]) => a.body));
  const pairs = all.filter(([a]) => !hidden.has(a.body));
  const vocab = await Vocabularies.load(tx);
  const used = [...new Set(pairs.flatMap(([a, b]) => [...a.findings, ...b.findings].map((f) => f.code)))].sort();
  const zero = (): Presence => ({ both: 0, onlyA: 0, onlyB: 0, neither: 0 });
  const tally = (t: Presence, inA: boolean, inB: boolean) => {
    if (inA && inB) t.both++;
    else if (inA) t.onlyA++;
    else if (inB) t.onlyB++;
    else t.neither++;
  };
  const pooled = zero();
  const codes: CodeAgreement[] = used.map((code) => {
    const t = zero();
    for (const [a, b] of pairs) {
      const inA = a.findings.some((f) => f.code === code);
      const inB = b.findings.some((f) => f.code === code);
      tally(t, inA, inB);
      tally(pooled, inA, inB);
    }
    return { code, labelEn: vocab.get("finding", code)?.labelEn ?? code, ...t, ...presenceKappa(t) };
  });
  const causesUsed = [...new Set(pairs.flatMap(([a, b]) => [...a.causes, ...b.causes].map((c) => c.code)))];
  const causes = zero();
  for (const code of causesUsed) for (const [a, b] of pairs) tally(causes, a.causes.some((c) => c.code === code), b.causes.some((c) => c.code === code));
  const defined = codes.map((c) => c.kappa).filter((k): k is number => k !== null);

  let items = rdb(tx).selectFrom("review_items").select(["status", "body_id"]);
  if (input.sampleId) items = items.where("sample_id", "=", input.sampleId);
  const rows = await items.execute();
  const hiddenItems = await bodiesHiddenFrom(ctx, actor, rows.map((r) => r.body_id));
  const byStatus = new Map<string, number>();
  for (const r of rows) if (!hiddenItems.has(r.body_id)) byStatus.set(r.status, (byStatus.get(r.status) ?? 0) + 1);
  const n = (...s: string[]) => s.reduce((acc, k) => acc + (byStatus.get(k) ?? 0), 0);
  let samples = rdb(tx).selectFrom("review_samples").select((eb) => eb.fn.countAll<number>().as("n"));
  if (input.sampleId) samples = samples.where("id", "=", input.sampleId);
  const s = await samples.executeTakeFirstOrThrow();
  return {
    items: pairs.length,
    codes,
    pooled: { ...pooled, ...presenceKappa(pooled) },
    meanKappa: defined.length ? defined.reduce((a, b) => a + b, 0) / defined.length : null,
    overallMethod: "pooled",
    causes: { ...causes, ...presenceKappa(causes) },
    counts: {
      samples: Number(s.n),
      sampled: n("sampled", "assigned", "in_review", "agreed", "disputed", "resolved", "reviewed"),
      reviewed: n("agreed", "resolved", "reviewed"),
      inReview: n("assigned", "in_review"),
      disputed: n("disputed"),
      resolved: n("resolved"),
    },
  };
}


