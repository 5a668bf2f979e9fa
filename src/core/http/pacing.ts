/**
 * Client-side pacing per rate-limit class, so a bulk run stays under the server's limits
 * instead of provoking 429s. One token bucket per class, shared by every request of one
 * client. A bucket of capacity B refilled at (limit − B) per window never lets more than
 * `limit` requests through in any window, whatever the server's window alignment.
 * The server's RateLimit-Remaining/RateLimit-Reset headers slow it further when another
 * process has used part of the budget.
 */
import type { RateLimits } from '../config/types.js';

export type PaceClass = 'orders' | 'general';

export interface PacingClock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

interface Bucket {
  capacity: number;
  /** Tokens per millisecond. */
  rate: number;
  tokens: number;
  updatedAt: number;
  /** No request before this time (set from RateLimit-Reset when the budget is gone). */
  blockedUntil: number;
}

/** Burst share of the limit: the rest is spread evenly over the window. */
const BURST_SHARE = 0.5;

function bucket(limit: number, windowMs: number, now: number): Bucket {
  const l = Math.max(1, Math.floor(limit));
  const capacity = l === 1 ? 1 : Math.max(1, Math.floor(l * BURST_SHARE));
  const refill = Math.max(1, l - capacity);
  return { capacity, rate: refill / windowMs, tokens: capacity, updatedAt: now, blockedUntil: 0 };
}

export class Pacer {
  private readonly buckets: Record<PaceClass, Bucket>;

  constructor(private readonly clock: PacingClock, limits: RateLimits) {
    const now = clock.now();
    this.buckets = {
      orders: bucket(limits.orders_per_minute, 60_000, now),
      general: bucket(limits.general_per_hour, 3_600_000, now),
    };
  }

  private refill(b: Bucket, now: number): void {
    if (now > b.updatedAt) {
      b.tokens = Math.min(b.capacity, b.tokens + (now - b.updatedAt) * b.rate);
      b.updatedAt = now;
    }
  }

  /**
   * Reserve one token of each class (a call of class `orders` is also charged to
   * `general`) and return how long to wait. Synchronous, so concurrent callers queue.
   */
  reserve(cls: PaceClass): number {
    const now = this.clock.now();
    const classes: PaceClass[] = cls === 'general' ? ['general'] : [cls, 'general'];
    let wait = 0;
    for (const c of classes) {
      const b = this.buckets[c];
      this.refill(b, now);
      b.tokens -= 1;
      const tokenWait = b.tokens >= 0 ? 0 : Math.ceil(-b.tokens / b.rate - 1e-6);
      wait = Math.max(wait, tokenWait, b.blockedUntil - now);
    }
    return wait;
  }

  /** Give back a reservation that was not used (the wait was aborted). */
  release(cls: PaceClass): void {
    const classes: PaceClass[] = cls === 'general' ? ['general'] : [cls, 'general'];
    for (const c of classes) {
      const b = this.buckets[c];
      b.tokens = Math.min(b.capacity, b.tokens + 1);
    }
  }

  /** Wait for a slot of the class; rejects with the signal's reason when aborted. Returns the time waited. */
  async acquire(cls: PaceClass, signal?: AbortSignal): Promise<number> {
    const wait = this.reserve(cls);
    if (wait <= 0) return 0;
    try {
      await this.clock.sleep(wait, signal);
    } catch (e) {
      this.release(cls);
      throw e;
    }
    return wait;
  }

  /**
   * What the server said about a class's budget: never hold more tokens than it has left,
   * and when it has none, hold everything until it resets.
   */
  observe(cls: PaceClass, remaining: number | undefined, resetMs: number | undefined): void {
    if (remaining === undefined || !Number.isFinite(remaining)) return;
    const b = this.buckets[cls];
    const now = this.clock.now();
    this.refill(b, now);
    if (remaining <= 0 && resetMs !== undefined && resetMs > 0) {
      // Nothing left until the server's window resets; then its budget is whole again.
      b.blockedUntil = Math.max(b.blockedUntil, now + resetMs);
    } else if (remaining < b.tokens) {
      b.tokens = Math.max(0, remaining);
    }
  }
}
