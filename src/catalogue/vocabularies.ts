import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { normaliseArabic } from "../core/arabic.ts";
import { Conflict, Invalid, NotFound } from "../core/errors.ts";
import type { Tx } from "../db/database.ts";
import { cdb, type VocabulariesTable } from "./tables.ts";
import { VOCABULARY_NAMES, type VocabularyName } from "../db/migrations/0003-vocabulary-seed.ts";
import { recordChanges, type Change } from "./history.ts";
import { reindexBodiesWithTerm } from "./search-index.ts";
import * as contracts from "./contracts.ts";
import { parseInput } from "../core/input.ts";
import type { z } from "zod";
import { say } from "../core/messages.ts";

/**
 * Controlled vocabularies: bilingual terms with a stable code. Codes are what records store; labels are what
 * people read and may be corrected; a term is retired, never deleted, so old records keep their meaning.
 * Administrators add and correct terms (action `vocabulary.manage`); every change is in the field history.
 */
export { VOCABULARY_NAMES, type VocabularyName };

export type Term = contracts.Term;

export function isVocabularyName(v: string): v is VocabularyName {
  return (VOCABULARY_NAMES as readonly string[]).includes(v);
}

function toTerm(r: VocabulariesTable): Term {
  return {
    vocabulary: r.vocabulary as VocabularyName,
    code: r.code,
    labelAr: r.label_ar,
    labelEn: r.label_en,
    parent: r.parent,
    extra: JSON.parse(r.extra) as Record<string, unknown>,
    sort: r.sort,
    retired: r.retired_at !== null,
  };
}

/** Every term of every vocabulary (a few hundred rows at most), for code that resolves many values at once. */
export class Vocabularies {
  private readonly byVocab = new Map<string, Term[]>();
  private readonly index = new Map<string, Map<string, Term>>();

  constructor(terms: Term[]) {
    for (const t of terms) {
      let list = this.byVocab.get(t.vocabulary);
      if (!list) this.byVocab.set(t.vocabulary, (list = []));
      list.push(t);
    }
    for (const [v, list] of this.byVocab) {
      const idx = new Map<string, Term>();
      // Codes win over labels, labels over aliases: a code can never be shadowed by someone's label.
      for (const t of list) for (const a of aliasesOf(t)) if (!idx.has(key(a))) idx.set(key(a), t);
      for (const t of list) for (const l of [t.labelEn, t.labelAr]) idx.set(key(l), t);
      for (const t of list) idx.set(key(t.code), t);
      this.index.set(v, idx);
    }
  }

  static async load(tx: Tx): Promise<Vocabularies> {
    const rows = await cdb(tx).selectFrom("vocabularies").selectAll().orderBy("vocabulary").orderBy("sort").orderBy("code").execute();
    return new Vocabularies(rows.map(toTerm));
  }

  /**
   * The vocabularies as last loaded by this process, reloaded when their stamp (bumped by every change, in any
   * process) has moved: one primary-key read instead of a reload per search.
   */
  static async cached(db: Tx): Promise<Vocabularies> {
    const stamp = await vocabularyStamp(db);
    const hit = CACHE.get(db);
    if (hit && hit.stamp === stamp) return hit.vocab;
    const vocab = await Vocabularies.load(db);
    CACHE.set(db, { stamp, vocab });
    return vocab;
  }

  terms(v: VocabularyName, includeRetired = false): Term[] {
    return (this.byVocab.get(v) ?? []).filter((t) => includeRetired || !t.retired);
  }

  get(v: VocabularyName, code: string | null | undefined): Term | undefined {
    if (!code) return undefined;
    return (this.byVocab.get(v) ?? []).find((t) => t.code === code);
  }

  /** The term a person meant by a code, a label in either language, or a known alias; retired terms too. */
  resolve(v: VocabularyName, text: string): Term | undefined {
    return this.index.get(v)?.get(key(text));
  }

