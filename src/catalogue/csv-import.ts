import { createHash } from "node:crypto";
import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import type { Tx } from "../db/database.ts";
import { hasArabic, normaliseArabic, toLatinDigits } from "../core/arabic.ts";
import { Invalid } from "../core/errors.ts";
import { newId } from "../core/ids.ts";
import { custody } from "../ledger/index.ts";
import { cdb, type BodiesTable } from "./tables.ts";
import { parseCsv, protectCell, unprotectCell, writeCsv } from "./csv.ts";
import { Vocabularies } from "./vocabularies.ts";
import { parseMarks, formatMarks, type Mark } from "./marks.ts";
import { parseFuzzyDate } from "./dates.ts";
import { checkNumberValue, insertNumbers, normaliseNumber, refreshCurrentNumbers, type NumberRole } from "./numbers.ts";
import { allocateRefs, insertBody, readBodies, updateBodyInTx, visibleSensitivities, type BodyPatch, type BodyView } from "./bodies.ts";
import { recordManyChanges, type Change, type RecordChanges } from "./history.ts";
import { IDENTIFICATION_STATUSES, type IdentificationStatus, type Sex } from "./records.ts";
import { refreshSearchText } from "./search-index.ts";
import * as contracts from "./contracts.ts";
import { parseInput } from "../core/input.ts";
import type { z } from "zod";
import { say, type Said } from "../core/messages.ts";
import { rowProblem } from "../core/row-problem.ts";

/**
 * Bodies to and from spreadsheets (partners hold theirs already). Import is all or nothing: every row is checked
 * first and, if any is rejected, nothing is written and the report names each rejected row, its column and why.
 * Columns are documented in docs/catalogue-csv.md; this file and that document change together.
 */
export const IMPORT_COLUMNS = [
  "ref",
  "external_ref",
  "detainee_no",
  "branch_no",
  "examiner_no",
  "hospital",
  "photo_date",
  "death_date",
  "sex",
  "age_min",
  "age_max",
  "marks",
  "injuries",
  "clothing",
  "name",
  "name_ar",
  "name_lat",
  "identification_status",
  "notes",
] as const;
type ImportColumn = (typeof IMPORT_COLUMNS)[number];

/** Written by export, accepted and ignored by import (so an export can be edited and imported back). */
export const EXPORT_ONLY_COLUMNS = ["id", "review_status", "review_findings", "photos", "source", "updated_at"] as const;

export const EXPORT_COLUMNS = [...IMPORT_COLUMNS, ...EXPORT_ONLY_COLUMNS] as const;

// Header spellings partners use for the same column (compared after normalisation: case, spaces, Arabic forms).
const HEADER_ALIASES: Record<string, ImportColumn> = {
  reference: "ref",
  "partner ref": "external_ref",
  detainee: "detainee_no",
  "detainee number": "detainee_no",
  "رقم المعتقل": "detainee_no",
  "رقم المحتجز": "detainee_no",
  branch: "branch_no",
  "branch number": "branch_no",
  "رقم الفرع": "branch_no",
  الفرع: "branch_no",
  examiner: "examiner_no",
  "examiner number": "examiner_no",
  "رقم الطبيب الشرعي": "examiner_no",
  "الرقم الطبي": "examiner_no",
  المشفى: "hospital",
  المستشفى: "hospital",
  date: "photo_date",
  "تاريخ التصوير": "photo_date",
  "تاريخ الوفاة": "death_date",
  gender: "sex",
  الجنس: "sex",
  "العمر الادني": "age_min",
  "العمر الاعلي": "age_max",
  العلامات: "marks",
  "العلامات الفارقه": "marks",
  الاصابات: "injuries",
  findings: "injuries",
  اللباس: "clothing",
  الملابس: "clothing",
  الاسم: "name",
  "الاسم بالعربيه": "name_ar",
  "الاسم باللاتينيه": "name_lat",
  "حاله التعرف": "identification_status",
  ملاحظات: "notes",
};

