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

  it('a request with room in its window now does not wait behind a slot another class booked ahead', () => {
    const clock = fakeClock();
    const pacer = new Pacer(clock, { orders_per_minute: 2, general_per_hour: 1000 });
    expect([pacer.reserve('orders'), pacer.reserve('orders')]).toEqual([0, 0]);
    // The third order waits for the per-minute limit, its general slot booked a minute ahead.
    expect(pacer.reserve('orders')).toBe(62_000);
    // A GET: 3 of the hour's 1000 are used. It goes now, not after that order.
    expect(pacer.reserve('general')).toBe(0);
    expect(pacer.reserve('general')).toBe(0);
  });

  it('never lets more than the limit into any window, whatever the mix of classes and waits', () => {
    // A fixed pseudo-random mix (seeded), small limits so that both classes fill up.
    let seed = 7;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const clock = fakeClock();
    const limits = { orders_per_minute: 5, general_per_hour: 40 };
    const pacer = new Pacer(clock, limits);
    const sent: Record<'orders' | 'general', number[]> = { orders: [], general: [] };
    let waited = 0;
    for (let i = 0; i < 400; i++) {
      const cls = random() < 0.5 ? 'orders' : 'general';
      const wait = pacer.reserve(cls);
      if (wait > 0) waited++;
      const at = clock.now() + wait;
      sent[cls].push(at);
      if (cls === 'orders') sent.general.push(at);
      clock.advance(Math.floor(random() * 20_000));
    }
    // A request arrives within a cell of its slot: no window, plus that lag, holds more than the limit.
    const check = (times: number[], limit: number, windowMs: number, cellMs: number) => {
      const sorted = [...times].sort((a, b) => a - b);
      for (let i = 0; i + limit < sorted.length; i++) expect(sorted[i + limit]! - sorted[i]!).toBeGreaterThanOrEqual(windowMs + cellMs);
    };
    check(sent.orders, limits.orders_per_minute, 60_000, 1_000);
    check(sent.general, limits.general_per_hour, 3_600_000, 60_000);
    // And the mix did wait: the limits were reached, most of the time.
    expect(waited).toBeGreaterThan(200);
  });
});
