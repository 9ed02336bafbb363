/** Time comes from here so tests can fix it and events carry one consistent format (RFC 3339, UTC, ms). */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export function fixedClock(start: Date, stepMs = 0): Clock {
  let t = start.getTime();
  return {
    now() {
      const d = new Date(t);
      t += stepMs;
      return d;
    },
  };
}

export function isoTime(d: Date): string {
  return d.toISOString();
}
