/**
 * The one timer of the sandbox: runs due fulfilment steps and webhook attempts, then arms
 * itself for the next due time. Everything due is derived from the state (order
 * `next_step`, delivery `next_attempt_at`), so it resumes after a restart and an admin
 * clock advance simply runs what became due.
 */
import { runStep } from './domain/fulfilment.js';
import type { Runtime } from './runtime.js';
import type { DeliveryDispatcher } from './webhooks/dispatcher.js';

const MAX_TIMER_MS = 2_147_483_647;

export class Scheduler {
  private timer: NodeJS.Timeout | undefined;
  private wakeQueued = false;
  private stopped = false;

  constructor(private readonly rt: () => Runtime, private readonly dispatcher: DeliveryDispatcher) {}

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
    const rt = this.rt();
    let changed = false;
    for (let round = 0; round < 100; round++) {
      const now = rt.clock.now();
      const due = Object.values(rt.state.orders).filter((o) => o.next_step !== null && o.next_step.at <= now);
      if (due.length === 0) break;
      for (const o of due.sort((a, b) => a.next_step!.at - b.next_step!.at)) runStep(rt, o);
      changed = true;
    }
    const now = rt.clock.now();
    for (const d of Object.values(rt.state.deliveries)) {
      if (d.status === 'pending' && d.next_attempt_at !== null && d.next_attempt_at <= now && !this.dispatcher.isInFlight(d.delivery_id)) {
        this.dispatcher.attempt(d);
        changed = true;
      }
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
    const rt = this.rt();
    // The offset moves by exactly `ms`: real time passing during the steps below must not
    // be taken off it (it was: 2h could become 1h59m59.999s).
    const targetOffset = rt.clock.offsetMs + ms;
    const target = rt.clock.now() + ms;
    for (let i = 0; i < 10_000; i++) {
      let next: number | undefined;
      for (const o of Object.values(rt.state.orders)) if (o.next_step && o.next_step.at <= target && (next === undefined || o.next_step.at < next)) next = o.next_step.at;
      if (next === undefined) break;
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
    let next = Infinity;
    for (const o of Object.values(rt.state.orders)) if (o.next_step && o.next_step.at < next) next = o.next_step.at;
    for (const d of Object.values(rt.state.deliveries)) {
      if (d.status === 'pending' && d.next_attempt_at !== null && !this.dispatcher.isInFlight(d.delivery_id) && d.next_attempt_at < next) next = d.next_attempt_at;
    }
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
