import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { searchTokens } from "../core/arabic.ts";
import { Conflict, Forbidden, Invalid, NotFound } from "../core/errors.ts";
import { newId } from "../core/ids.ts";
import type { Sensitivity } from "../access/index.ts";
import { SENSITIVITIES } from "../access/index.ts";
import type { Tx } from "../db/database.ts";
import { cdb, type EntitiesTable } from "./tables.ts";
import { recordChanges, type Change } from "./history.ts";
import { Vocabularies } from "./vocabularies.ts";
import { normaliseNumber } from "./numbers.ts";
import { ENTITY_KINDS, oneOf, resourceOf, sensitivityOf, type EntityKind } from "./records.ts";
import * as contracts from "./contracts.ts";
import { parseInput } from "../core/input.ts";
import type { z } from "zod";
import { say } from "../core/messages.ts";

/**
 * Facilities (detention centres, prisons), units (security branches, by number), hospitals and persons of
 * interest (alleged perpetrators), with the unit or facility above each (parent) and the person in command
 * (commander): together the chain of command a dossier needs. Persons of interest are restricted by default.
 */
export type EntityView = contracts.EntityView;

export type EntitySummary = contracts.EntitySummary;

export type EntityDetail = contracts.EntityDetail;

export interface EntityFields {
  number?: string | null;
  nameAr?: string | null;
  nameEn?: string | null;
  title?: string | null;
  governorate?: string | null;
  parentId?: string | null;
  commanderId?: string | null;
  vocabularyCode?: string | null;
  description?: string | null;
  sensitivity?: Sensitivity;
}

export interface NewEntity extends EntityFields {
  kind: EntityKind;
}

const FIELD_COLUMNS: Record<keyof EntityFields, keyof EntitiesTable> = {
  number: "number",
  nameAr: "name_ar",
  nameEn: "name_en",
  title: "title",
  governorate: "governorate",
  parentId: "parent_id",
  commanderId: "commander_id",
  vocabularyCode: "vocabulary_code",
  description: "description",
  sensitivity: "sensitivity",
};

export function toEntityView(r: EntitiesTable): EntityView {
  return {
    id: r.id,
    kind: r.kind as EntityKind,
    number: r.number,
    numberNorm: r.number_norm,
    nameAr: r.name_ar,
    nameEn: r.name_en,
    title: r.title,
    governorate: r.governorate,
    parentId: r.parent_id,
    commanderId: r.commander_id,
    vocabularyCode: r.vocabulary_code,
    description: r.description,
    sensitivity: sensitivityOf(r.sensitivity),
    version: r.version,
    createdAt: r.created_at,
    createdBy: r.created_by,
    updatedAt: r.updated_at,
  };
}

function summary(r: EntitiesTable): EntitySummary {
  return { id: r.id, kind: r.kind as EntityKind, number: r.number, nameAr: r.name_ar, nameEn: r.name_en, title: r.title };
}

function text(v: string | null | undefined, field: string, max: number): string | null {
  if (v === null || v === undefined) return null;
  const t = v.trim();
  if (t.length > max) throw new Invalid(say("field.tooLong", { field, max }), field);
  return t === "" ? null : t;
}

async function loadEntity(tx: Tx, id: string): Promise<EntitiesTable> {
  const r = await cdb(tx).selectFrom("entities").selectAll().where("id", "=", id).executeTakeFirst();
  if (!r) throw new NotFound(say("entity.notFound", { id }));
  return r;
}

/** Follows a link column upward from `start`; refuses a cycle through `self`. */
async function walk(tx: Tx, start: string | null, column: "parent_id" | "commander_id", self?: string): Promise<EntitiesTable[]> {
  const out: EntitiesTable[] = [];
  const seen = new Set<string>(self ? [self] : []);
  let id = start;
  while (id && out.length < 50) {
    if (seen.has(id)) {
      if (self && id === self) throw new Invalid(column === "parent_id" ? say("entity.parentCircle") : say("entity.commanderCircle"), column === "parent_id" ? "parentId" : "commanderId");
      break;
    }
    seen.add(id);
    const r = await cdb(tx).selectFrom("entities").selectAll().where("id", "=", id).executeTakeFirst();
    if (!r) break;
    out.push(r);
    id = r[column];
  }
  return out;
}

