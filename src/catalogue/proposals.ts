import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { Conflict, Invalid, NotFound } from "../core/errors.ts";
import { newId } from "../core/ids.ts";
import type { Tx } from "../db/database.ts";
import { actorNow } from "../access/index.ts";
import { secret } from "../ledger/index.ts";
import { cdb, type GroupingProposalsTable } from "./tables.ts";
import { recordChanges, recordManyChanges, type RecordChanges } from "./history.ts";
import { Vocabularies } from "./vocabularies.ts";
import { allocateRefs, bodiesHiddenFrom, detailOf, insertBody, photosHiddenFrom, type BodyDetail } from "./bodies.ts";
import { checkNumberValue, isNumberRole, normaliseNumber, type NewNumber, type NumberRole } from "./numbers.ts";
import { loadDefaultEngine, type CardReading, type CatalogueEngine, type PhotoForGrouping, type ProposedGroup, type ReadingEvidence } from "./engine.ts";
import { originalFacts, sourceExists } from "../archive/index.ts";
import * as contracts from "./contracts.ts";
import { parseInput } from "../core/input.ts";
import type { z } from "zod";
import { say } from "../core/messages.ts";

/**
 * Bodies from photos. Proposing runs the card reader over a source's photos not yet in a body, stores what it
 * read (photo_readings) and the groups it proposes (grouping_proposals). An investigator then accepts a proposal
 * (a body is created with its photos and numbers), rejects it, splits it into several, or merges several into
 * one. Proposals are never deleted: a decided proposal keeps its status and who decided it.
 */
export const JOB_PROPOSE = "catalogue.propose";

export type ProposalStatus = "proposed" | "accepted" | "split" | "merged" | "rejected";

export type ProposalView = contracts.ProposalView;

function toView(r: GroupingProposalsTable): ProposalView {
  return {
    id: r.id,
    sourceId: r.source_id,
    runId: r.run_id,
    position: r.position,
    photos: JSON.parse(r.photos) as string[],
    roles: JSON.parse(r.roles) as Record<string, string>,
    numbers: JSON.parse(r.numbers) as ProposalView["numbers"],
    reasons: JSON.parse(r.reasons) as ProposalView["reasons"],
    score: r.score,
    status: r.status as ProposalStatus,
    parents: JSON.parse(r.parents) as string[],
    bodyId: r.body_id,
    decidedBy: r.decided_by,
    decidedAt: r.decided_at,
    createdAt: r.created_at,
  };
}

/** Queues proposing for a source as a job (`catalogue.propose`) and returns its id; progress is on the job. */
export async function proposeGroupings(ctx: Ctx, actor: Actor, input: { sourceId: string }): Promise<{ jobId: string }> {
  ctx.policy.require(actor, "catalogue.group");
  if (!(await sourceExists(ctx.db.db, input.sourceId))) throw new NotFound(say("source.notFoundId", { source: input.sourceId }));
  const jobId = await ctx.jobs.enqueue(null, JOB_PROPOSE, { sourceId: input.sourceId, actor }, { dedupeKey: `${JOB_PROPOSE}:${input.sourceId}`, maxAttempts: 2 });
  return { jobId };
}

export interface RunProposals {
  sourceId: string;
  runId?: string;
  engine?: CatalogueEngine;
  onProgress?: (done: number, total: number, note?: string) => void;
  signal?: AbortSignal;
  /** Photos read at once (OCR is CPU-bound; more than the cores helps nothing). */
  concurrency?: number;
}

export interface ProposalRun {
  runId: string;
  photos: number;
  readings: number;
  proposals: number;
  superseded: number;
}

interface SourcePhoto {
  sha256: string;
  capture_time: string | null;
  phash: string | null;
  width: number | null;
  height: number | null;
  path: string;
}

