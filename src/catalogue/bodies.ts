import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { Conflict, Forbidden, Invalid, NotFound } from "../core/errors.ts";
import { newId } from "../core/ids.ts";
import { sql } from "kysely";
import type { Sensitivity } from "../access/index.ts";
import type { Tx } from "../db/database.ts";
import type { EventObject } from "../ledger/index.ts";
import { secret } from "../ledger/index.ts";
import { cdb, type BodiesTable, type BodyFindingsTable } from "./tables.ts";
import { recordChanges, type Change, type RecordChanges } from "./history.ts";
import { Vocabularies } from "./vocabularies.ts";
import { checkMark, withReviewClothing, withReviewMarks, type Mark } from "./marks.ts";
import { monthOf, parseFuzzyDate, type FuzzyDate } from "./dates.ts";
import { insertNumbers, normaliseNumber, numbersOf, refreshCurrentNumbers, type NewNumber } from "./numbers.ts";
import { bodySearchText, findingCodesText, refreshSearchText } from "./search-index.ts";
import { documentsOf } from "./documents.ts";
import { identificationsOf, moveIdentificationOnMerge, standingIdentification } from "./identifications.ts";
import {
  IDENTIFICATION_STATUSES,
  REVIEW_STATUSES,
  SEXES,
  oneOf,
  resourceOf,
  sensitivityOf,
  type IdentificationStatus,
  type ReviewStatus,
  type Sex,
} from "./records.ts";
import { SENSITIVITIES } from "../access/index.ts";
import { originalFacts } from "../archive/index.ts";
import * as contracts from "./contracts.ts";
import { parseInput } from "../core/input.ts";
import type { z } from "zod";
import { say } from "../core/messages.ts";

/**
 * Body records (post-mortem): the person shown in a group of photos. Created by accepting a grouping proposal,
 * by a CSV import, or by splitting a body; never deleted (a merged record points to the one it went into).
 * Every change goes through `updateBodyInTx`, which validates, keeps the old and new value of each field and
 * appends one custody event, in the caller's transaction. Reads carry no image bytes: photos are SHA-256
 * references, fetched (blurred or revealed) through the archive and access modules.
 */
export type BodyView = contracts.BodyView;

export type BodyPhoto = contracts.BodyPhoto;

export type BodyDetail = contracts.BodyDetail;

/** The fields a person edits. Numbers change through numbers.ts (each reading is its own record). */
export interface BodyPatch {
  externalRef?: string | null;
  /** A hospital code, label or alias. */
  hospital?: string | null;
  photoDate?: string | null;
  deathDate?: string | null;
  sex?: Sex | null;
  ageMin?: number | null;
  ageMax?: number | null;
  marks?: Mark[];
  clothing?: string | null;
  injuries?: string[];
  identificationStatus?: IdentificationStatus;
  nameAr?: string | null;
  nameLat?: string | null;
  notes?: string | null;
  sensitivity?: Sensitivity;
}

/**
 * What other modules may also set, in their own transaction: forensic review (status, findings, and the marks and
 * clothing a settled review recorded: added to the body's, never replacing them).
 */
export interface SystemBodyPatch extends BodyPatch {
  reviewStatus?: ReviewStatus;
  reviewFindings?: string[];
  reviewMarks?: Mark[];
  reviewClothing?: string | null;
}

export const EDITABLE_FIELDS = [
  "externalRef",
  "hospital",
  "photoDate",
  "deathDate",
  "sex",
  "ageMin",
  "ageMax",
  "marks",
  "clothing",
  "injuries",
  "identificationStatus",
  "nameAr",
  "nameLat",
  "notes",
  "sensitivity",
] as const;

const MAX_TEXT = 4000;
const MAX_NAME = 300;
const MAX_AGE = 120;

function text(v: string | null | undefined, field: string, max = MAX_TEXT): string | null {
  if (v === null || v === undefined) return null;
  const t = v.trim();
  if (t === "") return null;
  if (t.length > max) throw new Invalid(say("field.tooLong", { field, max }), field);
  return t;
}

function age(v: number | null | undefined, field: string): number | null {
  if (v === null || v === undefined) return null;
  if (!Number.isInteger(v) || v < 0 || v > MAX_AGE) throw new Invalid(say("field.age", { field, max: MAX_AGE }), field);
  return v;
}

export function toBodyView(r: BodiesTable, findings: Pick<BodyFindingsTable, "code" | "source">[]): BodyView {
  return {
    id: r.id,
    ref: r.ref,
    refNo: r.ref_no,
    externalRef: r.external_ref,
    sourceId: r.source_id,
    detaineeNo: r.detainee_no,
    detaineeNoNorm: r.detainee_no_norm,
    branchNo: r.branch_no,
    branchNoNorm: r.branch_no_norm,
    examinerNo: r.examiner_no,
    examinerNoNorm: r.examiner_no_norm,
    hospital: r.hospital,
    photoDate: r.photo_date,
    photoMonth: r.photo_month,
    deathDate: r.death_date ? { text: r.death_date, earliest: r.death_date_earliest ?? "", latest: r.death_date_latest ?? "" } : null,
    sex: r.sex as Sex | null,
    ageMin: r.age_min,
    ageMax: r.age_max,
    marks: JSON.parse(r.marks) as Mark[],
    clothing: r.clothing,
    injuries: findings.filter((f) => f.source === "observed").map((f) => f.code).sort(),
    reviewFindings: findings.filter((f) => f.source === "review").map((f) => f.code).sort(),
    identificationStatus: r.identification_status as IdentificationStatus,
    nameAr: r.name_ar,
    nameLat: r.name_lat,
    reviewStatus: r.review_status as ReviewStatus,
    notes: r.notes,
    sensitivity: sensitivityOf(r.sensitivity),
    mergedInto: r.merged_into,
    version: r.version,
    createdAt: r.created_at,
    createdBy: r.created_by,
    updatedAt: r.updated_at,
  };
}