async function validate(tx: Tx, kind: EntityKind, next: EntitiesTable, vocab: Vocabularies): Promise<void> {
  if (!next.name_ar && !next.name_en && !next.number) throw new Invalid(say("entity.nameNeeded"), "nameAr");
  if (next.governorate && !vocab.get("governorate", next.governorate)) {
    next.governorate = vocab.require("governorate", next.governorate, "governorate").code;
  }
  if (next.vocabulary_code) {
    const v = kind === "hospital" ? "hospital" : kind === "unit" || kind === "facility" ? "branch" : null;
    if (!v) throw new Invalid(say("entity.termOnlyPlaces"), "vocabularyCode");
    next.vocabulary_code = vocab.require(v, next.vocabulary_code, "vocabularyCode").code;
  }
  if (next.parent_id) {
    const p = await loadEntity(tx, next.parent_id).catch(() => null);
    if (!p) throw new Invalid(say("entity.parentUnknown", { parent: next.parent_id }), "parentId");
    if (p.kind === "person") throw new Invalid(say("entity.parentKind"), "parentId");
    await walk(tx, next.parent_id, "parent_id", next.id);
  }
  if (next.commander_id) {
    const c = await loadEntity(tx, next.commander_id).catch(() => null);
    if (!c) throw new Invalid(say("entity.commanderUnknown", { commander: next.commander_id }), "commanderId");
    if (c.kind !== "person") throw new Invalid(say("entity.commanderKind"), "commanderId");
    await walk(tx, next.commander_id, "commander_id", next.id);
  }
  next.number_norm = next.number ? normaliseNumber(next.number) : null;
  next.search_text = [...new Set(searchTokens([next.number, next.name_ar, next.name_en, next.title, next.description].filter(Boolean).join(" ")))].join(" ");
}

function applyFields(row: EntitiesTable, f: EntityFields): void {
  if (f.number !== undefined) row.number = text(f.number, "number", 40);
  if (f.nameAr !== undefined) row.name_ar = text(f.nameAr, "nameAr", 300);
  if (f.nameEn !== undefined) row.name_en = text(f.nameEn, "nameEn", 300);
  if (f.title !== undefined) row.title = text(f.title, "title", 300);
  if (f.governorate !== undefined) row.governorate = text(f.governorate, "governorate", 100);
  if (f.parentId !== undefined) row.parent_id = f.parentId || null;
  if (f.commanderId !== undefined) row.commander_id = f.commanderId || null;
  if (f.vocabularyCode !== undefined) row.vocabulary_code = text(f.vocabularyCode, "vocabularyCode", 100);
  if (f.description !== undefined) row.description = text(f.description, "description", 4000);
  if (f.sensitivity !== undefined) row.sensitivity = oneOf(SENSITIVITIES, f.sensitivity, "sensitivity");
}

export async function createEntity(ctx: Ctx, actor: Actor, sent: z.input<typeof contracts.NewEntityInput>): Promise<EntityView> {
  ctx.policy.require(actor, "catalogue.edit");
  const input = parseInput(contracts.NewEntityInput, sent);
  const kind = input.kind;
  return ctx.db.transaction(async (tx) => {
    const now = ctx.clock.now().toISOString();
    const row: EntitiesTable = {
      id: newId("ent"),
      kind,
      number: null,
      number_norm: null,
      name_ar: null,
      name_en: null,
      title: null,
      governorate: null,
      parent_id: null,
      commander_id: null,
      vocabulary_code: null,
      description: null,
      sensitivity: kind === "person" ? "restricted" : "internal",
      search_text: "",
      version: 1,
      created_at: now,
      created_by: actor.id,
      updated_at: now,
    };
    applyFields(row, input);
    if (!ctx.policy.allows(actor, "catalogue.read", resourceOf(row))) throw new Forbidden(say("entity.markingHides", { sensitivity: row.sensitivity }));
    await validate(tx, kind, row, await Vocabularies.load(tx));
    await cdb(tx).insertInto("entities").values(row).execute();
    const view = toEntityView(row);
    const changes: Change[] = (Object.keys(FIELD_COLUMNS) as (keyof EntityFields)[])
      .filter((f) => view[f] !== null)
      .map((f) => ({ recordType: "entity", recordId: row.id, field: f, old: null, new: view[f] }));
    changes.push({ recordType: "entity", recordId: row.id, field: "kind", old: null, new: kind });
    await recordChanges(ctx, tx, actor, { action: "entity.create", objects: [{ id: row.id, role: "entity" }], changes });
    return view;
  });
}

