/** What GET /api/statistics answers (src/catalogue/statistics.ts). */
export interface StatBucket {
  /** A branch number, hospital or finding code, or a month (YYYY-MM); null: not known; "imprecise": a death date wider than a month. */
  value: string | null;
  /** null: withheld (a small cell, or one that would let a small cell be worked out). */
  count: number | null;
  labelAr?: string;
  labelEn?: string;
}

export const BREAKDOWNS = ["byBranch", "byHospital", "byPhotoMonth", "byDeathMonth", "byFinding"] as const;
export type Breakdown = (typeof BREAKDOWNS)[number];

export interface Statistics {
  generatedAt: string;
  minCount: number;
  totals: { bodies: number | null; photos: number | null; originals: number; facilities: number | null; reviewed: number | null; identified: number | null };
  byBranch: StatBucket[];
  byHospital: StatBucket[];
  byPhotoMonth: StatBucket[];
  byDeathMonth: StatBucket[];
  byFinding: StatBucket[];
}
