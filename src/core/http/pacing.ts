/**
 * Client-side pacing per rate-limit class, so a bulk run stays under the server's limits
 * instead of provoking 429s, while using all of them. Per class, the window (a minute for
 * `orders`, an hour for `general`) is cut into CELLS cells, and each request is counted in
 * the cell of the time it may be sent. A request goes into the first cell from now where
 * every run of SPAN cells that holds it holds fewer than the limit, counting the requests
 * already booked in later cells (a request waiting for another class's limit books its
 * slot ahead). So a request never waits behind a slot booked ahead while the window has
 * room now: a GET does not wait for an order held by the per-minute order limit, whose
 * slot in the hour's window lies a minute ahead. SPAN is the window plus two cells:
 * any span of one window and a little more (a request arrives a moment after its slot)
 * touches at most SPAN cells, so no window of the server, however aligned, fixed or
 * sliding, ever sees more than the limit. That lets the whole limit through at once and
 * then the whole limit again SPAN cells later: about CELLS/SPAN (97 %) of the limit,
 * with bursts.
 *
 * The server's RateLimit-Remaining/RateLimit-Reset headers slow it further when another
 * client of the same key has used part of the budget.
 *
 * With a PaceStore (the CLI's profile client: see pace-file.ts) the cells live in a state
 * file per API key that every `vouchers` process on the machine reads and rewrites under a
 * lock, so separate processes share one window. When a slot is free now, a reservation takes
 * a few more of the current cell at once (a lease, at most 1/20 of a cell's share of the
 * limit, so 1 at the documented limits) and uses them without touching the file while that
 * cell lasts; what is left of a lease is given back on the next visit to the file, or when
 * the client closes (`giveBackLeases`: a one-shot command would otherwise keep a lease's
 * worth of slots from every other process for a window), so a fast run under a high limit
 * does not pay a locked file update per request. When the file
 * cannot be used, the cells in memory go on pacing this process alone (`onFallback` says why).
 */
import type { RateLimits } from '../config/types.js';
import { PaceLockBusyError, type PaceStore } from './pace-file.js';

export type PaceClass = 'orders' | 'general';

export interface PacingClock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** Cells per window. */
export const CELLS = 60;
/** Cells a window (and the lag of an arrival behind its slot) can touch. */
export const SPAN = CELLS + 2;
/** A lease is at most this share of one cell's part of the limit. */
const LEASE_SHARE = 1 / 20;
const MAX_LEASE = 256;

const WINDOW_MS: Record<PaceClass, number> = { orders: 60_000, general: 3_600_000 };

interface ClassPace {
  limit: number;
  cellMs: number;
  /** Requests counted per cell (cell index = floor(time / cellMs)). */
  cells: Map<number, number>;
  /** No request before this time (set from RateLimit-Reset when the budget is gone). */
  blockedUntil: number;
  /** Slots of the current cell taken from the shared state and not used yet. */
  lease: { cell: number; left: number };
  /** Slots a reservation takes at once when a slot is free now. */
  leaseSize: number;
}

export interface PacerOptions {
  /** Share the cells with other processes through this store. */
  store?: PaceStore;
  /** Told (e.g. as a --debug line) when the store cannot be used and pacing stays in-process. */
  onFallback?: (message: string) => void;
}

const CLASSES: PaceClass[] = ['orders', 'general'];
const STATE_VERSION = 2;
/** A shared state written this far ahead of the reader's clock is a clock that went back: a fresh start. */
const CLOCK_AHEAD_MS = 60_000;

function finite(x: unknown): x is number {
  return typeof x === 'number' && Number.isFinite(x);
}

const CHARGED: Record<PaceClass, readonly PaceClass[]> = { orders: ['orders', 'general'], general: ['general'] };
/** The classes a request of class `cls` counts against. */
const charged = (cls: PaceClass): readonly PaceClass[] => CHARGED[cls];

export class Pacer {
  private readonly classes: Record<PaceClass, ClassPace>;
  private store: PaceStore | undefined;
  /** The cells of the last reservation that waited, per class (to give it back). */
  private lastSlot: Partial<Record<PaceClass, number>> = {};

  constructor(
    private readonly clock: PacingClock,
    limits: RateLimits,
    private readonly options: PacerOptions = {},
  ) {
    const pace = (limit: number, windowMs: number): ClassPace => {
      const l = Math.max(1, Math.floor(limit));
      const leaseSize = Math.max(1, Math.min(MAX_LEASE, Math.floor((l / CELLS) * LEASE_SHARE)));
      return { limit: l, cellMs: windowMs / CELLS, cells: new Map(), blockedUntil: 0, lease: { cell: -1, left: 0 }, leaseSize };
    };
    this.classes = {
      orders: pace(limits.orders_per_minute, WINDOW_MS.orders),
      general: pace(limits.general_per_hour, WINDOW_MS.general),
    };
    this.store = options.store;
  }

