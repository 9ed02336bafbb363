/**
 * Exhibitions: a curator creates one (titles and statements in its languages), chooses, orders and captions its
 * items, redacts them, and submits it; a second person (never its author, its submitter or anyone who edited an
 * item) confirms every item's redaction and approves it; it is then published and may be withdrawn. Every step is a
 * custody event in the same transaction; the events name the exhibition, its items and originals by id and
 * SHA-256 and the redaction records by SHA-256, never a title, statement or caption (words a person typed).
 */
import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { Conflict, Forbidden, Invalid } from "../core/errors.ts";
import { newId } from "../core/ids.ts";
import type { Tx } from "../db/database.ts";
import { logExhibition } from "./log.ts";
import { activeItems, activeRegions, consentStates, exhibitionView, itemsWithPendingSuggestions, loadExhibition, redactionRecord, recordSha256, reviewSha256, toSummary } from "./records.ts";
import { xdb, type ExhibitionsTable } from "./tables.ts";
import { startConsentWatch } from "./consent-sweep.ts";
import * as contracts from "./contracts.ts";
import { LANGUAGES, type ExhibitionSummary, type ExhibitionView } from "./contracts.ts";
import { parseInput } from "../core/input.ts";
import { say } from "../core/messages.ts";
import type { z } from "zod";

export type Language = (typeof LANGUAGES)[number];

export type CreateExhibition = z.input<typeof contracts.CreateExhibitionInput>;

/** Words a person typed, trimmed (the schema bounds their length); blank is none. */
export function words(v: string | null | undefined): string | null {
  return (v ?? "").trim() || null;
}

function checkLanguages(langs: readonly Language[], title: { ar: string | null; en: string | null }): Language[] {
  const set = [...new Set(langs)];
  for (const l of set) if (!title[l]) throw new Invalid(l === "ar" ? say("exhibition.titleMissingAr") : say("exhibition.titleMissingEn"), `title.${l}`);
  return (LANGUAGES as readonly Language[]).filter((l) => set.includes(l));
}

export async function createExhibition(ctx: Ctx, actor: Actor, sent: CreateExhibition): Promise<ExhibitionSummary> {
  ctx.policy.require(actor, "exhibition.edit");
  const input = parseInput(contracts.CreateExhibitionInput, sent);
  const title = { ar: words(input.title.ar), en: words(input.title.en) };
  const statement = { ar: words(input.statement?.ar), en: words(input.statement?.en) };
  const languages = checkLanguages(input.languages, title);
  return ctx.db.transaction(async (tx) => {
    const n = await xdb(tx).selectFrom("exhibitions").select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow();
    const now = ctx.clock.now().toISOString();
    const row: ExhibitionsTable = {
      id: newId("exh"),
      ref: `X-${String(Number(n.n) + 1).padStart(4, "0")}`,
      title_ar: title.ar,
      title_en: title.en,
      statement_ar: statement.ar,
      statement_en: statement.en,
      languages: JSON.stringify(languages),
      status: "draft",
      created_by: actor.id,
      created_at: now,
      updated_at: now,
      submitted_by: null,
      submitted_at: null,
      approved_by: null,
      approved_at: null,
      published_by: null,
      published_at: null,
      withdrawn_by: null,
      withdrawn_at: null,
    };
    await xdb(tx).insertInto("exhibitions").values(row).execute();
    await logExhibition(ctx, tx, actor, row.id, [], { action: "exhibition.create", languages });
    return toSummary(row, 0);
  });
}

/** Changes the titles, statements or languages of a draft. */
export async function updateExhibition(ctx: Ctx, actor: Actor, sent: z.input<typeof contracts.UpdateExhibitionInput>): Promise<ExhibitionSummary> {
  ctx.policy.require(actor, "exhibition.edit");
  const input = parseInput(contracts.UpdateExhibitionInput, sent);
  return ctx.db.transaction(async (tx) => {
    const ex = await loadDraft(tx, input.id);
    const title = { ar: input.title?.ar !== undefined ? words(input.title.ar) : ex.title_ar, en: input.title?.en !== undefined ? words(input.title.en) : ex.title_en };
    const statement = {
      ar: input.statement?.ar !== undefined ? words(input.statement.ar) : ex.statement_ar,
      en: input.statement?.en !== undefined ? words(input.statement.en) : ex.statement_en,
    };
    const languages = checkLanguages(input.languages ?? (JSON.parse(ex.languages) as Language[]), title);
    const next = { ...ex, title_ar: title.ar, title_en: title.en, statement_ar: statement.ar, statement_en: statement.en, languages: JSON.stringify(languages), updated_at: ctx.clock.now().toISOString() };
    const fields = (["title_ar", "title_en", "statement_ar", "statement_en", "languages"] as const).filter((k) => next[k] !== ex[k]).map((k) => k.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase()));
    if (fields.length === 0) return toSummary(ex, (await activeItems(tx, ex.id)).length);
    await xdb(tx).updateTable("exhibitions").set(next).where("id", "=", ex.id).execute();
    await logExhibition(ctx, tx, actor, ex.id, [], { action: "exhibition.update", fields });
    return toSummary(next, (await activeItems(tx, ex.id)).length);
  });
}

