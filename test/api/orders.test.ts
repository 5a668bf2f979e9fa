/** The typed order calls against the sandbox: create, get, pages, follow, cancel, codes. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cancelOrder,
  createOrder,
  followOrder,
  getOrder,
  getOrderCodes,
  hasReached,
  isFinalStatus,
  iterateOrders,
  listOrders,
} from '../../src/api/orders.js';
import { ApiError } from '../../src/core/errors/index.js';
import { canonicalStatus } from '../../src/contract/order-values.js';
import { outcomeError } from '../../src/commands/orders/outcome.js';
import { createClient } from '../../src/core/http/client.js';
import type { ApiClient } from '../../src/core/http/types.js';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { fastSandbox, quickClock } from '../commands/orders-helpers.js';

let sb: SandboxHandle;
let client: ApiClient;
let n = 0;
const key = () => `api-test-${Date.now()}-${++n}`;

beforeAll(async () => {
  sb = await fastSandbox();
  client = createClient({ baseUrl: sb.baseUrl, apiKey: sb.apiKey, apiSecret: sb.apiSecret, limits: null });
});
afterAll(async () => {
  await client.close();
  await sb.close();
});

describe('orders api', () => {
  it('createOrder: 201 with codes on a cache-hit, 202 PENDING on a cache-miss; a repeated key replays', async () => {
    const hitKey = key();
    const hit = await createOrder(
      client,
      { items: [{ product_id: 'sbx-instant', denomination: 10, quantity: 2 }] },
      { idempotencyKey: hitKey },
    );
    expect(hit.status).toBe(201);
    expect(hit.idempotencyKey).toBe(hitKey);
    expect(hit.data.vouchers.every((v) => typeof v.code === 'string')).toBe(true);
    const again = await createOrder(
      client,
      { items: [{ product_id: 'sbx-instant', denomination: 10, quantity: 2 }] },
      { idempotencyKey: hitKey },
    );
    expect(again.replayed).toBe(true);
    expect(again.data.order_id).toBe(hit.data.order_id);

    const miss = await createOrder(
      client,
      { items: [{ product_id: 'sbx-async', denomination: 25, quantity: 1 }], reference: 'api-miss' },
      { idempotencyKey: key() },
    );
    expect(miss.status).toBe(202);
    expect(miss.data.status).toBe('PENDING');
    expect(miss.data.vouchers).toEqual([]);
  });

  it('getOrder shows code_last4, never the code; getOrderCodes has the codes', async () => {
    const hit = await createOrder(
      client,
      { items: [{ product_id: 'sbx-instant', denomination: 25, quantity: 1 }] },
      { idempotencyKey: key() },
    );
    const got = await getOrder(client, hit.data.order_id);
    expect(got.data.vouchers[0]!.code).toBeUndefined();
    expect(got.data.vouchers[0]!.code_last4).toBe(hit.data.vouchers[0]!.code!.slice(-4));
    const codes = await getOrderCodes(client, hit.data.order_id);
    expect(codes.data.data.map((c) => c.code)).toEqual([hit.data.vouchers[0]!.code]);
  });

  it('listOrders pages with a cursor; iterateOrders follows every page', async () => {
    const ref = `pages-${Date.now()}`;
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push(
        (
          await createOrder(
            client,
            { items: [{ product_id: 'sbx-instant', denomination: 10, quantity: 1 }], reference: ref },
            { idempotencyKey: key() },
          )
        ).data.order_id,
      );
    const first = await listOrders(client, { reference: ref, limit: 2 });
    expect(first.data.data).toHaveLength(2);
    expect(first.data.has_more).toBe(true);
    let pages = 0;
    const all: string[] = [];
    for await (const o of iterateOrders(
      client,
      { reference: ref, limit: 2 },
      {
        onPage: () => {
          pages += 1;
        },
      },
    ))
      all.push(o.order_id);
    expect(pages).toBe(3);
    expect(all.sort()).toEqual(ids.sort());
  });

  it('followOrder: reports each status once, stops at a final status or --until, times out on a held order', async () => {
    const clock = quickClock();
    const miss = await createOrder(
      client,
      { items: [{ product_id: 'sbx-async', denomination: 50, quantity: 1 }] },
      { idempotencyKey: key() },
    );
    const seen: string[] = [];
    const done = await followOrder(client, miss.data.order_id, {
      clock,
      timeoutMs: 60_000,
      initial: { order: miss.data },
      onStatus: (o) => seen.push(o.status),
    });
    expect(done).toMatchObject({ reached: true, timedOut: false, endedElsewhere: false });
    expect(done.order.status).toBe('DELIVERED');
    expect(seen[0]).toBe('PENDING');
    expect(seen.at(-1)).toBe('DELIVERED');
    expect(new Set(seen).size).toBe(seen.length);
    expect(done.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(hasReached(done.order, 'PROCESSING')).toBe(true);

    const held = await createOrder(
      client,
      { items: [{ product_id: 'sbx-gated', denomination: 10, quantity: 1 }] },
      { idempotencyKey: key() },
    );
    const timedOut = await followOrder(client, held.data.order_id, { clock, timeoutMs: 20_000 });
    expect(timedOut).toMatchObject({ reached: false, timedOut: true });
    expect(timedOut.polls).toBeGreaterThan(3);

    const failing = await createOrder(
      client,
      { items: [{ product_id: 'sbx-vendor-fail', denomination: 10, quantity: 1 }] },
      { idempotencyKey: key() },
    );
    const elsewhere = await followOrder(client, failing.data.order_id, { clock, timeoutMs: 60_000, until: 'DELIVERED' });
    expect(elsewhere).toMatchObject({ reached: false, endedElsewhere: true, timedOut: false });
    expect(elsewhere.order.status).toBe('REFUNDED');
  });

  it('followOrder: a 404 is thrown at once, or with acceptedJustNow asked again with the backoff until the timeout', async () => {
    const clock = quickClock();
    const start = clock.now();
    await expect(followOrder(client, 'ord_not_shown', { clock, timeoutMs: 20_000 })).rejects.toMatchObject({ status: 404 });
    expect(clock.now() - start).toBeLessThan(1_000);

    const notShown: ApiError[] = [];
    const late = followOrder(client, 'ord_not_shown', {
      clock,
      timeoutMs: 20_000,
      acceptedJustNow: true,
      onNotYetShown: (e) => notShown.push(e),
    });
    await expect(late).rejects.toMatchObject({ status: 404, apiCode: 'NOT_FOUND' });
    expect(clock.now() - start).toBeGreaterThanOrEqual(20_000);
    // Once per run of 404s, however many were asked.
    expect(notShown).toHaveLength(1);
  });

  it('followOrder stops when the signal fires', async () => {
    const held = await createOrder(
      client,
      { items: [{ product_id: 'sbx-gated', denomination: 10, quantity: 1 }] },
      { idempotencyKey: key() },
    );
    const controller = new AbortController();
    const clock = quickClock();
    const following = followOrder(client, held.data.order_id, { clock, timeoutMs: 600_000, signal: controller.signal });
    setTimeout(() => controller.abort(new Error('stop')), 20);
    await expect(following).rejects.toThrow();
  });

  it('cancelOrder cancels a PENDING order; a delivered one answers 409 ORDER_NOT_CANCELLABLE', async () => {
    const held = await createOrder(
      client,
      { items: [{ product_id: 'sbx-gated', denomination: 10, quantity: 1 }] },
      { idempotencyKey: key() },
    );
    const cancelled = await cancelOrder(client, held.data.order_id, { idempotencyKey: key() });
    expect(['CANCELLED', 'REFUNDED']).toContain(cancelled.data.status);
    const hit = await createOrder(
      client,
      { items: [{ product_id: 'sbx-instant', denomination: 10, quantity: 1 }] },
      { idempotencyKey: key() },
    );
    const refused = await cancelOrder(client, hit.data.order_id).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).apiCode).toBe('ORDER_NOT_CANCELLABLE');
  });
});

describe('order statuses of other spellings (the document shows only PENDING and DELIVERED)', () => {
  it('are placed by case and by the usual synonyms; one that cannot be placed is not final', () => {
    expect(canonicalStatus('delivered')).toBe('DELIVERED');
    expect(canonicalStatus('Completed')).toBe('DELIVERED');
    expect(canonicalStatus('partially-delivered')).toBe('PARTIALLY_DELIVERED');
    expect(canonicalStatus('QUEUED')).toBe('PENDING');
    expect(canonicalStatus('in progress')).toBe('PROCESSING');
    expect(canonicalStatus('canceled')).toBe('CANCELLED');
    expect(canonicalStatus('rerouted')).toBeUndefined();
    expect(canonicalStatus(3)).toBeUndefined();
    for (const s of ['completed', 'Delivered', 'refunded', 'PARTIAL']) expect(isFinalStatus(s), s).toBe(true);
    for (const s of ['queued', 'pending', 'rerouted', 'CANCELLED']) expect(isFinalStatus(s), s).toBe(false);
    expect(hasReached({ status: 'Completed' as never, timeline: [] }, 'DELIVERED')).toBe(true);
    expect(hasReached({ status: 'QUEUED' as never, timeline: [{ status: 'processing' as never, at: '', note: null }] }, 'PROCESSING')).toBe(
      true,
    );
  });

  it('decide how a followed order ended: completed is delivered (exit 0), failed is not fulfilled', () => {
    const order = (status: string) => ({ order_id: 'ord_1', status, items: [], total_amount: 25, currency: 'USD', vouchers: [] }) as never;
    expect(outcomeError(order('completed'))).toBeUndefined();
    expect(outcomeError(order('Failed'))?.code).toBe('ORDER_NOT_FULFILLED');
    expect(outcomeError(order('partial'))?.code).toBe('ORDER_PARTIALLY_DELIVERED');
  });
});
