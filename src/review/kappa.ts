import type * as contracts from "./contracts.ts";
/**
 * Cohen's kappa (Cohen 1960) for two raters: κ = (p_o − p_e) / (1 − p_e), with p_o the observed share of
 * agreement and p_e the agreement expected by chance from each rater's marginal shares. The input is a k×k
 * table: table[i][j] = items rater A put in category i and rater B in category j.
 * When p_e = 1 (both raters used one category only) κ is undefined and reported as null, not 0 or 1.
 */
export type Kappa = contracts.Kappa;

export function cohensKappa(table: readonly (readonly number[])[]): Kappa {
  const k = table.length;
  for (const row of table) if (row.length !== k) throw new RangeError("a kappa table is square");
  let n = 0;
  let diag = 0;
  const rows = new Array<number>(k).fill(0);
  const cols = new Array<number>(k).fill(0);
  for (let i = 0; i < k; i++) {
    for (let j = 0; j < k; j++) {
      const v = table[i]![j]!;
      n += v;
      rows[i]! += v;
      cols[j]! += v;
      if (i === j) diag += v;
    }
  }
  if (n === 0) return { n, observed: 0, expected: 0, kappa: null };
  const observed = diag / n;
  let expected = 0;
  for (let i = 0; i < k; i++) expected += (rows[i]! / n) * (cols[i]! / n);
  const kappa = expected >= 1 ? null : (observed - expected) / (1 - expected);
  return { n, observed, expected, kappa };
}

/** A 2×2 presence table: both present, only A, only B, neither. */
export type Presence = contracts.Presence;

export function presenceKappa(t: Presence): Kappa {
  return cohensKappa([
    [t.both, t.onlyA],
    [t.onlyB, t.neither],
  ]);
}
