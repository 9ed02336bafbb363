import { searchTokens } from "../core/arabic.ts";
import { nameKeyTokens } from "../names/index.ts";
import type { Tx } from "../db/database.ts";
import { cdb, type BodiesTable } from "./tables.ts";
import { Vocabularies, type VocabularyName } from "./vocabularies.ts";
import type { Mark } from "./marks.ts";

/**
 * What a body is found by: the tokens of its reference, numbers (every reading, not only the current one),
 * names, notes, clothing, marks, hospital, branch and findings (labels in both languages), dates, and its
 * photos' metadata (SHA-256, capture date, camera model — never the serial, which is sensitive), and the
 * names' cross-script keys (`nameKeyTokens`), so a name is found in either script. Stored in
 * body_search.search_text; the FTS5 table (SQLite) and body_words (PostgreSQL, migration 0028) index exactly these
 * tokens. A merged record has no row there: it is found through the body it went into.
 */
export interface IndexInput {
  body: Pick<
    BodiesTable,
    "ref" | "ref_no" | "external_ref" | "hospital" | "branch_no" | "photo_date" | "death_date" | "name_ar" | "name_lat" | "notes" | "clothing" | "marks"
  >;
  numbers: string[];
  findings: string[];
  photos: { sha256: string; captureTime: string | null; cameraModel: string | null }[];
  /** Numbers and names documents give for the body (body_documents), as written. */
  documents?: { kind: string; value: string }[];
}

/** Letters and digits of a number joined, so "1234/ب" is found as "1234/ب", "1234 ب" and "1234ب". */
function compact(s: string): string {
  return searchTokens(s).join("");
}

function labels(vocab: Vocabularies, v: VocabularyName, code: string | null | undefined, withParents = false): string[] {
  const out: string[] = [];
  let t = vocab.get(v, code);
  let guard = 0;
  while (t && guard++ < 8) {
    out.push(t.code, t.labelAr, t.labelEn);
    if (!withParents) break;
    t = vocab.get(v, t.parent);
  }
  return out;
}

export function bodySearchText(input: IndexInput, vocab: Vocabularies): string {
  const b = input.body;
  const parts: string[] = [b.ref, `b${String(b.ref_no).padStart(6, "0")}`, String(b.ref_no)];
  if (b.external_ref) parts.push(b.external_ref, compact(b.external_ref));
  for (const n of input.numbers) parts.push(n, compact(n));
  for (const s of [b.name_ar, b.name_lat, b.notes, b.clothing, b.photo_date, b.death_date]) if (s) parts.push(s);
  parts.push(...nameKeyTokens(b.name_ar), ...nameKeyTokens(b.name_lat));
  for (const d of input.documents ?? []) {
    if (d.kind === "name") parts.push(d.value, ...nameKeyTokens(d.value));
    else parts.push(d.value, compact(d.value));
  }
  const marks = JSON.parse(b.marks) as Mark[];
  for (const m of marks) {
    parts.push(m.description, ...labels(vocab, "mark_type", m.type).slice(1), ...labels(vocab, "body_region", m.region).slice(1));
  }
  parts.push(...labels(vocab, "hospital", b.hospital));
  if (b.branch_no) parts.push(...labels(vocab, "branch", compact(b.branch_no), true).slice(1));
  for (const f of input.findings) parts.push(...labels(vocab, "finding", f, true).slice(1));
  for (const p of input.photos) {
    parts.push(p.sha256);
    if (p.captureTime) parts.push(p.captureTime.slice(0, 10));
    if (p.cameraModel) parts.push(p.cameraModel);
  }
  const seen = new Set<string>();
  const out: string[] = [];
  for (const part of parts) {
    for (const tok of searchTokens(part)) {
      if (!seen.has(tok)) {
        seen.add(tok);
        out.push(tok);
      }
    }
  }
  return out.join(" ");
}

