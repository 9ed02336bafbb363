import { createHash } from "node:crypto";
import { sql } from "kysely";
import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { Invalid } from "../core/errors.ts";
import { newId } from "../core/ids.ts";
import type { Tx } from "../db/database.ts";
import { secret } from "../ledger/index.ts";
import { crossScriptKey } from "../names/index.ts";
import { cdb, type BodiesTable, type BodyDocumentsTable } from "./tables.ts";
import { parseCsv, unprotectCell } from "./csv.ts";
import { columnOf as bodyColumnOf, headerKey, logCsvImport } from "./csv-import.ts";
import { checkNumberValue, normaliseNumber } from "./numbers.ts";
import { bodiesHiddenFrom, visibleSensitivities } from "./bodies.ts";
import { recordManyChanges, type RecordChanges } from "./history.ts";
import { refreshSearchText } from "./search-index.ts";
import { Vocabularies } from "./vocabularies.ts";
import * as contracts from "./contracts.ts";
import { parseInput } from "../core/input.ts";
import type { z } from "zod";
import { say, type Said } from "../core/messages.ts";
import { rowProblem } from "../core/row-problem.ts";

/**
 * Numbers and names read from documents — detention papers, a hospital register — attached to bodies with their
 * source (decision 0032). A CSV file names the source once (`source`, e.g. "Register 601"); each row names a body
 * (its reference, the partner's reference, or the examiner and branch numbers its card gives) and the numbers and
 * names the document writes for it. A row that names no body, or whose numbers fit several, is refused with its
 * row number and why: never guessed. The import is all or nothing per file; importing a file again attaches only
 * what is not attached yet (the same source, kind and value on the same body is kept once). One custody event per
 * file, and each body's new facts in its history, in the same transaction.
 */
export type DocumentFact = contracts.DocumentFact;
export type DocumentsImportReport = contracts.DocumentsImportReport;
export type ImportDocuments = z.input<typeof contracts.ImportDocumentsInput>;

export const DOCUMENT_KINDS = ["detainee", "branch", "examiner", "hospital", "name"] as const;
export type DocumentKind = (typeof DOCUMENT_KINDS)[number];

export const DOCUMENT_COLUMNS = ["ref", "external_ref", "detainee_no", "branch_no", "examiner_no", "hospital_no", "name", "name_ar", "name_lat"] as const;
type Column = (typeof DOCUMENT_COLUMNS)[number];

const VALUE_COLUMNS: { column: Column; kind: DocumentKind }[] = [
  { column: "detainee_no", kind: "detainee" },
  { column: "branch_no", kind: "branch" },
  { column: "examiner_no", kind: "examiner" },
  { column: "hospital_no", kind: "hospital" },
  { column: "name", kind: "name" },
  { column: "name_ar", kind: "name" },
  { column: "name_lat", kind: "name" },
];

// Header spellings beyond the body import's (csv-import.ts, whose spellings of the same columns count here too),
// compared after its normalisation: case, spaces, Arabic letter forms.
const ALIASES: Record<string, Column> = {
  المرجع: "ref",
  "مرجع الجثمان": "ref",
  "المرجع الخارجي": "external_ref",
  "مرجع الشريك": "external_ref",
  "رقم الموقوف": "detainee_no",
  "body number": "examiner_no",
  "رقم الجثه": "examiner_no",
  hospital: "hospital_no",
  "hospital number": "hospital_no",
  "hospital no": "hospital_no",
  "رقم المشفي": "hospital_no",
  "رقم المستشفي": "hospital_no",
};

const MAX_ROWS = 200_000;
const MAX_BYTES = 50 * 1024 * 1024;
const MAX_NAME = 300;
const MAX_SOURCE = 200;
// A cell a spreadsheet would run: refused (the value as written is kept verbatim, and it would run on export).
const FORMULA = /^[=+\-@\t\r]/;

function columnOf(h: string): Column | null {
  const k = headerKey(h);
  const own = ALIAS_KEYS.get(k);
  if (own) return own;
  const c = bodyColumnOf(h);
  return c && (DOCUMENT_COLUMNS as readonly string[]).includes(c) ? (c as Column) : null;
}

const ALIAS_KEYS = new Map(Object.entries(ALIASES).map(([h, c]) => [headerKey(h), c]));

interface Planned {
  row: number;
  by: { ref?: string; externalRef?: string; examiner?: string; branch?: string };
  facts: { kind: DocumentKind; value: string; valueNorm: string; column: Column }[];
}