export async function loadDraft(tx: Tx, idOrRef: string): Promise<ExhibitionsTable> {
  const ex = await loadExhibition(tx, idOrRef);
  if (ex.status !== "draft") throw new Conflict(say("exhibition.notDraft", { ref: ex.ref, status: ex.status }));
  return ex;
}

export async function listExhibitions(ctx: Ctx, actor: Actor): Promise<ExhibitionSummary[]> {
  ctx.policy.require(actor, "exhibition.read");
  const rows = await xdb(ctx.db.db).selectFrom("exhibitions").selectAll().orderBy("created_at", "desc").orderBy("id").execute();
  const out: ExhibitionSummary[] = [];
  for (const r of rows) out.push(toSummary(r, (await activeItems(ctx.db.db, r.id)).length));
  return out;
}

export async function showExhibition(ctx: Ctx, actor: Actor, idOrRef: string): Promise<ExhibitionView> {
  ctx.policy.require(actor, "exhibition.read");
  return exhibitionView(ctx.db.db, await loadExhibition(ctx.db.db, idOrRef));
}

interface Step {
  from: readonly string[];
  to: string;
  action: string;
}

async function transition(ctx: Ctx, actor: Actor, idOrRef: string, { from, to, action }: Step, check?: (tx: Tx, ex: ExhibitionsTable) => Promise<Record<string, unknown>>): Promise<ExhibitionSummary> {
  return ctx.db.transaction(async (tx) => {
    const ex = await loadExhibition(tx, idOrRef);
    if (!from.includes(ex.status)) throw new Conflict(say("exhibition.wrongStatus", { ref: ex.ref, status: ex.status, step: action, needs: from.join(" or ") }));
    const detail = check ? await check(tx, ex) : {};
    const now = ctx.clock.now().toISOString();
    const set: Partial<ExhibitionsTable> = { status: to, updated_at: now };
    if (to === "review") Object.assign(set, { submitted_by: actor.id, submitted_at: now, approved_by: null, approved_at: null });
    if (to === "approved") Object.assign(set, { approved_by: actor.id, approved_at: now });
    if (to === "published") Object.assign(set, { published_by: actor.id, published_at: now, withdrawn_by: null, withdrawn_at: null });
    if (to === "withdrawn") Object.assign(set, { withdrawn_by: actor.id, withdrawn_at: now });
    if (to === "draft") Object.assign(set, { approved_by: null, approved_at: null });
    const n = await xdb(tx).updateTable("exhibitions").set(set).where("id", "=", ex.id).where("status", "=", ex.status).executeTakeFirst();
    if (Number(n.numUpdatedRows) !== 1) throw new Conflict(say("exhibition.changedMeanwhile", { ref: ex.ref }));
    await logExhibition(ctx, tx, actor, ex.id, [], { action, from: ex.status, to, ...detail });
    return toSummary({ ...ex, ...set } as ExhibitionsTable, (await activeItems(tx, ex.id)).length);
  });
}

/** The people who made an exhibition what it is: none of them may be its reviewer. */
export async function authorsOf(tx: Tx, ex: ExhibitionsTable): Promise<Set<string>> {
  const items = await xdb(tx).selectFrom("exhibition_items").select(["added_by", "updated_by", "id"]).where("exhibition_id", "=", ex.id).execute();
  const regions = items.length ? await xdb(tx).selectFrom("exhibition_regions").select(["marked_by", "removed_by"]).where("item_id", "in", items.map((i) => i.id)).execute() : [];
  return new Set([ex.created_by, ex.submitted_by, ...items.flatMap((i) => [i.added_by, i.updated_by]), ...regions.flatMap((r) => [r.marked_by, r.removed_by])].filter((x): x is string => Boolean(x)));
}