/** The source's preserved images that are in no body yet, one row per original (the first sighting's name). */
async function unassignedPhotos(tx: Tx, sourceId: string): Promise<SourcePhoto[]> {
  const rows = await cdb(tx)
    .selectFrom("sightings")
    .innerJoin("originals", "originals.sha256", "sightings.original_sha256")
    .leftJoin("body_photos", "body_photos.original_sha256", "originals.sha256")
    .select(["originals.sha256", "originals.capture_time", "originals.phash", "originals.width", "originals.height", "sightings.path", "sightings.entry_no"])
    .where("sightings.source_id", "=", sourceId)
    .where("originals.media_kind", "=", "image")
    .where("originals.status", "=", "preserved")
    .where("body_photos.body_id", "is", null)
    .orderBy("sightings.entry_no")
    .execute();
  const seen = new Set<string>();
  const out: SourcePhoto[] = [];
  for (const r of rows) {
    if (seen.has(r.sha256)) continue;
    seen.add(r.sha256);
    out.push(r);
  }
  return out;
}

/**
 * Reads every unassigned photo of the source and stores the proposals of this run; earlier undecided proposals
 * of the source are superseded (marked rejected, with this run named). The work of the `catalogue.propose` job.
 */
export async function runProposals(ctx: Ctx, actor: Actor, input: RunProposals): Promise<ProposalRun> {
  ctx.policy.require(actor, "catalogue.group");
  if (!(await sourceExists(ctx.db.db, input.sourceId))) throw new NotFound(say("source.notFoundId", { source: input.sourceId }));
  const runId = input.runId ?? newId("run");
  const photos = await unassignedPhotos(ctx.db.db, input.sourceId);
  const engine = input.engine ?? (await loadDefaultEngine());
  const readings = await readBefore(ctx.db.db, engine.readerName, photos.map((p) => p.sha256));
  try {
    const unread = photos.filter((p) => !readings.has(p.sha256));
    let done = photos.length - unread.length;
    let next = 0;
    input.onProgress?.(done, photos.length, "reading cards");
    // Each reading is kept as it is made (in small batches), so a run that stops resumes where it was.
    const keep = new ReadsBuffer(ctx, engine.readerName);
    const workers = Array.from({ length: Math.min(Math.max(1, input.concurrency ?? 2), Math.max(1, unread.length)) }, async () => {
      while (next < unread.length) {
        if (input.signal?.aborted) throw new Error("proposing was cancelled");
        const p = unread[next++]!;
        const bytes = await ctx.blobs.read(p.sha256);
        const found = (await engine.readCard(bytes, p.sha256)).filter((r) => isNumberRole(r.role) && r.value.trim() !== "");
        readings.set(p.sha256, found);
        await keep.add(p.sha256, found);
        input.onProgress?.(++done, photos.length, "reading cards");
      }
    });
    try {
      await Promise.all(workers);
    } finally {
      await keep.flush();
    }
    const forGrouping: PhotoForGrouping[] = photos.map((p) => ({
      sha256: p.sha256,
      captureTime: p.capture_time,
      path: p.path.replace(/\\/g, "/"),
      phash: p.phash,
      width: p.width,
      height: p.height,
      readings: readings.get(p.sha256) ?? [],
    }));
    const groups = await engine.group(forGrouping);
    checkGroups(groups, new Set(photos.map((p) => p.sha256)));
    return await storeRun(ctx, actor, input.sourceId, runId, engine.readerName, photos.map((p) => p.sha256), readings, groups);
  } finally {
    if (!input.engine) await engine.close();
  }
}

/** What this reader made of these photos in earlier runs (card_reads): the photos it need not read again. */
async function readBefore(tx: Tx, reader: string, photos: string[]): Promise<Map<string, CardReading[]>> {
  const out = new Map<string, CardReading[]>();
  for (let i = 0; i < photos.length; i += 500) {
    const rows = await cdb(tx)
      .selectFrom("card_reads")
      .select(["original_sha256", "readings"])
      .where("reader", "=", reader)
      .where("original_sha256", "in", photos.slice(i, i + 500))
      .execute();
    for (const r of rows) out.set(r.original_sha256, JSON.parse(r.readings) as CardReading[]);
  }
  return out;
}