/** The custody event of a CSV import (bodies or documents): its id, the file's SHA-256 and counts, never a value. */
export async function logCsvImport(ctx: Ctx, tx: Tx, actor: Actor, what: { importId: string; action: string; sha256: string }, detail: Record<string, unknown>): Promise<void> {
  await ctx.log.append(tx, custody("metadata modification", actor, ctx.clock.now(), [{ id: what.importId, role: "import" }], { action: what.action, format: "csv", sha256: what.sha256, ...detail }));
}

export function headerKey(h: string): string {
  return normaliseArabic(h).replace(/[\s_-]+/g, " ").trim();
}

export function columnOf(h: string): ImportColumn | (typeof EXPORT_ONLY_COLUMNS)[number] | null {
  const k = headerKey(h);
  const snake = k.replace(/ /g, "_");
  if ((IMPORT_COLUMNS as readonly string[]).includes(snake)) return snake as ImportColumn;
  if ((EXPORT_ONLY_COLUMNS as readonly string[]).includes(snake)) return snake as (typeof EXPORT_ONLY_COLUMNS)[number];
  return HEADER_ALIASES[k] ?? null;
}

export type RejectedRow = contracts.RejectedRow;

export type ImportReport = contracts.ImportReport;

const SEX_WORDS: Record<string, Sex> = {
  male: "male",
  m: "male",
  man: "male",
  ذكر: "male",
  female: "female",
  f: "female",
  woman: "female",
  انثي: "female",
};

interface RowPlan {
  row: number;
  target: { kind: "create" } | { kind: "ref"; ref: string } | { kind: "external"; ref: string };
  patch: BodyPatch;
  numbers: { role: NumberRole; value: string }[];
}

function cell(fields: string[], idx: number | undefined): string | undefined {
  if (idx === undefined) return undefined;
  return unprotectCell((fields[idx] ?? "").trim());
}

