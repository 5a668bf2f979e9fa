/** Time as a dependency: the factory hands out the system clock, tests a fake one. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves after `ms`, or rejects with the signal's reason when it fires. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const t = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      const onAbort = () => {
        clearTimeout(t);
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};

/**
 * For benchmarks only: `VOUCHERS_CLOCK_SCALE=<factor>@<epoch ms>` makes the CLI's clock run
 * `factor` times as fast as real time from that instant on (sleeps are that much shorter).
 * `npm run bench` starts its sandbox on the same clock (its `now` option), so client and
 * server agree on the time (signatures, rate-limit windows, Retry-After) while simulated
 * minutes of pacing pass in seconds. Nothing else reads it; unset, or not of that form, the
 * clock is the system's.
 */
export const CLOCK_SCALE_ENV = 'VOUCHERS_CLOCK_SCALE';

export function scaledClock(factor: number, epochMs: number): Clock {
  const now = () => epochMs + (Date.now() - epochMs) * factor;
  return {
    now,
    // A timer measures from the event loop's cached time, so it can end up to a millisecond
    // early by Date.now(), which this clock multiplies by `factor`. Sleep again until the
    // scaled clock has really moved by `ms`: a sleep is never shorter than asked.
    sleep: async (ms, signal) => {
      const until = now() + ms;
      for (let left = ms; left > 0; left = until - now()) {
        await systemClock.sleep(Math.max(1, left / factor), signal);
      }
    },
  };
}

export function clockFromEnv(env: Record<string, string | undefined>): Clock {
  const m = /^(\d+(?:\.\d+)?)@(\d+)$/.exec(env[CLOCK_SCALE_ENV]?.trim() ?? '');
  const factor = m ? Number(m[1]) : NaN;
  return m && factor > 0 ? scaledClock(factor, Number(m[2])) : systemClock;
}