/** Readings written as they come, a batch at a time: one transaction per photo would cost more than it keeps. */
class ReadsBuffer {
  private rows: { original_sha256: string; reader: string; readings: string; read_at: string }[] = [];
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly ctx: Ctx,
    private readonly reader: string,
  ) {}

  async add(sha256: string, found: CardReading[]): Promise<void> {
    this.rows.push({ original_sha256: sha256, reader: this.reader, readings: JSON.stringify(found), read_at: this.ctx.clock.now().toISOString() });
    if (this.rows.length >= READS_BATCH) await this.flush();
  }

  async flush(): Promise<void> {
    const rows = this.rows;
    this.rows = [];
    this.writing = this.writing.then(async () => {
      if (rows.length === 0) return;
      await cdb(this.ctx.db.db)
        .insertInto("card_reads")
        .values(rows)
        .onConflict((oc) => oc.columns(["original_sha256", "reader"]).doNothing())
        .execute();
    });
    await this.writing;
  }
}

/** Photos whose readings are written together (a stop loses at most this many readings). */
const READS_BATCH = 25;

/** A reading a body can carry (digits where the role needs them); others stay in photo_readings only. */
function usable(role: NumberRole, value: string): boolean {
  try {
    checkNumberValue(role, value);
    return true;
  } catch {
    return false;
  }
}

function checkGroups(groups: ProposedGroup[], known: Set<string>): void {
  const used = new Set<string>();
  for (const g of groups) {
    for (const sha of g.photos) {
      if (!known.has(sha)) throw new Error(`the grouper proposed a photo that was not given to it (${sha.slice(0, 12)}…)`);
      if (used.has(sha)) throw new Error(`the grouper put one photo in two groups (${sha.slice(0, 12)}…)`);
      used.add(sha);
    }
  }
}

async function storeRun(
  ctx: Ctx,
  actor: Actor,
  sourceId: string,
  runId: string,
  reader: string,
  photos: string[],
  readings: Map<string, CardReading[]>,
  groups: ProposedGroup[],
): Promise<ProposalRun> {
  return ctx.db.transaction(async (tx) => {
    const db = cdb(tx);
    const now = ctx.clock.now().toISOString();
    const superseded = await db
      .updateTable("grouping_proposals")
      .set({ status: "rejected", decided_by: actor.id, decided_at: now })
      .where("source_id", "=", sourceId)
      .where("status", "=", "proposed")
      .executeTakeFirst();
    const readingRows = photos.flatMap((sha) =>
      (readings.get(sha) ?? []).map((r) => ({
        id: newId("rdg"),
        original_sha256: sha,
        source_id: sourceId,
        job_id: runId,
        reader,
        role: r.role,
        value: r.value.trim(),
        value_norm: normaliseNumber(r.value),
        confidence: r.confidence,
        read_at: now,
        evidence: r.evidence ? JSON.stringify(r.evidence) : null,
      })),
    );
    for (let i = 0; i < readingRows.length; i += 200) await db.insertInto("photo_readings").values(readingRows.slice(i, i + 200)).execute();
    const rows: GroupingProposalsTable[] = groups
      .filter((g) => g.photos.length > 0)
      .map((g, i) => ({
        id: newId("gp"),
        source_id: sourceId,
        run_id: runId,
        position: i + 1,
        photos: JSON.stringify(g.photos),
        roles: JSON.stringify(g.roles ?? {}),
        numbers: JSON.stringify(
          g.numbers
            .filter((n) => isNumberRole(n.role) && usable(n.role, n.value))
            .map((n) => ({ role: n.role, value: n.value.trim(), valueNorm: normaliseNumber(n.value), confidence: n.confidence, photo: n.photo })),
        ),
        reasons: JSON.stringify(g.reasons),
        score: g.score,
        status: "proposed",
        parents: "[]",
        body_id: null,
        decided_by: null,
        decided_at: null,
        created_at: now,
        created_by: actor.id,
      }));
    for (let i = 0; i < rows.length; i += 200) await db.insertInto("grouping_proposals").values(rows.slice(i, i + 200)).execute();
    const run: ProposalRun = { runId, photos: photos.length, readings: readingRows.length, proposals: rows.length, superseded: Number(superseded.numUpdatedRows) };
    await recordChanges(ctx, tx, actor, {
      action: "grouping.propose",
      objects: [{ id: sourceId, role: "source" }],
      changes: [],
      detail: { run: runId, reader, photos: run.photos, readings: run.readings, proposals: run.proposals, superseded: run.superseded },
    });
    return run;
  });
}

