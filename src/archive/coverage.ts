import type { Ctx } from "../app/context.ts";
import type { Finding } from "../ledger/index.ts";

/**
 * Coverage: every original, rendition and source must be named by a custody event that did not fail. The ledger
 * collects the names its events cover (`verifyLedger(...).covered`); the archive, which owns these tables,
 * checks its records against them. Findings come in the order the ledger check used to give them.
 */
export async function coverageFindings(ctx: Ctx, covered: ReadonlySet<string>): Promise<Finding[]> {
  const db = ctx.db.db;
  const findings: Finding[] = [];
  const originals = await db.selectFrom("originals").select("sha256").execute();
  for (const o of originals) {
    if (!covered.has(o.sha256)) findings.push({ item: o.sha256, what: "coverage", problem: "this original has no custody event recording its arrival" });
  }
  const renditions = await db.selectFrom("renditions").select(["sha256", "original_sha256", "kind"]).execute();
  for (const r of renditions) {
    if (!covered.has(r.sha256)) findings.push({ item: r.sha256, what: "coverage", problem: `the ${r.kind} of ${r.original_sha256} has no custody event recording its creation` });
  }
  const sources = await db.selectFrom("sources").select("id").execute();
  for (const s of sources) {
    if (!covered.has(s.id)) findings.push({ item: s.id, what: "coverage", problem: "this source has no accession event" });
  }
  return findings;
}
