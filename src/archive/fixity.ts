import type { Ctx } from "../app/context.ts";
import type { Actor } from "../core/actor.ts";
import { custody, type Finding } from "../ledger/index.ts";

/**
 * Fixity: every stored object is read back, decrypted and hashed again. A finding names the item and what
 * differs; the audit itself is one custody event listing the items that failed.
 */
export type { Finding };

export interface FixityReport {
  checked: number;
  bytes: number;
  findings: Finding[];
}

export async function auditFixity(
  ctx: Ctx,
  actor: Actor,
  opts: { concurrency?: number; onProgress?: (done: number, total: number) => void; record?: boolean } = {},
): Promise<FixityReport> {
  ctx.policy.require(actor, "archive.verify");
  const originals = await ctx.db.db.selectFrom("originals").select(["sha256", "size"]).orderBy("sha256").execute();
  const renditions = await ctx.db.db
    .selectFrom("renditions")
    .select(["sha256", "size", "original_sha256", "kind"])
    .orderBy("sha256")
    .execute();
  const items = [
    ...originals.map((o) => ({ sha256: o.sha256, size: o.size, what: "original" as const, label: o.sha256 })),
    ...renditions.map((r) => ({
      sha256: r.sha256,
      size: r.size,
      what: "rendition" as const,
      label: `${r.kind} of ${r.original_sha256}`,
    })),
  ];
  const findings: Finding[] = [];
  let done = 0;
  let bytes = 0;
  let next = 0;
  const workers = Array.from({ length: Math.min(opts.concurrency ?? 2, items.length) }, async () => {
    while (next < items.length) {
      const it = items[next++]!;
      const r = await ctx.blobs.verify(it.sha256);
      if (!r.ok) findings.push({ item: it.sha256, what: it.what, problem: `${it.label}: ${r.problem}` });
      else if (r.size !== it.size) {
        findings.push({ item: it.sha256, what: it.what, problem: `${it.label}: stored ${r.size} bytes, recorded ${it.size}` });
      } else bytes += r.size;
      opts.onProgress?.(++done, items.length);
    }
  });
  await Promise.all(workers);
  findings.sort((a, b) => (a.item < b.item ? -1 : a.item > b.item ? 1 : 0));
  if (opts.record !== false) {
    await ctx.db.transaction(async (tx) => {
      await ctx.log.append(
        tx,
        custody(
          "fixity check",
          actor,
          ctx.clock.now(),
          findings.filter((f) => f.what === "original").map((f) => ({ sha256: f.item, role: "failed" })),
          { checked: items.length, bytes, failed: findings.length },
          findings.length ? "failure" : "success",
        ),
      );
    });
  }
  return { checked: items.length, bytes, findings };
}