/** The value of a field as history records it (what the API shows), from a row and its findings. */
function fieldValue(view: BodyView, field: string): unknown {
  if (field === "deathDate") return view.deathDate?.text ?? null;
  return (view as unknown as Record<string, unknown>)[field] ?? null;
}

/** Validates a patch into column values and finding sets. Throws Invalid naming the field. */
function applyPatch(
  current: BodiesTable,
  patch: SystemBodyPatch,
  vocab: Vocabularies,
): { set: Partial<BodiesTable>; injuries?: string[]; reviewFindings?: string[] } {
  const set: Partial<BodiesTable> = {};
  const has = (k: keyof SystemBodyPatch) => Object.prototype.hasOwnProperty.call(patch, k) && patch[k] !== undefined;
  if (has("externalRef")) {
    const v = text(patch.externalRef, "externalRef", 100);
    if (v && /^B-\d+$/i.test(v)) throw new Invalid(say("body.partnerRefLooksOurs", { ref: v }), "externalRef");
    set.external_ref = v;
  }
  if (has("hospital")) set.hospital = patch.hospital ? vocab.require("hospital", patch.hospital, "hospital").code : null;
  if (has("photoDate")) {
    const d = parseFuzzyDateField(patch.photoDate, "photoDate");
    if (d && d.text.includes("/")) throw new Invalid(say("body.photoDateRange"), "photoDate");
    if (d && /[a-z]/.test(d.text)) throw new Invalid(say("body.photoDateSeason"), "photoDate");
    set.photo_date = d?.text ?? null;
    set.photo_month = monthOf(d);
  }
  if (has("deathDate")) {
    const d = parseFuzzyDateField(patch.deathDate, "deathDate");
    set.death_date = d?.text ?? null;
    set.death_date_earliest = d?.earliest ?? null;
    set.death_date_latest = d?.latest ?? null;
  }
  if (has("sex")) set.sex = patch.sex ? oneOf(SEXES, patch.sex, "sex") : null;
  if (has("ageMin")) set.age_min = age(patch.ageMin, "ageMin");
  if (has("ageMax")) set.age_max = age(patch.ageMax, "ageMax");
  const amin = set.age_min !== undefined ? set.age_min : current.age_min;
  const amax = set.age_max !== undefined ? set.age_max : current.age_max;
  if (amin !== null && amax !== null && amin > amax) throw new Invalid(say("body.ageRange", { min: amin, max: amax }), "ageMin");
  if (has("marks")) {
    if (!Array.isArray(patch.marks) || patch.marks.length > 50) throw new Invalid(say("body.marksList"), "marks");
    // a mark kept as it was keeps where it came from (an edit cannot say a mark came from review)
    const was = new Map((JSON.parse(current.marks) as Mark[]).filter((m) => m.source).map((m) => [`${m.type}|${m.region ?? ""}|${m.description}`, m.source]));
    set.marks = JSON.stringify(
      patch.marks.map((m) => {
        const c = checkMark({ type: m.type, region: m.region ?? null, description: m.description ?? "" }, vocab);
        const source = was.get(`${c.type}|${c.region ?? ""}|${c.description}`);
        return source ? { ...c, source } : c;
      }),
    );
  }
  if (has("reviewMarks")) {
    if (!Array.isArray(patch.reviewMarks) || patch.reviewMarks.length > 50) throw new Invalid(say("body.marksList"), "marks");
    const before = JSON.parse(set.marks ?? current.marks) as Mark[];
    const after = withReviewMarks(before, patch.reviewMarks!, vocab);
    if (after.length > 50) throw new Invalid(say("body.marksList"), "marks");
    if (after.length !== before.length) set.marks = JSON.stringify(after);
  }
  if (has("clothing")) set.clothing = text(patch.clothing, "clothing");
  if (has("reviewClothing")) {
    const after = withReviewClothing(set.clothing !== undefined ? set.clothing : current.clothing, patch.reviewClothing ?? "");
    if (after !== current.clothing) set.clothing = text(after, "clothing");
  }
  if (has("identificationStatus")) {
    set.identification_status = oneOf(IDENTIFICATION_STATUSES, patch.identificationStatus!, "identificationStatus");
  }
  if (has("nameAr")) set.name_ar = text(patch.nameAr, "nameAr", MAX_NAME);
  if (has("nameLat")) set.name_lat = text(patch.nameLat, "nameLat", MAX_NAME);
  if (has("notes")) set.notes = text(patch.notes, "notes");
  if (has("sensitivity")) set.sensitivity = oneOf(SENSITIVITIES, patch.sensitivity!, "sensitivity");
  if (has("reviewStatus")) set.review_status = oneOf(REVIEW_STATUSES, patch.reviewStatus!, "reviewStatus");
  const findings = (list: string[] | undefined, field: string): string[] | undefined => {
    if (list === undefined) return undefined;
    if (!Array.isArray(list) || list.length > 50) throw new Invalid(say("field.findingCodes", { field }), field);
    return [...new Set(list.map((c) => vocab.require("finding", c, field).code))].sort();
  };
  return { set, injuries: findings(patch.injuries, "injuries"), reviewFindings: findings(patch.reviewFindings, "reviewFindings") };
}

function parseFuzzyDateField(v: string | null | undefined, field: string): FuzzyDate | null {
  try {
    return parseFuzzyDate(v);
  } catch (err) {
    if (err instanceof Invalid) {
      // the field named for the CLI, the date's own key kept for the screen
      const named = new Invalid(`${field}: ${err.message}`, field);
      throw err.key ? named.says(err.key, err.params) : named;
    }
    throw err;
  }
}