  /** True while the pace is shared through the store. */
  get shared(): boolean {
    return this.store !== undefined;
  }

  /** Take the shared cells (the limit stays this profile's own). */
  private load(state: unknown): void {
    for (const c of CLASSES) {
      const p = this.classes[c];
      p.cells = new Map();
      p.blockedUntil = 0;
    }
    if (typeof state !== 'object' || state === null || (state as { v?: unknown }).v !== STATE_VERSION) return;
    // Written under a clock ahead of this one (since set back, or another machine's on a
    // shared folder): its times would hold every request back until that clock's future.
    const at = (state as { at?: unknown }).at;
    if (finite(at) && at > this.clock.now() + CLOCK_AHEAD_MS) return;
    for (const c of CLASSES) {
      const s = (state as Record<string, unknown>)[c] as { cells?: unknown; blocked_until?: unknown } | undefined;
      if (!s || !Array.isArray(s.cells) || !finite(s.blocked_until)) continue;
      const p = this.classes[c];
      for (const cell of s.cells as unknown[]) {
        if (Array.isArray(cell) && finite(cell[0]) && finite(cell[1]) && cell[1] > 0) p.cells.set(cell[0], cell[1]);
      }
      p.blockedUntil = s.blocked_until;
    }
  }

  private save(): unknown {
    // When it was written, by the writer's clock (see load).
    const out: Record<string, unknown> = { v: STATE_VERSION, at: this.clock.now() };
    for (const c of CLASSES) {
      const p = this.classes[c];
      out[c] = { cells: [...p.cells], blocked_until: p.blockedUntil };
    }
    return out;
  }

  /** Run `op` on the shared state (locked read, op, write), or on the cells in memory. */
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

  /** Forget cells no window from now on can touch. */
  private prune(p: ClassPace, now: number): void {
    const oldest = Math.floor(now / p.cellMs) - SPAN;
    for (const cell of p.cells.keys()) if (cell <= oldest) p.cells.delete(cell);
  }

  /** Count of the SPAN cells ending at `cell`. */
  private spanCount(p: ClassPace, cell: number): number {
    let n = 0;
    for (const [c, k] of p.cells) if (c > cell - SPAN && c <= cell) n += k;
    return n;
  }

  /**
   * How many more requests each cell from `from` on has room for: the limit less the
   * fullest run of SPAN cells that holds it (the runs ending at it and at the SPAN - 1 cells
   * after it, with the requests booked there).
   */
  private roomFrom(p: ClassPace, from: number): (cell: number) => number {
    let last = from;
    for (const c of p.cells.keys()) if (c > last) last = c;
    // Requests per cell from the first any run holding `from` reaches, to the last booked.
    const lo = from - SPAN + 1;
    const sums = new Float64Array(last - lo + 2);
    for (const [c, k] of p.cells) if (c >= lo && c <= last) sums[c - lo + 1] = sums[c - lo + 1]! + k;
    for (let i = 1; i < sums.length; i++) sums[i] = sums[i]! + sums[i - 1]!;
    /** Requests in the SPAN cells ending at `end`. */
    const run = (end: number) => {
      const hi = Math.min(end, last) - lo + 1;
      const start = Math.max(end - SPAN + 1, lo) - lo;
      return hi > start ? sums[hi]! - sums[start]! : 0;
    };
    return (cell) => {
      let most = 0;
      for (let end = cell; end < cell + SPAN; end++) most = Math.max(most, run(end));
      return p.limit - most;
    };
  }

  /** The first time from `t` on that a request of this class may be sent. */
  private earliest(p: ClassPace, t: number): number {
    t = Math.max(t, p.blockedUntil);
    const from = Math.floor(t / p.cellMs);
    const room = this.roomFrom(p, from);
    // Past the last booked cell and a span, every run is empty: the search ends there.
    let cell = from;
    while (room(cell) <= 0) cell += 1;
    return Math.max(t, cell * p.cellMs);
  }

  /** Unused slots of a lease go back to their cell. */
  private giveBackLease(p: ClassPace): void {
    const { cell, left } = p.lease;
    if (left > 0) {
      const k = (p.cells.get(cell) ?? 0) - left;
      if (k > 0) p.cells.set(cell, k);
      else p.cells.delete(cell);
    }
    p.lease = { cell: -1, left: 0 };
  }

  /**
   * Reserve one slot of each class (a call of class `orders` is also charged to `general`)
   * and return how long to wait. Synchronous, so concurrent callers queue.
   */
  reserve(cls: PaceClass): number {
    const now = this.clock.now();
    // A slot of a lease of the current cell, for every class charged: no file visit.
    const names = charged(cls);
    let leased = true;
    for (const c of names) {
      const p = this.classes[c];
      if (!(p.lease.left > 0 && p.lease.cell === Math.floor(now / p.cellMs) && p.blockedUntil <= now)) leased = false;
    }
    if (leased) {
      for (const c of names) this.classes[c].lease.left -= 1;
      return 0;
    }
    return this.transact(() => this.reserveHere(cls, this.clock.now()));
  }

