import { toLatinDigits, normaliseArabic } from "../core/arabic.ts";
import { Invalid } from "../core/errors.ts";
import type * as contracts from "./contracts.ts";
import { say } from "../core/messages.ts";

/**
 * Dates as people know them: a day, a month, a year, a season ("spring 2012"), or a range. Each is kept in a
 * normalised text form beside the earliest and latest day it can mean, so a matcher can say "this body cannot
 * have died before the arrest" without pretending to a precision nobody had.
 *
 * Text forms: `YYYY-MM-DD`, `YYYY-MM`, `YYYY`, `YYYY-spring|summer|autumn|winter` (northern seasons; winter
 * runs December to February and is named by the year of its January), and `A/B` for a range of any two of
 * those. Accepted on input besides: `DD/MM/YYYY` and `DD.MM.YYYY` (the way Syrian documents write dates),
 * Arabic-Indic digits, English and Arabic season names ("spring 2012", "ربيع 2012").
 */
export type FuzzyDate = contracts.FuzzyDate;

const SEASONS: Record<string, { from: [number, number]; to: [number, number] }> = {
  spring: { from: [3, 1], to: [5, 31] },
  summer: { from: [6, 1], to: [8, 31] },
  autumn: { from: [9, 1], to: [11, 30] },
  winter: { from: [12, 1], to: [2, 0] }, // day 0 = last day of February, whatever the year
};

const SEASON_WORDS: Record<string, string> = {
  spring: "spring",
  summer: "summer",
  autumn: "autumn",
  fall: "autumn",
  winter: "winter",
  ربيع: "spring",
  صيف: "summer",
  خريف: "autumn",
  شتاء: "winter",
};

const MIN_YEAR = 1900;
const MAX_YEAR = 2100;

function pad(n: number, w = 2): string {
  return String(n).padStart(w, "0");
}

function day(y: number, m: number, d: number): string {
  return `${pad(y, 4)}-${pad(m)}-${pad(d)}`;
}

function lastDay(y: number, m: number): number {
  return new Date(Date.UTC(y, m, 0)).getUTCDate();
}

function checkYear(y: number, raw: string): void {
  if (y < MIN_YEAR || y > MAX_YEAR) throw new Invalid(say("date.yearRange", { date: raw, min: MIN_YEAR, max: MAX_YEAR }));
}

function one(raw: string): FuzzyDate {
  const s = normaliseArabic(toLatinDigits(raw)).trim();
  let m: RegExpExecArray | null;
  if ((m = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(s)) || (m = /^(\d{1,2})[/.](\d{1,2})[/.](\d{4})$/.exec(s))) {
    const iso = s.includes("-");
    const y = Number(iso ? m[1] : m[3]);
    const mo = Number(m[2]);
    const d = Number(iso ? m[3] : m[1]);
    checkYear(y, raw);
    if (mo < 1 || mo > 12 || d < 1 || d > lastDay(y, mo)) throw new Invalid(say("date.notInCalendar", { date: raw }));
    const t = day(y, mo, d);
    return { text: t, earliest: t, latest: t };
  }
  if ((m = /^(\d{4})-(\d{1,2})$/.exec(s)) || (m = /^(\d{1,2})[/.](\d{4})$/.exec(s))) {
    const iso = s.includes("-");
    const y = Number(iso ? m[1] : m[2]);
    const mo = Number(iso ? m[2] : m[1]);
    checkYear(y, raw);
    if (mo < 1 || mo > 12) throw new Invalid(say("date.noMonth", { date: raw }));
    return { text: `${pad(y, 4)}-${pad(mo)}`, earliest: day(y, mo, 1), latest: day(y, mo, lastDay(y, mo)) };
  }
  if ((m = /^(\d{4})$/.exec(s))) {
    const y = Number(m[1]);
    checkYear(y, raw);
    return { text: pad(y, 4), earliest: day(y, 1, 1), latest: day(y, 12, 31) };
  }
  const season = /^(?:(\p{L}+)[\s-]+(\d{4})|(\d{4})[\s-]+(\p{L}+))$/u.exec(s);
  if (season) {
    const word = SEASON_WORDS[(season[1] ?? season[4] ?? "").toLowerCase()];
    const y = Number(season[2] ?? season[3]);
    if (word) {
      checkYear(y, raw);
      const span = SEASONS[word]!;
      const fromYear = word === "winter" ? y - 1 : y;
      const [tm, td] = span.to;
      return {
        text: `${pad(y, 4)}-${word}`,
        earliest: day(fromYear, span.from[0], span.from[1]),
        latest: td === 0 ? day(y, tm, lastDay(y, tm)) : day(y, tm, td),
      };
    }
  }
  throw new Invalid(
    say("date.unreadable", { date: raw }),
  );
}

/** Parses a date as entered; empty → null (unknown). Throws Invalid with a sentence naming the accepted forms. */
export function parseFuzzyDate(raw: string | null | undefined): FuzzyDate | null {
  if (raw === null || raw === undefined) return null;
  const s = toLatinDigits(raw).trim();
  if (s === "") return null;
  try {
    return one(s);
  } catch (err) {
    // A range "A/B" (or "A to B", "A – B"): "12/03/2012" is one day, so each split point is tried in turn and
    // the first where both sides are dates wins.
    const seps = [...s.matchAll(/\s*(?:\/|–|—|\.\.|\s+to\s+|\s+(?:الى|إلى)\s+)\s*/gu)];
    for (const sep of seps) {
      const left = s.slice(0, sep.index);
      const right = s.slice(sep.index + sep[0].length);
      let a: FuzzyDate;
      let b: FuzzyDate;
      try {
        a = one(left);
        b = one(right);
      } catch {
        continue;
      }
      if (b.latest < a.earliest) throw new Invalid(say("date.endsBeforeBegins", { date: raw }));
      return { text: `${a.text}/${b.text}`, earliest: a.earliest, latest: b.latest };
    }
    throw err;
  }
}

/** The month a date falls in when it is known to the month (the period facet), else null. */
export function monthOf(d: FuzzyDate | null): string | null {
  if (!d) return null;
  const a = d.earliest.slice(0, 7);
  return a === d.latest.slice(0, 7) ? a : null;
}