async function findingsOf(tx: Tx, bodyIds: string[]): Promise<Map<string, Pick<BodyFindingsTable, "code" | "source">[]>> {
  const out = new Map<string, Pick<BodyFindingsTable, "code" | "source">[]>();
  for (let i = 0; i < bodyIds.length; i += 500) {
    const rows = await cdb(tx).selectFrom("body_findings").select(["body_id", "code", "source"]).where("body_id", "in", bodyIds.slice(i, i + 500)).execute();
    for (const r of rows) {
      let l = out.get(r.body_id);
      if (!l) out.set(r.body_id, (l = []));
      l.push({ code: r.code, source: r.source });
    }
  }
  return out;
}

async function setFindings(tx: Tx, bodyId: string, source: "observed" | "review", codes: string[], at: string, by: string): Promise<void> {
  const db = cdb(tx);
  await db.deleteFrom("body_findings").where("body_id", "=", bodyId).where("source", "=", source).execute();
  if (codes.length) {
    await db
      .insertInto("body_findings")
      .values(codes.map((code) => ({ body_id: bodyId, code, source, added_at: at, added_by: by })))
      .execute();
  }
  await refreshFindingCodes(tx, bodyId);
}

async function refreshFindingCodes(tx: Tx, bodyId: string): Promise<void> {
  const db = cdb(tx);
  const all = await db.selectFrom("body_findings").select("code").where("body_id", "=", bodyId).execute();
  await db.updateTable("bodies").set({ finding_codes: findingCodesText(all.map((f) => f.code)) }).where("id", "=", bodyId).execute();
}

async function loadRow(tx: Tx, id: string): Promise<BodiesTable> {
  const row = await cdb(tx).selectFrom("bodies").selectAll().where("id", "=", id).executeTakeFirst();
  if (!row) throw new NotFound(`No body with id ${id}.`).says("record.notFound", { kind: "body" });
  return row;
}

/** A body by its id, or by its reference ("B-000123"). */
export async function findBodyRow(tx: Tx, idOrRef: string): Promise<BodiesTable> {
  const db = cdb(tx);
  const row = /^B-\d+$/i.test(idOrRef)
    ? await db.selectFrom("bodies").selectAll().where("ref_no", "=", Number(idOrRef.slice(2))).executeTakeFirst()
    : await db.selectFrom("bodies").selectAll().where("id", "=", idOrRef).executeTakeFirst();
  if (!row) throw new NotFound(`No body ${idOrRef}.`).says("record.notFound", { kind: "body" });
  return row;
}

async function viewOf(tx: Tx, row: BodiesTable): Promise<BodyView> {
  const f = await findingsOf(tx, [row.id]);
  return toBodyView(row, f.get(row.id) ?? []);
}

export async function detailOf(tx: Tx, row: BodiesTable): Promise<BodyDetail> {
  const [view, photos, numbers, identifications, documents] = await Promise.all([
    viewOf(tx, row),
    // Joined with archive's originals on purpose (allowed in scripts/check-modules.mjs): through originalFacts
    // this read took 1.2–1.5× as long (`npm run bench -- bounds`), on every body read.
    cdb(tx)
      .selectFrom("body_photos")
      .innerJoin("originals", "originals.sha256", "body_photos.original_sha256")
      .select(["body_photos.original_sha256", "body_photos.role", "body_photos.position", "originals.capture_time", "originals.width", "originals.height"])
      .where("body_photos.body_id", "=", row.id)
      .orderBy("body_photos.position")
      .execute(),
    numbersOf(tx, row.id),
    identificationsOf(tx, row.id),
    documentsOf(tx, [row.id]),
  ]);
  return {
    ...view,
    photos: photos.map((p) => ({ sha256: p.original_sha256, role: p.role, position: p.position, captureTime: p.capture_time, width: p.width, height: p.height })),
    numbers,
    identifications,
    documents: documents.get(row.id) ?? [],
  };
}

function bodyRef(refNo: number): string {
  return `B-${String(refNo).padStart(6, "0")}`;
}

/** Reserves n consecutive reference numbers; returns the first. The counter row serialises writers. */
export async function allocateRefs(tx: Tx, n: number): Promise<number> {
  const row = await cdb(tx)
    .updateTable("ref_counters")
    .set({ next: sql<number>`next + ${n}` })
    .where("name", "=", "body")
    .returning("next")
    .executeTakeFirstOrThrow();
  return Number(row.next) - n;
}

export interface NewBody extends SystemBodyPatch {
  sourceId?: string | null;
  photos?: { sha256: string; role?: string }[];
  numbers?: NewNumber[];
}

/**
 * Inserts a body with its photos, numbers and findings and returns the history it needs (the caller appends it,
 * alone or in a batch). `refNo` comes from allocateRefs.
 */
