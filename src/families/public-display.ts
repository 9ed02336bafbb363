import type { Tx } from "../db/database.ts";
import { fdb } from "./tables.ts";

/**
 * Which of these reports hold the family's recorded consent to public display (the `publicDisplay` tier, given
 * and not withdrawn). The exhibitions module asks before an identified person's image is shown, and again on
 * every page and export, so a withdrawal takes effect at once. Answers report ids only; no personal data leaves.
 */
export async function publicDisplayConsents(tx: Tx, reportIds: readonly string[]): Promise<Set<string>> {
  const ids = [...new Set(reportIds)];
  if (ids.length === 0) return new Set();
  const rows = await fdb(tx).selectFrom("family_reports").select(["id", "consent"]).where("id", "in", ids).execute();
  return new Set(rows.filter((r) => (JSON.parse(r.consent || "{}") as { publicDisplay?: { given?: boolean } }).publicDisplay?.given === true).map((r) => r.id));
}
