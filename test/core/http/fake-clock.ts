/** A clock whose sleeps return at once and move time forward; every requested sleep is recorded. */
import type { Clock, Ids } from '../../../src/factory.js';

export interface FakeClock extends Clock {
  sleeps: number[];
  advance(ms: number): void;
  /** Run before each sleep returns (e.g. start a server during a backoff). */
  onSleep?: (ms: number) => void | Promise<void>;
}

export function fakeClock(start = Date.UTC(2026, 10, 22, 9, 30, 0)): FakeClock {
  let t = start;
  const clock: FakeClock = {
    sleeps: [],
    now: () => t,
    advance: (ms) => {
      t += ms;
    },
    sleep: async (ms, signal) => {
      if (signal?.aborted) throw signal.reason;
      clock.sleeps.push(ms);
      t += ms;
      await clock.onSleep?.(ms);
    },
  };
  return clock;
}

/** Predictable ids: key-1, key-2…; trace ids and span ids count up in hex. */
export function sequentialIds(): Ids & { keys: number } {
  let k = 0;
  let tr = 0;
  let sp = 0;
  return {
    get keys() {
      return k;
    },
    idempotencyKey: () => `key-${++k}`,
    traceId: () => (++tr).toString(16).padStart(32, 'a'),
    spanId: () => (++sp).toString(16).padStart(16, 'b'),
  };
}