export async function insertBody(
  ctx: Ctx,
  tx: Tx,
  actor: Actor,
  input: NewBody,
  opts: { refNo: number; vocab: Vocabularies; action: string; detail?: Record<string, unknown> },
): Promise<{ row: BodiesTable; record: RecordChanges }> {
  const now = ctx.clock.now().toISOString();
  const id = newId("bod");
  const empty: BodiesTable = {
    id,
    ref: bodyRef(opts.refNo),
    ref_no: opts.refNo,
    external_ref: null,
    source_id: input.sourceId ?? null,
    detainee_no: null,
    detainee_no_norm: null,
    branch_no: null,
    branch_no_norm: null,
    examiner_no: null,
    examiner_no_norm: null,
    hospital: null,
    photo_date: null,
    photo_month: null,
    death_date: null,
    death_date_earliest: null,
    death_date_latest: null,
    sex: null,
    age_min: null,
    age_max: null,
    marks: "[]",
    clothing: null,
    identification_status: "unidentified",
    name_ar: null,
    name_lat: null,
    review_status: "unreviewed",
    notes: null,
    sensitivity: "restricted",
    merged_into: null,
    finding_codes: "",
    version: 1,
    created_at: now,
    created_by: actor.id,
    updated_at: now,
  };
  const { set, injuries, reviewFindings } = applyPatch(empty, input, opts.vocab);
  const row: BodiesTable = { ...empty, ...set };
  if (row.external_ref) await requireFreeExternalRef(tx, row.external_ref, null);
  const numbers = (input.numbers ?? []).map((n) => ({ ...n, value: n.value.trim() }));
  // The current numbers are known before insert: the last entered per role (input order = entry order).
  for (const n of numbers) {
    const norm = normaliseNumber(n.value);
    if (n.role === "detainee") [row.detainee_no, row.detainee_no_norm] = [n.value, norm];
    if (n.role === "branch") [row.branch_no, row.branch_no_norm] = [n.value, norm];
    if (n.role === "examiner") [row.examiner_no, row.examiner_no_norm] = [n.value, norm];
  }
  const photos = dedupePhotos(input.photos ?? []);
  const photoMeta = photos.length
    ? [...(await originalFacts(tx, photos.map((p) => p.sha256))).values()].map((o) => ({ sha256: o.sha256, capture_time: o.captureTime, camera_model: o.cameraModel, media_kind: o.mediaKind }))
    : [];
  for (const p of photos) {
    const m = photoMeta.find((x) => x.sha256 === p.sha256);
    if (!m) throw new Invalid(say("original.notInArchive", { sha256: p.sha256 }), "photos");
  }
  const findings = [...(injuries ?? []), ...(reviewFindings ?? [])];
  row.finding_codes = findingCodesText(findings);
  const searchText = bodySearchText(
    {
      body: row,
      numbers: numbers.map((n) => n.value),
      findings,
      photos: photoMeta.map((m) => ({ sha256: m.sha256, captureTime: m.capture_time, cameraModel: m.camera_model })),
    },
    opts.vocab,
  );
  await cdb(tx).insertInto("bodies").values(row).execute();
  await cdb(tx).insertInto("body_search").values({ ref_no: row.ref_no, search_text: searchText }).execute();
  if (photos.length) {
    await cdb(tx)
      .insertInto("body_photos")
      .values(photos.map((p, i) => ({ body_id: id, original_sha256: p.sha256, role: p.role ?? "other", position: i + 1, added_at: now, added_by: actor.id })))
      .execute();
  }
  const numberRows = await insertNumbers(tx, id, now, numbers);
  if (injuries?.length) await setFindings(tx, id, "observed", injuries, now, actor.id);
  if (reviewFindings?.length) await setFindings(tx, id, "review", reviewFindings, now, actor.id);

  const view = toBodyView(row, [...(injuries ?? []).map((code) => ({ code, source: "observed" })), ...(reviewFindings ?? []).map((code) => ({ code, source: "review" }))]);
  const changes: Change[] = [];
  for (const f of [...EDITABLE_FIELDS, "reviewStatus", "reviewFindings", "detaineeNo", "branchNo", "examinerNo"]) {
    const v = fieldValue(view, f);
    const blank = v === null || (Array.isArray(v) && v.length === 0) || (f === "identificationStatus" && v === "unidentified") || (f === "reviewStatus" && v === "unreviewed") || (f === "sensitivity" && v === "restricted");
    if (!blank) changes.push({ recordType: "body", recordId: id, field: f, old: null, new: v });
  }
  if (photos.length) changes.push({ recordType: "body", recordId: id, field: "photos", old: null, new: photos.map((p) => p.sha256) });
  for (const n of numberRows) changes.push({ recordType: "body_number", recordId: n.id, field: "value", old: null, new: n.value });
  const objects: EventObject[] = [{ id, role: "body" }, ...(row.source_id ? [{ id: row.source_id, role: "source" }] : []), ...photos.map((p) => ({ sha256: p.sha256, role: "photo" }))];
  return { row, record: { action: opts.action, objects, changes, detail: { ref: row.ref, ...(opts.detail ?? {}) } } };
}

function dedupePhotos(list: { sha256: string; role?: string }[]): { sha256: string; role?: string }[] {
  const seen = new Set<string>();
  return list.filter((p) => (seen.has(p.sha256) ? false : (seen.add(p.sha256), true)));
}

async function requireFreeExternalRef(tx: Tx, ref: string, self: string | null): Promise<void> {
  const other = await cdb(tx).selectFrom("bodies").select(["id", "ref"]).where("external_ref", "=", ref).executeTakeFirst();
  if (other && other.id !== self) throw new Conflict(say("body.partnerRefTaken", { ref, body: other.ref }), );
}

/** Creates one body (used by proposals and splits); appends its event. */
export async function createBodyInTx(
  ctx: Ctx,
  tx: Tx,
  actor: Actor,
  input: NewBody,
  opts: { action: string; detail?: Record<string, unknown>; vocab?: Vocabularies },
): Promise<BodiesTable> {
  const vocab = opts.vocab ?? (await Vocabularies.load(tx));
  const refNo = await allocateRefs(tx, 1);
  const { row, record } = await insertBody(ctx, tx, actor, input, { refNo, vocab, action: opts.action, detail: opts.detail });
  await recordChanges(ctx, tx, actor, record);
  return row;
}

export interface UpdateOptions {
  action: string;
  expectedVersion?: number;
  vocab?: Vocabularies;
  /** Extra objects for the event (e.g. a review id). */
  objects?: EventObject[];
  detail?: Record<string, unknown>;
  /** Return the history instead of appending it (batched by the caller). */
  defer?: boolean;
}

