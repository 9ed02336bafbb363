import { createHash } from "node:crypto";
import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { canonicalJson } from "../core/canonical-json.ts";
import { toLatinDigits } from "../core/arabic.ts";
import { Conflict, DalilError, Invalid, NotFound } from "../core/errors.ts";
import { say } from "../core/messages.ts";
import { rowProblem } from "../core/row-problem.ts";
import { newId } from "../core/ids.ts";
import type { Tx } from "../db/database.ts";
import { custody } from "../ledger/index.ts";
import { recordPersonalDataRead } from "../access/index.ts";
import type { Resource } from "../access/index.ts";
import { parseFuzzyDate, Vocabularies, type Mark } from "../catalogue/index.ts";
import { parseMarks } from "../catalogue/index.ts";
import { parseCsv } from "../catalogue/index.ts";
import { parseNameChain, type NameSlots } from "../names/index.ts";
import { enqueueRerank } from "./rerank-requests.ts";
import { recordProposalInTx } from "./proposals.ts";
import { fdb, type FamilyReportsTable } from "./tables.ts";
import * as contracts from "./contracts.ts";
import { parseInput } from "../core/input.ts";
import type { z } from "zod";

/**
 * Missing-person reports (ante-mortem). A report is a family's personal data: reading one is recorded, every
 * change is a custody event naming the fields changed (never their values: the log is readable by anyone who
 * checks it), and nothing is deleted. Consent is a set of tiers the family can withdraw at any time.
 */

/** publicDisplay: an image of the identified person may be shown in a public exhibition (src/exhibitions). */
export const CONSENT_TIERS = contracts.ConsentTierName.options;
export type ConsentTier = (typeof CONSENT_TIERS)[number];
export type Consent = Partial<Record<ConsentTier, { given: boolean; at: string; by: string }>>;

export const BRANCH_CERTAINTIES = contracts.BranchCertaintyName.options;
export type BranchCertainty = (typeof BRANCH_CERTAINTIES)[number];

export type Sighting = contracts.Sighting;

/** A report's fields as a person enters them (the input of createReport; the CSV import and patches build the same). */
export type ReportInput = z.input<typeof contracts.NewReportInput>;

export type ReportView = contracts.ReportView;

function parseJson<T>(s: string, fallback: T): T {
  try {
    return JSON.parse(s) as T;
  } catch {
    return fallback;
  }
}

