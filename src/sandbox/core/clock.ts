/**
 * The sandbox clock: the base clock (real time, or an injected one) plus an offset that
 * the admin surface can only move forward. Every timestamp, window and schedule of the
 * sandbox reads this clock.
 */
export class SandboxClock {
  constructor(
    private readonly base: () => number,
    public offsetMs = 0,
  ) {}

  now(): number {
    return this.base() + this.offsetMs;
  }

  nowSeconds(): number {
    return Math.floor(this.now() / 1000);
  }

  /** The base clock's seconds, without the offset: the time a partner's machine signs with. */
  baseSeconds(): number {
    return Math.floor(this.base() / 1000);
  }

  advance(ms: number): void {
    if (!(ms >= 0)) throw new RangeError('the sandbox clock only moves forward');
    this.offsetMs += ms;
  }
}
