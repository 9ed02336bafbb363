import { test } from "node:test";
import assert from "node:assert/strict";
import { sql } from "kysely";
import { backends } from "../support/backends.ts";
import { freshArchive } from "../support/archive.ts";
import { investigator, seedBodies } from "../support/catalogue.ts";
import { editBody, mergeBodies, searchBodies } from "../../src/catalogue/index.ts";
import { afterPrefix } from "../../src/catalogue/search.ts";
import { openArchive } from "../../src/app/open-archive.ts";
import { loadConfig } from "../../src/core/config.ts";
import type { Archive } from "../../src/app/context.ts";

/**
 * PostgreSQL's word index (migration 0028): body_words is kept by a trigger on body_search, so it must hold
 * exactly the words of every body's search text after any write, and a database indexed before the migration
 * gets its words when the migration runs.
 */
const pg = (await backends())[1]!;

/** Every (word, ref_no) body_words holds, and every one the search texts say it should: the two must agree. */
async function wordsAndTexts(a: Archive): Promise<{ held: string[]; expected: string[] }> {
  const held = (await sql<{ w: string }>`select word || ' ' || ref_no as w from body_words`.execute(a.db.db)).rows.map((r) => r.w).sort();
  const texts = (await sql<{ ref_no: string; search_text: string }>`select ref_no, search_text from body_search`.execute(a.db.db)).rows;
  const expected = [...new Set(texts.flatMap((t) => t.search_text.split(" ").filter(Boolean).map((w) => `${w} ${t.ref_no}`)))].sort();
  return { held, expected };
}

const refs = async (a: Archive, q: string) => (await searchBodies(a, investigator, { q })).items.map((i) => i.ref).sort();

test("the word index follows every write of the search text: new bodies, edits, a merge, a row removed (postgres)", { skip: pg.skip }, async () => {
  const t = await freshArchive(pg.backend);
  const a = t.archive;
  try {
    const [b1, b2, b3] = await seedBodies(a, investigator, [
      { nameAr: "محمود الحلبي", notes: "كسور في الأصابع" },
      { nameAr: "محمد الشامي", clothing: "قميص أزرق" },
      { nameLat: "Samer Haddad" },
    ]);
    let w = await wordsAndTexts(a);
    assert.ok(w.held.length > 20);
    assert.deepEqual(w.held, w.expected);

    await editBody(a, investigator, { id: b1!.id, nameAr: "مازن الحلبي", notes: "حروق" });
    await editBody(a, investigator, { id: b3!.id, clothing: "قميص أحمر" });
    w = await wordsAndTexts(a);
    assert.deepEqual(w.held, w.expected, "after edits");
    assert.deepEqual(await refs(a, "محمود"), [], "the old name's word is gone");
    assert.deepEqual(await refs(a, "مازن"), [b1!.ref]);
    assert.deepEqual(await refs(a, "قميص"), [b2!.ref, b3!.ref].sort());
    assert.deepEqual(await refs(a, "قم*"), [b2!.ref, b3!.ref].sort());

    // the absorbed record leaves the index, and its words with it
    await mergeBodies(a, investigator, { keep: b2!.id, absorb: b3!.id });
    w = await wordsAndTexts(a);
    assert.deepEqual(w.held, w.expected, "after a merge");
    assert.equal(Number((await sql<{ n: string }>`select count(*) as n from body_words where ref_no = ${b3!.ref_no}`.execute(a.db.db)).rows[0]!.n), 0);

    // a row whose key changes moves all its words (no write does this today; the trigger must not depend on it)
    await sql`update body_search set ref_no = 9000 where ref_no = ${b1!.ref_no}`.execute(a.db.db);
    w = await wordsAndTexts(a);
    assert.deepEqual(w.held, w.expected, "after a key change");
    await sql`delete from body_search where ref_no = 9000`.execute(a.db.db);
    w = await wordsAndTexts(a);
    assert.deepEqual(w.held, w.expected, "after a delete");
  } finally {
    await t.close();
  }
});

test("a database indexed before migration 0028 gets its words when the migration runs (postgres)", { skip: pg.skip }, async () => {
  const fresh = await pg.backend.fresh();
  const open = () => openArchive(loadConfig({ data: fresh.dataDir }, { DALIL_DATABASE_URL: fresh.databaseUrl! }));
  let a = await open();
  try {
    const [b1, b2] = await seedBodies(a, investigator, [{ nameAr: "وائل النجار" }, { nameAr: "وائل الزعبي" }]);
    // back to the schema before the migration, with the bodies' search texts in place and no words
    await sql`drop table body_words`.execute(a.db.db);
    await sql`drop trigger body_search_words on body_search`.execute(a.db.db);
    await sql`drop function dalil_body_words()`.execute(a.db.db);
    await sql`alter table body_search add column search_vector tsvector`.execute(a.db.db);
    await sql`delete from dalil_migrations where name = '0028-body-words'`.execute(a.db.db);
    await a.close();

    a = await open();
    const w = await wordsAndTexts(a);
    assert.ok(w.held.length > 0);
    assert.deepEqual(w.held, w.expected);
    assert.deepEqual(await refs(a, "وائل"), [b1!.ref, b2!.ref].sort());
    assert.deepEqual(await refs(a, "الزعبي"), [b2!.ref]);
  } finally {
    await a.close();
    await fresh.cleanup();
  }
});

test("a prefix's range ends after every word that begins with it, in code point order", () => {
  assert.equal(afterPrefix("مح"), "مخ");
  assert.equal(afterPrefix("ab"), "ac");
  assert.equal(afterPrefix("a\u{10FFFF}"), "b", "the last code point cannot grow: the one before it does");
  assert.equal(afterPrefix("\u{D7FF}"), "\u{E000}", "surrogates are not code points of a string");
  assert.equal(afterPrefix("\u{FFFF}"), "\u{10000}");
  assert.equal(afterPrefix("\u{10FFFF}"), null);
  assert.equal(afterPrefix(""), null);
  // every word that begins with the prefix sorts before the range's end, and the end itself does not begin with it
  for (const p of ["مح", "a\u{10FFFF}", "\u{FFFF}", "b0"]) {
    const end = afterPrefix(p)!;
    for (const tail of ["", "a", "\u{10FFFF}\u{10FFFF}", "ي"]) assert.ok(Buffer.compare(Buffer.from(p + tail), Buffer.from(end)) < 0, `${p}${tail}`);
    assert.ok(!end.startsWith(p));
  }
});
