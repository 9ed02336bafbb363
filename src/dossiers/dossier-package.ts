/**
 * The evidence package of a frozen dossier version for one recipient: the photos the version selects (photo
 * exhibits, and the photos a body exhibit showed when the version was frozen), as originals or as redacted or
 * blurred copies per the recipient's clearance, the version itself exactly as frozen with the dossier's custody
 * events, the report, and everything a plain package holds. Built as a job with progress (it may take minutes);
 * the CLI runs the same function in-process.
 */
import { join } from "node:path";
import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { Invalid, NotFound } from "../core/errors.ts";
import { newId } from "../core/ids.ts";
import { containedPath } from "../core/contained.ts";
import { actorNow } from "../access/index.ts";
import { frozenVersion, type ExhibitView } from "./dossiers.ts";
import { checkRecipient, writePackage, type BuildPackageResult, type Clearance, type PackageExtras, type PackageItem } from "./package.ts";
import { ddb } from "./tables.ts";
import { parseInput } from "../core/input.ts";
import { say } from "../core/messages.ts";
import type { z } from "zod";
import * as contracts from "./contracts.ts";

export const JOB_DOSSIER_PACKAGE = "dossiers.package";

export interface DossierPackageInput {
  dossierId: string;
  version: number;
  recipient: string;
  clearance: Clearance;
  purpose: string;
  out: string;
  lang?: "ar" | "en";
  /** Build the report into the package (default: when the report module is installed). */
  report?: boolean;
  sourceOrganization?: string;
  /** The package id, fixed by the job so that a later attempt can tell whether this one left a handover behind. */
  packageId?: string;
  onProgress?: (done: number, total: number, note?: string) => void;
}

// The report's input, restated here because the report module is loaded only when present (see reportBuilder).
type ReportEvidence = { kind: string; ref: string; note?: string };
type ReportExhibit = { number: string; reasoning?: string[]; evidence?: ReportEvidence[] } & (
  | { kind: "body"; bodyId: string; photos?: string[] }
  | { kind: "photo"; sha256: string }
  | { kind: "review"; reviewId: string }
  | { kind: "facility" | "unit" | "person"; entityId: string }
);
type ReportInput = {
  title: string;
  subtitle?: string;
  lang: "ar" | "en";
  clearance: Clearance;
  dossier?: { id: string; version: number };
  exhibits: ReportExhibit[];
  withdrawn?: { number: string; kind: ExhibitView["kind"]; at: string; reason: string }[];
  outDir: string;
  onProgress?: (done: number, total: number) => void;
};
type BuildReport = (ctx: Ctx, actor: Actor, input: ReportInput) => Promise<{ html: string; pdf: string; pages: number }>;

/** The report builder, when src/dossiers/report is present (it is built separately and may be absent). */
export async function reportBuilder(): Promise<BuildReport | null> {
  try {
    // Dynamic: the report is built separately and may be absent; it also loads the PDF printer, used only here.
    const mod = (await import("./report/index.ts")) as { buildReport?: BuildReport };
    return typeof mod.buildReport === "function" ? mod.buildReport : null;
  } catch {
    return null;
  }
}

/** An active exhibit as a section of the report: every kind has one, with its reasoning and cited evidence. */
export function reportExhibit(e: ExhibitView): ReportExhibit {
  const common = { number: e.number, reasoning: [e.reasoning], ...(e.evidence.length ? { evidence: e.evidence } : {}) };
  switch (e.kind) {
    case "body":
      return { ...common, kind: "body", bodyId: e.ref, ...(e.photos ? { photos: e.photos } : {}) };
    case "photo":
      return { ...common, kind: "photo", sha256: e.ref };
    case "review":
      return { ...common, kind: "review", reviewId: e.ref };
    default:
      return { ...common, kind: e.kind, entityId: e.ref };
  }
}

/** The photos of a version, each once, in exhibit order: a photo exhibit's own, then a body exhibit's (E-0003-1 …). */
export function packageItems(exhibits: ExhibitView[]): PackageItem[] {
  const seen = new Set<string>();
  const items: PackageItem[] = [];
  for (const e of exhibits) {
    if (e.status !== "active") continue;
    const shas = e.kind === "photo" ? [e.ref] : e.kind === "body" ? (e.photos ?? []) : [];
    shas.forEach((sha, k) => {
      if (seen.has(sha)) return;
      seen.add(sha);
      items.push({ exhibit: e.kind === "photo" ? e.number : `${e.number}-${k + 1}`, sha256: sha, dossierExhibit: e.number });
    });
  }
  return items;
}

function dossierCsv(exhibits: ExhibitView[]): string[][] {
  return [
    ["number", "kind", "ref", "status", "reasoning", "evidence", "photos", "added_at", "withdrawn_at", "withdraw_reason"],
    ...exhibits.map((e) => [e.number, e.kind, e.ref, e.status, e.reasoning, JSON.stringify(e.evidence), (e.photos ?? []).join(" "), e.addedAt, e.withdrawn?.at ?? "", e.withdrawn?.reason ?? ""]),
  ];
}

/** A package of a dossier is made only by someone who may read that dossier: it carries its exhibits and reasoning. */
export function requirePackager(ctx: Ctx, actor: Actor): void {
  ctx.policy.require(actor, "package.export");
  ctx.policy.require(actor, "dossier.read");
}