/**
 * Applies a patch to a body in the caller's transaction: validates, stores, re-indexes, and records one event
 * with the old and new value of each changed field. The caller has asked the policy. Other modules use this
 * (review: reviewStatus and reviewFindings; families: identificationStatus and names) from their own use cases.
 */
export async function updateBodyInTx(
  ctx: Ctx,
  tx: Tx,
  actor: Actor,
  bodyId: string,
  patch: SystemBodyPatch,
  opts: UpdateOptions,
): Promise<{ body: BodyView; changes: Change[]; record: RecordChanges | null }> {
  const db = cdb(tx);
  const row = await loadRow(tx, bodyId);
  if (row.merged_into) throw new Conflict(say("body.mergedEdit", { ref: row.ref }));
  if (opts.expectedVersion !== undefined && opts.expectedVersion !== row.version) {
    throw new Conflict(say("body.changedSince", { ref: row.ref, version: row.version, yours: opts.expectedVersion }));
  }
  const vocab = opts.vocab ?? (await Vocabularies.load(tx));
  const before = await viewOf(tx, row);
  const { set, injuries, reviewFindings } = applyPatch(row, patch, vocab);
  if (set.external_ref) await requireFreeExternalRef(tx, set.external_ref, row.id);
  const next: BodiesTable = { ...row, ...set };
  const nextFindings = [
    ...(injuries ?? before.injuries).map((code) => ({ code, source: "observed" })),
    ...(reviewFindings ?? before.reviewFindings).map((code) => ({ code, source: "review" })),
  ];
  const after = toBodyView(next, nextFindings);
  const changes: Change[] = [];
  for (const f of [...EDITABLE_FIELDS, "reviewStatus", "reviewFindings"]) {
    const a = fieldValue(before, f);
    const b = fieldValue(after, f);
    if (JSON.stringify(a) !== JSON.stringify(b)) changes.push({ recordType: "body", recordId: row.id, field: f, old: a, new: b });
  }
  if (changes.length === 0) return { body: before, changes, record: null };
  const now = ctx.clock.now().toISOString();
  const updated = await db
    .updateTable("bodies")
    .set({ ...set, version: row.version + 1, updated_at: now })
    .where("id", "=", row.id)
    .where("version", "=", row.version)
    .executeTakeFirst();
  // Another process changed the body between our read and this write (PostgreSQL runs writers side by side).
  if (Number(updated.numUpdatedRows) !== 1) throw new Conflict(say("body.changedSameMoment", { ref: row.ref }));
  if (injuries && changes.some((c) => c.field === "injuries")) await setFindings(tx, row.id, "observed", injuries, now, actor.id);
  if (reviewFindings && changes.some((c) => c.field === "reviewFindings")) await setFindings(tx, row.id, "review", reviewFindings, now, actor.id);
  await refreshSearchText(tx, row.id, vocab);
  const record: RecordChanges = {
    action: opts.action,
    objects: [{ id: row.id, role: "body" }, ...(opts.objects ?? [])],
    changes,
    detail: { ref: row.ref, ...(opts.detail ?? {}) },
  };
  if (!opts.defer) await recordChanges(ctx, tx, actor, record);
  return { body: { ...after, version: row.version + 1, updatedAt: now }, changes, record };
}

export type EditBody = z.input<typeof contracts.EditBodyInput>;
// Keep the input schema and the list of editable fields in step.
void (EDITABLE_FIELDS satisfies readonly (keyof EditBody)[]);

export async function editBody(ctx: Ctx, actor: Actor, sent: EditBody): Promise<BodyView> {
  ctx.policy.require(actor, "catalogue.edit");
  const { id, version, ...patch } = parseInput(contracts.EditBodyInput, sent);
  return ctx.db.transaction(async (tx) => {
    const row = await loadRow(tx, id);
    ctx.policy.require(actor, "catalogue.edit", resourceOf(row));
    if (patch.sensitivity && !ctx.policy.allows(actor, "catalogue.read", { sensitivity: patch.sensitivity })) {
      throw new Forbidden(say("body.markingHides", { sensitivity: patch.sensitivity }));
    }
    const stands = patch.identificationStatus !== undefined && patch.identificationStatus !== row.identification_status ? await standingIdentification(tx, row.id) : undefined;
    if (stands) {
      throw new Conflict(say("body.identifiedByDecision", { ref: row.ref, report: stands.report_ref }));
    }
    const { body } = await updateBodyInTx(ctx, tx, actor, id, patch, { action: "body.edit", expectedVersion: version });
    return body;
  });
}

/** One body with its photos (references only) and numbers. Accepts an id or a reference (B-000123). */
export async function getBody(ctx: Ctx, actor: Actor, idOrRef: string): Promise<BodyDetail> {
  ctx.policy.require(actor, "catalogue.read");
  const row = await findBodyRow(ctx.db.db, idOrRef);
  ctx.policy.require(actor, "catalogue.read", resourceOf(row));
  return detailOf(ctx.db.db, row);
}

export interface ReadBodies {
  ids?: string[];
  /** Keyset: bodies with refNo above this. */
  after?: number;
  limit?: number;
}

/**
 * Body records in bulk, in reference order (families' matching reads them this way). Merged records are left
 * out unless asked for by id. Records above the actor's clearance are left out.
 */