export interface ListProposals {
  sourceId: string;
  status?: ProposalStatus;
  /** Keyset: proposals after this position. */
  after?: number;
  limit?: number;
}

export async function listProposals(ctx: Ctx, actor: Actor, input: ListProposals): Promise<{ items: ProposalView[]; next: number | null }> {
  ctx.policy.require(actor, "catalogue.read");
  const limit = Math.min(Math.max(input.limit ?? 100, 1), 500);
  let q = cdb(ctx.db.db).selectFrom("grouping_proposals").selectAll().where("source_id", "=", input.sourceId).orderBy("position").orderBy("id").limit(limit + 1);
  if (input.status) q = q.where("status", "=", input.status);
  if (input.after !== undefined) q = q.where("position", ">", input.after);
  const rows = await q.execute();
  const page = rows.slice(0, limit);
  const hidden = await proposalsHiddenFrom(ctx, actor, page);
  return { items: page.filter((p) => !hidden.has(p.id)).map(toView), next: rows.length > limit ? page[page.length - 1]!.position : null };
}

export async function getProposal(ctx: Ctx, actor: Actor, id: string): Promise<ProposalView> {
  ctx.policy.require(actor, "catalogue.read");
  return toView(await loadProposal(ctx.db.db, id, { ctx, actor }));
}

/** Proposals that made, or hold photos of, a body above the actor's clearance: they follow the body's marking. */
async function proposalsHiddenFrom(ctx: Ctx, actor: Actor, rows: readonly GroupingProposalsTable[], tx: Tx = ctx.db.db): Promise<Set<string>> {
  const bodies = await bodiesHiddenFrom(ctx, actor, rows.flatMap((r) => (r.body_id ? [r.body_id] : [])), tx);
  const photos = await photosHiddenFrom(ctx, actor, rows.flatMap((r) => JSON.parse(r.photos) as string[]), tx);
  if (bodies.size === 0 && photos.size === 0) return new Set();
  return new Set(rows.filter((r) => (r.body_id && bodies.has(r.body_id)) || (JSON.parse(r.photos) as string[]).some((sha) => photos.has(sha))).map((r) => r.id));
}

/** A proposal by id; one the reader may not see (its body is above their clearance) is "not found". */
async function loadProposal(tx: Tx, id: string, reader?: { ctx: Ctx; actor: Actor }): Promise<GroupingProposalsTable> {
  const row = await cdb(tx).selectFrom("grouping_proposals").selectAll().where("id", "=", id).executeTakeFirst();
  if (!row || (reader && (await proposalsHiddenFrom(reader.ctx, reader.actor, [row], tx)).has(row.id))) throw new NotFound(say("proposal.notFound", { id }));
  return row;
}

function requireUndecided(p: GroupingProposalsTable): void {
  if (p.status === "accepted") throw new Conflict(say("proposal.alreadyAccepted"));
  if (p.status === "rejected") throw new Conflict(say("proposal.alreadyRejected"));
  if (p.status !== "proposed") throw new Conflict(say("proposal.alreadyDecided"));
}

/** The local date of a capture time as written by the camera ("2012-05-03T10:11:12+03:00" → "2012-05-03"). */
function localDate(captureTime: string | null): string | null {
  return captureTime && /^\d{4}-\d{2}-\d{2}/.test(captureTime) ? captureTime.slice(0, 10) : null;
}