function planRow(
  rec: { row: number; fields: string[] },
  cols: Map<ImportColumn, number>,
  width: number,
  vocab: Vocabularies,
  problems: RejectedRow[],
): RowPlan | null {
  const before = problems.length;
  const fail = (column: string | null, what: Said | Invalid) => problems.push(rowProblem(rec.row, column, what));
  if (rec.fields.length !== width) {
    fail(null, say("csv.rowWidth", { count: rec.fields.length, width }));
    return null;
  }
  const get = (c: ImportColumn) => cell(rec.fields, cols.get(c));
  const patch: BodyPatch = {};
  const numbers: RowPlan["numbers"] = [];
  const guard = (column: string, fn: () => void) => {
    try {
      fn();
    } catch (err) {
      if (err instanceof Invalid) fail(column, err);
      else throw err;
    }
  };

  let target: RowPlan["target"] = { kind: "create" };
  const ref = get("ref");
  const ext = get("external_ref");
  if (ref) {
    if (/^B-\d+$/i.test(ref)) target = { kind: "ref", ref: B(Number(ref.slice(2))) };
    else if (ext && ext !== ref) fail("ref", say("csv.notOurRef", { ref }));
    else target = { kind: "external", ref };
  }
  if (ext && target.kind !== "external") {
    if (target.kind === "ref") patch.externalRef = ext;
    else target = { kind: "external", ref: ext };
  }
  if (target.kind === "external") {
    if (target.ref.length > 100) fail("ref", say("csv.partnerRefLength", { max: 100 }));
    patch.externalRef = target.ref;
  }

  for (const [col, role] of [["detainee_no", "detainee"], ["branch_no", "branch"], ["examiner_no", "examiner"]] as const) {
    const v = get(col);
    if (v) guard(col, () => numbers.push({ role, value: checkNumberValue(role, v, col) }));
  }
  const hospital = get("hospital");
  if (hospital !== undefined) guard("hospital", () => (patch.hospital = hospital ? vocab.require("hospital", hospital, "hospital").code : null));
  const photoDate = get("photo_date");
  if (photoDate !== undefined) {
    guard("photo_date", () => {
      const d = parseFuzzyDate(photoDate);
      if (d && (d.text.includes("/") || /[a-z]/.test(d.text))) throw new Invalid(say("body.photoDateOne"));
      patch.photoDate = d?.text ?? null;
    });
  }
  const deathDate = get("death_date");
  if (deathDate !== undefined) guard("death_date", () => (patch.deathDate = parseFuzzyDate(deathDate)?.text ?? null));
  const sex = get("sex");
  if (sex !== undefined) {
    const s = sex ? SEX_WORDS[normaliseArabic(sex)] : null;
    if (sex && !s) fail("sex", say("csv.sex", { value: sex }));
    else patch.sex = s ?? null;
  }
  for (const col of ["age_min", "age_max"] as const) {
    const v = get(col);
    if (v === undefined) continue;
    if (v === "") {
      patch[col === "age_min" ? "ageMin" : "ageMax"] = null;
      continue;
    }
    const n = Number(toLatinDigits(v));
    if (!Number.isInteger(n) || n < 0 || n > 120) fail(col, say("csv.age", { value: v }));
    else patch[col === "age_min" ? "ageMin" : "ageMax"] = n;
  }
  if (patch.ageMin != null && patch.ageMax != null && patch.ageMin > patch.ageMax) {
    fail("age_min", say("csv.ageRange", { min: patch.ageMin!, max: patch.ageMax! }));
  }
  const marks = get("marks");
  if (marks !== undefined) guard("marks", () => (patch.marks = parseMarks(marks, vocab)));
  const injuries = get("injuries");
  if (injuries !== undefined) {
    guard("injuries", () => {
      patch.injuries = [
        ...new Set(
          injuries
            .split(/[;؛,،]/)
            .map((x) => x.trim())
            .filter(Boolean)
            .map((x) => vocab.require("finding", x, "injuries").code),
        ),
      ];
    });
  }
  for (const [col, key, max] of [["clothing", "clothing", 4000], ["notes", "notes", 4000]] as const) {
    const v = get(col);
    if (v === undefined) continue;
    if (v.length > max) fail(col, say("csv.tooLong", { max }));
    else patch[key] = v || null;
  }
  const nameAr = get("name_ar");
  const nameLat = get("name_lat");
  const name = get("name");
  for (const [col, v] of [["name", name], ["name_ar", nameAr], ["name_lat", nameLat]] as const) {
    if (v && v.length > 300) fail(col, say("csv.nameLength", { max: 300 }));
  }
  if (nameAr !== undefined) patch.nameAr = nameAr || null;
  if (nameLat !== undefined) patch.nameLat = nameLat || null;
  // "name" fills whichever script it is written in, unless the file has that script's own column.
  if (name) {
    if (hasArabic(name)) {
      if (nameAr === undefined) patch.nameAr = name;
    } else if (nameLat === undefined) patch.nameLat = name;
  } else if (name === "" && nameAr === undefined && nameLat === undefined) {
    patch.nameAr = null;
    patch.nameLat = null;
  }
  const idStatus = get("identification_status");
  if (idStatus !== undefined && idStatus !== "") {
    const s = normaliseArabic(idStatus).replace(/[\s-]+/g, "_");
    if (!(IDENTIFICATION_STATUSES as readonly string[]).includes(s)) {
      fail("identification_status", say("csv.identificationStatus", { value: idStatus, statuses: IDENTIFICATION_STATUSES.join(", ") }));
    } else patch.identificationStatus = s as IdentificationStatus;
  } else if (idStatus === undefined && target.kind !== "ref" && (patch.nameAr || patch.nameLat)) {
    // A partner's row that names the person records an identification made elsewhere.
    patch.identificationStatus = "identified";
  }
  if (problems.length > before) return null;
  return { row: rec.row, target, patch, numbers };
}

