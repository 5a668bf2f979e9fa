/**
 * Time-sortable ids: `<prefix>_` + 26 Crockford base32 characters (10 of time in ms, 16
 * of randomness from the seeded generator), monotonic within the same millisecond, so
 * sorting ids sorts by creation.
 */
import type { Rng } from './random.js';
import { flat } from './flat.js';

export const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** Where the domain gets its ids: `<prefix>_…`, in the shape of the sandbox's dialect. */
export interface IdSource {
  next(prefix: string): string;
}

const DECIMAL_ID = /^([a-z]+_)(\d+)$/;

/**
 * Order of two ids of one kind, as their creation order: a plain string comparison (which
 * is creation order for the 26-character ids, all of one length), except that decimal ids
 * (`txn_999` before `txn_1000`, the document dialect) compare by number. Sorting and
 * cursors use it, so pagination holds in both dialects.
 */
export function compareIds(a: string, b: string): number {
  const ma = DECIMAL_ID.exec(a);
  const mb = DECIMAL_ID.exec(b);
  if (ma && mb && ma[1] === mb[1] && ma[2]!.length !== mb[2]!.length) return ma[2]!.length - mb[2]!.length;
  return a < b ? -1 : a > b ? 1 : 0;
}

export class IdGenerator implements IdSource {
  private lastTime = -1;
  private lastRandom: number[] = [];

  constructor(
    private readonly rng: Rng,
    private readonly now: () => number,
  ) {}

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
    const chars: string[] = [];
    let t = time;
    for (let i = 0; i < 10; i++) {
      chars.push(CROCKFORD[t % 32]!);
      t = Math.floor(t / 32);
    }
    chars.reverse();
    for (const d of this.lastRandom) chars.push(CROCKFORD[d]!);
    return chars.join('');
  }

  next(prefix: string): string {
    return flat(`${prefix}_${this.ulid()}`);
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
