/**
 * A camera's clock reading ("2024-03-05T08:33:00", with sub-seconds and a UTC offset when the file gave them)
 * as milliseconds on the camera's own wall clock: the digits it wrote, read as if they were UTC. The offset is
 * not applied and the host's time zone plays no part (ISO strings without an offset are local time to
 * `Date.parse`, so a server in New York and one in Damascus would otherwise disagree about the same card).
 * Differences between two readings of one camera are then true durations; the result is not an instant.
 * NaN when the text is not such a reading.
 */
export function wallClockMs(reading: string | null | undefined): number {
  const m = reading ? /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?(?:Z|[+-]\d\d:?\d\d)?$/.exec(reading) : null;
  if (!m) return NaN;
  const [, y, mo, d, h = "0", mi = "0", s = "0", frac = "0"] = m;
  const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), Math.floor(Number(`0.${frac}`) * 1000));
  return Number.isNaN(ms) ? NaN : ms;
}
