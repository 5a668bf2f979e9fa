/**
 * The running sandbox as the domain code sees it: state, configuration, clock, seeded
 * randomness, ids, the dialect that puts records on the wire, and two callbacks:
 * `changed()` after every mutation (schedules the state file write and re-arms the
 * scheduler) and `log()`.
 */
import type { SandboxClock } from './core/clock.js';
import type { IdSource } from './core/ids.js';
import type { Dialect } from './dialects/types.js';
import type { Rng } from './core/random.js';
import type { SandboxConfig } from './options.js';
import type { SandboxState } from './state/types.js';

export interface Runtime {
  state: SandboxState;
  config: SandboxConfig;
  clock: SandboxClock;
  rng: Rng;
  ids: IdSource;
  /** Response bodies, event payloads, errors and served endpoints of `config.dialect`. */
  dialect: Dialect;
  changed(): void;
  log(line: string): void;
}
