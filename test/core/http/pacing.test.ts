import { describe, expect, it } from 'vitest';
import { Pacer } from '../../../src/core/http/pacing.js';
import { fakeClock } from './fake-clock.js';

describe('Pacer', () => {
  it('lets a burst through, then spaces requests so no window exceeds the limit', async () => {
    const clock = fakeClock();
    const pacer = new Pacer(clock, { orders_per_minute: 100, general_per_hour: 100_000 });
    const times: number[] = [];
    for (let i = 0; i < 150; i++) {
      await pacer.acquire('orders');
      times.push(clock.now());
    }
    // At most 100 in any 60 s window.
    for (let i = 0; i + 100 < times.length; i++) expect(times[i + 100]! - times[i]!).toBeGreaterThanOrEqual(60_000);
    expect(clock.sleeps.slice(0, 3)).toEqual([1_200, 1_200, 1_200]);
  });

  it('charges orders to general as well', async () => {
    const clock = fakeClock();
    const pacer = new Pacer(clock, { orders_per_minute: 1000, general_per_hour: 2 });
    await pacer.acquire('orders');
    await pacer.acquire('general');
    expect(clock.sleeps).toEqual([3_600_000]);
  });

  it('queues concurrent callers one after another', () => {
    const clock = fakeClock();
    const pacer = new Pacer(clock, { orders_per_minute: 4, general_per_hour: 100_000 });
    expect([1, 2, 3, 4].map(() => pacer.reserve('orders'))).toEqual([0, 0, 30_000, 60_000]);
  });

  it('gives the slot back when the wait is aborted', async () => {
    const clock = fakeClock();
    const pacer = new Pacer(clock, { orders_per_minute: 2, general_per_hour: 100_000 });
    await pacer.acquire('orders');
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await expect(pacer.acquire('orders', controller.signal)).rejects.toThrow('stop');
    expect(pacer.reserve('orders')).toBe(60_000);
  });

  it('follows RateLimit-Remaining and RateLimit-Reset', () => {
    const clock = fakeClock();
    const pacer = new Pacer(clock, { orders_per_minute: 100, general_per_hour: 1000 });
    pacer.observe('general', 0, 5_000);
    expect(pacer.reserve('general')).toBe(5_000);
  });
});