  /** Like resolve, but an unknown value is a sentence naming the vocabulary and its codes. */
  require(v: VocabularyName, text: string, field?: string): Term {
    const t = this.resolve(v, text);
    if (!t) {
      const codes = this.terms(v).map((x) => x.code);
      const shown = codes.length > 12 ? `${codes.slice(0, 12).join(", ")}, …` : codes.join(", ");
      throw new Invalid(say("vocabulary.notIn", { text, vocabulary: v, codes: shown }), field);
    }
    return t;
  }
}

const CACHE = new WeakMap<object, { stamp: number; vocab: Vocabularies }>();

async function vocabularyStamp(db: Tx): Promise<number> {
  const r = await cdb(db).selectFrom("ref_counters").select("next").where("name", "=", "vocabulary").executeTakeFirst();
  return Number(r?.next ?? 0);
}

/** Every change to a vocabulary moves the stamp, in the changing transaction. */
async function bumpStamp(tx: Tx): Promise<void> {
  await cdb(tx)
    .updateTable("ref_counters")
    .set((eb) => ({ next: eb("next", "+", 1) }))
    .where("name", "=", "vocabulary")
    .execute();
}

function aliasesOf(t: Term): string[] {
  const a = t.extra.aliases;
  return Array.isArray(a) ? a.filter((x): x is string => typeof x === "string") : [];
}

function key(s: string): string {
  return normaliseArabic(s);
}

export async function listVocabulary(
  ctx: Ctx,
  actor: Actor,
  input: { vocabulary?: string; includeRetired?: boolean } = {},
): Promise<Term[]> {
  ctx.policy.require(actor, "catalogue.read");
  const vocab = await Vocabularies.load(ctx.db.db);
  if (input.vocabulary !== undefined && !isVocabularyName(input.vocabulary)) {
    throw new Invalid(say("vocabulary.none", { vocabulary: input.vocabulary, names: VOCABULARY_NAMES.join(", ") }), "vocabulary");
  }
  const names = input.vocabulary ? [input.vocabulary as VocabularyName] : [...VOCABULARY_NAMES];
  return names.flatMap((n) => vocab.terms(n, input.includeRetired ?? false));
}

export type AddTerm = z.input<typeof contracts.AddTermInput>;

const CODE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$/;

export async function addVocabularyTerm(ctx: Ctx, actor: Actor, sent: AddTerm): Promise<Term> {
  ctx.policy.require(actor, "vocabulary.manage");
  const input = parseInput(contracts.AddTermInput, sent);
  if (!isVocabularyName(input.vocabulary)) {
    throw new Invalid(say("vocabulary.none", { vocabulary: input.vocabulary, names: VOCABULARY_NAMES.join(", ") }), "vocabulary");
  }
  if (!CODE.test(input.code)) throw new Invalid(say("vocabulary.code"), "code");
  const labelAr = input.labelAr.trim();
  const labelEn = input.labelEn.trim();
  if (!labelAr || !labelEn) throw new Invalid(say("vocabulary.labels"), labelAr ? "labelEn" : "labelAr");
  const vocabulary = input.vocabulary;
  return ctx.db.transaction(async (tx) => {
    const db = cdb(tx);
    const existing = await db.selectFrom("vocabularies").select("code").where("vocabulary", "=", vocabulary).where("code", "=", input.code).executeTakeFirst();
    if (existing) throw new Conflict(say("vocabulary.codeExists", { vocabulary, code: input.code }));
    if (input.parent) {
      const p = await db.selectFrom("vocabularies").select("code").where("vocabulary", "=", vocabulary).where("code", "=", input.parent).executeTakeFirst();
      if (!p) throw new Invalid(say("vocabulary.parentNotIn", { parent: input.parent, vocabulary }), "parent");
    }
    const max = await db.selectFrom("vocabularies").select((eb) => eb.fn.max("sort").as("m")).where("vocabulary", "=", vocabulary).executeTakeFirst();
    const now = ctx.clock.now().toISOString();
    const row: VocabulariesTable = {
      vocabulary,
      code: input.code,
      label_ar: labelAr,
      label_en: labelEn,
      parent: input.parent ?? null,
      extra: JSON.stringify(input.extra ?? {}),
      sort: Number(max?.m ?? 0) + 10,
      retired_at: null,
      created_at: now,
      created_by: actor.id,
    };
    await db.insertInto("vocabularies").values(row).execute();
    await bumpStamp(tx);
    const rid = `${vocabulary}:${input.code}`;
    await recordChanges(ctx, tx, actor, {
      action: "vocabulary.add",
      objects: [{ id: rid, role: "vocabulary term" }],
      changes: [
        { recordType: "vocabulary", recordId: rid, field: "labelAr", old: null, new: labelAr },
        { recordType: "vocabulary", recordId: rid, field: "labelEn", old: null, new: labelEn },
        ...(input.parent ? [{ recordType: "vocabulary", recordId: rid, field: "parent", old: null, new: input.parent } as Change] : []),
      ],
    });
    return toTerm(row);
  });
}

