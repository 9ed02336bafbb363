import type { Kysely } from "kysely";

/**
 * What a card reading rests on, kept with it: the region of the photo taken for the card, how card-like it was,
 * and the label and OCR confidence of the line each number came from (JSON, see CardEvidence in
 * src/catalogue/card-numbers.ts). Null for readings stored before the reader recorded it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("photo_readings").addColumn("evidence", "text").execute();
}