export async function readBodies(ctx: Ctx, actor: Actor, input: ReadBodies = {}): Promise<{ items: BodyView[]; next: number | null }> {
  ctx.policy.require(actor, "catalogue.read");
  const limit = Math.min(Math.max(input.limit ?? 500, 1), 5000);
  const allowed = visibleSensitivities(ctx, actor);
  let q = cdb(ctx.db.db).selectFrom("bodies").selectAll().where("sensitivity", "in", allowed).orderBy("ref_no").limit(limit + 1);
  if (input.ids) {
    if (input.ids.length === 0) return { items: [], next: null };
    q = q.where("id", "in", input.ids.slice(0, 5000));
  } else {
    q = q.where("merged_into", "is", null);
  }
  if (input.after !== undefined) q = q.where("ref_no", ">", input.after);
  const rows = await q.execute();
  const page = rows.slice(0, limit);
  const f = await findingsOf(ctx.db.db, page.map((r) => r.id));
  return { items: page.map((r) => toBodyView(r, f.get(r.id) ?? [])), next: rows.length > limit ? page[page.length - 1]!.ref_no : null };
}

/** The sensitivities an actor may read bodies at, decided by the policy. */
export function visibleSensitivities(ctx: Ctx, actor: Actor): Sensitivity[] {
  return SENSITIVITIES.filter((s) => ctx.policy.allows(actor, "catalogue.read", { sensitivity: s }));
}

/** The photos of these bodies (any marking: for internal use, not for showing). */
export async function photosOfBodies(tx: Tx, ids: readonly string[]): Promise<{ bodyId: string; sha256: string }[]> {
  if (ids.length === 0) return [];
  const rows = await cdb(tx).selectFrom("body_photos").select(["body_id", "original_sha256"]).where("body_id", "in", [...new Set(ids)]).execute();
  return rows.map((r) => ({ bodyId: r.body_id, sha256: r.original_sha256 }));
}

/** The ids of the bodies this photo is filed under (any marking: read each through getBody to show it). */
export async function bodiesOfPhoto(tx: Tx, sha256: string): Promise<string[]> {
  const rows = await cdb(tx).selectFrom("body_photos").select(["body_id"]).where("original_sha256", "=", sha256).execute();
  return rows.map((r) => r.body_id);
}

/** Of these keys, the ones `find` reports in a body whose marking the actor may not read, 500 at a time. */
async function hiddenAmong(ctx: Ctx, actor: Actor, keys: readonly string[], find: (chunk: string[], allowed: Sensitivity[]) => Promise<string[]>): Promise<Set<string>> {
  const allowed = visibleSensitivities(ctx, actor);
  const unique = [...new Set(keys)];
  const out = new Set<string>();
  if (unique.length === 0 || allowed.length === SENSITIVITIES.length) return out;
  // "not in ()" is not SQL: with no marking readable, every body is hidden, which a marking no body has expresses
  const readable = allowed.length ? allowed : (["none"] as unknown as Sensitivity[]);
  for (let i = 0; i < unique.length; i += 500) for (const k of await find(unique.slice(i, i + 500), readable)) out.add(k);
  return out;
}

/**
 * Of these bodies, the ones above the actor's clearance. Records about a body (its photos' card readings, the
 * grouping proposals that made it, its reviews) follow the body's marking: whoever may not read the body sees
 * none of them, in lists, in counts or by id.
 */
export async function bodiesHiddenFrom(ctx: Ctx, actor: Actor, ids: readonly string[], tx: Tx = ctx.db.db): Promise<Set<string>> {
  return hiddenAmong(ctx, actor, ids, async (chunk, readable) =>
    (await cdb(tx).selectFrom("bodies").select("id").where("id", "in", chunk).where("sensitivity", "not in", readable).execute()).map((r) => r.id),
  );
}

/** Of these photos, the ones in a body above the actor's clearance. */
export async function photosHiddenFrom(ctx: Ctx, actor: Actor, shas: readonly string[], tx: Tx = ctx.db.db): Promise<Set<string>> {
  return hiddenAmong(ctx, actor, shas, async (chunk, readable) =>
    (
      await cdb(tx)
        .selectFrom("body_photos")
        .innerJoin("bodies", "bodies.id", "body_photos.body_id")
        .select("body_photos.original_sha256 as sha")
        .where("body_photos.original_sha256", "in", chunk)
        .where("bodies.sensitivity", "not in", readable)
        .execute()
    ).map((r) => r.sha),
  );
}

export async function setPhotoRole(ctx: Ctx, actor: Actor, sent: z.input<typeof contracts.SetPhotoRoleInput>): Promise<BodyDetail> {
  ctx.policy.require(actor, "catalogue.edit");
  const input = parseInput(contracts.SetPhotoRoleInput, sent);
  return ctx.db.transaction(async (tx) => {
    const row = await loadRow(tx, input.bodyId);
    ctx.policy.require(actor, "catalogue.edit", resourceOf(row));
    if (row.merged_into) throw new Conflict(say("body.mergedEdit", { ref: row.ref }));
    const vocab = await Vocabularies.load(tx);
    const role = vocab.require("photo_role", input.role, "role").code;
    const p = await cdb(tx).selectFrom("body_photos").select("role").where("body_id", "=", row.id).where("original_sha256", "=", input.sha256).executeTakeFirst();
    if (!p) throw new NotFound(say("body.photoNotOfBody", { sha256: input.sha256.slice(0, 12), ref: row.ref }));
    if (p.role !== role) {
      await cdb(tx).updateTable("body_photos").set({ role }).where("body_id", "=", row.id).where("original_sha256", "=", input.sha256).execute();
      await cdb(tx).updateTable("bodies").set({ version: row.version + 1, updated_at: ctx.clock.now().toISOString() }).where("id", "=", row.id).execute();
      await recordChanges(ctx, tx, actor, {
        action: "body.photo-role",
        objects: [{ id: row.id, role: "body" }, { sha256: input.sha256, role: "photo" }],
        changes: [{ recordType: "body", recordId: row.id, field: `photoRole:${input.sha256}`, old: p.role, new: role }],
        detail: { ref: row.ref },
      });
    }
    return detailOf(tx, await loadRow(tx, row.id));
  });
}