function planRow(rec: { row: number; fields: string[] }, cols: Map<Column, number>, width: number, rejected: contracts.RejectedRow[]): Planned | null {
  const before = rejected.length;
  const refuse = (column: string | null, what: Said | Invalid) => rejected.push(rowProblem(rec.row, column, what));
  if (rec.fields.length !== width) refuse(null, say("csv.rowWidth", { count: rec.fields.length, width }));
  const cell = (c: Column): string => {
    const i = cols.get(c);
    return i === undefined ? "" : (rec.fields[i] ?? "").trim();
  };
  const facts: Planned["facts"] = [];
  for (const c of DOCUMENT_COLUMNS) {
    const raw = cell(c);
    if (raw && FORMULA.test(unprotectCell(raw))) refuse(c, say("documents.formula", { sign: unprotectCell(raw)[0]! }));
  }
  for (const { column, kind } of VALUE_COLUMNS) {
    const v = unprotectCell(cell(column));
    if (!v || FORMULA.test(v)) continue;
    if (kind === "name") {
      if (v.length > MAX_NAME) refuse(column, say("csv.tooLong", { max: MAX_NAME }));
      const key = crossScriptKey(v);
      if (!key) refuse(column, say("documents.noNameLetters", { value: v.slice(0, 40) }));
      else if (!facts.some((f) => f.kind === "name" && f.valueNorm === key && f.value === v)) facts.push({ kind, value: v, valueNorm: key, column });
      continue;
    }
    try {
      const value = kind === "hospital" ? checkHospitalNumber(v) : checkNumberValue(kind, v, column);
      facts.push({ kind, value, valueNorm: normaliseNumber(value), column });
    } catch (e) {
      if (e instanceof Invalid) refuse(column, e);
      else throw e;
    }
  }
  const ref = unprotectCell(cell("ref"));
  if (ref && !/^B-\d+$/i.test(ref)) refuse("ref", say("documents.notBodyRef", { ref: ref.slice(0, 40) }));
  const by: Planned["by"] = {};
  if (ref) by.ref = `B-${String(Number(ref.slice(2))).padStart(6, "0")}`;
  const ext = unprotectCell(cell("external_ref"));
  if (ext) by.externalRef = ext;
  const examiner = facts.find((f) => f.column === "examiner_no");
  const branch = facts.find((f) => f.column === "branch_no");
  if (examiner && branch) [by.examiner, by.branch] = [examiner.valueNorm, branch.valueNorm];
  if (!by.ref && !by.externalRef && !by.examiner && rejected.length === before) {
    refuse(null, say("documents.namesNoBody"));
  }
  if (facts.length === 0 && rejected.length === before) refuse(null, say("documents.nothingToAttach"));
  return rejected.length === before ? { row: rec.row, by, facts } : null;
}

function checkHospitalNumber(v: string): string {
  if (v.length > 40) throw new Invalid(say("csv.tooLong", { max: 40 }), "hospital_no");
  if (!/\d/.test(normaliseNumber(v))) throw new Invalid(say("documents.hospitalDigits", { value: v.slice(0, 40) }), "hospital_no");
  return v;
}