async function acceptOne(
  ctx: Ctx,
  tx: Tx,
  actor: Actor,
  p: GroupingProposalsTable,
  vocab: Vocabularies,
  refNo: number,
): Promise<{ bodyId: string; record: RecordChanges }> {
  requireUndecided(p);
  const view = toView(p);
  const db = cdb(tx);
  const taken = await db.selectFrom("body_photos").innerJoin("bodies", "bodies.id", "body_photos.body_id").select(["bodies.ref", "body_photos.original_sha256"]).where("body_photos.original_sha256", "in", view.photos).execute();
  if (taken.length) {
    throw new Conflict(say("proposal.photoTaken", { sha256: taken[0]!.original_sha256.slice(0, 12), id: p.id, ref: taken[0]!.ref }));
  }
  const captured = [...(await originalFacts(tx, view.photos)).values()].map((o) => o.captureTime).filter((t): t is string => t !== null).sort();
  const first = captured.length ? { capture_time: captured[0]! } : undefined;
  const readerId = `system:ocr:${p.run_id}`;
  const numbers: NewNumber[] = view.numbers.map((n) => ({
    role: n.role,
    value: checkNumberValue(n.role, n.value),
    sourceSha256: n.photo,
    method: "ocr",
    confidence: n.confidence,
    origin: `proposal:${p.id}`,
    enteredBy: readerId,
  }));
  const { row, record } = await insertBody(
    ctx,
    tx,
    actor,
    {
      sourceId: p.source_id,
      photos: view.photos.map((sha) => ({ sha256: sha, role: view.roles[sha] ?? "other" })),
      numbers,
      photoDate: localDate(first?.capture_time ?? null),
    },
    { refNo, vocab, action: "grouping.accept", detail: { proposal: p.id } },
  );
  const now = ctx.clock.now().toISOString();
  await db.updateTable("grouping_proposals").set({ status: "accepted", body_id: row.id, decided_by: actor.id, decided_at: now }).where("id", "=", p.id).execute();
  record.changes.push({ recordType: "proposal", recordId: p.id, field: "status", old: "proposed", new: "accepted" });
  record.objects.push({ id: p.id, role: "proposal" });
  return { bodyId: row.id, record };
}

/** Accepts a proposal: a body is created with its photos and the numbers read from them (OCR, unchecked). */
export async function acceptProposal(ctx: Ctx, actor: Actor, input: { proposalId: string }): Promise<BodyDetail> {
  ctx.policy.require(actor, "catalogue.group");
  return ctx.db.transaction(async (tx) => {
    const p = await loadProposal(tx, input.proposalId, { ctx, actor });
    const vocab = await Vocabularies.load(tx);
    const refNo = await allocateRefs(tx, 1);
    const { bodyId, record } = await acceptOne(ctx, tx, actor, p, vocab, refNo);
    await recordChanges(ctx, tx, actor, record);
    const row = await cdb(tx).selectFrom("bodies").selectAll().where("id", "=", bodyId).executeTakeFirstOrThrow();
    return detailOf(tx, row);
  });
}

/** Accepts several proposals at once (all or none): one body and one custody event each. */
export async function acceptProposals(ctx: Ctx, actor: Actor, sent: z.input<typeof contracts.AcceptProposalsInput>): Promise<{ bodies: { proposalId: string; bodyId: string }[] }> {
  ctx.policy.require(actor, "catalogue.group");
  const input = parseInput(contracts.AcceptProposalsInput, sent);
  const ids = [...new Set(input.proposalIds)];
  return ctx.db.transaction(async (tx) => {
    const vocab = await Vocabularies.load(tx);
    const first = await allocateRefs(tx, ids.length);
    const records: RecordChanges[] = [];
    const bodies: { proposalId: string; bodyId: string }[] = [];
    for (const [i, id] of ids.entries()) {
      const p = await loadProposal(tx, id, { ctx, actor });
      const { bodyId, record } = await acceptOne(ctx, tx, actor, p, vocab, first + i);
      records.push(record);
      bodies.push({ proposalId: id, bodyId });
    }
    await recordManyChanges(ctx, tx, actor, records);
    return { bodies };
  });
}

export async function rejectProposal(ctx: Ctx, actor: Actor, sent: z.input<typeof contracts.RejectProposalInput>): Promise<ProposalView> {
  ctx.policy.require(actor, "catalogue.group");
  const input = parseInput(contracts.RejectProposalInput, sent);
  return ctx.db.transaction(async (tx) => {
    const p = await loadProposal(tx, input.proposalId, { ctx, actor });
    requireUndecided(p);
    const now = ctx.clock.now().toISOString();
    await cdb(tx).updateTable("grouping_proposals").set({ status: "rejected", decided_by: actor.id, decided_at: now }).where("id", "=", p.id).execute();
    await recordChanges(ctx, tx, actor, {
      action: "grouping.reject",
      objects: [{ id: p.id, role: "proposal" }, { id: p.source_id, role: "source" }],
      changes: [{ recordType: "proposal", recordId: p.id, field: "status", old: "proposed", new: "rejected" }],
      ...(input.reason ? { detail: { reason: secret(input.reason.slice(0, 500)) } } : {}),
    });
    return toView({ ...p, status: "rejected", decided_by: actor.id, decided_at: now });
  });
}

