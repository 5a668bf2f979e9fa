/**
 * The one timer of the sandbox: runs due fulfilment steps and webhook attempts, then arms
 * itself for the next due time. Everything due is derived from the state (order
 * `next_step`, delivery `next_attempt_at`), so it resumes after a restart and an admin
 * clock advance simply runs what became due.
 *
 * Due times are kept in two min-heaps (orders by step time, deliveries by attempt time), so
 * finding what is due costs O(due · log n), not a scan of every order and delivery. The
 * domain reports each time it sets (`stepSet`, `attemptSet` on the runtime); an entry is
 * checked against the state when it comes up and dropped when the record moved on
 * (lazy deletion). A state that is replaced (restart, admin reset) is indexed afresh.
 */
import { compareIds } from './core/ids.js';
import { MinHeap } from './core/min-heap.js';
import { runStep } from './domain/fulfilment.js';
import type { Runtime } from './runtime.js';
import type { DeliveryRecord, OrderRecord, OrderStep, SandboxState } from './state/types.js';
import type { DeliveryDispatcher } from './webhooks/dispatcher.js';

const MAX_TIMER_MS = 2_147_483_647;

interface StepEntry {
  at: number;
  id: string;
  /** The step as set: the entry is current while the order still holds this very object. */
  step: OrderStep;
}

interface AttemptEntry {
  at: number;
  id: string;
}

/** Earlier first; at the same time, the older record first (ids sort by creation). */
const earlier = (a: { at: number; id: string }, b: { at: number; id: string }): boolean =>
  a.at < b.at || (a.at === b.at && compareIds(a.id, b.id) < 0);

export class Scheduler {
  private timer: NodeJS.Timeout | undefined;
  private wakeQueued = false;
  private stopped = false;
  private readonly steps = new MinHeap<StepEntry>(earlier);
  private readonly attempts = new MinHeap<AttemptEntry>(earlier);
  /** The state the heaps index. */
  private indexed: SandboxState | undefined;

  constructor(
    private readonly rt: () => Runtime,
    private readonly dispatcher: DeliveryDispatcher,
  ) {}

  /** An order's `next_step` was set. */
  stepSet(o: OrderRecord): void {
    if (!this.sync() && o.next_step) this.steps.push({ at: o.next_step.at, id: o.order_id, step: o.next_step });
  }

  /** A delivery's `next_attempt_at` was set. */
  attemptSet(d: DeliveryRecord): void {
    if (!this.sync() && d.next_attempt_at !== null) this.attempts.push({ at: d.next_attempt_at, id: d.delivery_id });
  }

  /** Index the runtime's state afresh when it was replaced; true when it was. */
  private sync(): boolean {
    const { state } = this.rt();
    if (state === this.indexed) return false;
    this.indexed = state;
    this.steps.clear();
    this.attempts.clear();
    for (const o of Object.values(state.orders))
      if (o.next_step) this.steps.push({ at: o.next_step.at, id: o.order_id, step: o.next_step });
    for (const d of Object.values(state.deliveries))
      if (d.status === 'pending' && d.next_attempt_at !== null) this.attempts.push({ at: d.next_attempt_at, id: d.delivery_id });
    return true;
  }

  /** The order of a step entry while the entry is current. */
  private orderOf(e: StepEntry): OrderRecord | undefined {
    const o = this.rt().state.orders[e.id];
    return o && o.next_step === e.step ? o : undefined;
  }

  /** The delivery of an attempt entry while it is pending at that time and not in flight. */
  private deliveryOf(e: AttemptEntry): DeliveryRecord | undefined {
    const d = this.rt().state.deliveries[e.id];
    return d && d.status === 'pending' && d.next_attempt_at === e.at && !this.dispatcher.isInFlight(d.delivery_id) ? d : undefined;
  }

  /** The earliest current step entry (stale ones on top are dropped). */
  private nextStep(): StepEntry | undefined {
    for (let e = this.steps.peek(); e; e = this.steps.peek()) {
      if (this.orderOf(e)) return e;
      this.steps.pop();
    }
    return undefined;
  }

  private nextAttempt(): AttemptEntry | undefined {
    for (let e = this.attempts.peek(); e; e = this.attempts.peek()) {
      if (this.deliveryOf(e)) return e;
      this.attempts.pop();
    }
    return undefined;
  }

  /** Run what is due soon, outside the current call stack (safe to call from handlers). */
  poke(): void {
    if (this.wakeQueued || this.stopped) return;
    this.wakeQueued = true;
    setImmediate(() => {
      this.wakeQueued = false;
      this.runDue();
    });
  }

  /** Run everything due now, then arm the timer. */
  runDue(): void {
    if (this.stopped) return;
    this.sync();
    const rt = this.rt();
    let changed = false;
    for (let round = 0; round < 100; round++) {
      // The orders due at the start of the round, earliest first; steps they set come up in the next round.
      const now = rt.clock.now();
      const due: OrderRecord[] = [];
      const taken = new Set<OrderStep>();
      for (let e = this.nextStep(); e && e.at <= now; e = this.nextStep()) {
        this.steps.pop();
        if (taken.has(e.step)) continue;
        taken.add(e.step);
        due.push(this.orderOf(e)!);
      }
      if (due.length === 0) break;
      for (const o of due) runStep(rt, o);
      changed = true;
    }
    // Due deliveries, in the order they were created.
    const now = rt.clock.now();
    const ready = new Set<DeliveryRecord>();
    for (let e = this.nextAttempt(); e && e.at <= now; e = this.nextAttempt()) {
      this.attempts.pop();
      ready.add(this.deliveryOf(e)!);
    }
    const inOrder = [...ready].sort((a, b) => compareIds(a.delivery_id, b.delivery_id));
    for (const d of inOrder) {
      // An earlier attempt in this loop may have ended it (a removed endpoint fails at once).
      if (d.status !== 'pending' || this.dispatcher.isInFlight(d.delivery_id)) continue;
      this.dispatcher.attempt(d);
      changed = true;
    }
    if (changed) rt.changed();
    this.arm();
  }

  /**
   * Move the sandbox clock forward by `ms`, running every fulfilment step that falls due
   * on the way at its own time (so a two-step fulfilment completes within one advance).
   * Webhook attempts that fall due run once, at the new time.
   */
  advance(ms: number): void {
    this.sync();
    const rt = this.rt();
    // The offset moves by exactly `ms`: real time passing during the steps below must not
    // be taken off it (it was: 2h could become 1h59m59.999s).
    const targetOffset = rt.clock.offsetMs + ms;
    const target = rt.clock.now() + ms;
    for (let i = 0; i < 10_000; i++) {
      const next = this.nextStep()?.at;
      if (next === undefined || next > target) break;
      const gap = Math.min(next - rt.clock.now(), targetOffset - rt.clock.offsetMs);
      if (gap > 0) rt.clock.advance(gap);
      this.runDue();
    }
    const rest = targetOffset - rt.clock.offsetMs;
    if (rest > 0) rt.clock.advance(rest);
    rt.state.clock_offset_ms = rt.clock.offsetMs;
    this.runDue();
  }

  private arm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.stopped) return;
    const rt = this.rt();
    const next = Math.min(this.nextStep()?.at ?? Infinity, this.nextAttempt()?.at ?? Infinity);
    if (next === Infinity) return;
    const delay = Math.min(MAX_TIMER_MS, Math.max(0, next - rt.clock.now()));
    this.timer = setTimeout(() => this.runDue(), delay);
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