/** `photos`: the photos that show someone else; they move to a new body, with the numbers read from them. */
export type SplitBody = z.input<typeof contracts.SplitBodyInput>;

export async function splitBody(ctx: Ctx, actor: Actor, sent: SplitBody): Promise<{ from: BodyDetail; created: BodyDetail }> {
  ctx.policy.require(actor, "catalogue.group");
  const input = parseInput(contracts.SplitBodyInput, sent);
  return ctx.db.transaction(async (tx) => {
    const db = cdb(tx);
    const row = await loadRow(tx, input.bodyId);
    ctx.policy.require(actor, "catalogue.group", resourceOf(row));
    if (row.merged_into) throw new Conflict(say("body.mergedSplit", { ref: row.ref }));
    const photos = await db.selectFrom("body_photos").selectAll().where("body_id", "=", row.id).orderBy("position").execute();
    const moving = new Set(input.photos);
    for (const sha of moving) {
      if (!photos.some((p) => p.original_sha256 === sha)) throw new Invalid(say("body.photoNotOfBody", { sha256: sha.slice(0, 12), ref: row.ref }), "photos");
    }
    if (moving.size === 0) throw new Invalid(say("body.splitName"), "photos");
    if (moving.size === photos.length) throw new Invalid(say("body.splitKeepOne"), "photos");
    const vocab = await Vocabularies.load(tx);
    const created = await createBodyInTx(
      ctx,
      tx,
      actor,
      { sourceId: row.source_id, sensitivity: sensitivityOf(row.sensitivity) },
      { action: "body.split", detail: { splitFrom: row.id }, vocab },
    );
    const moved = photos.filter((p) => moving.has(p.original_sha256));
    await db.deleteFrom("body_photos").where("body_id", "=", row.id).where("original_sha256", "in", [...moving]).execute();
    await db
      .insertInto("body_photos")
      .values(moved.map((p, i) => ({ ...p, body_id: created.id, position: i + 1 })))
      .execute();
    const nums = await db.selectFrom("body_numbers").select(["id"]).where("body_id", "=", row.id).where("source_sha256", "in", [...moving]).execute();
    if (nums.length) await db.updateTable("body_numbers").set({ body_id: created.id }).where("id", "in", nums.map((n) => n.id)).execute();
    const now = ctx.clock.now().toISOString();
    const fromChanges = await refreshCurrentNumbers(tx, row.id);
    const newChanges = await refreshCurrentNumbers(tx, created.id);
    await db.updateTable("bodies").set({ version: row.version + 1, updated_at: now }).where("id", "=", row.id).execute();
    await refreshSearchText(tx, row.id, vocab);
    await refreshSearchText(tx, created.id, vocab);
    const remaining = photos.filter((p) => !moving.has(p.original_sha256)).map((p) => p.original_sha256);
    await recordChanges(ctx, tx, actor, {
      action: "body.split",
      objects: [{ id: row.id, role: "body" }, { id: created.id, role: "body" }, ...moved.map((p) => ({ sha256: p.original_sha256, role: "photo" }))],
      changes: [
        { recordType: "body", recordId: row.id, field: "photos", old: photos.map((p) => p.original_sha256), new: remaining },
        { recordType: "body", recordId: created.id, field: "photos", old: null, new: moved.map((p) => p.original_sha256) },
        ...nums.map((n) => ({ recordType: "body_number", recordId: n.id, field: "bodyId", old: row.id, new: created.id })),
        ...fromChanges,
        ...newChanges,
      ],
      detail: { ref: row.ref, newRef: created.ref, ...(input.reason ? { reason: secret(input.reason.slice(0, 500)) } : {}) },
    });
    return { from: await detailOf(tx, await loadRow(tx, row.id)), created: await detailOf(tx, await loadRow(tx, created.id)) };
  });
}

export type MergeBodies = z.input<typeof contracts.MergeBodiesInput>;

export type MergeResult = contracts.MergeResult;

/**
 * Two records turn out to be one person: the absorbed record's photos, numbers and findings move to the kept
 * one, empty fields of the kept record take the absorbed record's values, links are re-pointed, and the
 * absorbed record stays on file pointing to the kept one (never deleted).
 */
