/**
 * Ledger Merkle benchmark: appends per second (SHA-256 included), proof times and tile reads at 1,000,000
 * leaves with an in-memory hash store, against floors measured in the same run (Node SHA-256 of the same bytes,
 * and `sha256sum` over them when available). Run: npx tsx bench/ledger-merkle.ts [leaves]
 */
import { spawnSync } from "node:child_process";
import { hash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { canonicalBytes } from "../src/core/canonical-json.ts";
import { signCheckpoint } from "../src/ledger/checkpoint.ts";
import {
  MerkleAppender,
  consistencyProof,
  inclusionProof,
  storedHashCount,
  storedHashesForLeaf,
  treeHash,
  leafHash,
  verifyConsistency,
  verifyInclusion,
  type HashReader,
} from "../src/ledger/merkle.ts";
import { generateSigner, newSigner } from "../src/ledger/note.ts";
import { readHashTile } from "../src/ledger/tiles.ts";

function eventBytes(i: number): Buffer {
  return canonicalBytes({
    v: "dalil.custody/1",
    id: `evt_${i.toString(36).padStart(10, "0")}`,
    type: "ingestion",
    at: new Date(1_700_000_000_000 + i * 1000).toISOString(),
    actor: { kind: "user", id: "usr_0000000001", role: "archivist" },
    software: { name: "dalil", version: "0.1.0" },
    objects: [{ role: "original", sha256: hash("sha256", String(i), "hex") }],
    outcome: "success",
    detail: { path: `DCIM/100CANON/IMG_${i}.JPG`, source: "card-1" },
  });
}

/** Stored hashes in one flat buffer, as a database page cache would hold them. */
class FlatStore {
  private buf: Buffer;
  private count = 0;
  constructor(capacity: number) {
    this.buf = Buffer.allocUnsafe(capacity * 32);
  }
  push(hashes: Buffer[]): void {
    for (const h of hashes) h.copy(this.buf, 32 * this.count++);
  }
  get size(): number {
    return this.count;
  }
  readonly read: HashReader = async (indexes) => indexes.map((i) => this.buf.subarray(32 * i, 32 * i + 32));
}

function stats(samples: number[]): string {
  const s = [...samples].sort((a, b) => a - b);
  const mean = s.reduce((a, b) => a + b, 0) / s.length;
  const p = (q: number): number => s[Math.min(s.length - 1, Math.floor(q * s.length))] as number;
  return `mean ${(mean * 1000).toFixed(1)} µs, p50 ${(p(0.5) * 1000).toFixed(1)} µs, p99 ${(p(0.99) * 1000).toFixed(1)} µs, max ${(p(1) * 1000).toFixed(1)} µs`;
}

export async function runLedgerMerkleBench(n = 1_000_000): Promise<void> {
  const batch = 10_000;
  console.log(`ledger merkle: ${n.toLocaleString("en")} leaves (custody-event-sized, ~${eventBytes(0).length} bytes each)`);

  // Event bytes are generated outside the timed sections.
  const events: Buffer[] = [];
  for (let i = 0; i < n; i++) events.push(eventBytes(i));
  const totalBytes = events.reduce((a, e) => a + e.length, 0);

  // Floor 1: one SHA-256 per event in Node.
  let t = performance.now();
  for (const e of events) hash("sha256", e, "buffer");
  const floorNode = (performance.now() - t) / 1000;

  // Floor 2: sha256sum over the same bytes, as the baseline.
  let floorSum: number | null = null;
  const dir = mkdtempSync(join(tmpdir(), "dalil-bench-"));
  try {
    const f = join(dir, "events.bin");
    writeFileSync(f, Buffer.concat(events));
    t = performance.now();
    const r = spawnSync("sha256sum", [f]);
    if (r.status === 0) floorSum = (performance.now() - t) / 1000;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  // Appends in batches with the in-memory right edge: leaf hash + node hashes + copying into the store.
  const store = new FlatStore(storedHashCount(n));
  const app = MerkleAppender.empty();
  const { signerKey } = generateSigner("bench.example/log");
  const signer = newSigner(signerKey);
  let checkpoints = 0;
  t = performance.now();
  for (let at = 0; at < n; at += batch) {
    const r = app.appendLeaves(events.slice(at, at + batch));
    store.push(r.hashes);
    signCheckpoint({ origin: "bench.example/log", size: app.size, rootHash: app.root(), extensions: [] }, [signer]);
    checkpoints++;
  }
  const appendSecs = (performance.now() - t) / 1000;
  console.log(`  batch append (${batch}/batch, a signed checkpoint per batch): ${Math.round(n / appendSecs).toLocaleString("en")} appends/s (${appendSecs.toFixed(2)} s, ${checkpoints} checkpoints)`);
  console.log(`  floor, Node SHA-256 of each event: ${floorNode.toFixed(2)} s → append costs ${(appendSecs / floorNode).toFixed(2)}× the floor`);
  if (floorSum !== null) console.log(`  floor, sha256sum over all ${(totalBytes / 1e6).toFixed(0)} MB: ${floorSum.toFixed(2)} s → append costs ${(appendSecs / floorSum).toFixed(2)}×`);

  // One leaf at a time through the async path (what a per-event transaction without a cached edge would do).
  const single = new FlatStore(storedHashCount(20_000));
  t = performance.now();
  for (let i = 0; i < 20_000; i++) single.push(await storedHashesForLeaf(i, leafHash(events[i] as Buffer), single.read));
  console.log(`  one-at-a-time storedHashesForLeaf: ${Math.round(20_000 / ((performance.now() - t) / 1000)).toLocaleString("en")} appends/s`);

  // Reopening the tree (what each transaction does first) reads ≤ 53 hashes.
  t = performance.now();
  for (let i = 0; i < 1000; i++) await MerkleAppender.open(n - i, store.read);
  console.log(`  MerkleAppender.open at ${n.toLocaleString("en")}: ${(((performance.now() - t) / 1000) * 1000).toFixed(1)} µs each`);

  const root = await treeHash(n, store.read);
  let seed = 12345;
  const rand = (k: number): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % k;
  };

  const gen: number[] = [];
  const ver: number[] = [];
  for (let s = 0; s < 2000; s++) {
    const i = rand(n);
    let t0 = performance.now();
    const p = await inclusionProof(i, n, store.read);
    gen.push(performance.now() - t0);
    const lh = leafHash(events[i] as Buffer);
    t0 = performance.now();
    if (!verifyInclusion(lh, i, n, p, root)) throw new Error("bench: proof failed");
    ver.push(performance.now() - t0);
  }
  console.log(`  inclusion proof at ${n.toLocaleString("en")}: generate ${stats(gen)}`);
  console.log(`  inclusion proof at ${n.toLocaleString("en")}: verify   ${stats(ver)}`);

  const cgen: number[] = [];
  const cver: number[] = [];
  for (let s = 0; s < 500; s++) {
    const m = 1 + rand(n - 1);
    let t0 = performance.now();
    const p = await consistencyProof(m, n, store.read);
    cgen.push(performance.now() - t0);
    const oldRoot = await treeHash(m, store.read);
    t0 = performance.now();
    if (!verifyConsistency(m, n, p, oldRoot, root)) throw new Error("bench: consistency failed");
    cver.push(performance.now() - t0);
  }
  console.log(`  consistency proof to ${n.toLocaleString("en")}: generate ${stats(cgen)}`);
  console.log(`  consistency proof to ${n.toLocaleString("en")}: verify   ${stats(cver)}`);

  t = performance.now();
  for (let j = 0; j < 1000; j++) await readHashTile({ kind: "hash", level: 0, index: rand(Math.floor(n / 256)), width: 256 }, store.read);
  console.log(`  level-0 hash tile read: ${(((performance.now() - t) / 1000) * 1000).toFixed(1)} µs each`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const n = Number(process.argv[2] ?? 1_000_000);
  await runLedgerMerkleBench(n);
}
