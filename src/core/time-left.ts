/**
 * How long a long step has left, from how fast it has gone lately. The rate is taken over the last minute
 * (not since the start), so a step that speeds up or slows down (a cache warming, a disk filling) is judged by
 * what it does now. Until there are a few seconds and a little progress to judge by, there is no estimate:
 * saying nothing is better than saying something wild.
 */
export class TimeLeft {
  private readonly seen: { at: number; done: number }[] = [];

  constructor(
    private readonly windowMs = 60_000,
    private readonly minSpanMs = 5_000,
  ) {}

  /** Records that `done` units were finished at `at` (milliseconds, any monotonic clock). */
  observe(done: number, at: number): void {
    const last = this.seen[this.seen.length - 1];
    if (last && done < last.done) this.seen.length = 0; // counted again from zero: a new phase
    this.seen.push({ at, done });
    // Keep one sample older than the window, so the rate always spans at least the window once it can.
    while (this.seen.length > 2 && at - this.seen[1]!.at >= this.windowMs) this.seen.shift();
  }

  /** Seconds left to reach `total`, or null while there is too little to judge by (or no progress lately). */
  seconds(total: number): number | null {
    const first = this.seen[0];
    const last = this.seen[this.seen.length - 1];
    if (!first || !last || last.done >= total) return last && last.done >= total ? 0 : null;
    const span = last.at - first.at;
    const gained = last.done - first.done;
    if (span < this.minSpanMs || gained <= 0) return null;
    return ((total - last.done) * span) / gained / 1000;
  }
}

/** "45 s", "12 min", "1 h 20 min": rounded as a person would say it, in English for the console. */
export function spokenDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${Math.max(1, Math.ceil(s / 5) * 5)} s`;
  const min = Math.round(s / 60);
  if (min < 60) return `${min} min`;
  const h = Math.floor(min / 60);
  const rest = min % 60;
  return rest ? `${h} h ${rest} min` : `${h} h`;
}
