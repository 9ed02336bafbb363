import { sql, type Kysely } from "kysely";
import type { MigrationContext } from "../migrate.ts";

/**
 * PostgreSQL finds bodies by their words in a b-tree of (word, ref_no) instead of a GIN index over a tsvector
 * (decision 0040, issue 18 item 1). GIN hands back row addresses, so every body a common word or a prefix finds
 * cost a visit to a wide body_search row to read its ref_no: at ten times the card, محمد (2,389 bodies) and مح*
 * (3,842) spent most of their time there. The b-tree holds the ref_no itself: a word is one index range, read
 * without touching a table row, and a prefix is a range of words.
 *
 * body_words is derived from body_search.search_text by a trigger, so every path that writes the search text
 * (a body's edit, a merge, a restore, migration 0014) keeps it, in the same transaction. The words are compared
 * byte for byte (collate "C"), as the tsvector compared them. Owned by the catalogue module.
 *
 * SQLite is left as it is: its FTS5 table already answers a word or a prefix ('2 3') from its own b-tree.
 */
export async function up(db: Kysely<unknown>, m: MigrationContext): Promise<void> {
  if (m.dialect !== "postgres") return;
  await sql`create table body_words (word text collate "C" not null, ref_no bigint not null)`.execute(db);
  // Filled before its key exists: the index is then built once, sorted, instead of grown a row at a time (at ten
  // times the card, 196 against 288 MB). Writes to body_search wait until the migration commits (with the
  // trigger in place), so none falls between the fill and the trigger.
  await sql`lock table body_search in share mode`.execute(db);
  await sql`insert into body_words (word, ref_no)
    select distinct w, ref_no from body_search, unnest(string_to_array(search_text, ' ')) w where w <> ''`.execute(db);
  await sql`alter table body_words add constraint body_words_pk primary key (word, ref_no)`.execute(db);
  // Only the words that changed are deleted and inserted: a body is re-indexed on every edit, and most of its
  // ~40 words (its photos' hashes, its labels) stay. Deletes go through the primary key (word first).
  await sql
    .raw(
      `create function dalil_body_words() returns trigger language plpgsql as $$
      begin
        if tg_op = 'DELETE' or (tg_op = 'UPDATE' and old.ref_no <> new.ref_no) then
          delete from body_words where ref_no = old.ref_no and word = any(string_to_array(old.search_text, ' '));
        elsif tg_op = 'UPDATE' then
          delete from body_words where ref_no = old.ref_no and word = any(array(
            select unnest(string_to_array(old.search_text, ' ')) except select unnest(string_to_array(new.search_text, ' '))));
        end if;
        if tg_op = 'INSERT' or (tg_op = 'UPDATE' and old.ref_no <> new.ref_no) then
          insert into body_words (word, ref_no)
            select distinct w, new.ref_no from unnest(string_to_array(new.search_text, ' ')) w where w <> '';
        elsif tg_op = 'UPDATE' then
          insert into body_words (word, ref_no)
            select w, new.ref_no from (
              select unnest(string_to_array(new.search_text, ' ')) except select unnest(string_to_array(old.search_text, ' '))
            ) d(w) where w <> '';
        end if;
        return null;
      end $$`,
    )
    .execute(db);
  await sql`create trigger body_search_words after insert or update or delete on body_search
    for each row execute function dalil_body_words()`.execute(db);
  // The GIN index and the vector it indexed are no longer read. Dropping the column frees its space as rows are
  // next written (or at a VACUUM FULL an operator chooses to run); it is not rewritten here.
  await sql`alter table body_search drop column search_vector`.execute(db);
}
