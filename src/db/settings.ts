import type { Tx } from "./database.ts";

/** Small named values the archive keeps about itself (its log's origin, pinned verifier keys, schedules). */
export async function getSetting(db: Tx, key: string): Promise<string | null> {
  const row = await db.selectFrom("settings").select("value").where("key", "=", key).executeTakeFirst();
  return row?.value ?? null;
}

export async function setSetting(db: Tx, key: string, value: string): Promise<void> {
  await db
    .insertInto("settings")
    .values({ key, value })
    .onConflict((oc) => oc.column("key").doUpdateSet({ value }))
    .execute();
}
