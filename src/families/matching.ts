import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import type { Tx } from "../db/database.ts";
import { bodiesHiddenFrom, parseFuzzyDate, readBodies, readBodyDocuments, type BodyView, type DocumentFact } from "../catalogue/index.ts";
import { blockingKeys, parseNameChain, prepareName, type PreparedName } from "../names/index.ts";
import { keysOf, rankBodies, type Band, type BodyFeatures, type DnaFinding, type Evidence, type ReportFeatures, type Scored } from "./scoring.ts";
import { dnaFindings } from "./referrals.ts";
import { recordPersonalDataRead } from "../access/index.ts";
import { rankAll } from "./rank-pool.ts";
import { readReportInTx, toReportView, type ReportView } from "./reports.ts";
import { fdb, type FamilyReportsTable } from "./tables.ts";
import type * as contracts from "./contracts.ts";

/**
 * Candidates: each report ranked against every body the matching actor may read, the top of the list stored
 * with its evidence in words. Ranking is a job (`families.rerank`) enqueued whenever a report changes; a
 * catalogue change can enqueue the same job for all reports.
 */

export const STORED_CANDIDATES = 50;

/**
 * What the ranking reads of a body: its card and catalogue fields, its marks (those a settled review added
 * included), and the numbers and names documents give for it (`documents`, from `readBodyDocuments`). A document's
 * branch number is left out (the card's branch is its own term); a document's name counts when the body has none.
 */
export function bodyFeatures(b: BodyView, documents: readonly Pick<DocumentFact, "kind" | "value" | "valueNorm">[] = []): BodyFeatures {
  let photo: { earliest: string; latest: string } | null = null;
  try {
    photo = parseFuzzyDate(b.photoDate);
  } catch {
    photo = null;
  }
  const numbers: { role: string; value: string }[] = [];
  if (b.detaineeNoNorm) numbers.push({ role: "detainee", value: b.detaineeNoNorm });
  if (b.examinerNoNorm) numbers.push({ role: "examiner", value: b.examinerNoNorm });
  for (const d of documents) {
    if (d.kind === "name" || d.kind === "branch") continue;
    if (!numbers.some((n) => n.role === d.kind && n.value === d.valueNorm)) numbers.push({ role: d.kind, value: d.valueNorm });
  }
  const name = b.nameAr ?? b.nameLat ?? documents.find((d) => d.kind === "name")?.value ?? null;
  return {
    id: b.id,
    ref: b.ref,
    externalRef: b.externalRef,
    sex: b.sex,
    ageMin: b.ageMin,
    ageMax: b.ageMax,
    photoEarliest: photo?.earliest ?? null,
    photoLatest: photo?.latest ?? null,
    branch: b.branchNoNorm,
    marks: b.marks.map((m) => ({ type: m.type, region: m.region })),
    numbers,
    name: name ? prepareName(name) : null,
    nameKeys: name ? blockingKeys(name) : [],
  };
}

/** A report's features; `dna`: its DNA results on bodies (`dnaFindings`), which the ranking obeys. */
export function reportFeatures(r: ReportView, dna?: readonly DnaFinding[]): ReportFeatures {
  const by = r.birthDate ? Number(r.birthDate.slice(0, 4)) : null;
  return {
    ...(dna?.length ? { dna } : {}),
    sex: r.sex,
    birthYear: by,
    birthApprox: r.birthPrecision === "approximate",
    arrestEarliest: r.arrestEarliest,
    arrestLatest: r.arrestLatest,
    branch: r.branch,
    branchCertainty: r.branchCertainty,
    marks: r.marks.map((m) => ({ type: m.type, region: m.region })),
    numbers: r.numbers,
    names: reportNames(r),
    nameKeys: keysOf(reportNames(r)),
  };
}

/** The report's name in each script it was given in, parsed with the father's and mother's names. */
export function reportNames(r: Pick<ReportView, "nameAr" | "nameLat" | "slots" | "motherName">): PreparedName[] {
  const out: PreparedName[] = [];
  if (r.slots.raw) out.push(prepareName(r.slots));
  const other = r.slots.raw === r.nameAr ? r.nameLat : r.slots.raw === r.nameLat ? r.nameAr : null;
  if (other) out.push(prepareName(parseNameChain(other, { ...(r.motherName ? { mother: r.motherName } : {}) })));
  return out;
}

/** Every body's features, read page by page through the catalogue's own use case (so its policy applies). */
export async function loadBodyFeatures(ctx: Ctx, actor: Actor): Promise<BodyFeatures[]> {
  const out: BodyFeatures[] = [];
  let after: number | undefined;
  for (;;) {
    const page = await readBodies(ctx, actor, { limit: 5000, ...(after !== undefined ? { after } : {}) });
    const documents = await readBodyDocuments(ctx, actor, page.items.map((b) => b.id));
    for (const b of page.items) out.push(bodyFeatures(b, documents.get(b.id)));
    if (page.next === null) break;
    after = page.next;
  }
  return out;
}

async function storeCandidates(ctx: Ctx, tx: Tx, reportId: string, ranked: Scored[]): Promise<void> {
  const now = ctx.clock.now().toISOString();
  await fdb(tx).deleteFrom("family_candidates").where("report_id", "=", reportId).execute();
  const rows = ranked.slice(0, STORED_CANDIDATES).map((s, i) => ({
    report_id: reportId,
    body_id: s.bodyId,
    rank: i + 1,
    score: s.score,
    band: s.band,
    evidence: JSON.stringify(s.evidence),
    ranked_at: now,
  }));
  if (rows.length) await fdb(tx).insertInto("family_candidates").values(rows).execute();
}

