import { createHash } from "node:crypto";
import type { Readable } from "node:stream";
import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { canonicalJson } from "../core/canonical-json.ts";
import { Conflict, NotFound } from "../core/errors.ts";
import { newId } from "../core/ids.ts";
import { SOFTWARE } from "../core/version.ts";
import { custody } from "../ledger/index.ts";
import { originalFact, sightedOriginals, sourceLabels, sourcesNamed, sourcesOfOriginal } from "../archive/index.ts";
import { analyseCard, reportDigest, type AnalysisParameters, type CardReport, type PhotoInput } from "./analyse.ts";
import { errorLevelMap } from "./content.ts";
import { dcfName } from "./card-checks.ts";
import type { Finding } from "./findings.ts";
import { adb } from "./tables.ts";
import * as contracts from "./contracts.ts";
import { parseInput } from "../core/input.ts";
import type { z } from "zod";
import { say } from "../core/messages.ts";

/**
 * Analysing a card and reading the analyses. A run reads every JPEG original sighted on the source, analyses
 * them outside any transaction (it is slow), then stores the report and its findings and appends the custody
 * event in one transaction. The event names the source and the photos flagged above "information", the
 * software version (in every event) and the parameters, and the digests of input and report: a later run on
 * the same photos with the same version and parameters must give the same report digest.
 */
/** The contract's RunView, with the analyser's own report (findings keyed by message keys, for the text report). */
export type RunView = Omit<contracts.RunView, "report"> & { report: CardReport };

export interface RunAnalysis {
  source: string;
  content: boolean;
}

export async function findSource(ctx: Ctx, ref: string): Promise<{ id: string; label: string }> {
  const rows = await sourcesNamed(ctx.db.db, ref);
  const exact = rows.find((r) => r.id === ref);
  if (exact) return exact;
  if (rows.length > 1) throw new Conflict(say("source.labelAmbiguous", { count: rows.length, ref }));
  if (!rows[0]) throw new NotFound(say("source.notFoundRef", { ref }));
  return rows[0];
}

async function readAll(stream: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of stream) parts.push(c as Buffer);
  return Buffer.concat(parts);
}

/** The JPEG originals sighted on a source, each with the path of its first sighting there. */
async function cardPhotos(ctx: Ctx, sourceId: string): Promise<PhotoInput[]> {
  const rows = await sightedOriginals(ctx.db.db, sourceId, "jpeg");
  // A photo seen twice on the card (a copy put back in another DCF folder) is placed where the camera wrote it:
  // the sighting with the lowest DCF folder and number, then the first read.
  const rank = (path: string) => dcfName(path).order ?? Number.MAX_SAFE_INTEGER;
  const seen = new Map<string, PhotoInput>();
  for (const r of rows) {
    const had = seen.get(r.sha256);
    if (had && rank(had.path!) <= rank(r.path)) continue;
    seen.set(r.sha256, { sha256: r.sha256, path: r.path, phash: r.phash, bytes: async () => readAll(await ctx.blobs.get(r.sha256)) });
  }
  return [...seen.values()];
}

export function inputDigest(shas: readonly string[]): string {
  return createHash("sha256").update([...shas].sort().join("\n")).digest("hex");
}

export async function runAuthenticity(ctx: Ctx, actor: Actor, input: RunAnalysis, onProgress?: (done: number, total: number) => void): Promise<RunView> {
  ctx.policy.require(actor, "authenticity.run");
  const source = await findSource(ctx, input.source);
  const photos = await cardPhotos(ctx, source.id);
  if (photos.length === 0) throw new NotFound(say("authenticity.noJpeg", { label: source.label }));
  const parameters: AnalysisParameters = { content: input.content };
  const report = await analyseCard(photos, parameters, onProgress);
  const inputSha256 = inputDigest(photos.map((p) => p.sha256));
  const reportSha256 = reportDigest(report);
  const id = newId("aut");
  const at = ctx.clock.now();
  const flagged = report.photos.filter((p) => p.worst === "look" || p.worst === "strong");
  return ctx.db.transaction(async (tx) => {
    const ev = await ctx.log.append(
      tx,
      custody(
        "validation",
        actor,
        at,
        [{ id: source.id, role: "source" }, ...flagged.map((p) => ({ sha256: p.sha256, role: "flagged" }))],
        {
          analysis: "authenticity",
          run: id,
          parameters,
          photos: report.counts.photos,
          findings: { information: report.counts.information, look: report.counts.look, strong: report.counts.strong },
          input: inputSha256,
          report: reportSha256,
        },
        flagged.length ? "warning" : "success",
      ),
    );
    const t = adb(tx);
    await t
      .insertInto("authenticity_runs")
      .values({
        id,
        source_id: source.id,
        software_version: SOFTWARE.version,
        parameters: canonicalJson(parameters),
        input_sha256: inputSha256,
        report_sha256: reportSha256,
        report: canonicalJson(report),
        photos: report.counts.photos,
        flagged: flagged.length,
        run_by: actor.id,
        run_at: at.toISOString(),
        event_seq: ev.seq,
      })
      .execute();
    const rows = report.findings.map((f, n) => ({
      run_id: id,
      n,
      original_sha256: f.photo,
      check_name: f.check,
      severity: f.severity,
      message_key: f.key,
      params: canonicalJson(f.params),
    }));
    // In slices: both databases cap the parameters of one statement.
    for (let i = 0; i < rows.length; i += 500) await t.insertInto("authenticity_findings").values(rows.slice(i, i + 500)).execute();
    return view(ctx, actor, { id, source, softwareVersion: SOFTWARE.version, parameters, inputSha256, reportSha256, runBy: actor.id, runAt: at.toISOString(), eventSeq: ev.seq, report });
  });
}

