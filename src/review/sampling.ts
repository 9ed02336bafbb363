import { createHash } from "node:crypto";
import { Invalid } from "../core/errors.ts";
import type * as contracts from "./contracts.ts";
import { say } from "../core/messages.ts";

/**
 * Reproducible stratified sampling. The random stream is SHA-256 in counter mode over the seed and a label, so
 * anyone with the seed, the population (body ids with their stratum) and this description can repeat a draw
 * in any language: word i of stream L is the big-endian uint32s of SHA-256("<seed>\n<L>\n<block>").
 * Allocation is proportional with largest remainders (Hamilton): stratum h gets floor(n·N_h/N), and the seats
 * left go to the largest fractional parts, ties to the stratum key that sorts first.
 * Within a stratum the members are ordered by id, shuffled (Fisher–Yates, from the last position down,
 * uniform integers by rejection), and the first n_h taken.
 */
export class SeededStream {
  private block = 0;
  private words: number[] = [];

  constructor(
    private readonly seed: string,
    private readonly label: string,
  ) {}

  nextUint32(): number {
    if (this.words.length === 0) {
      const h = createHash("sha256").update(`${this.seed}\n${this.label}\n${this.block++}`).digest();
      for (let i = 0; i < 32; i += 4) this.words.push(h.readUInt32BE(i));
    }
    return this.words.shift()!;
  }

  /** A uniform integer in [0, n). */
  below(n: number): number {
    if (!Number.isInteger(n) || n <= 0 || n > 2 ** 32) throw new RangeError(`below(${n})`);
    const limit = 2 ** 32 - (2 ** 32 % n);
    for (;;) {
      const w = this.nextUint32();
      if (w < limit) return w % n;
    }
  }
}

export function shuffled<T>(items: readonly T[], stream: SeededStream): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = stream.below(i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** Proportional allocation of n over strata sizes (largest remainders); keys sorted for the tie-break. */
export function allocate(sizes: ReadonlyMap<string, number>, n: number): Map<string, number> {
  const keys = [...sizes.keys()].sort();
  const total = keys.reduce((s, k) => s + sizes.get(k)!, 0);
  if (n > total) throw new Invalid(say("sample.tooLarge", { n, total }), "size");
  const out = new Map<string, number>();
  if (total === 0) return out;
  const rema: { key: string; frac: number }[] = [];
  let given = 0;
  for (const k of keys) {
    const exact = (n * sizes.get(k)!) / total;
    const whole = Math.floor(exact);
    out.set(k, whole);
    given += whole;
    rema.push({ key: k, frac: exact - whole });
  }
  rema.sort((a, b) => b.frac - a.frac || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  for (let i = 0; i < n - given; i++) {
    const k = rema[i]!.key;
    out.set(k, out.get(k)! + 1);
  }
  return out;
}

export interface Member {
  id: string;
  branch: string | null;
  period: string | null;
}

export type Stratum = contracts.Stratum;

export interface Draw {
  strata: Stratum[];
  /** In draw order: stratum by stratum (keys sorted), each in its shuffled order. */
  chosen: { id: string; stratum: string; double: boolean }[];
  populationSha256: string;
}

export function stratumKey(m: Pick<Member, "branch" | "period">): string {
  return `${m.branch ?? "unknown"}|${m.period ?? "unknown"}`;
}

/** Draws n members stratified by branch × period, and marks round(n × doubleShare) of them for double review. */
export function drawSample(population: readonly Member[], n: number, seed: string, doubleShare: number): Draw {
  if (!Number.isInteger(n) || n < 1) throw new Invalid(say("sample.size"), "size");
  if (!(doubleShare >= 0 && doubleShare <= 1)) throw new Invalid(say("sample.doubleShare"), "doubleShare");
  if (seed.length === 0) throw new Invalid(say("sample.seed"), "seed");
  const groups = new Map<string, Member[]>();
  for (const m of population) {
    const k = stratumKey(m);
    let g = groups.get(k);
    if (!g) groups.set(k, (g = []));
    g.push(m);
  }
  const alloc = allocate(new Map([...groups].map(([k, g]) => [k, g.length])), n);
  const strata: Stratum[] = [];
  const picked: { id: string; stratum: string }[] = [];
  for (const key of [...groups.keys()].sort()) {
    const g = groups.get(key)!.slice().sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const k = alloc.get(key) ?? 0;
    strata.push({ key, branch: g[0]!.branch, period: g[0]!.period, population: g.length, allocated: k });
    for (const m of shuffled(g, new SeededStream(seed, `stratum ${key}`)).slice(0, k)) picked.push({ id: m.id, stratum: key });
  }
  const doubles = new Set(shuffled(picked.map((p) => p.id), new SeededStream(seed, "double")).slice(0, Math.round(n * doubleShare)));
  const ids = population.map((m) => m.id).sort();
  return {
    strata,
    chosen: picked.map((p) => ({ ...p, double: doubles.has(p.id) })),
    populationSha256: createHash("sha256").update(ids.map((i) => `${i}\n`).join("")).digest("hex"),
  };
}
