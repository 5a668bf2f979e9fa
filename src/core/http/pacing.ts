/**
 * Client-side pacing per rate-limit class, so a bulk run stays under the server's limits
 * instead of provoking 429s. One token bucket per class, shared by every request of one
 * client. A bucket of capacity B refilled at (limit − B) per window never lets more than
 * `limit` requests through in any window, whatever the server's window alignment.
 * The server's RateLimit-Remaining/RateLimit-Reset headers slow it further when another
 * process has used part of the budget.
 *
 * With a PaceStore (the CLI's profile client: see pace-file.ts) the buckets live in a state
 * file per API key that every `vouchers` process on the machine reads and rewrites under a
 * lock for each reservation, so separate processes share one window. When the file cannot
 * be used the buckets in memory go on pacing this process alone (`onFallback` says why).
 */
import type { RateLimits } from '../config/types.js';
import { PaceLockBusyError, type PaceStore } from './pace-file.js';

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

export interface PacerOptions {
  /** Share the buckets with other processes through this store. */
  store?: PaceStore;
  /** Told (e.g. as a --debug line) when the store cannot be used and pacing stays in-process. */
  onFallback?: (message: string) => void;
}

const CLASSES: PaceClass[] = ['orders', 'general'];
const STATE_VERSION = 1;

function finite(x: unknown): x is number {
  return typeof x === 'number' && Number.isFinite(x);
}

export class Pacer {
  private readonly buckets: Record<PaceClass, Bucket>;
  private store: PaceStore | undefined;

  constructor(private readonly clock: PacingClock, limits: RateLimits, private readonly options: PacerOptions = {}) {
    const now = clock.now();
    this.buckets = {
      orders: bucket(limits.orders_per_minute, 60_000, now),
      general: bucket(limits.general_per_hour, 3_600_000, now),
    };
    this.store = options.store;
  }

  /** True while the pace is shared through the store. */
  get shared(): boolean {
    return this.store !== undefined;
  }

  /** Take the other processes' levels (capacity and rate stay this profile's own). */
  private load(state: unknown): void {
    if (typeof state !== 'object' || state === null || (state as { v?: unknown }).v !== STATE_VERSION) return;
    for (const c of CLASSES) {
      const s = (state as Record<string, unknown>)[c] as { tokens?: unknown; updated_at?: unknown; blocked_until?: unknown } | undefined;
      if (!s || !finite(s.tokens) || !finite(s.updated_at) || !finite(s.blocked_until)) continue;
      const b = this.buckets[c];
      b.tokens = Math.min(b.capacity, s.tokens);
      b.updatedAt = s.updated_at;
      b.blockedUntil = s.blocked_until;
    }
  }

  private save(): unknown {
    const out: Record<string, unknown> = { v: STATE_VERSION };
    for (const c of CLASSES) {
      const b = this.buckets[c];
      out[c] = { tokens: b.tokens, updated_at: b.updatedAt, blocked_until: b.blockedUntil };
    }
    return out;
  }

  /** Run `op` on the shared state (locked read, op, write), or on the buckets in memory. */
  private transact<T>(op: () => T): T {
    const store = this.store;
    if (!store) return op();
    let applied = false;
    let result: T | undefined;
    try {
      store.update((state) => {
        this.load(state);
        result = op();
        applied = true;
        return this.save();
      });
      return result as T;
    } catch (e) {
      const why = e instanceof Error ? e.message : String(e);
      if (e instanceof PaceLockBusyError) {
        this.options.onFallback?.(`pacing this request in-process only: ${why}`);
      } else {
        this.store = undefined;
        this.options.onFallback?.(`pacing is per process from now on: the shared pacing file ${store.path} cannot be used (${why})`);
      }
      return applied ? (result as T) : op();
    }
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
    return this.transact(() => this.reserveHere(cls));
  }

  private reserveHere(cls: PaceClass): number {
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
    this.transact(() => this.releaseHere(cls));
  }

  private releaseHere(cls: PaceClass): void {
    const classes: PaceClass[] = cls === 'general' ? ['general'] : [cls, 'general'];
    for (const c of classes) {
      const b = this.buckets[c];
      b.tokens = Math.min(b.capacity, b.tokens + 1);
    }
  }

  /**
   * Wait for a slot of the class; rejects with the signal's reason when aborted. Returns the
   * time waited. `onWait` hears of a wait before it starts (to announce it).
   */
  async acquire(cls: PaceClass, signal?: AbortSignal, onWait?: (ms: number) => void): Promise<number> {
    const wait = this.reserve(cls);
    if (wait <= 0) return 0;
    onWait?.(wait);
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
    // Usually the server has more left than this client lets through: then there is nothing
    // to change, and the shared file is not touched a second time for this request.
    const b = this.buckets[cls];
    this.refill(b, this.clock.now());
    const blocks = remaining <= 0 && resetMs !== undefined && resetMs > 0;
    if (!blocks && remaining >= b.tokens) return;
    this.transact(() => this.observeHere(cls, remaining, resetMs));
  }

  private observeHere(cls: PaceClass, remaining: number, resetMs: number | undefined): void {
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
