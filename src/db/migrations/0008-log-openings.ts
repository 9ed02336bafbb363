import type { Kysely } from "kysely";
import type { MigrationContext } from "../migrate.ts";

/**
 * Openings of the commitments in custody events: what a person typed (a reason, a recipient), a path or a name
 * quoted by a refusal, the server's login name. The leaf holds only SHA-256(canonical {event, field, salt,
 * value}); the value and its salt live here, read through the policy and checked by `dalil verify`. Events
 * appended before this migration keep their leaves as they were (the log is append-only): they have no rows here.
 */
export async function up(db: Kysely<unknown>, _m: MigrationContext): Promise<void> {
  await db.schema
    .createTable("log_openings")
    .addColumn("seq", "integer", (c) => c.notNull())
    .addColumn("event_id", "text", (c) => c.notNull())
    .addColumn("field", "text", (c) => c.notNull())
    .addColumn("salt", "text", (c) => c.notNull())
    .addColumn("value", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("log_openings_pk", ["seq", "field"])
    .execute();
}
