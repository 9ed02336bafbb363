import type { Kysely } from "kysely";
import type { Database } from "../db/schema.ts";
import type { Tx } from "../db/database.ts";

/** The mirror module's table (migration 0016-mirrors), joined onto the shared schema with `withTables`. */
export interface MirrorGrantsTable {
  id: string; // mir_…
  name: string; // the custodian's name as the admin gave it; never in a leaf of the log
  token_hash: string; // SHA-256 of the token, hex
  created_at: string;
  created_by: string;
  revoked_at: string | null;
  last_seen_at: string | null;
}

export type MirrorTables = { mirror_grants: MirrorGrantsTable };

export function mdb(tx: Tx): Kysely<Database & MirrorTables> {
  return tx.withTables<MirrorTables>();
}