  private reserveHere(cls: PaceClass, now: number): number {
    const names = charged(cls);
    for (const c of names) {
      const p = this.classes[c];
      if (this.store) this.giveBackLease(p);
      else p.lease = { cell: -1, left: 0 };
      this.prune(p, now);
    }
    // The first time every class charged allows (each one's allowed times only grow from there).
    let t = now;
    for (;;) {
      const next = Math.max(...names.map((c) => this.earliest(this.classes[c], t)));
      if (next === t) break;
      t = next;
    }
    for (const c of names) {
      const p = this.classes[c];
      const cell = Math.floor(t / p.cellMs);
      let take = 1;
      if (t === now && this.store) take = Math.max(1, Math.min(p.leaseSize, this.roomFrom(p, cell)(cell)));
      p.cells.set(cell, (p.cells.get(cell) ?? 0) + take);
      p.lease = { cell, left: take - 1 };
      this.lastSlot[c] = cell;
    }
    return t - now;
  }

  /**
   * Give back what is left of this client's leases: it sends nothing more (the client is
   * closing). Only a lease with slots left visits the file, so never at the documented
   * limits, whose leases are one slot.
   */
  giveBackLeases(): void {
    if (!this.store || !CLASSES.some((c) => this.classes[c].lease.left > 0)) return;
    this.transact(() => {
      for (const c of CLASSES) this.giveBackLease(this.classes[c]);
    });
  }

  /** Give back the last reservation, which was not used (its wait was aborted). */
  release(cls: PaceClass): void {
    const slots = { ...this.lastSlot };
    this.transact(() => {
      for (const c of charged(cls)) {
        const p = this.classes[c];
        const cell = slots[c];
        if (cell === undefined) continue;
        const k = (p.cells.get(cell) ?? 0) - 1;
        if (k > 0) p.cells.set(cell, k);
        else p.cells.delete(cell);
      }
    });
  }

  /**
   * Wait for a slot of the class; rejects with the signal's reason when aborted. Returns the
   * time waited. `onWait` hears of a wait before it starts (to announce it).
   */
  async acquire(cls: PaceClass, signal?: AbortSignal, onWait?: (ms: number) => void): Promise<number> {
    const wait = this.reserve(cls);
    if (wait > 0) await this.waitFor(cls, wait, signal, onWait);
    return Math.max(0, wait);
  }

  /**
   * Wait out the `wait` a reservation (reserve) asked for; rejects with the signal's reason
   * when aborted, giving the slot back. `onWait` hears of the wait before it starts.
   */
  async waitFor(cls: PaceClass, wait: number, signal?: AbortSignal, onWait?: (ms: number) => void): Promise<void> {
    onWait?.(wait);
    try {
      await this.clock.sleep(wait, signal);
    } catch (e) {
      this.release(cls);
      throw e;
    }
  }

  /** Slots this client still counts as free now (the current cell's span). */
  private free(p: ClassPace, now: number): number {
    return Math.max(0, p.limit - this.spanCount(p, Math.floor(now / p.cellMs))) + p.lease.left;
  }

  /**
   * What the server said about a class's budget: never count more slots free than it has
   * left, and when it has none, hold everything until it resets.
   */
  observe(cls: PaceClass, remaining: number | undefined, resetMs: number | undefined): void {
    if (remaining === undefined || !Number.isFinite(remaining)) return;
    // Usually the server has more left than this client lets through: then there is nothing
    // to change, and the shared file is not touched a second time for this request. (The
    // cells here are at most as full as the shared ones, so they count at least as much free.)
    const now = this.clock.now();
    const blocks = remaining <= 0 && resetMs !== undefined && resetMs > 0;
    if (!blocks && remaining >= this.free(this.classes[cls], now)) return;
    this.transact(() => this.observeHere(cls, remaining, resetMs));
  }

  private observeHere(cls: PaceClass, remaining: number, resetMs: number | undefined): void {
    const p = this.classes[cls];
    const now = this.clock.now();
    if (this.store) this.giveBackLease(p);
    else p.lease = { cell: -1, left: 0 };
    if (remaining <= 0 && resetMs !== undefined && resetMs > 0) {
      // Nothing left until the server's window resets; then its budget is whole again.
      p.blockedUntil = Math.max(p.blockedUntil, now + resetMs);
      return;
    }
    // Count the difference as used now: those slots come free a window from now, no
    // earlier than the server's own reset.
    const over = this.free(p, now) - Math.max(0, remaining);
    if (over > 0) {
      const cell = Math.floor(now / p.cellMs);
      p.cells.set(cell, (p.cells.get(cell) ?? 0) + over);
    }
  }
}
