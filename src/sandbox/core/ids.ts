/**
 * Time-sortable ids: `<prefix>_` + 26 Crockford base32 characters (10 of time in ms, 16
 * of randomness from the seeded generator), monotonic within the same millisecond, so
 * sorting ids sorts by creation.
 */
import type { Rng } from './random.js';

export const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

export class IdGenerator {
  private lastTime = -1;
  private lastRandom: number[] = [];

  constructor(private readonly rng: Rng, private readonly now: () => number) {}

  /** A bare 26-character id. */
  ulid(): string {
    let time = Math.max(0, Math.floor(this.now()));
    if (time <= this.lastTime) {
      time = this.lastTime;
      this.increment();
    } else {
      this.lastTime = time;
      this.lastRandom = Array.from({ length: 16 }, () => Math.floor(this.rng.next() * 32));
    }
    let timePart = '';
    let t = time;
    for (let i = 0; i < 10; i++) {
      timePart = CROCKFORD[t % 32] + timePart;
      t = Math.floor(t / 32);
    }
    return timePart + this.lastRandom.map((d) => CROCKFORD[d]).join('');
  }

  next(prefix: string): string {
    return `${prefix}_${this.ulid()}`;
  }

  private increment(): void {
    for (let i = this.lastRandom.length - 1; i >= 0; i--) {
      const d = (this.lastRandom[i] ?? 0) + 1;
      if (d < 32) {
        this.lastRandom[i] = d;
        return;
      }
      this.lastRandom[i] = 0;
    }
    // All 80 random bits overflowed within one millisecond: move to the next millisecond.
    this.lastTime += 1;
  }
}
