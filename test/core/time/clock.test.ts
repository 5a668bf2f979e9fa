import { describe, expect, it } from 'vitest';
import { clockFromEnv, scaledClock, systemClock } from '../../../src/core/time/clock.js';

describe('VOUCHERS_CLOCK_SCALE (benchmarks only)', () => {
  it('is the system clock unless set to FACTOR@EPOCH_MS with a positive factor', () => {
    for (const v of [undefined, '', '10', '@123', '0@123', '-2@123', 'x@1', '10@abc', '10@1.5']) {
      expect(clockFromEnv({ VOUCHERS_CLOCK_SCALE: v })).toBe(systemClock);
    }
  });

  it('runs FACTOR times as fast from EPOCH on, and its sleeps are that much shorter', async () => {
    const epoch = Date.now();
    const clock = clockFromEnv({ VOUCHERS_CLOCK_SCALE: `1000@${epoch}` });
    expect(clock).not.toBe(systemClock);
    const a = clock.now();
    const real = Date.now();
    await clock.sleep(20_000);
    // A simulated 20 s sleep is 20 ms of real time; the clock moved by at least those 20 s.
    expect(clock.now() - a).toBeGreaterThanOrEqual(20_000);
    expect(Date.now() - real).toBeLessThan(20_000);
    expect(scaledClock(1, epoch).now()).toBeGreaterThanOrEqual(epoch);
  });
});
