/**
 * The scheduler runs fulfilment steps from an index of due times instead of scanning every
 * order. Under a fake clock, a mix of every lifecycle path (instant, async, partial, gated
 * approved and rejected, vendor failure, partner cancel, an admin reset), with the clock
 * moved both by the admin advance (step by step) and by itself (many steps due at once),
 * must give exactly
 * the events, in exactly the order and at exactly the times, that the scanning scheduler
 * gave: test/fixtures/scheduler-events.json was recorded from it.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { MinHeap } from '../../src/sandbox/core/min-heap.js';
import { admin, api, key, sandbox } from './helpers.js';

let sb: SandboxHandle | undefined;
afterEach(async () => {
  await sb?.close();
  sb = undefined;
});

const PLAN: Array<{ product: string; quantity: number }> = [
  { product: 'sbx-instant', quantity: 1 },
  { product: 'sbx-async', quantity: 1 },
  { product: 'sbx-partial', quantity: 3 },
  { product: 'sbx-gated', quantity: 1 },
  { product: 'sbx-vendor-fail', quantity: 1 },
  { product: 'sbx-async', quantity: 2 },
];

async function scenario(): Promise<string[]> {
  let base = Date.parse('2026-05-01T00:00:00Z');
  sb = await sandbox({ now: () => base, timeScale: 1 });
  const s = sb;
  const ts = () => Math.floor((base + s.state.clock_offset_ms) / 1000);
  // The base clock moves on by itself: every step that fell due meanwhile runs in one go, at
  // the next request (its changed() wakes the scheduler before any later request is read).
  const elapse = async (ms: number) => {
    base += ms;
    expect((await api(s, 'GET', '/products')).status).toBe(200);
  };
  const advance = async (seconds: number) => expect((await admin(s, 'POST', '/clock/advance', { seconds })).status).toBe(200);
  const place = async (product: string, quantity: number) => {
    const r = await api(s, 'POST', '/orders', {
      body: { items: [{ product_id: product, denomination: 10, quantity }] },
      idempotencyKey: key(),
      timestamp: ts(),
    });
    expect([201, 202]).toContain(r.status);
    return r.body.order_id as string;
  };
  const log: string[] = [];
  const collect = async (label: string) => {
    const events = (await admin(s, 'GET', '/events')).body.data as Array<{
      event: string;
      created_at: string;
      data: { order_id?: string; status?: string };
    }>;
    for (const e of events) log.push(`${label} ${e.created_at} ${e.event} ${e.data.order_id ?? ''} ${e.data.status ?? ''}`);
    const orders = Object.values(s.state.orders).map(
      (o) => `${label} final ${o.order_id} ${o.status} ${o.vouchers.map((v) => v.status).join(',')}`,
    );
    log.push(...orders.sort());
  };

  const gated: string[] = [];
  let lastAsync: string | undefined;
  for (let i = 0; i < 36; i++) {
    const { product, quantity } = PLAN[i % PLAN.length]!;
    const id = await place(product, quantity);
    if (product === 'sbx-gated') gated.push(id);
    if (product === 'sbx-async') lastAsync = id;
    // Several orders fall due within one advance, some steps at the same advance as others' second steps.
    if (i % 3 === 2) await advance(i % 2 === 0 ? 1 : 2);
    if (i % 5 === 4) await elapse(2_500);
    if (i % 7 === 6 && lastAsync && s.state.orders[lastAsync]!.status === 'PENDING') {
      expect((await api(s, 'POST', `/orders/${lastAsync}/cancel`, { body: { reason: 'changed my mind' }, timestamp: ts() })).status).toBe(
        200,
      );
    }
    if (i % 12 === 11) {
      for (const [n, g] of gated.splice(0).entries()) {
        const verb = n % 2 === 0 ? 'approve' : 'reject';
        expect((await admin(s, 'POST', `/orders/${g}/${verb}`, verb === 'reject' ? { reason: 'risk' } : {})).status).toBe(200);
      }
    }
  }
  await advance(10);
  await collect('before-reset');
  expect((await admin(s, 'POST', '/reset', {})).status).toBe(200);
  await place('sbx-async', 1);
  await place('sbx-partial', 2);
  await advance(1);
  await place('sbx-async', 1);
  await advance(5);
  await collect('after-reset');
  return log;
}

describe('scheduler', () => {
  it('fires the same events in the same order at the same times as the scanning scheduler did', async () => {
    const expected = JSON.parse(readFileSync(new URL('../fixtures/scheduler-events.json', import.meta.url), 'utf8')) as string[];
    const log = await scenario();
    expect(log.length).toBeGreaterThan(200);
    expect(log).toEqual(expected);
  });

  it('orders a heap by its comparison, whatever the order of pushes', () => {
    const values = Array.from({ length: 500 }, (_, i) => (i * 7919) % 503);
    const heap = new MinHeap<number>((a, b) => a < b);
    for (const v of values) heap.push(v);
    const out: number[] = [];
    while (heap.size > 0) out.push(heap.pop()!);
    expect(out).toEqual([...values].sort((a, b) => a - b));
    expect(heap.pop()).toBeUndefined();
  });
});