export function toReportView(r: FamilyReportsTable): ReportView {
  return {
    id: r.id,
    ref: r.ref,
    nameAr: r.name_ar,
    nameLat: r.name_lat,
    slots: parseJson<NameSlots>(r.slots, { raw: "", script: "none", ancestors: [], aliases: [], titles: [], notes: [] }),
    motherName: r.mother_name,
    aliases: parseJson<string[]>(r.aliases, []),
    sex: r.sex === "male" || r.sex === "female" ? r.sex : null,
    birthDate: r.birth_date,
    birthPrecision: r.birth_precision,
    birthPlace: r.birth_place,
    arrestDate: r.arrest_date,
    arrestEarliest: r.arrest_earliest,
    arrestLatest: r.arrest_latest,
    arrestPlace: r.arrest_place,
    arrestGovernorate: r.arrest_governorate,
    branch: r.branch,
    branchCertainty: (BRANCH_CERTAINTIES as readonly string[]).includes(r.branch_certainty ?? "") ? (r.branch_certainty as BranchCertainty) : null,
    seenInDetention: parseJson<Sighting[]>(r.seen_in_detention, []),
    marks: parseJson<Mark[]>(r.marks, []),
    numbers: parseJson<{ role: string; value: string }[]>(r.numbers, []),
    consent: parseJson<Consent>(r.consent, {}),
    reporterName: r.reporter_name,
    reporterRelationship: r.reporter_relationship,
    reporterContact: r.reporter_contact,
    filedBy: r.filed_by,
    caseworkerId: r.caseworker_id,
    status: r.status,
    version: r.version,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** Who stands in which relation to a report, for the policy. */
export function reportResource(r: Pick<FamilyReportsTable, "filed_by">): Resource {
  return { relations: { filer: r.filed_by ? [r.filed_by] : [] } };
}

function text(v: string | null | undefined, field: string, max = 300): string | null {
  if (v === null || v === undefined) return null;
  const t = v.normalize("NFC").trim();
  if (t === "") return null;
  if (t.length > max) throw new Invalid(say("field.tooLong", { field, max }), field);
  return t;
}

/** A birth date with its precision: "1985", "1985-03", "1985-03-02", "~1985", "c. 1985", "about 1985". */
export function parseBirthDate(raw: string | null | undefined): { date: string; precision: string } | null {
  const t = text(raw, "birthDate");
  if (!t) return null;
  const s = toLatinDigits(t);
  const approx = /^(~|c\.?\s*|ca\.?\s*|about\s+|حوالي\s*)(\d{4})$/i.exec(s);
  if (approx) return { date: approx[2]!, precision: "approximate" };
  const m = /^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?$/.exec(s);
  const year = m ? Number(m[1]) : NaN;
  if (!m || year < 1900 || year > 2030 || (m[2] && (Number(m[2]) < 1 || Number(m[2]) > 12)) || (m[3] && (Number(m[3]) < 1 || Number(m[3]) > 31))) {
    throw new Invalid(say("families.birthDate", { text: t }), "birthDate");
  }
  return { date: s, precision: m[3] ? "day" : m[2] ? "month" : "year" };
}

type Row = Omit<FamilyReportsTable, "id" | "ref" | "filed_by" | "caseworker_id" | "status" | "version" | "created_at" | "created_by" | "updated_at" | "consent">;

/** Checks and normalises an input into column values; throws Invalid naming the field. */
export function reportColumns(input: ReportInput, vocab: Vocabularies): Row {
  const nameAr = text(input.nameAr, "nameAr");
  const nameLat = text(input.nameLat, "nameLat");
  if (!nameAr && !nameLat) throw new Invalid(say("families.nameNeeded"), "nameAr");
  const father = text(input.fatherName, "fatherName") ?? undefined;
  const mother = text(input.motherName, "motherName") ?? undefined;
  const aliases = (input.aliases ?? []).map((a) => text(a, "aliases")).filter((a): a is string => !!a);
  const slots = parseNameChain((nameAr ?? nameLat)!, { ...(father ? { father } : {}), ...(mother ? { mother } : {}), aliases });
  if (input.sex !== undefined && input.sex !== null && input.sex !== "male" && input.sex !== "female") {
    throw new Invalid(say("families.sex", { value: String(input.sex) }), "sex");
  }
  const birth = parseBirthDate(input.birthDate);
  let arrest: ReturnType<typeof parseFuzzyDate> = null;
  try {
    arrest = parseFuzzyDate(input.arrestDate);
  } catch (err) {
    // the date's own words (catalogue/dates.ts), said for the arrest date field
    if (err instanceof DalilError && err.key) throw new Invalid({ key: err.key, params: err.params ?? {} }, "arrestDate");
    throw err;
  }
  const gov = text(input.arrestGovernorate, "arrestGovernorate");
  const govCode = gov ? vocab.require("governorate", gov, "arrestGovernorate").code : null;
  const branchText = text(input.branch, "branch", 40);
  const branch = branchText ? toLatinDigits(branchText).replace(/^(branch|فرع)\s*/i, "").trim() : null;
  if (input.branchCertainty && !(BRANCH_CERTAINTIES as readonly string[]).includes(input.branchCertainty)) {
    throw new Invalid(say("families.branchCertainty"), "branchCertainty");
  }
  const marks = (input.marks ?? []).map((m) => ({
    type: vocab.require("mark_type", m.type, "marks").code,
    region: m.region ? vocab.require("body_region", m.region, "marks").code : null,
    description: text(m.description, "marks", 500) ?? "",
  }));
  const numbers = (input.numbers ?? []).map((n) => {
    if (!["detainee", "branch", "examiner"].includes(n.role)) throw new Invalid(say("families.numberRole", { value: String(n.role) }), "numbers");
    const v = text(n.value, "numbers", 40);
    if (!v) throw new Invalid(say("families.numberValue"), "numbers");
    return { role: n.role, value: toLatinDigits(v).replace(/\s+/g, "") };
  });
  const seen = (input.seenInDetention ?? []).map((s) => {
    const place = text(s.place, "seenInDetention");
    if (!place) throw new Invalid(say("families.sightingPlace"), "seenInDetention");
    return { place, ...(s.when ? { when: s.when } : {}), ...(s.witness ? { witness: s.witness } : {}) };
  });
  return {
    name_ar: nameAr,
    name_lat: nameLat,
    slots: canonicalJson(slots),
    mother_name: mother ?? null,
    aliases: canonicalJson(aliases),
    sex: input.sex ?? null,
    birth_date: birth?.date ?? null,
    birth_precision: birth?.precision ?? null,
    birth_place: text(input.birthPlace, "birthPlace"),
    arrest_date: arrest?.text ?? null,
    arrest_earliest: arrest?.earliest ?? null,
    arrest_latest: arrest?.latest ?? null,
    arrest_place: text(input.arrestPlace, "arrestPlace"),
    arrest_governorate: govCode,
    branch,
    branch_certainty: branch ? (input.branchCertainty ?? "probable") : null,
    seen_in_detention: canonicalJson(seen),
    marks: canonicalJson(marks),
    numbers: canonicalJson(numbers),
    reporter_name: text(input.reporterName, "reporterName"),
    reporter_relationship: text(input.reporterRelationship, "reporterRelationship", 80),
    reporter_contact: text(input.reporterContact, "reporterContact"),
  };
}

function consentOf(input: ReportInput["consent"], actor: Actor, at: string, prev: Consent = {}): Consent {
  const out: Consent = { ...prev };
  for (const [k, v] of Object.entries(input ?? {})) {
    if (!(CONSENT_TIERS as readonly string[]).includes(k)) throw new Invalid(say("families.consentTier", { tier: k }), "consent");
    if (typeof v !== "boolean") throw new Invalid(say("families.consentYesNo", { tier: k }), "consent");
    out[k as ConsentTier] = { given: v, at, by: actor.id };
  }
  return out;
}

async function nextRef(tx: Tx): Promise<string> {
  const n = await fdb(tx).selectFrom("family_reports").select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow();
  // an imported ref may already hold the next number: take the first free one after it
  for (let i = Number(n.n) + 1; ; i++) {
    const ref = `R-${String(i).padStart(6, "0")}`;
    if (!(await fdb(tx).selectFrom("family_reports").select("id").where("ref", "=", ref).executeTakeFirst())) return ref;
  }
}

/** Inserts one report in the caller's transaction and appends its custody event. */
export async function insertReport(ctx: Ctx, tx: Tx, actor: Actor, input: ReportInput, vocab: Vocabularies, detail: Record<string, string> = {}): Promise<ReportView> {
  const cols = reportColumns(input, vocab);
  const now = ctx.clock.now().toISOString();
  // a family member's ref is the archive's to give: a chosen one could take a partner's reference, or probe
  // whether a reference exists by the refusal
  if (ctx.policy.stands(actor, "family.filer") && text(input.ref, "ref", 60)) throw new Invalid(say("families.refGiven"), "ref");
  const ref = text(input.ref, "ref", 60) ?? (await nextRef(tx));
  const exists = await fdb(tx).selectFrom("family_reports").select("id").where("ref", "=", ref).executeTakeFirst();
  if (exists) throw new Conflict(say("families.refTaken", { ref }));
  const row: FamilyReportsTable = {
    ...cols,
    id: newId("rep"),
    ref,
    consent: canonicalJson(consentOf(input.consent, actor, now)),
    filed_by: ctx.policy.stands(actor, "family.filer") ? actor.id : null,
    caseworker_id: ctx.policy.stands(actor, "family.caseworker") ? actor.id : null,
    // a family's own report waits for a caseworker to read it before it is matched (issue 19)
    status: ctx.policy.stands(actor, "family.filer") ? "submitted" : "open",
    version: 1,
    created_at: now,
    created_by: actor.id,
    updated_at: now,
  };
  await fdb(tx).insertInto("family_reports").values(row).execute();
  await ctx.log.append(tx, custody("metadata modification", actor, ctx.clock.now(), [{ id: row.id, role: "report" }], { action: "report.create", ...detail }));
  if (row.status === "submitted") await recordProposalInTx(ctx, tx, actor, row, "new", {});
  return toReportView(row);
}

/** A caseworker enters a report, or a family member files one (they become its filer; it waits for a caseworker). */
export async function createReport(ctx: Ctx, actor: Actor, sent: z.input<typeof contracts.NewReportInput>): Promise<ReportView> {
  ctx.policy.require(actor, "report.file");
  const input = parseInput(contracts.NewReportInput, sent);
  const view = await ctx.db.transaction(async (tx) => insertReport(ctx, tx, actor, input, await Vocabularies.load(tx)));
  if (view.status === "open") await enqueueRerank(ctx, { reportId: view.id });
  return view;
}

async function loadReport(tx: Tx, idOrRef: string): Promise<FamilyReportsTable> {
  const row = await fdb(tx).selectFrom("family_reports").selectAll().where((eb) => eb.or([eb("id", "=", idOrRef), eb("ref", "=", idOrRef)])).executeTakeFirst();
  if (!row) throw new NotFound(say("record.notFound", { kind: "report" }));
  return row;
}

/** Loads a report the actor may read, and records the read, in the caller's transaction. */
export async function readReportInTx(ctx: Ctx, tx: Tx, actor: Actor, idOrRef: string, what = "report"): Promise<FamilyReportsTable> {
  gate(ctx, actor, "report.read");
  const row = await loadReport(tx, idOrRef);
  // a report the actor may not see is "not found" for a family member: they learn nothing about others' reports
  if (!ctx.policy.allows(actor, "report.read", reportResource(row))) {
    if (ctx.policy.stands(actor, "family.not-found")) throw new NotFound(say("record.notFound", { kind: "report" }));
    ctx.policy.require(actor, "report.read", reportResource(row));
  }
  await recordPersonalDataRead(ctx, tx, actor, [{ id: row.id, role: "report" }], { read: what });
  return row;
}

export async function getReport(ctx: Ctx, actor: Actor, idOrRef: string): Promise<ReportView> {
  return ctx.db.transaction(async (tx) => toReportView(await readReportInTx(ctx, tx, actor, idOrRef)));
}

/** Reports the actor may see: all for caseworkers, their own for a family member. The listing is a recorded read. */
export async function listReports(ctx: Ctx, actor: Actor, input: { limit?: number; after?: string } = {}): Promise<ReportView[]> {
  gate(ctx, actor, "report.read");
  const limit = Math.min(Math.max(input.limit ?? 100, 1), 1000);
  return ctx.db.transaction(async (tx) => {
    let q = fdb(tx).selectFrom("family_reports").selectAll().orderBy("ref").limit(limit);
    if (input.after) q = q.where("ref", ">", input.after);
    if (!ctx.policy.allows(actor, "personal.read")) q = q.where("filed_by", "=", actor.id);
    const rows = (await q.execute()).filter((r) => ctx.policy.allows(actor, "report.read", reportResource(r)));
    if (rows.length) await recordPersonalDataRead(ctx, tx, actor, rows.map((r) => ({ id: r.id, role: "report" })), { read: "report list" });
    return rows.map(toReportView);
  });
}

/**
 * Changes a report: caseworkers any report. A family member's changes to the missing person go to a caseworker
 * first (`proposeChange` in the portal); they may change only their consent here, which takes effect at once.
 * One custody event naming the fields.
 */
export async function updateReport(ctx: Ctx, actor: Actor, sent: z.input<typeof contracts.EditReportInput>): Promise<ReportView> {
  gate(ctx, actor, "report.edit");
  const { id: idOrRef, ...patch } = parseInput(contracts.EditReportInput, sent);
  const view = await ctx.db.transaction(async (tx) => {
    const row = await loadReport(tx, idOrRef);
    if (!ctx.policy.allows(actor, "report.edit", reportResource(row))) {
      if (ctx.policy.stands(actor, "family.not-found")) throw new NotFound(say("record.notFound", { kind: "report" }));
      ctx.policy.require(actor, "report.edit", reportResource(row));
    }
    if (ctx.policy.stands(actor, "family.filer") && Object.entries(patch).some(([k, v]) => v !== undefined && k !== "consent" && k !== "expectedVersion")) {
      throw new Conflict(say("families.familyEdits"));
    }
    if (patch.expectedVersion !== undefined && patch.expectedVersion !== row.version) {
      throw new Conflict(say("families.reportChanged", { report: row.ref, version: row.version }));
    }
    return applyReportPatchInTx(ctx, tx, actor, row, patch);
  });
  await enqueueRerank(ctx, { reportId: view.id });
  return view;
}

/** The report's fields as input (what a patch is laid over). */
export function inputOf(cur: ReportView): ReportInput {
  return {
    nameAr: cur.nameAr, nameLat: cur.nameLat, fatherName: cur.slots.father ?? null, motherName: cur.motherName, aliases: cur.aliases, sex: cur.sex,
    birthDate: cur.birthPrecision === "approximate" ? `~${cur.birthDate}` : cur.birthDate, birthPlace: cur.birthPlace, arrestDate: cur.arrestDate,
    arrestPlace: cur.arrestPlace, arrestGovernorate: cur.arrestGovernorate, branch: cur.branch, branchCertainty: cur.branchCertainty,
    seenInDetention: cur.seenInDetention, marks: cur.marks, numbers: cur.numbers as ReportInput["numbers"], reporterName: cur.reporterName,
    reporterRelationship: cur.reporterRelationship, reporterContact: cur.reporterContact,
  };
}

/** Lays a patch over a report (validated as a whole) and stores it, in the caller's transaction; one custody event. */
export async function applyReportPatchInTx(ctx: Ctx, tx: Tx, actor: Actor, row: FamilyReportsTable, patch: ReportInput, detail: Record<string, string> = {}): Promise<ReportView> {
  const cur = toReportView(row);
  const merged: ReportInput = {
    ...inputOf(cur),
    ...Object.fromEntries(Object.entries(patch).filter(([k, v]) => v !== undefined && k !== "consent" && k !== "ref" && k !== "expectedVersion")),
  };
  const cols = reportColumns(merged, await Vocabularies.load(tx));
  const changed = (Object.keys(cols) as (keyof Row)[]).filter((k) => cols[k] !== row[k]);
  const now = ctx.clock.now().toISOString();
  let consent = row.consent;
  if (patch.consent) {
    consent = canonicalJson(consentOf(patch.consent, actor, now, cur.consent));
    if (consent !== row.consent) changed.push("consent" as keyof Row);
  }
  if (changed.length === 0) return cur;
  const next = { ...row, ...cols, consent, version: row.version + 1, updated_at: now };
  await fdb(tx).updateTable("family_reports").set(next).where("id", "=", row.id).execute();
  await ctx.log.append(tx, custody("metadata modification", actor, ctx.clock.now(), [{ id: row.id, role: "report" }], { action: "report.edit", fields: changed.map(String).sort(), ...detail }));
  return toReportView(next);
}

/** Withdraws (or gives again) one tier of consent. Withdrawing is always allowed to the filer and caseworkers. */
export async function setConsent(ctx: Ctx, actor: Actor, idOrRef: string, tier: ConsentTier, given: boolean): Promise<ReportView> {
  return updateReport(ctx, actor, { id: idOrRef, consent: { [tier]: given } });
}

/** The route-level check: may this actor attempt the action on some report (a relationship is decided on the record). */
function gate(ctx: Ctx, actor: Actor, action: "report.read" | "report.edit"): void {
  if (!ctx.policy.mayAttempt(actor, action)) ctx.policy.require(actor, action);
}

// --- CSV import -------------------------------------------------------------------------------------------------

export const REPORT_CSV_COLUMNS = ["ref", "name_ar", "name_lat", "father_name", "mother_name", "sex", "birth_year", "arrest_date", "arrest_governorate", "branch", "marks"] as const;
const OPTIONAL_COLUMNS = ["branch_certainty", "detainee_no", "reporter_relationship", "consent_data_sharing", "consent_recontact", "consent_viewing_photos", "consent_dna_referral"] as const;

export type ReportImportReport = contracts.ReportImportReport;

const SEX_WORDS: Record<string, "male" | "female"> = { m: "male", male: "male", ذكر: "male", f: "female", female: "female", انثى: "female", أنثى: "female" };
const YES = new Set(["yes", "y", "true", "1", "نعم"]);
const NO = new Set(["no", "n", "false", "0", "لا", ""]);

/**
 * `dalil families import FILE.csv`: all or nothing. Every row is checked; if any is rejected nothing is stored
 * and the report lists each rejected row with its column and the reason. One custody event for the import.
 */
export async function importReportsCsv(ctx: Ctx, actor: Actor, sent: z.input<typeof contracts.ImportReportsInput>): Promise<ReportImportReport> {
  ctx.policy.require(actor, "report.import");
  const input = parseInput(contracts.ImportReportsInput, sent);
  const sha256 = createHash("sha256").update(input.csv).digest("hex");
  const table = parseCsv(input.csv);
  const header = table.header.map((h) => h.trim().toLowerCase());
  const missing = REPORT_CSV_COLUMNS.filter((c) => !header.includes(c));
  if (missing.length) throw new Invalid(say("families.csvColumns", { count: missing.length, columns: missing.join(", "), header: REPORT_CSV_COLUMNS.join(",") }), "header");
  const known = new Set<string>([...REPORT_CSV_COLUMNS, ...OPTIONAL_COLUMNS]);
  const importId = newId("imp");
  const report: ReportImportReport = { importId, ok: true, dryRun: !!input.dryRun, rows: table.records.length, created: 0, rejected: [], ignoredColumns: header.filter((h) => !known.has(h)), sha256 };
  const result = await ctx.db
    .transaction(async (tx) => {
      const vocab = await Vocabularies.load(tx);
      const seen = new Set<string>();
      for (const rec of table.records) {
        const get = (c: string): string => {
          const i = header.indexOf(c);
          return i < 0 ? "" : (rec.fields[i] ?? "").trim();
        };
        // Every problem of the row is named, not only the first: each check runs on its own.
        const problems: contracts.ReportImportReport["rejected"] = [];
        const check = (column: string, fn: () => void): void => {
          try {
            fn();
          } catch (err) {
            if (!(err instanceof Invalid)) throw err;
            problems.push(rowProblem(rec.row, err.field ? csvColumnOf(err.field) : column, err));
          }
        };
        const ref = get("ref");
        check("ref", () => {
          if (!ref) throw new Invalid(say("families.csvRef"), "ref");
          if (seen.has(ref)) throw new Invalid(say("families.csvRefTwice", { ref }), "ref");
        });
        if (ref) seen.add(ref);
        const sexRaw = get("sex").toLowerCase();
        const sex = sexRaw === "" ? null : SEX_WORDS[sexRaw];
        check("sex", () => {
          if (sex === undefined) throw new Invalid(say("families.csvSex", { value: get("sex") }), "sex");
        });
        let marks: Mark[] = [];
        check("marks", () => {
          marks = parseMarks(get("marks"), vocab);
        });
        const consent: Partial<Record<ConsentTier, boolean>> = {};
        for (const [col, tier] of [["consent_data_sharing", "dataSharing"], ["consent_recontact", "recontact"], ["consent_viewing_photos", "viewingPhotos"], ["consent_dna_referral", "dnaReferral"]] as const) {
          if (!header.includes(col)) continue;
          const v = get(col).toLowerCase();
          check(col, () => {
            if (YES.has(v)) consent[tier] = true;
            else if (NO.has(v)) consent[tier] = false;
            else throw new Invalid(say("families.csvYesNo", { column: col, value: get(col) }), col);
          });
        }
        const detainee = get("detainee_no");
        const certainty = get("branch_certainty").toLowerCase();
        const fields: ReportInput = {
          ref,
          nameAr: get("name_ar"),
          nameLat: get("name_lat"),
          fatherName: get("father_name"),
          motherName: get("mother_name"),
          sex: sex ?? null,
          birthDate: get("birth_year"),
          arrestDate: get("arrest_date"),
          arrestGovernorate: get("arrest_governorate"),
          branch: get("branch"),
          ...(certainty ? { branchCertainty: certainty as BranchCertainty } : {}),
          marks,
          numbers: detainee ? [{ role: "detainee", value: detainee }] : [],
          consent,
          reporterRelationship: get("reporter_relationship"),
        };
        // The columns insertReport checks, each alone beside a stand-in name, by the very rules it applies.
        check("name_ar", () => void reportColumns({ nameAr: fields.nameAr, nameLat: fields.nameLat }, vocab));
        const standIn = { nameLat: "name" };
        check("father_name", () => void reportColumns({ ...standIn, fatherName: fields.fatherName }, vocab));
        check("mother_name", () => void reportColumns({ ...standIn, motherName: fields.motherName }, vocab));
        check("birth_year", () => void reportColumns({ ...standIn, birthDate: fields.birthDate }, vocab));
        check("arrest_date", () => void reportColumns({ ...standIn, arrestDate: fields.arrestDate }, vocab));
        check("arrest_governorate", () => void reportColumns({ ...standIn, arrestGovernorate: fields.arrestGovernorate }, vocab));
        check("branch", () => void reportColumns({ ...standIn, branch: fields.branch }, vocab));
        check("branch_certainty", () => void reportColumns({ ...standIn, ...(certainty ? { branchCertainty: certainty as BranchCertainty } : {}) }, vocab));
        check("detainee_no", () => void reportColumns({ ...standIn, numbers: fields.numbers }, vocab));
        check("reporter_relationship", () => void reportColumns({ ...standIn, reporterRelationship: fields.reporterRelationship }, vocab));
        if (problems.length) {
          report.rejected.push(...problems);
          continue;
        }
        try {
          await insertReport(ctx, tx, actor, fields, vocab, { import: importId });
          report.created++;
        } catch (err) {
          if (err instanceof Invalid || err instanceof Conflict) {
            report.rejected.push(rowProblem(rec.row, err instanceof Invalid && err.field ? csvColumnOf(err.field) : null, err));
          } else throw err;
        }
      }
      report.ok = report.rejected.length === 0;
      if (!report.ok || input.dryRun) throw new RollBack();
      return report;
    })
    .catch((err: unknown) => {
      if (err instanceof RollBack) return { ...report, created: report.ok ? report.created : 0 };
      throw err;
    });
  if (result.ok && !result.dryRun) await enqueueRerank(ctx, {});
  return result;
}

class RollBack extends Error {}

const FIELD_TO_COLUMN: Record<string, string> = {
  nameAr: "name_ar", nameLat: "name_lat", fatherName: "father_name", motherName: "mother_name", birthDate: "birth_year", arrestDate: "arrest_date",
  arrestGovernorate: "arrest_governorate", branch: "branch", branchCertainty: "branch_certainty", marks: "marks", numbers: "detainee_no", ref: "ref", sex: "sex",
  reporterRelationship: "reporter_relationship",
};
function csvColumnOf(field: string): string {
  return FIELD_TO_COLUMN[field] ?? field;
}