function newProposal(ctx: Ctx, actor: Actor, base: GroupingProposalsTable, photos: string[], from: ProposalView[], position: number): GroupingProposalsTable {
  const set = new Set(photos);
  const roles: Record<string, string> = {};
  const numbers: ProposalView["numbers"] = [];
  const reasons: ProposalView["reasons"] = [];
  for (const f of from) {
    for (const [sha, role] of Object.entries(f.roles)) if (set.has(sha)) roles[sha] = role;
    for (const n of f.numbers) if (set.has(n.photo) && !numbers.some((m) => m.role === n.role && m.valueNorm === n.valueNorm)) numbers.push(n);
    for (const r of f.reasons) if (!reasons.some((x) => x.code === r.code && x.text === r.text)) reasons.push(r);
  }
  return {
    ...base,
    id: newId("gp"),
    position,
    photos: JSON.stringify(photos),
    roles: JSON.stringify(roles),
    numbers: JSON.stringify(numbers),
    reasons: JSON.stringify([...reasons, { code: from.length > 1 ? "merged-by-person" : "split-by-person", text: `${from.length > 1 ? "merged" : "split"} by ${actor.id}` }]),
    score: null,
    status: "proposed",
    parents: JSON.stringify(from.map((f) => f.id)),
    body_id: null,
    decided_by: null,
    decided_at: null,
    created_at: ctx.clock.now().toISOString(),
    created_by: actor.id,
  };
}

/** Splits a proposal into parts (every photo in exactly one part); the parts are new proposals. */
export async function splitProposal(ctx: Ctx, actor: Actor, sent: z.input<typeof contracts.SplitProposalInput>): Promise<ProposalView[]> {
  ctx.policy.require(actor, "catalogue.group");
  const input = parseInput(contracts.SplitProposalInput, sent);
  return ctx.db.transaction(async (tx) => {
    const p = await loadProposal(tx, input.proposalId, { ctx, actor });
    requireUndecided(p);
    const view = toView(p);
    const parts = input.parts.filter((x) => x.length > 0);
    if (parts.length < 2) throw new Invalid(say("proposal.splitTwoParts"), "parts");
    const all = parts.flat();
    if (new Set(all).size !== all.length) throw new Invalid(say("proposal.photoTwice"), "parts");
    const have = new Set(view.photos);
    if (all.length !== have.size || !all.every((s) => have.has(s))) throw new Invalid(say("proposal.partsExact"), "parts");
    const rows = parts.map((photos) => newProposal(ctx, actor, p, view.photos.filter((s) => photos.includes(s)), [view], p.position));
    const now = ctx.clock.now().toISOString();
    await cdb(tx).updateTable("grouping_proposals").set({ status: "split", decided_by: actor.id, decided_at: now }).where("id", "=", p.id).execute();
    await cdb(tx).insertInto("grouping_proposals").values(rows).execute();
    await recordChanges(ctx, tx, actor, {
      action: "grouping.split",
      objects: [{ id: p.id, role: "proposal" }, ...rows.map((r) => ({ id: r.id, role: "proposal" }))],
      changes: [
        { recordType: "proposal", recordId: p.id, field: "status", old: "proposed", new: "split" },
        ...rows.map((r) => ({ recordType: "proposal", recordId: r.id, field: "photos", old: null, new: JSON.parse(r.photos) as string[] })),
      ],
    });
    return rows.map(toView);
  });
}

