/**
 * The running sandbox as the domain code sees it: state, configuration, clock, seeded
 * randomness, ids, the dialect that puts records on the wire, and two callbacks:
 * `changed()` after every mutation (schedules the state file write and re-arms the
 * scheduler), `stepSet()`/`attemptSet()` after setting a due time (the scheduler's index)
 * and `log()`.
 */
import type { SandboxClock } from './core/clock.js';
import type { IdSource } from './core/ids.js';
import type { Dialect } from './dialects/types.js';
import type { Rng } from './core/random.js';
import type { SandboxConfig } from './options.js';
import type { DeliveryRecord, OrderRecord, SandboxState } from './state/types.js';

export interface Runtime {
  state: SandboxState;
  config: SandboxConfig;
  clock: SandboxClock;
  rng: Rng;
  ids: IdSource;
  /** Response bodies, event payloads, errors and served endpoints of `config.dialect`. */
  dialect: Dialect;
  changed(): void;
  /** Tell the scheduler an order's `next_step` was set (every assignment of one goes through here). */
  stepSet(o: OrderRecord): void;
  /** Tell the scheduler a delivery's `next_attempt_at` was set. */
  attemptSet(d: DeliveryRecord): void;
  log(line: string): void;
}