export type ImportCsv = z.input<typeof contracts.ImportCsvInput>;

const MAX_ROWS = 200_000;

export async function importBodiesCsv(ctx: Ctx, actor: Actor, sent: ImportCsv): Promise<ImportReport> {
  ctx.policy.require(actor, "catalogue.import");
  const input = parseInput(contracts.ImportCsvInput, sent);
  const sha256 = createHash("sha256").update(input.csv, "utf8").digest("hex");
  const importId = newId("imp");
  const table = parseCsv(input.csv);
  if (table.records.length > MAX_ROWS) throw new Invalid(say("csv.tooManyRows", { max: MAX_ROWS }));
  const cols = new Map<ImportColumn, number>();
  const ignoredColumns: string[] = [];
  const unknown: string[] = [];
  table.header.forEach((h, i) => {
    const c = columnOf(h);
    if (c === null) unknown.push(h || `(column ${i + 1} has no name)`);
    else if ((EXPORT_ONLY_COLUMNS as readonly string[]).includes(c)) ignoredColumns.push(h);
    else if (cols.has(c as ImportColumn)) throw new Invalid(say("csv.columnTwice", { column: c }));
    else cols.set(c as ImportColumn, i);
  });
  if (unknown.length) {
    throw new Invalid(
      say("csv.unknownColumns", { columns: unknown.map((u) => `"${u}"`).join(", "), known: EXPORT_COLUMNS.join(", ") }),
    );
  }
  const report: ImportReport = { importId, ok: false, dryRun: input.dryRun ?? false, rows: table.records.length, created: 0, updated: 0, unchanged: 0, rejected: [], ignoredColumns, sha256 };
  const vocab = await Vocabularies.load(ctx.db.db);
  const plans: RowPlan[] = [];
  for (const rec of table.records) {
    const p = planRow(rec, cols, table.header.length, vocab, report.rejected);
    if (p) plans.push(p);
  }
  // The same body twice in one file would make the second row silently win: refuse it.
  const firstRow = new Map<string, number>();
  for (const p of plans) {
    if (p.target.kind === "create") continue;
    const k = `${p.target.kind}:${p.target.ref}`;
    const seen = firstRow.get(k);
    if (seen !== undefined) report.rejected.push(rowProblem(p.row, "ref", say("csv.sameBody", { row: seen, ref: p.target.ref })));
    else firstRow.set(k, p.row);
  }

  const allowed = visibleSensitivities(ctx, actor);
  const run = async (): Promise<void> => {
    await ctx.db.transaction(async (tx) => {
      const db = cdb(tx);
      const refNos = plans.flatMap((p) => (p.target.kind === "ref" ? [Number(p.target.ref.slice(2))] : []));
      const exts = plans.flatMap((p) => (p.target.kind === "external" ? [p.target.ref] : []));
      const existing = new Map<string, BodiesTable>();
      for (let i = 0; i < refNos.length; i += 500) {
        for (const r of await db.selectFrom("bodies").selectAll().where("ref_no", "in", refNos.slice(i, i + 500)).execute()) existing.set(`ref:${r.ref}`, r);
      }
      for (let i = 0; i < exts.length; i += 500) {
        for (const r of await db.selectFrom("bodies").selectAll().where("external_ref", "in", exts.slice(i, i + 500)).execute()) existing.set(`external:${r.external_ref}`, r);
      }
      const targets = new Map<RowPlan, BodiesTable | null>();
      for (const p of plans) {
        if (p.target.kind === "create") {
          targets.set(p, null);
          continue;
        }
        const key = `${p.target.kind}:${p.target.ref}`;
        const row = existing.get(key) ?? null;
        if (p.target.kind === "ref" && !row) report.rejected.push(rowProblem(p.row, "ref", say("csv.noBody", { ref: p.target.ref })));
        else if (row?.merged_into) report.rejected.push(rowProblem(p.row, "ref", say("csv.merged", { ref: row.ref })));
        else if (row && !allowed.includes(row.sensitivity as never)) report.rejected.push(rowProblem(p.row, "ref", say("csv.marked", { ref: row.ref, sensitivity: row.sensitivity })));
        else targets.set(p, row);
      }
      // a body identified through a caseworker's confirmed decision changes status only with that decision (0020)
      const statusChanges = [...targets].filter(([p, row]) => row && p.patch.identificationStatus !== undefined && p.patch.identificationStatus !== row.identification_status);
      const standingIds = new Map<string, string>();
      for (let i = 0; i < statusChanges.length; i += 500) {
        const ids = statusChanges.slice(i, i + 500).map(([, row]) => row!.id);
        for (const r of await db.selectFrom("body_identifications").select(["body_id", "report_ref"]).where("body_id", "in", ids).where("ended_at", "is", null).execute()) standingIds.set(r.body_id, r.report_ref);
      }
      for (const [p, row] of statusChanges) {
        const reportRef = standingIds.get(row!.id);
        if (reportRef === undefined) continue;
        report.rejected.push(rowProblem(p.row, "identification_status", say("csv.identifiedByDecision", { ref: row!.ref, report: reportRef })));
        targets.delete(p);
      }
      if (report.rejected.length || report.dryRun) {
        if (!report.rejected.length) {
          report.created = [...targets.values()].filter((t) => t === null).length;
          report.updated = targets.size - report.created;
        }
        return;
      }
      const creates = plans.filter((p) => targets.get(p) === null);
      let refNo = creates.length ? await allocateRefs(tx, creates.length) : 0;
      const now = ctx.clock.now().toISOString();
      const records: RecordChanges[] = [];
      for (const p of plans) {
        const row = targets.get(p);
        if (row === undefined) continue;
        if (row === null) {
          const { record } = await insertBody(
            ctx,
            tx,
            actor,
            { ...p.patch, numbers: p.numbers.map((n) => ({ ...n, method: "typed" as const, origin: `csv:${importId}`, enteredBy: actor.id })) },
            { refNo: refNo++, vocab, action: "body.import", detail: { import: importId, row: p.row } },
          );
          records.push(record);
          report.created++;
          continue;
        }
        const { record } = await updateBodyInTx(ctx, tx, actor, row.id, p.patch, { action: "body.import", vocab, defer: true, detail: { import: importId, row: p.row } });
        // Numbers are never removed by an import: a new value is entered beside the old, and becomes current.
        const current: Record<NumberRole, string | null> = { detainee: row.detainee_no_norm, branch: row.branch_no_norm, examiner: row.examiner_no_norm };
        const fresh = p.numbers.filter((n) => normaliseNumber(n.value) !== current[n.role]);
        let numberChanges: Change[] = [];
        if (fresh.length) {
          const inserted = await insertNumbers(tx, row.id, now, fresh.map((n) => ({ ...n, method: "typed" as const, origin: `csv:${importId}`, enteredBy: actor.id })));
          numberChanges = [
            ...inserted.map((n) => ({ recordType: "body_number", recordId: n.id, field: "value", old: null, new: n.value })),
            ...(await refreshCurrentNumbers(tx, row.id)),
          ];
          if (!record) await db.updateTable("bodies").set({ version: row.version + 1, updated_at: now }).where("id", "=", row.id).execute();
          await refreshSearchText(tx, row.id, vocab);
        }
        if (!record && numberChanges.length === 0) {
          report.unchanged++;
          continue;
        }
        records.push(
          record
            ? { ...record, changes: [...record.changes, ...numberChanges] }
            : { action: "body.import", objects: [{ id: row.id, role: "body" }], changes: numberChanges, detail: { ref: row.ref, import: importId, row: p.row } },
        );
        report.updated++;
      }
      await recordManyChanges(ctx, tx, actor, records);
      await logCsvImport(ctx, tx, actor, { importId, action: "catalogue.import", sha256 }, { rows: report.rows, created: report.created, updated: report.updated, unchanged: report.unchanged });
    });
  };
  // Lookups run even when rows were already rejected, so the report names every problem at once.
  await run();
  report.rejected.sort((a, b) => a.row - b.row);
  report.ok = report.rejected.length === 0;
  if (!report.ok) {
    report.created = 0;
    report.updated = 0;
    report.unchanged = 0;
  }
  return report;
}

