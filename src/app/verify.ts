import type { Ctx } from "./context.ts";
import type { Actor } from "../core/actor.ts";
import { auditFixity, type Finding } from "../archive/fixity.ts";
import { verifyLedger } from "../ledger/verify.ts";

/**
 * `dalil verify`: the whole archive checked against itself. The log is recomputed from the stored events and
 * checked against every signed checkpoint; every stored object is decrypted and hashed; every original must be
 * covered by an event. Any difference is a finding naming the item.
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
  const fixity = await auditFixity(ctx, actor, { onProgress, record: ledger.findings.length === 0 });
  return {
    checked: fixity.checked,
    bytes: fixity.bytes,
    events: ledger.events,
    checkpoints: ledger.checkpoints,
    findings: [...ledger.findings, ...fixity.findings],
  };
}
