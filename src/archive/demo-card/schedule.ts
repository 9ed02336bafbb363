import { Invalid } from "../../core/errors.ts";
import type { Rng } from "./prng.ts";
import { say } from "../../core/messages.ts";

/**
 * The photographer's working clock. Times are Damascus wall-clock times held as milliseconds of a UTC date
 * with the same fields (so the host's time zone never matters); the UTC offset is worked out separately.
 * Work happens Sunday to Thursday, 08:00–15:00: seconds between the shots of one body, minutes between
 * bodies, and the next working morning when the day is full.
 */
const MINUTE = 60_000;
const DAY = 86_400_000;
const START_OF_DAY = 8 * 60 * MINUTE;
const END_OF_DAY = 15 * 60 * MINUTE;
/**
 * No body starts later than this: its 8 shots (40 s apart at most), two retouched copies and a few faulty
 * files written before it all fit before the end of the day.
 */
const LAST_START = END_OF_DAY - 12 * MINUTE;

function isWorkingDay(wall: number): boolean {
  const d = new Date(wall).getUTCDay();
  return d >= 0 && d <= 4;
}

function midnight(wall: number): number {
  return Math.floor(wall / DAY) * DAY;
}

function nextWorkingMidnight(wall: number): number {
  let m = midnight(wall) + DAY;
  while (!isWorkingDay(m)) m += DAY;
  return m;
}

/** Parses YYYY-MM-DD as a wall-clock midnight. */
export function parseStartDate(date: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  const wall = m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : NaN;
  if (!m || Number.isNaN(wall) || new Date(wall).toISOString().slice(0, 10) !== date) {
    throw new Invalid(say("demoCard.startDate", { date }), "startDate");
  }
  return wall;
}

function lastFriday(year: number, month: number): number {
  const last = Date.UTC(year, month + 1, 0);
  const back = (new Date(last).getUTCDay() - 5 + 7) % 7;
  return last - back * DAY;
}

/**
 * Syria's offset from UTC: +03:00 in summer time (from the last Friday of March to the last Friday of
 * October, the rule of the years this archive covers), +02:00 otherwise. Shots are never taken on a Friday,
 * so the hour of the change does not matter.
 */
export function damascusOffsetMinutes(wall: number): number {
  const year = new Date(wall).getUTCFullYear();
  return wall >= lastFriday(year, 2) && wall < lastFriday(year, 9) ? 180 : 120;
}

function pad(n: number, w = 2): string {
  return String(n).padStart(w, "0");
}

export function offsetString(wall: number): string {
  const m = damascusOffsetMinutes(wall);
  return `+${pad(Math.floor(m / 60))}:${pad(m % 60)}`;
}

/** EXIF date form: "YYYY:MM:DD HH:MM:SS". */
export function exifDateTime(wall: number): string {
  const d = new Date(wall);
  return (
    `${d.getUTCFullYear()}:${pad(d.getUTCMonth() + 1)}:${pad(d.getUTCDate())} ` +
    `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`
  );
}

/** RFC 3339 with the local offset, e.g. "2012-05-06T08:12:13+03:00". */
export function isoLocal(wall: number): string {
  return `${new Date(wall).toISOString().slice(0, 19)}${offsetString(wall)}`;
}

export function isoDate(wall: number): string {
  return new Date(wall).toISOString().slice(0, 10);
}

/** The instant a wall-clock time denotes. */
export function instant(wall: number): Date {
  return new Date(wall - damascusOffsetMinutes(wall) * MINUTE);
}

export class WorkClock {
  private wall: number;
  private started = false;

  constructor(startDate: string) {
    let m = parseStartDate(startDate);
    while (!isWorkingDay(m)) m += DAY;
    this.wall = m + START_OF_DAY;
  }

  /** Moves to the start of the next body; returns true when that begins a new working day. */
  nextBody(rng: Rng): boolean {
    if (!this.started) {
      this.started = true;
      this.wall += rng.int(5, 40) * MINUTE + rng.int(0, 59) * 1000;
      return true;
    }
    // Minutes between bodies, and now and then a longer pause.
    let gap = rng.int(2, 12) * MINUTE + rng.int(0, 59) * 1000;
    if (rng.chance(0.06)) gap += rng.int(20, 60) * MINUTE;
    const next = this.wall + gap;
    if (next - midnight(next) <= LAST_START && midnight(next) === midnight(this.wall)) {
      this.wall = next;
      return false;
    }
    this.wall = nextWorkingMidnight(this.wall) + START_OF_DAY + rng.int(0, 30) * MINUTE + rng.int(0, 59) * 1000;
    return true;
  }

  /** The time of the next shot of the current body. */
  shot(rng: Rng, first: boolean): number {
    if (!first) this.wall += rng.int(6, 40) * 1000;
    return this.wall;
  }

  /** Time passes while the photographer makes a retouched copy in the camera. */
  pause(rng: Rng, minSeconds: number, maxSeconds: number): number {
    this.wall += rng.int(minSeconds, maxSeconds) * 1000;
    return this.wall;
  }

  now(): number {
    return this.wall;
  }
}