export interface RerankResult {
  reports: number;
  bodies: number;
  ms: number;
}

/** Re-ranks one report or all of them (the job's body; callable directly by an operator). */
export async function rerank(ctx: Ctx, actor: Actor, input: { reportId?: string; onProgress?: (done: number, total: number) => Promise<void> } = {}): Promise<RerankResult> {
  ctx.policy.require(actor, "family.match");
  const t0 = performance.now();
  const bodies = await loadBodyFeatures(ctx, actor);
  let q = fdb(ctx.db.db).selectFrom("family_reports").selectAll().where("status", "=", "open").orderBy("ref");
  if (input.reportId) q = q.where("id", "=", input.reportId);
  const reports: FamilyReportsTable[] = await q.execute();
  const dna = await dnaFindings(ctx.db.db, input.reportId ? reports.map((r) => r.id) : undefined);
  let done = 0;
  // worker threads pay for themselves only over many reports (each builds its own index of the bodies)
  await rankAll(bodies, reports.map((r) => reportFeatures(toReportView(r), dna.get(r.id))), {
    top: STORED_CANDIDATES,
    chunk: 250,
    ...(reports.length < 1000 ? { threads: 1 } : {}),
    onChunk: async (start, ranked) => {
      await ctx.db.transaction(async (tx) => {
        for (let k = 0; k < ranked.length; k++) await storeCandidates(ctx, tx, reports[start + k]!.id, ranked[k]!);
      });
      done += ranked.length;
      if (input.onProgress) await input.onProgress(done, reports.length);
    },
  });
  return { reports: reports.length, bodies: bodies.length, ms: Math.round(performance.now() - t0) };
}

export type CandidateView = contracts.CandidateView;

/** A report's stored candidates, for caseworkers only (never a family member: they see disclosures). */
export async function listCandidates(ctx: Ctx, actor: Actor, reportIdOrRef: string, input: { top?: number } = {}): Promise<{ report: string; candidates: CandidateView[] }> {
  ctx.policy.require(actor, "family.candidates");
  const { ref, rows: all } = await ctx.db.transaction(async (tx) => {
    const r = await readReportInTx(ctx, tx, actor, reportIdOrRef, "candidates");
    const rows = await fdb(tx)
      .selectFrom("family_candidates")
      .selectAll()
      .where("report_id", "=", r.id)
      .orderBy("rank")
      .limit(STORED_CANDIDATES)
      .execute();
    return { ref: r.ref, rows };
  });
  // candidates are ranked by the software over every body; a caseworker sees only those they may read (a body
  // above their clearance, its score and its evidence are not shown)
  const hidden = await bodiesHiddenFrom(ctx, actor, all.map((c) => c.body_id));
  const rows = all.filter((c) => !hidden.has(c.body_id)).slice(0, Math.min(input.top ?? 10, STORED_CANDIDATES));
  // read after the transaction: the catalogue reads through its own connection
  const read = new Map((await readBodies(ctx, actor, { ids: rows.map((c) => c.body_id) })).items.map((b) => [b.id, b]));
  return {
    report: ref,
    candidates: rows.map((c) => ({
      rank: c.rank,
      bodyId: c.body_id,
      ref: read.get(c.body_id)?.ref ?? c.body_id,
      externalRef: read.get(c.body_id)?.externalRef ?? null,
      score: Number(c.score),
      band: c.band as Band,
      evidence: JSON.parse(c.evidence) as Evidence[],
    })),
  };
}

export interface MatchLine {
  ref: string;
  /** Each body by the archive's reference and, when it has one, the partner's (`externalRef`). */
  candidates: { ref: string; externalRef: string | null; score: number; band: Band }[];
}

/**
 * `dalil families match`: ranks every open report now (in process, not as a job) and returns, per report, its
 * ref and its top candidates. Reading every report this way is one recorded read.
 */
export async function matchAll(ctx: Ctx, actor: Actor, input: { top?: number } = {}): Promise<MatchLine[]> {
  ctx.policy.require(actor, "family.match");
  ctx.policy.require(actor, "personal.read");
  const top = Math.max(1, Math.min(input.top ?? 10, STORED_CANDIDATES));
  const bodies = await loadBodyFeatures(ctx, actor);
  const external = new Map(bodies.map((b) => [b.ref, b.externalRef ?? null]));
  const reports = await fdb(ctx.db.db).selectFrom("family_reports").selectAll().where("status", "=", "open").orderBy("ref").execute();
  const dna = await dnaFindings(ctx.db.db);
  const out: MatchLine[] = [];
  for (const r of reports) {
    const ranked = rankBodies(reportFeatures(toReportView(r), dna.get(r.id)), bodies, STORED_CANDIDATES);
    await ctx.db.transaction(async (tx) => {
      await storeCandidates(ctx, tx, r.id, ranked);
    });
    out.push({ ref: r.ref, candidates: ranked.slice(0, top).map((s) => ({ ref: s.ref, externalRef: external.get(s.ref) ?? null, score: s.score, band: s.band })) });
  }
  if (reports.length) {
    await ctx.db.transaction((tx) => recordPersonalDataRead(ctx, tx, actor, [{ role: "reports", id: "all-open" }], { read: "match", reports: String(reports.length) }));
  }
  return out;
}