export type UpdateTerm = z.input<typeof contracts.UpdateTermInput>;

/** Corrects labels, extra data, or retires/restores a term. Bodies that carry the term are re-indexed. */
export async function updateVocabularyTerm(ctx: Ctx, actor: Actor, sent: UpdateTerm): Promise<Term> {
  ctx.policy.require(actor, "vocabulary.manage");
  const input = parseInput(contracts.UpdateTermInput, sent);
  const vocabulary = input.vocabulary;
  return ctx.db.transaction(async (tx) => {
    const db = cdb(tx);
    const row = await db.selectFrom("vocabularies").selectAll().where("vocabulary", "=", vocabulary).where("code", "=", input.code).executeTakeFirst();
    if (!row) throw new NotFound(say("vocabulary.noCode", { vocabulary, code: input.code }));
    const now = ctx.clock.now().toISOString();
    const next: VocabulariesTable = { ...row };
    const changes: Change[] = [];
    const rid = `${vocabulary}:${input.code}`;
    const put = (field: string, old: unknown, value: unknown) => changes.push({ recordType: "vocabulary", recordId: rid, field, old, new: value });
    if (input.labelAr !== undefined && input.labelAr.trim() !== row.label_ar) {
      if (!input.labelAr.trim()) throw new Invalid(say("vocabulary.arabicEmpty"), "labelAr");
      put("labelAr", row.label_ar, (next.label_ar = input.labelAr.trim()));
    }
    if (input.labelEn !== undefined && input.labelEn.trim() !== row.label_en) {
      if (!input.labelEn.trim()) throw new Invalid(say("vocabulary.englishEmpty"), "labelEn");
      put("labelEn", row.label_en, (next.label_en = input.labelEn.trim()));
    }
    if (input.extra !== undefined) {
      const extra = JSON.stringify(input.extra);
      if (extra !== row.extra) put("extra", JSON.parse(row.extra), ((next.extra = extra), input.extra));
    }
    if (input.retired !== undefined && input.retired !== (row.retired_at !== null)) {
      next.retired_at = input.retired ? now : null;
      put("retired", row.retired_at !== null, input.retired);
    }
    if (changes.length === 0) return toTerm(row);
    await db
      .updateTable("vocabularies")
      .set({ label_ar: next.label_ar, label_en: next.label_en, extra: next.extra, retired_at: next.retired_at })
      .where("vocabulary", "=", vocabulary)
      .where("code", "=", input.code)
      .execute();
    await bumpStamp(tx);
    await recordChanges(ctx, tx, actor, { action: "vocabulary.update", objects: [{ id: rid, role: "vocabulary term" }], changes });
    await reindexBodiesWithTerm(tx, vocabulary, input.code);
    return toTerm(next);
  });
}
