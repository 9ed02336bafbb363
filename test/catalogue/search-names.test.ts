import { test } from "node:test";
import assert from "node:assert/strict";
import { backends } from "../support/backends.ts";
import { freshArchive } from "../support/archive.ts";
import { investigator, seedBodies } from "../support/catalogue.ts";
import { editBody, searchBodies } from "../../src/catalogue/index.ts";
import { addNameKeys } from "../../src/db/migrations/0014-identifications-and-withdrawals.ts";
import type { Archive } from "../../src/app/context.ts";

const refs = async (a: Archive, q: string) => (await searchBodies(a, investigator, { q })).items.map((i) => i.ref).sort();

for (const { backend, skip } of await backends()) {
  test(`search finds a name written in the other script, through the names module's keys (${backend.name})`, { skip }, async () => {
    const t = await freshArchive(backend);
    const a = t.archive;
    try {
      const [ar, lat, other, abd] = await seedBodies(a, investigator, [
        { nameAr: "محمد أحمد الخطيب" },
        { nameLat: "Mohammad al-Khatib" },
        { nameLat: "Ahmad Hassan", notes: "seen with Khatib's cousin" },
        { nameAr: "عبد الرحمن الحلبي" },
      ]);
      // Arabic finds the Latin spelling, and the reverse; each still finds its own script
      assert.deepEqual(await refs(a, "محمد الخطيب"), [ar!.ref, lat!.ref].sort());
      assert.deepEqual(await refs(a, "Mohammad al-Khatib"), [ar!.ref, lat!.ref].sort());
      assert.deepEqual(await refs(a, "Mohamed Alkhateeb"), [ar!.ref, lat!.ref].sort(), "another Latin spelling");
      assert.deepEqual(await refs(a, "Abdulrahman Halabi"), [abd!.ref], "a compound given name");
      assert.deepEqual(await refs(a, "Hassan"), [other!.ref]);
      assert.deepEqual(await refs(a, "حسن"), [other!.ref]);
      // the keys are for names: a word of the notes is found as a word only, a number never by a key
      assert.deepEqual(await refs(a, "cousin"), [other!.ref]);
      assert.deepEqual(await refs(a, "الخطيب 2012"), []);
      // a changed name is found by its new keys and no longer by the old ones
      await editBody(a, investigator, { id: lat!.id, nameLat: "Omar Darwish" });
      assert.deepEqual(await refs(a, "محمد الخطيب"), [ar!.ref]);
      assert.deepEqual(await refs(a, "عمر درويش"), [lat!.ref]);
      // a name the keys find but the comparison refuses, then changed to one it accepts: the names a search
      // compares are those of the body now, not of an earlier search
      await editBody(a, investigator, { id: other!.id, nameLat: "Mahmoud Hassan" });
      assert.deepEqual(await refs(a, "محمد"), [ar!.ref]);
      await editBody(a, investigator, { id: other!.id, nameLat: "Mohamed Hassan" });
      assert.deepEqual(await refs(a, "محمد"), [ar!.ref, other!.ref].sort());

      // bodies indexed before the keys existed get them from migration 0014
      await a.db.db.updateTable("body_search" as never).set({ search_text: "b000001 1 محمد احمد خطيب" } as never).where("ref_no" as never, "=", ar!.ref_no as never).execute();
      assert.deepEqual(await refs(a, "Mohammad al-Khatib"), [], "without keys, the Latin spelling does not find it");
      await addNameKeys(a.db.db as never);
      assert.deepEqual(await refs(a, "Mohammad al-Khatib"), [ar!.ref]);
    } finally {
      await t.close();
    }
  });
}