/** Merges proposals of one source into a new proposal holding all their photos (in capture order). */
export async function mergeProposals(ctx: Ctx, actor: Actor, sent: z.input<typeof contracts.MergeProposalsInput>): Promise<ProposalView> {
  ctx.policy.require(actor, "catalogue.group");
  const input = parseInput(contracts.MergeProposalsInput, sent);
  const ids = [...new Set(input.proposalIds)];
  if (ids.length < 2) throw new Invalid(say("proposal.mergeTwo"), "proposalIds");
  return ctx.db.transaction(async (tx) => {
    const rows = [];
    for (const id of ids) {
      const p = await loadProposal(tx, id, { ctx, actor });
      requireUndecided(p);
      rows.push(p);
    }
    if (new Set(rows.map((r) => r.source_id)).size > 1) throw new Invalid(say("proposal.mergeSameSource"), "proposalIds");
    const views = rows.map(toView);
    const photos = views.flatMap((v) => v.photos);
    const times = new Map(
      [...(await originalFacts(tx, photos)).values()].map((o) => [o.sha256, o.captureTime ?? ""]),
    );
    const ordered = [...photos].sort((a, b) => {
      const ta = times.get(a) ?? "";
      const tb = times.get(b) ?? "";
      return ta < tb ? -1 : ta > tb ? 1 : photos.indexOf(a) - photos.indexOf(b);
    });
    const base = rows.reduce((a, b) => (a.position <= b.position ? a : b));
    const merged = newProposal(ctx, actor, base, ordered, views, base.position);
    const now = ctx.clock.now().toISOString();
    await cdb(tx).updateTable("grouping_proposals").set({ status: "merged", decided_by: actor.id, decided_at: now }).where("id", "in", ids).execute();
    await cdb(tx).insertInto("grouping_proposals").values(merged).execute();
    await recordChanges(ctx, tx, actor, {
      action: "grouping.merge",
      objects: [...ids.map((id) => ({ id, role: "proposal" })), { id: merged.id, role: "proposal" }],
      changes: [
        ...ids.map((id) => ({ recordType: "proposal", recordId: id, field: "status", old: "proposed", new: "merged" })),
        { recordType: "proposal", recordId: merged.id, field: "photos", old: null, new: ordered },
      ],
    });
    return toView(merged);
  });
}

/** The readings stored for a photo (all runs), newest first. */
export async function readingsOf(
  ctx: Ctx,
  actor: Actor,
  sha256: string,
): Promise<{ role: string; value: string; confidence: number | null; reader: string; readAt: string; evidence: ReadingEvidence | null }[]> {
  ctx.policy.require(actor, "catalogue.read");
  // a card's numbers tie a person to a branch: a photo of a body above the reader's clearance has no readings for them
  if ((await photosHiddenFrom(ctx, actor, [sha256])).size) return [];
  const rows = await cdb(ctx.db.db).selectFrom("photo_readings").selectAll().where("original_sha256", "=", sha256).orderBy("read_at", "desc").orderBy("role").execute();
  return rows.map((r) => ({
    role: r.role,
    value: r.value,
    confidence: r.confidence,
    reader: r.reader,
    readAt: r.read_at,
    evidence: r.evidence ? (JSON.parse(r.evidence) as ReadingEvidence) : null,
  }));
}

/**
 * The job handler: the payload's actor is checked again when the job runs (roles may have changed). `engine`
 * replaces the OCR and grouping (tests, or an embedder with its own reader); by default it is loaded per run.
 */
export function registerCatalogueJobs(ctx: Ctx, opts: { engine?: () => Promise<CatalogueEngine> } = {}): void {
  ctx.jobs.register(JOB_PROPOSE, async (jc) => {
    const p = jc.job.payload as { sourceId: string; actor: Actor };
    const actor = await actorNow(ctx.db.db, p.actor);
    let last = 0;
    const engine = opts.engine ? await opts.engine() : undefined;
    try {
      return await runProposals(ctx, actor, {
        sourceId: p.sourceId,
        runId: jc.job.id,
        ...(engine ? { engine } : {}),
        signal: jc.signal,
        onProgress: (done, total, note) => {
          const now = Date.now();
          if (now - last > 500 || done === total) {
            last = now;
            void jc.progress(done, total, note);
          }
        },
      });
    } finally {
      await engine?.close();
    }
  });
}