function B(n: number): string {
  return `B-${String(n).padStart(6, "0")}`;
}

/** One body as a CSV record, in EXPORT_COLUMNS order. */
function exportRow(b: BodyView, photos: number): string[] {
  const v: Record<(typeof EXPORT_COLUMNS)[number], string> = {
    ref: b.ref,
    external_ref: b.externalRef ?? "",
    detainee_no: b.detaineeNo ?? "",
    branch_no: b.branchNo ?? "",
    examiner_no: b.examinerNo ?? "",
    hospital: b.hospital ?? "",
    photo_date: b.photoDate ?? "",
    death_date: b.deathDate?.text ?? "",
    sex: b.sex ?? "",
    age_min: b.ageMin === null ? "" : String(b.ageMin),
    age_max: b.ageMax === null ? "" : String(b.ageMax),
    marks: formatMarks(b.marks as Mark[]),
    injuries: b.injuries.join("; "),
    clothing: b.clothing ?? "",
    name: b.nameAr ?? b.nameLat ?? "",
    name_ar: b.nameAr ?? "",
    name_lat: b.nameLat ?? "",
    identification_status: b.identificationStatus,
    notes: b.notes ?? "",
    id: b.id,
    review_status: b.reviewStatus,
    review_findings: b.reviewFindings.join("; "),
    photos: String(photos),
    source: b.sourceId ?? "",
    updated_at: b.updatedAt,
  };
  return EXPORT_COLUMNS.map((c) => protectCell(v[c]));
}