export function refuseAuthor(authors: Set<string>, actor: Actor, ref: string): void {
  if (authors.has(actor.id)) throw new Forbidden(say("exhibition.secondPerson", { ref }));
}

/** Every item reviewed as it stands now; the positions of those that are not, for the refusal. */
async function unreviewed(tx: Tx, ex: ExhibitionsTable): Promise<{ positions: number[]; reviews: string[] }> {
  const items = await activeItems(tx, ex.id);
  const regions = await activeRegions(tx, items.map((i) => i.id));
  const positions: number[] = [];
  const reviews: string[] = [];
  for (const it of items) {
    const sha = reviewSha256(it, regions.get(it.id) ?? []);
    if (it.reviewed_record !== sha) positions.push(it.position);
    else reviews.push(sha);
  }
  return { positions, reviews };
}

export async function submitExhibition(ctx: Ctx, actor: Actor, idOrRef: string): Promise<ExhibitionSummary> {
  ctx.policy.require(actor, "exhibition.edit");
  return transition(ctx, actor, idOrRef, { from: ["draft"], to: "review", action: "exhibition.submit" }, async (tx, ex) => {
    const n = (await activeItems(tx, ex.id)).length;
    if (n === 0) throw new Invalid(say("exhibition.noItems", { ref: ex.ref }), "items");
    const pending = await itemsWithPendingSuggestions(tx, ex.id);
    if (pending.length) throw new Conflict(say("exhibition.suggestionsPending", { ref: ex.ref, items: pending.join(", ") }));
    return { items: n };
  });
}

/** A reviewer (or the author, before approval) sends the exhibition back to draft for changes. */
export async function returnToDraft(ctx: Ctx, actor: Actor, idOrRef: string): Promise<ExhibitionSummary> {
  ctx.policy.require(actor, "exhibition.edit");
  return transition(ctx, actor, idOrRef, { from: ["review", "approved", "withdrawn"], to: "draft", action: "exhibition.return" });
}

export async function approveExhibition(ctx: Ctx, actor: Actor, idOrRef: string): Promise<ExhibitionSummary> {
  ctx.policy.require(actor, "exhibition.review");
  return transition(ctx, actor, idOrRef, { from: ["review"], to: "approved", action: "exhibition.approve" }, async (tx, ex) => {
    refuseAuthor(await authorsOf(tx, ex), actor, ex.ref);
    const { positions } = await unreviewed(tx, ex);
    if (positions.length) throw new Conflict(say("exhibition.unreviewedConfirm", { ref: ex.ref, items: positions.join(", ") }));
    return {};
  });
}

/**
 * Publishes an approved exhibition. Refused while any item is unreviewed (or changed since its review) or shows an
 * identified person whose family has not consented to public display.
 */
export async function publishExhibition(ctx: Ctx, actor: Actor, idOrRef: string): Promise<ExhibitionSummary> {
  ctx.policy.require(actor, "exhibition.publish");
  const summary = await transition(ctx, actor, idOrRef, { from: ["approved"], to: "published", action: "exhibition.publish" }, async (tx, ex) => {
    const { positions, reviews } = await unreviewed(tx, ex);
    if (positions.length) throw new Conflict(say("exhibition.unreviewed", { ref: ex.ref, items: positions.join(", ") }));
    const items = await activeItems(tx, ex.id);
    const consent = await consentStates(tx, items);
    const missing = items.filter((i) => consent.get(i.id) === "missing").map((i) => i.position);
    if (missing.length) throw new Conflict(say("exhibition.noConsent", { ref: ex.ref, items: missing.join(", ") }));
    const regions = await activeRegions(tx, items.map((i) => i.id));
    const records = items.map((i) => recordSha256(redactionRecord(i, regions.get(i.id) ?? []))).filter((r): r is string => r !== null);
    return { items: items.length, reviews, records };
  });
  // A family may withdraw consent at any time: the sweep records each takedown (consent-sweep.ts).
  await startConsentWatch(ctx);
  return summary;
}

export async function withdrawExhibition(ctx: Ctx, actor: Actor, idOrRef: string): Promise<ExhibitionSummary> {
  ctx.policy.require(actor, "exhibition.publish");
  return transition(ctx, actor, idOrRef, { from: ["published"], to: "withdrawn", action: "exhibition.withdraw" });
}
