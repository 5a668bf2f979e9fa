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
    // At most 100 in any 60 s window (with a margin for the time a request takes to arrive).
    for (let i = 0; i + 100 < times.length; i++) expect(times[i + 100]! - times[i]!).toBeGreaterThanOrEqual(61_000);
    // The whole limit at once, then the rest as soon as the window and its margin passed.
    expect(times.slice(0, 100).every((t) => t === times[0])).toBe(true);
    expect(clock.sleeps).toEqual([62_000]);
  });

  it('charges orders to general as well', async () => {
    const clock = fakeClock();
    const pacer = new Pacer(clock, { orders_per_minute: 1000, general_per_hour: 2 });
    await pacer.acquire('orders');
    await pacer.acquire('general');
    await pacer.acquire('general');
    // An hour and two 1-minute cells.
    expect(clock.sleeps).toEqual([3_720_000]);
  });

  it('queues concurrent callers one after another', () => {
    const clock = fakeClock();
    const pacer = new Pacer(clock, { orders_per_minute: 4, general_per_hour: 100_000 });
    expect(Array.from({ length: 9 }, () => pacer.reserve('orders'))).toEqual([0, 0, 0, 0, 62_000, 62_000, 62_000, 62_000, 124_000]);
  });

  it('gives the slot back when the wait is aborted', async () => {
    const clock = fakeClock();
    const pacer = new Pacer(clock, { orders_per_minute: 1, general_per_hour: 100_000 });
    await pacer.acquire('orders');
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await expect(pacer.acquire('orders', controller.signal)).rejects.toThrow('stop');
    expect(pacer.reserve('orders')).toBe(62_000);
    expect(pacer.reserve('orders')).toBe(124_000);
  });

  it('follows RateLimit-Remaining and RateLimit-Reset', () => {
    const clock = fakeClock();
    const pacer = new Pacer(clock, { orders_per_minute: 100, general_per_hour: 1000 });
    pacer.observe('general', 0, 5_000);
    expect(pacer.reserve('general')).toBe(5_000);
  });
});
