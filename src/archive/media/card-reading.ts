import type { CardOptions } from "./sources.ts";

/**
 * What the three card readers (folder.ts, zip.ts, fat.ts) share: the limits a container is held to, the one order
 * every medium lists in, and DOS wall-clock times. Apart from sources.ts, which opens the readers, so that the
 * readers import nothing that imports them (sources.ts loaded them with import() to dodge that loop).
 */
export const DEFAULT_LIMITS = {
  maxEntryBytes: 4 * 1024 ** 3,
  maxTotalBytes: 1024 ** 4,
  maxRatio: 200,
  ratioMinBytes: 10 * 1024 ** 2,
  maxEntries: 1_000_000,
} as const;

export type CardLimits = { -readonly [K in keyof typeof DEFAULT_LIMITS]: number };

export function limitsFrom(options: CardOptions): CardLimits {
  return {
    maxEntryBytes: options.maxEntryBytes ?? DEFAULT_LIMITS.maxEntryBytes,
    maxTotalBytes: options.maxTotalBytes ?? DEFAULT_LIMITS.maxTotalBytes,
    maxRatio: options.maxRatio ?? DEFAULT_LIMITS.maxRatio,
    ratioMinBytes: options.ratioMinBytes ?? DEFAULT_LIMITS.ratioMinBytes,
    maxEntries: options.maxEntries ?? DEFAULT_LIMITS.maxEntries,
  };
}

/**
 * The one order every medium lists in: segment by segment, each segment by UTF-16 code units. A folder can be
 * walked in this order one directory at a time (sorting each directory's names), which plain string order
 * would not allow ("a.txt" < "a/b" but "a" < "a.txt").
 */
export function comparePaths(a: string, b: string): number {
  const as = a.split("/");
  const bs = b.split("/");
  const n = Math.min(as.length, bs.length);
  for (let i = 0; i < n; i++) {
    const x = as[i] as string;
    const y = bs[i] as string;
    if (x !== y) return x < y ? -1 : 1;
  }
  return as.length - bs.length;
}

/**
 * An MS-DOS date and time (FAT directory entries, zip headers) as ISO 8601 without a zone: these fields hold
 * the wall-clock time of whatever device wrote them, and nothing says which zone that clock was set to.
 * `centis` is FAT's creation-time refinement (0–199 hundredths of a second). Undefined for impossible values.
 */
export function dosWallClock(date: number, time: number, centis = 0): string | undefined {
  if (date === 0) return undefined;
  const year = 1980 + (date >> 9);
  const month = (date >> 5) & 15;
  const day = date & 31;
  const hour = time >> 11;
  const minute = (time >> 5) & 63;
  let second = (time & 31) * 2;
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour > 23 || minute > 59 || second > 59) return undefined;
  if (centis > 199) return undefined;
  second += Math.floor(centis / 100);
  const ms = (centis % 100) * 10;
  const p = (n: number, w = 2) => String(n).padStart(w, "0");
  const base = `${p(year, 4)}-${p(month)}-${p(day)}T${p(hour)}:${p(minute)}:${p(second)}`;
  return ms > 0 ? `${base}.${p(ms, 3)}` : base;
}

function daysIn(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}
