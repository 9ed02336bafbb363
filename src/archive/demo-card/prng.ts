import { createHash } from "node:crypto";

/**
 * A small seeded generator (sfc32) so a card is the same, byte for byte, for the same seed. Each independent
 * part of the card draws from its own stream (`rng.fork("photo/17")`), so what one photo draws does not shift
 * every later photo, and photos can be rendered in any order or concurrently.
 */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(
    private readonly key: string,
  ) {
    const h = createHash("sha256").update(key, "utf8").digest();
    this.a = h.readUInt32LE(0);
    this.b = h.readUInt32LE(4);
    this.c = h.readUInt32LE(8);
    this.d = h.readUInt32LE(12) | 1;
    for (let i = 0; i < 12; i++) this.u32();
  }

  static fromSeed(seed: string | number): Rng {
    return new Rng(`dalil-demo-card/v1/${typeof seed}:${String(seed)}`);
  }

  /** An independent stream named by `label`, derived from this stream's key (not from its position). */
  fork(label: string): Rng {
    return new Rng(`${this.key}/${label}`);
  }

  u32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.u32() / 4294967296;
  }

  /** Uniform in [min, max). */
  range(min: number, max: number): number {
    return min + (max - min) * this.next();
  }

  /** Uniform integer in [min, max], both ends included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError("cannot pick from an empty list");
    return items[Math.floor(this.next() * items.length)] as T;
  }

  /** Picks by weight: `[[value, weight], …]`. */
  weighted<T>(choices: readonly (readonly [T, number])[]): T {
    let total = 0;
    for (const [, w] of choices) total += w;
    let x = this.next() * total;
    for (const [v, w] of choices) {
      x -= w;
      if (x < 0) return v;
    }
    const last = choices[choices.length - 1];
    if (!last) throw new RangeError("cannot pick from an empty list");
    return last[0];
  }

  /** Approximately normal (sum of four uniforms), mean 0, standard deviation 1. */
  normal(): number {
    return (this.next() + this.next() + this.next() + this.next() - 2) * 1.7320508075688772;
  }
}