function view(
  ctx: Ctx,
  actor: Actor,
  r: { id: string; source: { id: string; label: string }; softwareVersion: string; parameters: AnalysisParameters; inputSha256: string; reportSha256: string; runBy: string; runAt: string; eventSeq: number; report: CardReport },
): RunView {
  // The serial identifies the camera and so may identify the photographer: only for those cleared for it.
  const sensitive = ctx.policy.allows(actor, "metadata.sensitive");
  const report = sensitive ? r.report : { ...r.report, cameras: r.report.cameras.map((c) => ({ ...c, serial: null })) };
  return {
    run: r.id,
    source: r.source,
    softwareVersion: r.softwareVersion,
    parameters: r.parameters,
    inputSha256: r.inputSha256,
    reportSha256: r.reportSha256,
    runBy: r.runBy,
    runAt: r.runAt,
    eventSeq: r.eventSeq,
    report,
  };
}

/** The latest analysis of a source (or a named run of it). */
export async function showAuthenticity(ctx: Ctx, actor: Actor, sent: z.input<typeof contracts.ShowAnalysisInput>): Promise<RunView> {
  ctx.policy.require(actor, "authenticity.read");
  const input = parseInput(contracts.ShowAnalysisInput, sent);
  const source = await findSource(ctx, input.source);
  let q = adb(ctx.db.db).selectFrom("authenticity_runs").selectAll().where("source_id", "=", source.id);
  if (input.run) q = q.where("id", "=", input.run);
  const row = await q.orderBy("run_at", "desc").orderBy("event_seq", "desc").limit(1).executeTakeFirst();
  if (!row) throw new NotFound(input.run ? say("authenticity.noRun", { run: input.run, label: source.label }) : say("authenticity.notYet", { label: source.label }));
  return view(ctx, actor, {
    id: row.id,
    source,
    softwareVersion: row.software_version,
    parameters: JSON.parse(row.parameters) as AnalysisParameters,
    inputSha256: row.input_sha256,
    reportSha256: row.report_sha256,
    runBy: row.run_by,
    runAt: row.run_at,
    eventSeq: Number(row.event_seq),
    report: JSON.parse(row.report) as CardReport,
  });
}

/** Runs of every source, newest first (without their reports). */
export async function listAuthenticityRuns(ctx: Ctx, actor: Actor): Promise<contracts.RunSummary[]> {
  ctx.policy.require(actor, "authenticity.read");
  const rows = await adb(ctx.db.db).selectFrom("authenticity_runs").select(["id", "source_id", "photos", "flagged", "run_at", "software_version"]).orderBy("run_at", "desc").limit(200).execute();
  const labels = await sourceLabels(ctx.db.db, rows.map((r) => r.source_id));
  return rows.map((r) => ({ run: r.id, source: { id: r.source_id, label: labels.get(r.source_id) ?? r.source_id }, photos: r.photos, flagged: r.flagged, runAt: r.run_at, softwareVersion: r.software_version }));
}

/** The contract's PhotoAuthenticity, with the analyser's findings (message keys, for the dossier report's words). */
export type PhotoAuthenticity = Omit<contracts.PhotoAuthenticity, "findings"> & { findings: Finding[] };

/** What the latest analysis covering this photo found about it (and about its card). */
export async function photoAuthenticity(ctx: Ctx, actor: Actor, sha256: string): Promise<PhotoAuthenticity> {
  ctx.policy.require(actor, "authenticity.read");
  if (!(await originalFact(ctx.db.db, sha256))) throw new NotFound(say("original.notFoundSha", { sha256 }));
  const sources = await sourcesOfOriginal(ctx.db.db, sha256);
  const row = sources.length
    ? await adb(ctx.db.db)
        .selectFrom("authenticity_runs")
        .select(["id", "report", "run_at", "source_id"])
        .where("source_id", "in", sources)
        .orderBy("run_at", "desc")
        .orderBy("event_seq", "desc")
        .limit(1)
        .executeTakeFirst()
    : undefined;
  if (!row) return { sha256, run: null, source: null, runAt: null, summary: null, findings: [] };
  const label = (await sourceLabels(ctx.db.db, [row.source_id])).get(row.source_id) ?? row.source_id;
  const report = JSON.parse(row.report) as CardReport;
  return {
    sha256,
    run: row.id,
    source: { id: row.source_id, label },
    runAt: row.run_at,
    summary: report.photos.find((p) => p.sha256 === sha256) ?? null,
    findings: report.findings.filter((f) => f.photo === sha256),
  };
}

/**
 * The error-level map of one photo, made on request: a picture derived from the unblurred original, so it is
 * a custody event (creation of a derived image, with the parameters) in the same transaction as the grant.
 */
export async function errorLevel(ctx: Ctx, actor: Actor, sent: z.input<typeof contracts.ErrorLevelInput>): Promise<{ png: Buffer; sha256: string; quality: number }> {
  ctx.policy.require(actor, "authenticity.ela");
  const input = parseInput(contracts.ErrorLevelInput, sent);
  const o = await originalFact(ctx.db.db, input.sha256);
  if (!o) throw new NotFound(say("original.notFoundSha", { sha256: input.sha256 }));
  if (o.format !== "jpeg") throw new Conflict(say("authenticity.elaJpegOnly", { format: o.format }));
  const png = await errorLevelMap(await readAll(await ctx.blobs.get(o.sha256)), input.quality);
  const derived = createHash("sha256").update(png).digest("hex");
  await ctx.db.transaction(async (tx) => {
    await ctx.log.append(
      tx,
      custody("creation", actor, ctx.clock.now(), [{ sha256: o.sha256, role: "source" }, { sha256: derived, role: "outcome" }], { derivative: "error level map", quality: input.quality }),
    );
  });
  return { png, sha256: derived, quality: input.quality };
}
