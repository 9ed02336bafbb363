import type { Kysely } from "kysely";
import type { MigrationContext } from "../migrate.ts";

/**
 * Chart items (issue 16 item 1, decision 0030): an exhibition item may show one of the catalogue's aggregate
 * breakdowns as a chart. `chart` names the breakdown the curator picked; `chart_data` is its canonical JSON (labels
 * and counts only, no names, no references), frozen when the second person reviews the item, so the live page and
 * every export show the same numbers.
 */
export async function up(db: Kysely<unknown>, _m: MigrationContext): Promise<void> {
  await db.schema.alterTable("exhibition_items").addColumn("chart", "text").execute();
  await db.schema.alterTable("exhibition_items").addColumn("chart_data", "text").execute();
}