/** The body each row names, or why none can be said. Keys given together must name the same body. */
async function matchRows(ctx: Ctx, actor: Actor, tx: Tx, plans: Planned[], rejected: contracts.RejectedRow[]): Promise<Map<Planned, BodiesTable>> {
  const db = cdb(tx);
  const out = new Map<Planned, BodiesTable>();
  const chunked = async <K>(keys: K[], load: (chunk: K[]) => Promise<BodiesTable[]>): Promise<BodiesTable[]> => {
    const rows: BodiesTable[] = [];
    const unique = [...new Set(keys)];
    for (let i = 0; i < unique.length; i += 500) rows.push(...(await load(unique.slice(i, i + 500))));
    return rows;
  };
  const byRef = new Map((await chunked(plans.flatMap((p) => (p.by.ref ? [Number(p.by.ref.slice(2))] : [])), (c) => db.selectFrom("bodies").selectAll().where("ref_no", "in", c).execute())).map((b) => [b.ref, b]));
  const byExt = new Map((await chunked(plans.flatMap((p) => (p.by.externalRef ? [p.by.externalRef] : [])), (c) => db.selectFrom("bodies").selectAll().where("external_ref", "in", c).execute())).map((b) => [b.external_ref!, b]));
  const byCard = new Map<string, BodiesTable[]>();
  for (const b of await chunked(plans.flatMap((p) => (p.by.examiner ? [p.by.examiner] : [])), (c) => db.selectFrom("bodies").selectAll().where("examiner_no_norm", "in", c).where("merged_into", "is", null).execute())) {
    const k = `${b.examiner_no_norm}|${b.branch_no_norm}`;
    byCard.set(k, [...(byCard.get(k) ?? []), b]);
  }
  const allowed = visibleSensitivities(ctx, actor);
  for (const p of plans) {
    const found: { how: string; body: BodiesTable }[] = [];
    const refuse = (column: string | null, what: Said) => rejected.push(rowProblem(p.row, column, what));
    if (p.by.ref) {
      const b = byRef.get(p.by.ref);
      if (!b) {
        refuse("ref", say("documents.noBody", { ref: p.by.ref }));
        continue;
      }
      found.push({ how: "ref", body: b });
    }
    if (p.by.externalRef) {
      const b = byExt.get(p.by.externalRef);
      if (!b) {
        refuse("external_ref", say("documents.noPartnerRef", { ref: p.by.externalRef.slice(0, 40) }));
        continue;
      }
      found.push({ how: "external_ref", body: b });
    }
    if (p.by.examiner) {
      const all = byCard.get(`${p.by.examiner}|${p.by.branch}`) ?? [];
      if (all.length > 1) {
        refuse("examiner_no", say("documents.examinerMany", { examiner: p.by.examiner, branch: p.by.branch ?? "", count: all.length, bodies: all.map((b) => b.ref).sort().join(", ") }));
        continue;
      }
      if (all.length === 1) found.push({ how: "examiner_no", body: all[0]! });
      else if (found.length === 0) {
        refuse("examiner_no", say("documents.examinerNone", { examiner: p.by.examiner, branch: p.by.branch ?? "" }));
        continue;
      }
    }
    const ids = [...new Set(found.map((f) => f.body.id))];
    if (ids.length > 1) {
      refuse(null, say("documents.differentBodies", { found: found.map((f) => `${f.how} → ${f.body.ref}`).join(", ") }));
      continue;
    }
    const body = found[0]!.body;
    if (body.merged_into) refuse(found[0]!.how, say("documents.merged", { ref: body.ref }));
    else if (!allowed.includes(body.sensitivity as never)) refuse(found[0]!.how, say("csv.marked", { ref: body.ref, sensitivity: body.sensitivity }));
    else out.set(p, body);
  }
  return out;
}

