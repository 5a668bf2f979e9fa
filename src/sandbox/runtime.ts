/**
 * The running sandbox as the domain code sees it: state, configuration, clock, seeded
 * randomness, ids, and two callbacks: `changed()` after every mutation (schedules the
 * state file write and re-arms the scheduler) and `log()`.
 */
import type { SandboxClock } from './core/clock.js';
import type { IdGenerator } from './core/ids.js';
import type { Rng } from './core/random.js';
import type { SandboxConfig } from './options.js';
import type { SandboxState } from './state/types.js';

export interface Runtime {
  state: SandboxState;
  config: SandboxConfig;
  clock: SandboxClock;
  rng: Rng;
  ids: IdGenerator;
  changed(): void;
  log(line: string): void;
}