export async function buildDossierPackage(ctx: Ctx, actor: Actor, input: DossierPackageInput): Promise<BuildPackageResult & { dossierId: string; version: number; report: boolean }> {
  requirePackager(ctx, actor);
  checkRecipient(input);
  const row = await ddb(ctx.db.db).selectFrom("dossier_versions").selectAll().where("dossier_id", "=", input.dossierId).where("version", "=", input.version).executeTakeFirst();
  if (!row) throw new NotFound(say("dossier.noVersionToPackage", { version: input.version }));
  const version = await frozenVersion(ctx, input.dossierId, input.version);
  const items = packageItems(version.exhibits);
  if (items.length === 0) throw new Invalid(say("dossier.versionNoPhoto", { version: input.version }), "version");

  const extras: PackageExtras = {
    dossier: { id: input.dossierId, version: input.version, snapshot: row.snapshot, sha256: row.sha256, freezeEvent: Number(row.event_seq), csv: dossierCsv(version.exhibits) },
    handoverDetail: { dossier: input.dossierId, version: input.version, versionSha256: row.sha256 },
  };
  const active = version.exhibits.filter((e) => e.status === "active");
  const withdrawn = version.exhibits.filter((e) => e.status === "withdrawn");
  const build = input.report === false || active.length === 0 ? null : await reportBuilder();
  if (input.report === true && !build) throw new Invalid(say("dossier.noReportModule"), "report");
  if (build) {
    // One unit per section (a body's photos cost more than an entity's text, but sections are what the bar counts).
    extras.reportUnits = active.length;
    extras.report = (outDir, onProgress) =>
      build(ctx, actor, {
        title: version.dossier.name,
        subtitle: `Version ${input.version}`,
        lang: input.lang ?? "en",
        clearance: input.clearance,
        dossier: { id: input.dossierId, version: input.version },
        exhibits: active.map(reportExhibit),
        withdrawn: withdrawn.map((e) => ({ number: e.number, kind: e.kind, at: e.withdrawn?.at ?? "", reason: e.withdrawn?.reason ?? "" })),
        outDir,
        onProgress,
      });
  }
  const r = await writePackage(
    ctx,
    actor,
    { items, recipient: input.recipient, purpose: input.purpose, clearance: input.clearance, out: input.out, ...(input.packageId ? { packageId: input.packageId } : {}), ...(input.sourceOrganization ? { sourceOrganization: input.sourceOrganization } : {}), ...(input.onProgress ? { onProgress: input.onProgress } : {}) },
    extras,
  );
  return { ...r, dossierId: input.dossierId, version: input.version, report: Boolean(build) };
}

export const JOB_PACKAGE_EXPIRY = "dossiers.package-expiry";

/** Where package bags are built: DATA/packages/<out_…>. */
export function packagesRoot(ctx: Pick<Ctx, "config">): string {
  return join(ctx.config.dataDir, "packages");
}

/** Queues a package build; the bag is written under the archive's data directory (packages/<id>). */
export async function enqueueDossierPackage(ctx: Ctx, actor: Actor, sent: z.input<typeof contracts.EnqueuePackageInput>): Promise<{ job: string; out: string }> {
  requirePackager(ctx, actor);
  const input = parseInput(contracts.EnqueuePackageInput, sent);
  checkRecipient(input);
  const v = await ddb(ctx.db.db).selectFrom("dossier_versions").select("version").where("dossier_id", "=", input.dossierId).where("version", "=", input.version).executeTakeFirst();
  if (!v) throw new NotFound(say("dossier.noVersion", { version: input.version }));
  const out = join(packagesRoot(ctx), newId("out"));
  const job = await ctx.jobs.enqueue(null, JOB_DOSSIER_PACKAGE, { ...input, out, actor }, { maxAttempts: 1 });
  return { job, out };
}

export function registerDossierJobs(ctx: Ctx): void {
  ctx.jobs.register(JOB_DOSSIER_PACKAGE, async (jc) => {
    const p = jc.job.payload as unknown as DossierPackageInput & { actor: Actor };
    // the payload is data: the bag goes only under DATA/packages/, built with the rights its person has now
    const actor = await actorNow(ctx.db.db, p.actor);
    const out = await containedPath(packagesRoot(ctx), p.out, "package folder in this job");
    // Each attempt builds under its own package id. An attempt after a crash (the process died, the lease ran out)
    // writes into the same directory, so writePackage finds the dead attempt's marker there, logs that handover
    // as interrupted and clears the incomplete bag before it starts.
    let last = 0;
    // the bag is removed once its time on the server is up (DALIL_PACKAGE_TTL): queued now, run then
    await ctx.jobs.enqueue(null, JOB_PACKAGE_EXPIRY, {}, { runAfter: new Date(ctx.clock.now().getTime() + ctx.config.packageTtlMs + 1000) });
    return buildDossierPackage(ctx, actor, {
      ...p,
      out,
      packageId: `pkg_${jc.job.id.replace(/^job_/, "")}_a${jc.job.attempts}`,
      onProgress: (done, total, note) => {
        const now = Date.now();
        if (now - last > 500 || done === total) {
          last = now;
          void jc.progress(done, total, note);
        }
      },
    });
  });
}