export async function importBodyDocuments(ctx: Ctx, actor: Actor, sent: ImportDocuments): Promise<DocumentsImportReport> {
  ctx.policy.require(actor, "catalogue.import");
  const input = parseInput(contracts.ImportDocumentsInput, sent);
  const source = input.source.trim();
  if (!source || source.length > MAX_SOURCE) throw new Invalid(say("documents.source", { max: MAX_SOURCE }), "source");
  if (input.csv.length > MAX_BYTES) throw new Invalid(say("documents.tooLarge", { max: "50 MB" }), "csv");
  // text decoded from bytes that are not UTF-8 carries U+FFFD where each bad byte was
  if (input.csv.includes("\ufffd")) throw new Invalid(say("documents.notUtf8"), "csv");
  const sha256 = createHash("sha256").update(input.csv, "utf8").digest("hex");
  const table = parseCsv(input.csv);
  if (table.records.length > MAX_ROWS) throw new Invalid(say("csv.tooManyRows", { max: MAX_ROWS }));
  const cols = new Map<Column, number>();
  const unknown: string[] = [];
  table.header.forEach((h, i) => {
    const c = columnOf(h);
    if (c === null) unknown.push(h || `(column ${i + 1} has no name)`);
    else if (cols.has(c)) throw new Invalid(say("csv.columnTwice", { column: c }));
    else cols.set(c, i);
  });
  if (unknown.length) throw new Invalid(say("csv.unknownColumns", { columns: unknown.map((u) => `"${u.slice(0, 60)}"`).join(", "), known: DOCUMENT_COLUMNS.join(", ") }));
  if (!VALUE_COLUMNS.some((v) => cols.has(v.column))) throw new Invalid(say("documents.noValueColumn", { columns: VALUE_COLUMNS.map((v) => v.column).join(", ") }));
  const importId = newId("imp");
  const report: DocumentsImportReport = { importId, ok: false, dryRun: input.dryRun ?? false, rows: table.records.length, attached: 0, alreadyAttached: 0, bodies: 0, rejected: [], sha256 };
  const plans = table.records.map((r) => planRow(r, cols, table.header.length, report.rejected)).filter((p): p is Planned => p !== null);

  await ctx.db.transaction(async (tx) => {
    const matched = await matchRows(ctx, actor, tx, plans, report.rejected);
    const db = cdb(tx);
    const ids = [...new Set([...matched.values()].map((b) => b.id))];
    const existing = new Set<string>();
    for (let i = 0; i < ids.length; i += 500) {
      const rows = await db.selectFrom("body_documents").select(["body_id", "kind", "value_norm", "value"]).where("body_id", "in", ids.slice(i, i + 500)).where("source", "=", source).execute();
      for (const r of rows) existing.add(`${r.body_id}|${r.kind}|${r.value_norm}|${r.value}`);
    }
    const now = ctx.clock.now().toISOString();
    const fresh: BodyDocumentsTable[] = [];
    for (const [p, body] of matched) {
      for (const f of p.facts) {
        const k = `${body.id}|${f.kind}|${f.valueNorm}|${f.value}`;
        if (existing.has(k)) {
          report.alreadyAttached++;
          continue;
        }
        existing.add(k);
        fresh.push({ id: newId("bdoc"), body_id: body.id, import_id: importId, source, source_row: p.row, kind: f.kind, value: f.value, value_norm: f.valueNorm, imported_by: actor.id, imported_at: now });
      }
    }
    report.attached = fresh.length;
    report.bodies = new Set(fresh.map((f) => f.body_id)).size;
    if (report.rejected.length || report.dryRun || fresh.length === 0) return;
    for (let i = 0; i < fresh.length; i += 200) await db.insertInto("body_documents").values(fresh.slice(i, i + 200)).execute();
    const refOf = new Map([...matched.values()].map((b) => [b.id, b.ref]));
    const records: RecordChanges[] = [];
    const vocab = await Vocabularies.load(tx);
    for (const bodyId of new Set(fresh.map((f) => f.body_id))) {
      const mine = fresh.filter((f) => f.body_id === bodyId);
      records.push({
        action: "body.documents",
        objects: [{ id: bodyId, role: "body" }, { id: importId, role: "import" }],
        changes: mine.map((f) => ({ recordType: "body_document", recordId: f.id, field: f.kind, old: null, new: { value: f.value, source, row: f.source_row } })),
        detail: { ref: refOf.get(bodyId)!, import: importId },
      });
      // a new version of the body: its readers (families' re-rank watches the bodies' stamp) see it changed
      await db.updateTable("bodies").set({ version: sql<number>`version + 1`, updated_at: now }).where("id", "=", bodyId).execute();
      await refreshSearchText(tx, bodyId, vocab);
    }
    await recordManyChanges(ctx, tx, actor, records);
    await logCsvImport(ctx, tx, actor, { importId, action: "catalogue.documents-import", sha256 }, { document: secret(source), rows: report.rows, attached: report.attached, bodies: report.bodies });
  });
  report.rejected.sort((a, b) => a.row - b.row);
  report.ok = report.rejected.length === 0;
  if (!report.ok) [report.attached, report.alreadyAttached, report.bodies] = [0, 0, 0];
  return report;
}

export function toDocumentFact(r: BodyDocumentsTable): DocumentFact {
  return { id: r.id, bodyId: r.body_id, source: r.source, row: r.source_row, kind: r.kind as DocumentKind, value: r.value, valueNorm: r.value_norm, importId: r.import_id, importedBy: r.imported_by, importedAt: r.imported_at };
}

/** The facts documents give for these bodies (any marking: for the body's own detail and the search index). */
export async function documentsOf(tx: Tx, bodyIds: readonly string[]): Promise<Map<string, DocumentFact[]>> {
  const out = new Map<string, DocumentFact[]>();
  const ids = [...new Set(bodyIds)];
  for (let i = 0; i < ids.length; i += 500) {
    const rows = await cdb(tx).selectFrom("body_documents").selectAll().where("body_id", "in", ids.slice(i, i + 500)).orderBy("imported_at").orderBy("source_row").orderBy("id").execute();
    for (const r of rows) out.set(r.body_id, [...(out.get(r.body_id) ?? []), toDocumentFact(r)]);
  }
  return out;
}

/**
 * For other modules (families' ranking): what documents give for the bodies the actor may read, by body id. The
 * caller has read the bodies through `readBodies`; a body above the actor's clearance gives nothing here either.
 */
export async function readBodyDocuments(ctx: Ctx, actor: Actor, bodyIds: readonly string[]): Promise<Map<string, DocumentFact[]>> {
  ctx.policy.require(actor, "catalogue.read");
  const hidden = await bodiesHiddenFrom(ctx, actor, bodyIds);
  return documentsOf(ctx.db.db, bodyIds.filter((id) => !hidden.has(id)));
}
