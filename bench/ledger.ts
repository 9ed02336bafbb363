import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { spawnSync } from "node:child_process";
import { loadConfig } from "../src/core/config.ts";
import { openArchive } from "../src/app/open-archive.ts";
import { operatorActor } from "../src/core/actor.ts";
import { custody } from "../src/ledger/events.ts";
import { verifyLedger } from "../src/ledger/verify.ts";
import { checkProofBundle } from "../src/ledger/proof-check.ts";
import { row, timed } from "./support.ts";

/**
 * The custody log in the archive's own database (SQLite, the embedded default): events appended in batches
 * with a signed checkpoint after each batch, inclusion proofs at the full size, and `dalil verify`'s ledger
 * pass, against `sha256sum` over the same event bytes in the same run.
 */
export async function benchLedger(n = 1_000_000, batch = 5_000): Promise<void> {
  console.log(`\n# ledger (${n.toLocaleString("en")} events on SQLite, batches of ${batch}, a checkpoint per batch)`);
  const data = mkdtempSync(join(tmpdir(), "dalil-bench-ledger-"));
  const a = await openArchive(loadConfig({ data }));
  const actor = operatorActor();
  try {
    const leafFile = join(data, "leaves.bin");
    const leaves: Buffer[] = [];
    const append = await timed(async () => {
      for (let done = 0; done < n; done += batch) {
        const at = a.clock.now();
        const events = Array.from({ length: Math.min(batch, n - done) }, (_, i) =>
          custody("ingestion", actor, at, [{ sha256: (done + i).toString(16).padStart(64, "0"), role: "original" }], {
            path: `DCIM/100NCD90/DSC_${String((done + i) % 10000).padStart(4, "0")}.JPG`,
          }),
        );
        const appended = await a.db.transaction((tx) => a.log.appendMany(tx, events));
        for (const e of appended) leaves.push(e.leaf);
        await a.tree.checkpoint();
      }
    });
    writeFileSync(leafFile, Buffer.concat(leaves));
    const bytes = leaves.reduce((s, l) => s + l.length, 0);
    leaves.length = 0;
    const t0 = process.hrtime.bigint();
    spawnSync("sha256sum", [leafFile], { stdio: "ignore" });
    const floor = Number(process.hrtime.bigint() - t0) / 1e9;

    row("appends/s (with checkpoints)", (n / append.seconds).toFixed(0), {
      label: "sha256sum over the event bytes, events/s",
      value: (n / floor).toFixed(0),
      ratio: append.seconds / floor,
    });

    const samples: number[] = [];
    let vk = 0;
    for (let i = 0; i < 200; i++) {
      const seq = Math.floor((i * 7919 * 104729) % n);
      const t = process.hrtime.bigint();
      const p = await a.tree.proveEvent(seq);
      samples.push(Number(process.hrtime.bigint() - t) / 1e6);
      if (i < 5 && checkProofBundle({ proofText: p.proof, leafBytes: p.leaf, verifierKeys: [a.tree.verifierKey] }).ok) vk++;
    }
    samples.sort((x, y) => x - y);
    row("inclusion proof p50 (from the DB)", `${samples[100]!.toFixed(3)} ms`);
    row("inclusion proof p95", `${samples[190]!.toFixed(3)} ms`);
    if (vk !== 5) throw new Error("a benchmark proof did not verify");

    const v = await timed(() => verifyLedger(a));
    if (v.value.findings.length) throw new Error(`verify found problems: ${v.value.findings[0]!.problem}`);
    row("verify (ledger) seconds", `${v.seconds.toFixed(1)} s`, { label: `sha256sum over ${(bytes / 1e6).toFixed(0)} MB of events`, value: `${floor.toFixed(2)} s`, ratio: v.seconds / floor });
  } finally {
    await a.close();
    rmSync(data, { recursive: true, force: true });
  }
}
