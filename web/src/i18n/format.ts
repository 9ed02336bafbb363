import type { Digits, Lang } from "./index.ts";

/**
 * Numbers, sizes and dates in the reader's language, with the digits they chose. Dates use the Gregorian
 * calendar in both languages (evidence dates must match across translations) and show the time zone.
 */
export interface Format {
  num(n: number): string;
  bytes(n: number): string;
  percent(fraction: number): string;
  dateTime(iso: string | null | undefined): string;
  date(iso: string | null | undefined): string;
  /** A camera's clock reading: as written when it carries no zone (it is not an instant), else as dateTime. */
  wallClock(iso: string | null | undefined): string;
  /** The calendar date of a camera's clock reading, as written. */
  wallDate(iso: string | null | undefined): string;
  locale: string;
}

export function makeFormat(lang: Lang, digits: Digits): Format {
  const base = lang === "ar" ? "ar" : "en-GB";
  const locale = `${base}-u-ca-gregory-nu-${digits}`;
  const nf = new Intl.NumberFormat(locale);
  const pf = new Intl.NumberFormat(locale, { style: "percent", maximumFractionDigits: 0 });
  const dtf = new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "short" });
  const tz = new Intl.DateTimeFormat(locale, { timeZoneName: "short" });
  const df = new Intl.DateTimeFormat(locale, { dateStyle: "medium" });
  const wall = new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "medium", timeZone: "UTC" });
  const wallDay = new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeZone: "UTC" });
  const units = ["byte", "kilobyte", "megabyte", "gigabyte", "terabyte"] as const;
  // Bytes in full ("155 bytes"), larger units short ("1.2 MB").
  const unitFormats = units.map((unit) => new Intl.NumberFormat(locale, { style: "unit", unit, unitDisplay: unit === "byte" ? "long" : "short", maximumFractionDigits: 1 }));
  const parse = (iso: string | null | undefined): Date | null => {
    if (!iso) return null;
    const d = new Date(iso);
    return Number.isNaN(d.getTime()) ? null : d;
  };
  return {
    locale,
    num: (n) => nf.format(n),
    percent: (f) => pf.format(f),
    bytes: (n) => {
      let i = 0;
      let v = n;
      while (v >= 1024 && i < units.length - 1) {
        v /= 1024;
        i++;
      }
      return unitFormats[i]!.format(v);
    },
    dateTime: (iso) => {
      const d = parse(iso);
      if (!d) return "—";
      const zone = tz.formatToParts(d).find((p) => p.type === "timeZoneName")?.value;
      return zone ? `${dtf.format(d)} (${zone})` : dtf.format(d);
    },
    wallClock: (iso) => {
      if (!iso) return "—";
      if (/(Z|[+-]\d\d:?\d\d)$/.test(iso)) {
        const d = parse(iso);
        return d ? dtf.format(d) : iso;
      }
      const d = parse(`${iso}Z`);
      return d ? wall.format(d) : iso;
    },
    wallDate: (iso) => {
      const m = iso ? /^(\d{4}-\d{2}-\d{2})/.exec(iso) : null;
      const d = m ? parse(`${m[1]}T00:00:00Z`) : null;
      return d ? wallDay.format(d) : "—";
    },
    date: (iso) => {
      const d = parse(iso);
      return d ? df.format(d) : "—";
    },
  };
}
