/**
 * Dossiers: named cases (e.g. against the officers of one branch) that select bodies, photos, reviews,
 * facilities, units and persons as numbered exhibits, each with the reasoning that ties it to the case. A dossier
 * is edited as a draft; freezing it keeps an immutable snapshot (selection, reasoning, exhibit numbers) as a
 * numbered version whose SHA-256 is written into the custody log, and later edits make the next draft.
 *
 * The custody log is public: events name the dossier, the exhibit numbers and the records selected by id or
 * SHA-256, never the dossier's name or the reasoning (those may name suspects or victims); a frozen version's
 * SHA-256 in the log lets whoever holds the version show it is the one that was frozen.
 */
import { createHash } from "node:crypto";
import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { canonicalJson } from "../core/canonical-json.ts";
import { Conflict, Invalid, NotFound } from "../core/errors.ts";
import { newId } from "../core/ids.ts";
import type { Tx } from "../db/database.ts";
import { custody, type EventObject } from "../ledger/index.ts";
import { getBody } from "../catalogue/index.ts";
import { ddb, type DossierExhibitsTable, type DossiersTable } from "./tables.ts";
import * as contracts from "./contracts.ts";
import { parseInput } from "../core/input.ts";
import { say } from "../core/messages.ts";
import type { z } from "zod";

export const SNAPSHOT_FORMAT = "dalil.dossier-version/1";
export const EXHIBIT_KINDS = contracts.EXHIBIT_KINDS;
export type ExhibitKind = (typeof EXHIBIT_KINDS)[number];
export const EVIDENCE_KINDS = contracts.EVIDENCE_KINDS;

export type EvidenceRef = contracts.EvidenceRef;

export type ExhibitView = contracts.ExhibitView;

export type DossierSummary = contracts.DossierSummary;

/** A dossier at one version: the draft (frozen: null) or a frozen snapshot. */
export interface DossierVersionView {
  v: typeof SNAPSHOT_FORMAT;
  dossier: { id: string; name: string; description: string | null };
  version: number;
  frozen: { at: string; by: string; note: string | null; sha256: string; eventSeq: number } | null;
  exhibits: ExhibitView[];
}

export function exhibitNumber(n: number): string {
  return `E-${String(n).padStart(4, "0")}`;
}

export function toExhibitView(r: DossierExhibitsTable): ExhibitView {
  return {
    number: r.number,
    kind: r.kind as ExhibitKind,
    ref: r.ref,
    reasoning: r.reasoning,
    evidence: JSON.parse(r.evidence) as EvidenceRef[],
    status: r.status as ExhibitView["status"],
    addedAt: r.added_at,
    addedBy: r.added_by,
    withdrawn: r.withdrawn_at ? { at: r.withdrawn_at, by: r.withdrawn_by ?? "", reason: r.withdraw_reason ?? "" } : null,
  };
}

function toSummary(r: DossiersTable): DossierSummary {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    frozenVersions: r.frozen_versions,
    draftChanged: r.changed_since_freeze === 1,
    createdAt: r.created_at,
    createdBy: r.created_by,
    updatedAt: r.updated_at,
  };
}

export async function loadDossier(tx: Tx, id: string): Promise<DossiersTable> {
  const row = await ddb(tx).selectFrom("dossiers").selectAll().where("id", "=", id).executeTakeFirst();
  if (!row) throw new NotFound(say("record.notFound", { kind: "dossier" }));
  return row;
}

/** One custody event for a change to a dossier, in the caller's transaction; marks the draft as changed. */
export async function logDossierChange(ctx: Ctx, tx: Tx, actor: Actor, dossierId: string, objects: EventObject[], detail: Record<string, unknown>): Promise<number> {
  const now = ctx.clock.now();
  const ev = await ctx.log.append(tx, custody("metadata modification", actor, now, [{ id: dossierId, role: "dossier" }, ...objects], { dossier: dossierId, ...detail }));
  await ddb(tx).updateTable("dossiers").set({ changed_since_freeze: 1, updated_at: now.toISOString() }).where("id", "=", dossierId).execute();
  return ev.seq;
}

/** Words a person typed, trimmed (the schema bounds their length); blank is none. */
function text(v: string | undefined | null): string | null {
  return (v ?? "").trim() || null;
}

export async function createDossier(ctx: Ctx, actor: Actor, sent: z.input<typeof contracts.CreateDossierInput>): Promise<DossierSummary> {
  ctx.policy.require(actor, "dossier.edit");
  const input = parseInput(contracts.CreateDossierInput, sent);
  const name = text(input.name);
  if (!name) throw new Invalid(say("dossier.nameNeeded"), "name");
  const description = text(input.description);
  return ctx.db.transaction(async (tx) => {
    const now = ctx.clock.now().toISOString();
    const row: DossiersTable = { id: newId("dos"), name, description, next_exhibit: 1, frozen_versions: 0, changed_since_freeze: 0, created_by: actor.id, created_at: now, updated_at: now };
    await ddb(tx).insertInto("dossiers").values(row).execute();
    await ctx.log.append(tx, custody("metadata modification", actor, ctx.clock.now(), [{ id: row.id, role: "dossier" }], { dossier: row.id, action: "dossier.create" }));
    return toSummary(row);
  });
}

export async function listDossiers(ctx: Ctx, actor: Actor): Promise<DossierSummary[]> {
  ctx.policy.require(actor, "dossier.read");
  return (await ddb(ctx.db.db).selectFrom("dossiers").selectAll().orderBy("created_at", "desc").orderBy("id").execute()).map(toSummary);
}

