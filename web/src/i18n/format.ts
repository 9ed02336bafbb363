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
  /**
   * A camera's clock reading as the camera wrote it, whatever the viewer's time zone: its wall clock, followed
   * by its UTC offset when the file gave one ("08:33:00 (GMT+3)"), never converted to the viewer's zone.
   */
  wallClock(iso: string | null | undefined): string;
  /** The calendar date of a camera's clock reading, as written. */
  wallDate(iso: string | null | undefined): string;
  /** A length of time as a person would say it: "45 seconds", "12 minutes", "1 hour 20 minutes". */
  duration(seconds: number): string;
  locale: string;
}

// The same unions as Lang and Digits in ./index.ts, written out so this file stands alone (its tests run in Node).
export function makeFormat(lang: "ar" | "en", digits: "arab" | "latn"): Format {
  const base = lang === "ar" ? "ar" : "en-GB";
  const locale = `${base}-u-ca-gregory-nu-${digits}`;
  const nf = new Intl.NumberFormat(locale);
  const pf = new Intl.NumberFormat(locale, { style: "percent", maximumFractionDigits: 0 });
  const dtf = new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "short" });
  const tz = new Intl.DateTimeFormat(locale, { timeZoneName: "short" });
  const df = new Intl.DateTimeFormat(locale, { dateStyle: "medium" });
  const wall = new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "medium", timeZone: "UTC" });
  const wallDay = new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeZone: "UTC" });
  // "GMT+0" / "غرينتش+٠": the locale's own word for an offset from UTC, used for the camera's offset below.
  const utcLabel = new Intl.DateTimeFormat(locale, { timeZone: "UTC", timeZoneName: "shortOffset" }).formatToParts(new Date(0)).find((p) => p.type === "timeZoneName")?.value ?? "GMT+0";
  const offsetWord = utcLabel.replace(/[+\-\u2212].*$/, "");
  const twoDigits = new Intl.NumberFormat(locale, { minimumIntegerDigits: 2, useGrouping: false });
  const offsetLabel = (offset: string): string => {
    if (offset === "Z") return utcLabel;
    const m = /^([+-])(\d\d):?(\d\d)$/.exec(offset);
    if (!m) return offset;
    const h = Number(m[2]);
    const min = Number(m[3]);
    if (h === 0 && min === 0) return utcLabel;
    return `${offsetWord}${m[1] === "-" ? "\u2212" : "+"}${nf.format(h)}${min ? `:${twoDigits.format(min)}` : ""}`;
  };
  const units = ["byte", "kilobyte", "megabyte", "gigabyte", "terabyte"] as const;
  // Bytes in full ("155 bytes"), larger units short ("1.2 MB").
  const unitFormats = units.map((unit) => new Intl.NumberFormat(locale, { style: "unit", unit, unitDisplay: unit === "byte" ? "long" : "short", maximumFractionDigits: 1 }));
  const [secondsF, minutesF, hoursF] = (["second", "minute", "hour"] as const).map((unit) => new Intl.NumberFormat(locale, { style: "unit", unit, unitDisplay: "long" }));
  const list = new Intl.ListFormat(base, { style: "narrow", type: "unit" });
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
      // The digits the camera wrote are formatted as if in UTC, so no zone (the viewer's least of all) moves them.
      const m = /^(\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2})?)?)(\.\d+)?(Z|[+-]\d\d:?\d\d)?$/.exec(iso);
      const d = m ? parse(m[1]!.length === 10 ? `${m[1]}T00:00:00Z` : `${m[1]}Z`) : null;
      if (!m || !d) return iso;
      const text = m[1]!.length === 10 ? wallDay.format(d) : wall.format(d);
      return m[3] ? `${text} (${offsetLabel(m[3])})` : text;
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
    duration: (seconds) => {
      const s = Math.max(0, Math.round(seconds));
      if (s < 60) return secondsF!.format(Math.max(5, Math.ceil(s / 5) * 5));
      const min = Math.round(s / 60);
      if (min < 60) return minutesF!.format(min);
      const h = Math.floor(min / 60);
      return min % 60 ? list.format([hoursF!.format(h), minutesF!.format(min % 60)]) : hoursF!.format(h);
    },
  };
}