export async function updateEntity(ctx: Ctx, actor: Actor, sent: z.input<typeof contracts.UpdateEntityInput>): Promise<EntityView> {
  ctx.policy.require(actor, "catalogue.edit");
  const { id, version, ...fields } = parseInput(contracts.UpdateEntityInput, sent);
  return ctx.db.transaction(async (tx) => {
    const row = await loadEntity(tx, id);
    ctx.policy.require(actor, "catalogue.edit", resourceOf(row));
    if (version !== undefined && version !== row.version) {
      throw new Conflict(say("entity.changedSince", { version: row.version, yours: version }));
    }
    const next: EntitiesTable = { ...row };
    applyFields(next, fields);
    if (!ctx.policy.allows(actor, "catalogue.read", resourceOf(next))) throw new Forbidden(say("entity.markingHides", { sensitivity: next.sensitivity }));
    await validate(tx, row.kind as EntityKind, next, await Vocabularies.load(tx));
    const before = toEntityView(row);
    const after = toEntityView(next);
    const changes: Change[] = (Object.keys(FIELD_COLUMNS) as (keyof EntityFields)[])
      .filter((f) => before[f] !== after[f])
      .map((f) => ({ recordType: "entity", recordId: id, field: f, old: before[f], new: after[f] }));
    if (changes.length === 0) return before;
    const now = ctx.clock.now().toISOString();
    const { id: _id, ...columns } = next;
    await cdb(tx)
      .updateTable("entities")
      .set({ ...columns, version: row.version + 1, updated_at: now })
      .where("id", "=", id)
      .execute();
    await recordChanges(ctx, tx, actor, { action: "entity.edit", objects: [{ id, role: "entity" }], changes });
    return { ...after, version: row.version + 1, updatedAt: now };
  });
}

export async function getEntity(ctx: Ctx, actor: Actor, id: string): Promise<EntityDetail> {
  ctx.policy.require(actor, "catalogue.read");
  const row = await loadEntity(ctx.db.db, id);
  ctx.policy.require(actor, "catalogue.read", resourceOf(row));
  const visible = (r: EntitiesTable) => ctx.policy.allows(actor, "catalogue.read", resourceOf(r));
  const parents = (await walk(ctx.db.db, row.parent_id, "parent_id")).filter(visible).map(summary);
  const commanders = (await walk(ctx.db.db, row.commander_id, "commander_id")).filter(visible).map(summary);
  return { ...toEntityView(row), parents, commanders };
}

export interface ListEntities {
  kind?: string;
  /** Words that must all appear (names, number, title, description), normalised like search. */
  q?: string;
  after?: string;
  limit?: number;
}

export async function listEntities(ctx: Ctx, actor: Actor, input: ListEntities = {}): Promise<{ items: EntityView[]; next: string | null }> {
  ctx.policy.require(actor, "catalogue.read");
  const limit = Math.min(Math.max(input.limit ?? 100, 1), 500);
  const allowed = SENSITIVITIES.filter((s) => ctx.policy.allows(actor, "catalogue.read", { sensitivity: s }));
  let q = cdb(ctx.db.db).selectFrom("entities").selectAll().where("sensitivity", "in", allowed).orderBy("id").limit(limit + 1);
  if (input.kind) q = q.where("kind", "=", oneOf(ENTITY_KINDS, input.kind, "kind"));
  for (const tok of searchTokens(input.q ?? "").slice(0, 8)) {
    q = q.where((eb) => eb(eb.fn<string>("concat", [eb.val(" "), eb.ref("search_text"), eb.val(" ")]), "like", `% ${tok} %`));
  }
  if (input.after) q = q.where("id", ">", input.after);
  const rows = await q.execute();
  const page = rows.slice(0, limit);
  return { items: page.map(toEntityView), next: rows.length > limit ? page[page.length - 1]!.id : null };
}