async function draftOf(tx: Tx, d: DossiersTable): Promise<DossierVersionView> {
  const rows = await ddb(tx).selectFrom("dossier_exhibits").selectAll().where("dossier_id", "=", d.id).orderBy("number").execute();
  return {
    v: SNAPSHOT_FORMAT,
    dossier: { id: d.id, name: d.name, description: d.description },
    version: d.frozen_versions + 1,
    frozen: null,
    exhibits: rows.map(toExhibitView),
  };
}

/** The draft (no version), or a frozen version exactly as it was frozen. */
export async function showDossier(ctx: Ctx, actor: Actor, id: string, version?: number): Promise<DossierVersionView & { summary: DossierSummary }> {
  ctx.policy.require(actor, "dossier.read");
  const d = await loadDossier(ctx.db.db, id);
  if (version === undefined || (version === d.frozen_versions + 1 && d.changed_since_freeze)) return { ...(await draftOf(ctx.db.db, d)), summary: toSummary(d) };
  return { ...(await frozenVersion(ctx, id, version)), summary: toSummary(d) };
}

/** A frozen version (no policy check: callers ask first). */
export async function frozenVersion(ctx: Ctx, id: string, version: number): Promise<DossierVersionView> {
  const v = await ddb(ctx.db.db).selectFrom("dossier_versions").selectAll().where("dossier_id", "=", id).where("version", "=", version).executeTakeFirst();
  if (!v) throw new NotFound(say("dossier.noVersion", { version }));
  const snap = JSON.parse(v.snapshot) as Omit<DossierVersionView, "frozen">;
  return { ...snap, frozen: { at: v.frozen_at, by: v.frozen_by, note: v.note, sha256: v.sha256, eventSeq: Number(v.event_seq) } };
}

export type VersionSummary = contracts.VersionSummary;

export async function listVersions(ctx: Ctx, actor: Actor, id: string): Promise<{ dossier: DossierSummary; versions: VersionSummary[] }> {
  ctx.policy.require(actor, "dossier.read");
  const d = await loadDossier(ctx.db.db, id);
  const rows = await ddb(ctx.db.db).selectFrom("dossier_versions").selectAll().where("dossier_id", "=", id).orderBy("version").execute();
  return {
    dossier: toSummary(d),
    versions: rows.map((v) => {
      const ex = (JSON.parse(v.snapshot) as { exhibits: ExhibitView[] }).exhibits;
      return {
        version: v.version,
        frozenAt: v.frozen_at,
        frozenBy: v.frozen_by,
        note: v.note,
        sha256: v.sha256,
        eventSeq: Number(v.event_seq),
        exhibits: ex.filter((e) => e.status === "active").length,
        withdrawn: ex.filter((e) => e.status === "withdrawn").length,
      };
    }),
  };
}

/** Freezes the draft as the next version: an immutable snapshot whose SHA-256 goes into the custody log. */
export async function freezeDossier(ctx: Ctx, actor: Actor, sent: z.input<typeof contracts.FreezeDossierInput>): Promise<VersionSummary> {
  ctx.policy.require(actor, "dossier.edit");
  const input = parseInput(contracts.FreezeDossierInput, sent);
  const note = text(input.note);
  // A version fixes which photos a body exhibit shows: read before the transaction (the catalogue reads on its own).
  const bodies = await ddb(ctx.db.db).selectFrom("dossier_exhibits").select("ref").where("dossier_id", "=", input.id).where("kind", "=", "body").where("status", "=", "active").execute();
  const photos = new Map<string, string[]>();
  for (const b of bodies) photos.set(b.ref, (await getBody(ctx, actor, b.ref)).photos.map((p) => p.sha256));
  return ctx.db.transaction(async (tx) => {
    const d = await loadDossier(tx, input.id);
    if (d.frozen_versions > 0 && !d.changed_since_freeze) throw new Conflict(say("dossier.nothingToFreeze", { version: d.frozen_versions }));
    const draft = await draftOf(tx, d);
    for (const e of draft.exhibits) {
      if (e.kind !== "body" || e.status !== "active") continue;
      const ps = photos.get(e.ref);
      if (!ps) throw new Conflict(say("dossier.changedWhileFreezing"));
      e.photos = ps;
    }
    if (!draft.exhibits.some((e) => e.status === "active")) throw new Invalid(say("dossier.noExhibits"), "exhibits");
    const { frozen: _omit, ...snapshot } = draft;
    void _omit;
    const body = canonicalJson(snapshot);
    const sha256 = createHash("sha256").update(body, "utf8").digest("hex");
    const now = ctx.clock.now();
    const ev = await ctx.log.append(
      tx,
      custody("metadata modification", actor, now, [{ id: d.id, role: "dossier" }], { dossier: d.id, action: "dossier.freeze", version: draft.version, sha256, exhibits: draft.exhibits.filter((e) => e.status === "active").map((e) => e.number) }),
    );
    await ddb(tx).insertInto("dossier_versions").values({ dossier_id: d.id, version: draft.version, snapshot: body, sha256, note, frozen_by: actor.id, frozen_at: now.toISOString(), event_seq: ev.seq }).execute();
    await ddb(tx).updateTable("dossiers").set({ frozen_versions: draft.version, changed_since_freeze: 0, updated_at: now.toISOString() }).where("id", "=", d.id).where("frozen_versions", "=", d.frozen_versions).execute();
    const active = draft.exhibits.filter((e) => e.status === "active").length;
    return { version: draft.version, frozenAt: now.toISOString(), frozenBy: actor.id, note, sha256, eventSeq: ev.seq, exhibits: active, withdrawn: draft.exhibits.length - active };
  });
}
