/**
 * Quality estimation against the IJG tables (libjpeg jcparam.c: jpeg_quality_scaling and the ITU-T T.81 Annex K
 * tables K.1/K.2), and the standard Huffman tables of Annex K.3 (an encoder that uses them did not optimise its
 * coding; cameras usually do not, libjpeg with optimize_coding, mozjpeg and sharp do).
 */
import type { HuffmanTable, QuantTable } from "./jpeg.ts";

/** Zig-zag position k → natural (row-major) index (T.81 Figure A.6). */
export const ZIGZAG = [
  0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23,
  30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
];

/** T.81 Table K.1 (luminance), natural order. */
const K1 = [
  16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56, 14, 17, 22, 29, 51, 87, 80, 62, 18, 22, 37, 56, 68, 109, 103, 77, 24,
  35, 55, 64, 81, 104, 113, 92, 49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99,
];
/** T.81 Table K.2 (chrominance), natural order. */
const K2 = [
  17, 18, 24, 47, 99, 99, 99, 99, 18, 21, 26, 66, 99, 99, 99, 99, 24, 26, 56, 99, 99, 99, 99, 99, 47, 66, 99, 99, 99, 99, 99, 99, ...new Array<number>(32).fill(99),
];

/** The IJG table for `quality` (1..100), in zig-zag order as a DQT stores it (baseline: clamped to 1..255). */
export function ijgTable(quality: number, chroma: boolean): number[] {
  const q = Math.min(100, Math.max(1, Math.round(quality)));
  const scale = q < 50 ? Math.floor(5000 / q) : 200 - q * 2;
  const base = chroma ? K2 : K1;
  return ZIGZAG.map((nat) => Math.min(255, Math.max(1, Math.floor((base[nat]! * scale + 50) / 100))));
}

export interface QualityEstimate {
  /** The IJG quality whose table is closest. */
  quality: number;
  /** Every value equals the IJG table at that quality: an encoder built on libjpeg's scaling wrote it. */
  exact: boolean;
  /** Mean absolute difference per coefficient from that table (0 when exact). */
  meanDifference: number;
}

/** The closest IJG quality for a luminance (id 0) or chrominance table. */
export function estimateQuality(table: QuantTable, chroma: boolean): QualityEstimate {
  let best: QualityEstimate = { quality: 0, exact: false, meanDifference: Infinity };
  for (let q = 1; q <= 100; q++) {
    const ref = ijgTable(q, chroma);
    let d = 0;
    for (let k = 0; k < 64; k++) d += Math.abs(ref[k]! - table.values[k]!);
    const mean = d / 64;
    if (mean < best.meanDifference) best = { quality: q, exact: d === 0, meanDifference: mean };
  }
  return { ...best, meanDifference: Math.round(best.meanDifference * 100) / 100 };
}

/** Luminance and, when present, chrominance estimates, taken from the tables the frame's components use. */
export function estimateImageQuality(tables: QuantTable[], componentTables: number[]): { luma: QualityEstimate | null; chroma: QualityEstimate | null } {
  const byId = new Map<number, QuantTable>();
  for (const t of tables) if (!byId.has(t.id)) byId.set(t.id, t); // the first definition is the one the frame used
  const lumaTable = byId.get(componentTables[0] ?? 0);
  const chromaTable = componentTables.length > 1 ? byId.get(componentTables[1]!) : undefined;
  return {
    luma: lumaTable ? estimateQuality(lumaTable, false) : null,
    chroma: chromaTable ? estimateQuality(chromaTable, true) : null,
  };
}

/** Annex K.3 code-length counts of the four standard tables. */
const STANDARD_COUNTS: Record<string, string> = {
  "0": "0,1,5,1,1,1,1,1,1,0,0,0,0,0,0,0", // DC luminance
  "0c": "0,3,1,1,1,1,1,1,1,1,1,0,0,0,0,0", // DC chrominance
  "1": "0,2,1,3,3,2,4,3,5,5,4,4,0,0,1,125", // AC luminance
  "1c": "0,2,1,2,4,4,3,4,7,5,4,4,0,1,2,119", // AC chrominance
};

/**
 * The file's Huffman tables are all the Annex K standard ones (by code lengths, which an optimising encoder
 * changes for every image). False when the tables were optimised for this image.
 */
export function huffmanIsStandard(tables: HuffmanTable[]): boolean {
  if (tables.length === 0) return false;
  return tables.every((t) => {
    const c = t.counts.join(",");
    return c === STANDARD_COUNTS[String(t.tableClass)] || c === STANDARD_COUNTS[`${t.tableClass}c`];
  });
}
