/**
 * A small seeded pseudo-random generator (mulberry32). Its whole state is one 32-bit
 * integer, so it can be saved with the sandbox state and resumed after a restart.
 */
export class Rng {
  constructor(private s: number) {
    this.s = s >>> 0;
  }

  get state(): number {
    return this.s;
  }

  /** Restart the sequence from a new state (reset to the seed, or resume after a restart). */
  reset(state: number): void {
    this.s = state >>> 0;
  }

  /** Uniform float in [0, 1). */
  next(): number {
    this.s = (this.s + 0x6d2b79f5) >>> 0;
    let t = this.s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Integer in [min, max] inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** Float in [min, max). */
  between(min: number, max: number): number {
    return min + this.next() * (max - min);
  }

  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new RangeError('pick from an empty list');
    return item;
  }

  /** `length` characters drawn from `alphabet`. */
  chars(alphabet: string, length: number): string {
    const picked: string[] = [];
    for (let i = 0; i < length; i++) picked.push(alphabet[Math.floor(this.next() * alphabet.length)]!);
    return picked.join('');
  }
}

export const HEX = '0123456789abcdef';
