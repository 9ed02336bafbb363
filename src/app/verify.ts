import type { Ctx } from "./context.ts";
import type { Actor } from "../core/actor.ts";
import { auditFixity, coverageFindings } from "../archive/index.ts";
import { verifyLedger, type Finding } from "../ledger/index.ts";

/**
 * `dalil verify`: the whole archive checked against itself. The log is recomputed from the stored events and
 * checked against every signed checkpoint; every original, rendition and source must be covered by an event (the
 * ledger says what its events cover, the archive checks its records against that); every stored object is
 * decrypted and hashed. Any difference is a finding naming the item.
 */
export interface VerifyReport {
  checked: number;
  bytes: number;
  events: number;
  checkpoints?: number;
  findings: Finding[];
}

export async function verifyArchive(
  ctx: Ctx,
  actor: Actor,
  onProgress?: (done: number, total: number) => void,
): Promise<VerifyReport> {
  ctx.policy.require(actor, "archive.verify");
  const ledger = await verifyLedger(ctx);
  const logFindings = [...ledger.findings, ...(await coverageFindings(ctx, ledger.covered))];
  const fixity = await auditFixity(ctx, actor, { onProgress, record: logFindings.length === 0 });
  return {
    checked: fixity.checked,
    bytes: fixity.bytes,
    events: ledger.events,
    checkpoints: ledger.checkpoints,
    findings: [...logFindings, ...fixity.findings],
  };
}