export async function mergeBodies(ctx: Ctx, actor: Actor, sent: MergeBodies): Promise<MergeResult> {
  ctx.policy.require(actor, "catalogue.group");
  const input = parseInput(contracts.MergeBodiesInput, sent);
  if (input.keep === input.absorb) throw new Invalid(say("body.mergeSelf"), "absorb");
  return ctx.db.transaction(async (tx) => {
    const db = cdb(tx);
    const [keep, absorb] = [await findBodyRow(tx, input.keep), await findBodyRow(tx, input.absorb)];
    if (keep.id === absorb.id) throw new Invalid(say("body.mergeSelf"), "absorb");
    for (const r of [keep, absorb]) {
      ctx.policy.require(actor, "catalogue.group", resourceOf(r));
      if (r.merged_into) throw new Conflict(say("body.alreadyMerged", { ref: r.ref }));
    }
    const vocab = await Vocabularies.load(tx);
    // one person is one body: an identification moves with the merge, two different ones refuse it
    const identificationChanges = await moveIdentificationOnMerge(tx, keep, absorb);
    const [kv, av] = [await viewOf(tx, keep), await viewOf(tx, absorb)];
    const fill: SystemBodyPatch = {};
    const conflicts: MergeResult["conflicts"] = [];
    for (const f of EDITABLE_FIELDS) {
      if (f === "sensitivity" || f === "externalRef") continue;
      const a = fieldValue(kv, f);
      const b = fieldValue(av, f);
      const emptyA = a === null || (Array.isArray(a) && a.length === 0) || (f === "identificationStatus" && a === "unidentified");
      const emptyB = b === null || (Array.isArray(b) && b.length === 0) || (f === "identificationStatus" && b === "unidentified");
      if (emptyB) continue;
      if (f === "injuries" || f === "marks") {
        const merged = f === "injuries" ? [...new Set([...(a as string[]), ...(b as string[])])].sort() : unionMarks(a as Mark[], b as Mark[]);
        if (JSON.stringify(merged) !== JSON.stringify(a)) (fill as Record<string, unknown>)[f] = merged;
      } else if (emptyA) {
        (fill as Record<string, unknown>)[f] = b;
      } else if (JSON.stringify(a) !== JSON.stringify(b)) {
        conflicts.push({ field: f, kept: a, absorbed: b });
      }
    }
    if (identificationChanges.length) {
      fill.identificationStatus = "identified";
      conflicts.splice(0, conflicts.length, ...conflicts.filter((c) => c.field !== "identificationStatus"));
    }
    if (av.reviewFindings.length) fill.reviewFindings = [...new Set([...kv.reviewFindings, ...av.reviewFindings])];
    // Moves first, then the field patch: its history and the move's land in one event.
    const kPhotos = await db.selectFrom("body_photos").selectAll().where("body_id", "=", keep.id).orderBy("position").execute();
    const aPhotos = await db.selectFrom("body_photos").selectAll().where("body_id", "=", absorb.id).orderBy("position").execute();
    const newPhotos = aPhotos.filter((p) => !kPhotos.some((k) => k.original_sha256 === p.original_sha256));
    await db.deleteFrom("body_photos").where("body_id", "=", absorb.id).execute();
    if (newPhotos.length) {
      await db
        .insertInto("body_photos")
        .values(newPhotos.map((p, i) => ({ ...p, body_id: keep.id, position: kPhotos.length + i + 1 })))
        .execute();
    }
    const nums = await db.selectFrom("body_numbers").select("id").where("body_id", "=", absorb.id).execute();
    if (nums.length) await db.updateTable("body_numbers").set({ body_id: keep.id }).where("body_id", "=", absorb.id).execute();
    const docs = await db.selectFrom("body_documents").select("id").where("body_id", "=", absorb.id).execute();
    if (docs.length) await db.updateTable("body_documents").set({ body_id: keep.id }).where("body_id", "=", absorb.id).execute();
    await db.deleteFrom("body_findings").where("body_id", "=", absorb.id).execute();
    await refreshFindingCodes(tx, absorb.id);
    const links = await db.selectFrom("links").select(["id", "from_id", "to_id"]).where((eb) => eb.or([eb("from_id", "=", absorb.id), eb("to_id", "=", absorb.id)])).execute();
    for (const l of links) {
      await db
        .updateTable("links")
        .set({ from_id: l.from_id === absorb.id ? keep.id : l.from_id, to_id: l.to_id === absorb.id ? keep.id : l.to_id, version: sql<number>`version + 1` })
        .where("id", "=", l.id)
        .execute();
    }
    const now = ctx.clock.now().toISOString();
    await db.updateTable("bodies").set({ merged_into: keep.id, version: absorb.version + 1, updated_at: now }).where("id", "=", absorb.id).execute();
    await refreshSearchText(tx, absorb.id, vocab);
    const numberChanges = await refreshCurrentNumbers(tx, keep.id);
    const { changes } = await updateBodyInTx(ctx, tx, actor, keep.id, fill, { action: "body.merge", vocab, defer: true });
    await db.updateTable("bodies").set({ updated_at: now }).where("id", "=", keep.id).execute();
    if (changes.length === 0) await db.updateTable("bodies").set({ version: sql<number>`version + 1` }).where("id", "=", keep.id).execute();
    await refreshSearchText(tx, keep.id, vocab);
    await recordChanges(ctx, tx, actor, {
      action: "body.merge",
      objects: [{ id: keep.id, role: "body kept" }, { id: absorb.id, role: "body absorbed" }, ...newPhotos.map((p) => ({ sha256: p.original_sha256, role: "photo" }))],
      changes: [
        ...changes,
        ...numberChanges,
        ...identificationChanges,
        { recordType: "body", recordId: keep.id, field: "photos", old: kPhotos.map((p) => p.original_sha256), new: [...kPhotos, ...newPhotos].map((p) => p.original_sha256) },
        { recordType: "body", recordId: absorb.id, field: "mergedInto", old: null, new: keep.id },
        { recordType: "body", recordId: absorb.id, field: "photos", old: aPhotos.map((p) => p.original_sha256), new: [] },
        ...nums.map((n) => ({ recordType: "body_number", recordId: n.id, field: "bodyId", old: absorb.id, new: keep.id })),
        ...docs.map((d) => ({ recordType: "body_document", recordId: d.id, field: "bodyId", old: absorb.id, new: keep.id })),
        ...links.flatMap((l) => [
          ...(l.from_id === absorb.id ? [{ recordType: "link", recordId: l.id, field: "fromId", old: absorb.id, new: keep.id }] : []),
          ...(l.to_id === absorb.id ? [{ recordType: "link", recordId: l.id, field: "toId", old: absorb.id, new: keep.id }] : []),
        ]),
      ],
      detail: { ref: keep.ref, absorbedRef: absorb.ref, ...(input.reason ? { reason: secret(input.reason.slice(0, 500)) } : {}) },
    });
    return { body: await detailOf(tx, await loadRow(tx, keep.id)), conflicts };
  });
}

function unionMarks(a: Mark[], b: Mark[]): Mark[] {
  const key = (m: Mark) => `${m.type}|${m.region ?? ""}|${m.description}`;
  const seen = new Set(a.map(key));
  return [...a, ...b.filter((m) => !seen.has(key(m)))];
}