/**
 * Every body the actor may read (merged records left out), in reference order, as CSV text. The export is a
 * custody event naming every body in it and the SHA-256 of the bytes handed out.
 */
export async function exportBodiesCsv(ctx: Ctx, actor: Actor, opts: { bom?: boolean } = {}): Promise<{ csv: string; rows: number; sha256: string }> {
  ctx.policy.require(actor, "catalogue.export");
  const rows: string[][] = [[...EXPORT_COLUMNS]];
  const ids: string[] = [];
  let after: number | undefined;
  for (;;) {
    const page = await readBodies(ctx, actor, { after, limit: 2000 });
    const counts = new Map<string, number>();
    if (page.items.length) {
      const c = await cdb(ctx.db.db)
        .selectFrom("body_photos")
        .select(["body_id", (eb) => eb.fn.countAll<number>().as("n")])
        .where("body_id", "in", page.items.map((b) => b.id))
        .groupBy("body_id")
        .execute();
      for (const r of c) counts.set(r.body_id, Number(r.n));
    }
    for (const b of page.items) {
      rows.push(exportRow(b, counts.get(b.id) ?? 0));
      ids.push(b.id);
    }
    if (page.next === null) break;
    after = page.next;
  }
  const csv = writeCsv(rows, { bom: opts.bom ?? true });
  const sha256 = createHash("sha256").update(csv, "utf8").digest("hex");
  await ctx.db.transaction(async (tx) => {
    await ctx.log.append(
      tx,
      custody(
        "export",
        actor,
        ctx.clock.now(),
        ids.map((id) => ({ id, role: "body" })),
        { action: "catalogue.export", format: "csv", rows: ids.length, sha256 },
      ),
    );
  });
  return { csv, rows: ids.length, sha256 };
}