/** Recomputes one body's search document from the database and stores it if it changed. */
export async function refreshSearchText(tx: Tx, bodyId: string, vocab?: Vocabularies): Promise<void> {
  const db = cdb(tx);
  const body = await db.selectFrom("bodies").selectAll().where("id", "=", bodyId).executeTakeFirstOrThrow();
  const current = await db.selectFrom("body_search").select("search_text").where("ref_no", "=", body.ref_no).executeTakeFirst();
  if (body.merged_into) {
    // An absorbed record leaves the index: its photos and numbers now belong to the body it was merged into.
    if (current) await db.deleteFrom("body_search").where("ref_no", "=", body.ref_no).execute();
    return;
  }
  const [numbers, findings, photos, documents] = await Promise.all([
    db.selectFrom("body_numbers").select("value").where("body_id", "=", bodyId).where("retired_at", "is", null).orderBy("seq").execute(),
    db.selectFrom("body_findings").select("code").distinct().where("body_id", "=", bodyId).orderBy("code").execute(),
    // Joined with archive's originals on purpose (allowed in scripts/check-modules.mjs): the search text is
    // recomputed on every body write, and the join is the faster read (`npm run bench -- bounds`).
    db
      .selectFrom("body_photos")
      .innerJoin("originals", "originals.sha256", "body_photos.original_sha256")
      .select(["originals.sha256", "originals.capture_time", "originals.camera_model"])
      .where("body_photos.body_id", "=", bodyId)
      .orderBy("body_photos.position")
      .execute(),
    db.selectFrom("body_documents").select(["kind", "value"]).where("body_id", "=", bodyId).orderBy("imported_at").orderBy("id").execute(),
  ]);
  const text = bodySearchText(
    {
      body,
      numbers: numbers.map((n) => n.value),
      findings: findings.map((f) => f.code),
      photos: photos.map((p) => ({ sha256: p.sha256, captureTime: p.capture_time, cameraModel: p.camera_model })),
      documents,
    },
    vocab ?? (await Vocabularies.load(tx)),
  );
  if (!current) await db.insertInto("body_search").values({ ref_no: body.ref_no, search_text: text }).execute();
  else if (current.search_text !== text) await db.updateTable("body_search").set({ search_text: text }).where("ref_no", "=", body.ref_no).execute();
}

/** The finding codes of a body as bodies.finding_codes holds them: " a b c ", sorted, each once ("" for none). */
export function findingCodesText(codes: Iterable<string>): string {
  const list = [...new Set(codes)].sort();
  return list.length ? ` ${list.join(" ")} ` : "";
}

/** After a term's labels change: re-index the bodies that carry it (hospital, branch or finding). */
export async function reindexBodiesWithTerm(tx: Tx, vocabulary: string, code: string): Promise<number> {
  const db = cdb(tx);
  let ids: string[] = [];
  if (vocabulary === "hospital") {
    ids = (await db.selectFrom("bodies").select("id").where("hospital", "=", code).execute()).map((r) => r.id);
  } else if (vocabulary === "branch") {
    // Children's labels include their parents' (an agency), so a parent's relabel reaches its branches' bodies.
    const codes = [code, ...(await db.selectFrom("vocabularies").select("code").where("vocabulary", "=", "branch").where("parent", "=", code).execute()).map((r) => r.code)];
    ids = (await db.selectFrom("bodies").select("id").where("branch_no_norm", "in", codes).execute()).map((r) => r.id);
  } else if (vocabulary === "finding") {
    const codes = [code, ...(await db.selectFrom("vocabularies").select("code").where("vocabulary", "=", "finding").where("parent", "=", code).execute()).map((r) => r.code)];
    ids = (await db.selectFrom("body_findings").select("body_id").distinct().where("code", "in", codes).execute()).map((r) => r.body_id);
  } else if (vocabulary === "mark_type" || vocabulary === "body_region") {
    ids = (await db.selectFrom("bodies").select("id").where("marks", "like", `%"${code}"%`).execute()).map((r) => r.id);
  }
  if (ids.length === 0) return 0;
  const vocab = await Vocabularies.load(tx);
  for (const id of ids) await refreshSearchText(tx, id, vocab);
  return ids.length;
}
