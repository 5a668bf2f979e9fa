/**
 * The document dialect over real HTTP on loopback: every choice of docs/sandbox.md ("The
 * document dialect") asserted field by field, replays, a signed webhook delivery, the 404s
 * of the extensions, problem+json errors, ids and their pagination, the state file's
 * memory of the dialect; and the default dialect unchanged. Fulfilment is driven by the
 * sandbox clock (admin clock advance), never by waiting for time to pass.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { issuedIdPattern } from '../../src/contract/common.js';
import { ConfigError } from '../../src/core/errors/index.js';
import { verifyWebhookDelivery } from '../../src/core/signer/webhook.js';
import { compareIds } from '../../src/sandbox/core/ids.js';
import { startSandbox, type SandboxHandle, type SandboxOptions } from '../../src/sandbox/index.js';
import { admin, api, key, order, receiver, sandbox, type Receiver } from './helpers.js';
import { until } from '../helpers/until.js';

const dir = mkdtempSync(join(tmpdir(), 'vouchers-sandbox-dialect-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let sb: SandboxHandle | undefined;
let hooks: Receiver | undefined;
afterEach(async () => {
  await sb?.close();
  await hooks?.close();
  sb = undefined;
  hooks = undefined;
});

/**
 * A document-dialect sandbox on a clock that stands still until the admin surface moves
 * it: fulfilment steps (800 ms to 4 s at time scale 1) run only when the test advances.
 */
function documentSandbox(options: SandboxOptions = {}): Promise<SandboxHandle> {
  const base = Date.now();
  return sandbox({ dialect: 'document', timeScale: 1, now: () => base, ...options });
}

async function advance(s: SandboxHandle, seconds: number): Promise<void> {
  expect((await admin(s, 'POST', '/clock/advance', { seconds })).status).toBe(200);
}

const item = (product_id: string, denomination = 10, quantity = 1) => [{ product_id, denomination, quantity }];
const keysOf = (v: object) => Object.keys(v);

function expectProblem(r: { status: number; headers: Headers; body: any }, status: number, title: string): void {
  expect(r.status).toBe(status);
  expect(r.headers.get('content-type')).toBe('application/problem+json');
  expect(r.headers.get('x-trace-id')).toMatch(/^[0-9a-f]{32}$/);
  expect(r.body).toMatchObject({ type: 'about:blank', title, status });
  expect(typeof r.body.detail).toBe('string');
  expect(r.body.error).toBeUndefined();
}

describe('document dialect: options', () => {
  it('is chosen by the dialect option, validated like the others, and reported by the handle and the admin overview', async () => {
    await expect(startSandbox({ port: 0, quiet: true, dialect: 'openapi' as never })).rejects.toThrow(RangeError);
    sb = await documentSandbox();
    expect(sb.dialect).toBe('document');
    expect((await admin(sb, 'GET', '/')).body.dialect).toBe('document');
    const plain = await sandbox();
    try {
      expect(plain.dialect).toBe('decisions');
      expect((await admin(plain, 'GET', '/')).body.dialect).toBe('decisions');
    } finally {
      await plain.close();
    }
  });
});

describe('document dialect: catalog', () => {
  it('lists categories as a bare array of {id, title, summary}, all rows even with limit', async () => {
    sb = await documentSandbox();
    for (const path of ['/categories', '/categories?limit=1']) {
      const r = await api(sb, 'GET', path);
      expect(r.status).toBe(200);
      expect(Array.isArray(r.body)).toBe(true);
      expect(r.body).toEqual([
        { id: 'entertainment', title: 'Entertainment', summary: 'Games, cinema and streaming' },
        { id: 'retail', title: 'Retail', summary: 'Department stores, books and home' },
        { id: 'sandbox', title: 'Sandbox test products', summary: 'Deterministic products, one per fulfilment path' },
      ]);
    }
    // Requests are accepted as in the other dialect: a bad limit is still refused.
    expectProblem(await api(sb, 'GET', '/categories?limit=0'), 422, 'Unprocessable Entity');
  });

  it('lists products as {"products": [...]} with every denomination as a numeric string, no paging, filters as before', async () => {
    sb = await documentSandbox();
    const all = await api(sb, 'GET', '/products?limit=1');
    expect(keysOf(all.body)).toEqual(['products']);
    expect(all.body.products.length).toBe(16);
    const store = all.body.products.find((p: any) => p.product_id === 'northwind-store-us');
    expect(store).toEqual({
      product_id: 'northwind-store-us',
      title: 'Northwind Store US',
      vendor_name: 'northwind',
      currency: 'USD',
      countries: ['US'],
      denominations: [
        '5.00',
        '10.00',
        '15.00',
        '20.00',
        '25.00',
        '30.00',
        '40.00',
        '50.00',
        '75.00',
        '100.00',
        '150.00',
        '200.00',
        '250.00',
        '500.00',
      ],
      category: 'retail',
      expiry: '12 months from issue',
    });
    const jp = await api(sb, 'GET', '/products?country=JP&currency=JPY&category_id=retail');
    expect(jp.body.products.map((p: any) => [p.product_id, p.denominations, p.expiry])).toEqual([
      ['sakura-books-jp', ['500', '1000', '3000', '5000', '10000'], '12 months from issue'],
    ]);
    const eu = await api(sb, 'GET', '/products?currency=EUR');
    expect(eu.body.products.map((p: any) => p.expiry)).toEqual(['never', 'until 2027-06-30', '24 months from issue']);
  });

  it('answers a single product with availability as a word', async () => {
    sb = await documentSandbox();
    const lumen = await api(sb, 'GET', '/products/lumen-cinemas-uk');
    expect(keysOf(lumen.body)).toEqual([
      'product_id',
      'title',
      'vendor_name',
      'currency',
      'countries',
      'denominations',
      'category',
      'expiry',
      'availability',
    ]);
    expect(lumen.body).toMatchObject({ expiry: 'until 2027-12-31', availability: 'in_stock' });
    expect(lumen.body.denominations).toHaveLength(12);
    expect((await api(sb, 'GET', '/products/northwind-home-uk')).body.availability).toBe('low');
    expect((await api(sb, 'GET', '/products/blue-harbor-games-eu')).body.availability).toBe('out_of_stock');
    expectProblem(await api(sb, 'GET', '/products/skyline-air-us'), 403, 'Forbidden');
  });
});

describe('document dialect: orders', () => {
  it('answers a cache-hit with 200, DELIVERED from cache and codes; a replay gives the same bytes', async () => {
    sb = await documentSandbox();
    const k = key();
    const body = { items: item('sbx-instant', 25, 2), reference: 'mine-1' };
    const hit = await api(sb, 'POST', '/orders', { body, idempotencyKey: k });
    expect(hit.status).toBe(200);
    expect(hit.headers.get('location')).toBeNull();
    expect(hit.body).toEqual({
      order_id: 'ord_981234',
      status: 'DELIVERED',
      total_amount: 50,
      currency: 'USD',
      fulfilled_from: 'cache',
      vouchers: [0, 1].map((i) => ({
        product_id: 'sbx-instant',
        expiry: hit.body.vouchers[i].expiry,
        redemption_code: hit.body.vouchers[i].redemption_code,
        pin: hit.body.vouchers[i].pin,
      })),
    });
    for (const v of hit.body.vouchers) {
      expect(v.expiry).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(v.redemption_code).toMatch(/^SBX-/);
      expect(v.pin).toMatch(/^\d{4}$/);
    }
    const replay = await api(sb, 'POST', '/orders', { body, idempotencyKey: k });
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(hit.text);
    const reused = await api(sb, 'POST', '/orders', { body: { items: item('sbx-instant') }, idempotencyKey: k });
    expectProblem(reused, 422, 'Unprocessable Entity');
    expect(reused.body.errors).toEqual([{ field: 'Idempotency-Key', message: 'was already used with a different request body' }]);
    // The next order counts up.
    expect((await order(sb, item('sbx-instant'))).body.order_id).toBe('ord_981235');
  });

  it('answers a cache-miss with 200 PENDING, then GET shows IN_PROGRESS, DELIVERED from the supplier, codes and the timeline', async () => {
    sb = await documentSandbox();
    const k = key();
    const placed = await api(sb, 'POST', '/orders', { body: { items: item('sbx-async', 50, 2) }, idempotencyKey: k });
    expect(placed.status).toBe(200);
    expect(placed.body).toEqual({
      order_id: 'ord_981234',
      status: 'PENDING',
      total_amount: 100,
      currency: 'USD',
      fulfilled_from: null,
      vouchers: [],
    });
    const id = placed.body.order_id;
    const pending = await api(sb, 'GET', `/orders/${id}`);
    expect(pending.body.fulfillment_timeline).toEqual([{ state: 'PENDING', timestamp: expect.any(String) }]);
    // PENDING → IN_PROGRESS after 0.8–1.2 s, final 1.2–2.8 s later.
    await advance(sb, 1.2);
    expect((await api(sb, 'GET', `/orders/${id}`)).body.status).toBe('IN_PROGRESS');
    await advance(sb, 10);
    const got = await api(sb, 'GET', `/orders/${id}`);
    expect(keysOf(got.body)).toEqual([
      'order_id',
      'status',
      'total_amount',
      'currency',
      'fulfilled_from',
      'vouchers',
      'fulfillment_timeline',
    ]);
    expect(got.body).toMatchObject({ status: 'DELIVERED', fulfilled_from: 'supplier' });
    expect(got.headers.get('cache-control')).toBe('no-store');
    expect(got.body.vouchers).toHaveLength(2);
    expect(keysOf(got.body.vouchers[0])).toEqual(['product_id', 'expiry', 'redemption_code', 'pin']);
    expect(got.body.fulfillment_timeline.map((t: any) => t.state)).toEqual(['PENDING', 'IN_PROGRESS', 'DELIVERED']);
    for (const t of got.body.fulfillment_timeline) expect(keysOf(t)).toEqual(['state', 'timestamp']);
    // The replay of the cache-miss is the PENDING answer it gave.
    const replay = await api(sb, 'POST', '/orders', { body: { items: item('sbx-async', 50, 2) }, idempotencyKey: k });
    expect(replay.text).toBe(placed.text);
    // Reading codes through GET /orders/{id} is recorded, as the code endpoint's reads are.
    const accesses = (await admin(sb, 'GET', `/code-accesses?order_id=${id}`)).body.data;
    expect(accesses).toHaveLength(1);
    expect(accesses[0]).toMatchObject({ voucher_count: 2, trace_id: got.headers.get('x-trace-id') });
  });

  it('names mixed, partial, cancelled and refunded outcomes, and lists only issued vouchers', async () => {
    sb = await documentSandbox();
    expect((await admin(sb, 'PUT', '/stock', { product_id: 'northwind-home-uk', denomination: 10, cached: 2 })).status).toBe(200);
    const mixed = await order(sb, item('northwind-home-uk', 10, 3));
    const partial = await order(sb, item('sbx-partial', 10, 2));
    const gated = await order(sb, item('sbx-gated', 25, 1));
    for (const o of [mixed, partial, gated]) expect(o.body.status).toBe('PENDING');
    await advance(sb, 10);
    await admin(sb, 'POST', `/orders/${gated.body.order_id}/reject`, { reason: 'not today' });
    const m = (await api(sb, 'GET', `/orders/${mixed.body.order_id}`)).body;
    expect(m).toMatchObject({ status: 'DELIVERED', fulfilled_from: 'mixed' });
    const p = (await api(sb, 'GET', `/orders/${partial.body.order_id}`)).body;
    expect(p).toMatchObject({ status: 'PARTIALLY_DELIVERED', fulfilled_from: 'supplier' });
    expect(p.vouchers).toHaveLength(1);
    const g = (await api(sb, 'GET', `/orders/${gated.body.order_id}`)).body;
    expect(g).toMatchObject({ status: 'REFUNDED', fulfilled_from: null, vouchers: [] });
    expect(g.fulfillment_timeline.map((t: any) => t.state)).toEqual(['PENDING', 'CANCELLED', 'REFUNDED']);
  });

  it("keeps the document's error envelope for INSUFFICIENT_INVENTORY, replayed for its key", async () => {
    sb = await documentSandbox();
    const k = key();
    const r = await api(sb, 'POST', '/orders', { body: { items: item('sbx-out-of-stock') }, idempotencyKey: k });
    expect(r.status).toBe(409);
    expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(keysOf(r.body)).toEqual(['error']);
    expect(keysOf(r.body.error)).toEqual(['name', 'code', 'message']);
    expect(r.body.error).toMatchObject({ name: 'InsufficientInventory', code: 'INSUFFICIENT_INVENTORY' });
    const again = await api(sb, 'POST', '/orders', { body: { items: item('sbx-out-of-stock') }, idempotencyKey: k });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(r.text);
  });
});

describe('document dialect: money', () => {
  it('answers wallets as {"wallets": [...]} with numeric strings', async () => {
    sb = await documentSandbox();
    const r = await api(sb, 'GET', '/wallets');
    expect(r.body).toEqual({
      wallets: [
        { currency_code: 'EUR', balance: '50000.00', on_hold: '0.00' },
        { currency_code: 'GBP', balance: '50000.00', on_hold: '0.00' },
        { currency_code: 'JPY', balance: '10000000', on_hold: '0' },
        { currency_code: 'USD', balance: '100000.00', on_hold: '0.00' },
      ],
    });
  });

  it('pages transactions newest first by number across ids of different lengths, with lower-case kinds and signed amounts', async () => {
    sb = await documentSandbox();
    for (let i = 0; i < 3; i++) await order(sb, item('sbx-instant', 25));
    const seen: any[] = [];
    let cursor: string | null = null;
    do {
      const r: any = await api(sb, 'GET', `/transactions?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(keysOf(r.body)).toEqual(['transactions', 'has_more', 'next_cursor']);
      seen.push(...r.body.transactions);
      cursor = r.body.next_cursor;
      expect(r.body.has_more).toBe(cursor !== null);
    } while (cursor);
    // Four opening balances, three debits: txn_99995 … txn_100001.
    expect(seen.map((t) => t.id)).toEqual(['txn_100001', 'txn_100000', 'txn_99999', 'txn_99998', 'txn_99997', 'txn_99996', 'txn_99995']);
    expect(seen[0]).toEqual({
      id: 'txn_100001',
      kind: 'debit',
      amount: '-25.00',
      currency: 'USD',
      order_id: 'ord_981236',
      posted_at: expect.any(String),
      memo: 'Order ord_981236',
    });
    expect(keysOf(seen[6])).toEqual(['id', 'kind', 'amount', 'currency', 'posted_at', 'memo']);
    expect(new Set(seen.map((t) => t.kind))).toEqual(new Set(['debit', 'top_up']));
    // The type filter still takes our upper-case values.
    const debits = await api(sb, 'GET', '/transactions?type=ORDER_DEBIT');
    expect(debits.body.transactions.map((t: any) => t.kind)).toEqual(['debit', 'debit', 'debit']);
    expect((await api(sb, 'GET', '/transactions?type=debit')).status).toBe(422);
  });

  it('answers a payout with 200 {id, state, amount, currency}, and replays it', async () => {
    sb = await documentSandbox();
    const k = key();
    const r = await api(sb, 'POST', '/payouts', { body: { currency: 'USD', amount: 12.5, reference: 'p-1' }, idempotencyKey: k });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ id: 'po_70001', state: 'paid', amount: '12.50', currency: 'USD' });
    const again = await api(sb, 'POST', '/payouts', { body: { currency: 'USD', amount: 12.5, reference: 'p-1' }, idempotencyKey: k });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(r.text);
    const kinds = (await api(sb, 'GET', '/transactions?type=PAYOUT')).body.transactions;
    expect(kinds).toEqual([expect.objectContaining({ kind: 'payout', amount: '-12.50' })]);
  });
});

describe('document dialect: webhooks', () => {
  it('registers with 200 {id, url, events, secret}, and updates or rotates with 200', async () => {
    sb = await documentSandbox();
    const created = await api(sb, 'POST', '/webhooks', { body: { url: 'http://127.0.0.1:9/hooks', description: 'main' } });
    expect(created.status).toBe(200);
    expect(keysOf(created.body)).toEqual(['id', 'url', 'events', 'secret']);
    expect(created.body).toMatchObject({ id: 'wh_3001', url: 'http://127.0.0.1:9/hooks' });
    expect(created.body.events).toHaveLength(7);
    expect(created.body.secret).toMatch(/^whsec_/);
    const updated = await api(sb, 'POST', '/webhooks', { body: { url: 'http://127.0.0.1:9/v2', events: ['order.delivered'] } });
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual({ id: 'wh_3001', url: 'http://127.0.0.1:9/v2', events: ['order.delivered'] });
    const rotated = await api(sb, 'POST', '/webhooks', { body: { url: 'http://127.0.0.1:9/v2', rotate_secret: true } });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(created.body.secret);
  });

  it("delivers the document's order.delivered payload and small payloads for the rest, signed as before, without codes", async () => {
    sb = await documentSandbox();
    hooks = await receiver();
    const reg = await api(sb, 'POST', '/webhooks', { body: { url: hooks.url } });
    const placed = await order(sb, item('sbx-instant', 10, 2));
    await until(() => hooks!.received.length >= 4, 'four deliveries', 5000);
    const byType = new Map(hooks.received.map((r) => [r.body.event, r]));
    expect([...byType.keys()].sort()).toEqual(['order.created', 'order.delivered', 'voucher.issued']);
    for (const r of hooks.received) {
      expect(keysOf(r.body)).toEqual(['event', 'event_id', 'created_at', 'data']);
      expect(r.body.event_id).toMatch(/^evt_[0-9a-f]{32}$/);
      expect(r.headers['x-webhook-id']).toBe(r.body.event_id);
      expect(() => verifyWebhookDelivery(r.raw, r.headers, reg.body.secret)).not.toThrow();
      for (const v of placed.body.vouchers) expect(r.raw).not.toContain(v.redemption_code);
    }
    expect(byType.get('order.created')!.body.data).toEqual({ order_id: 'ord_981234', status: 'PENDING' });
    expect(byType.get('voucher.issued')!.body.data).toEqual({
      order_id: 'ord_981234',
      product_id: 'sbx-instant',
      expiry: placed.body.vouchers[0].expiry,
    });
    expect(byType.get('order.delivered')!.body.data).toEqual({
      order_id: 'ord_981234',
      status: 'DELIVERED',
      total_amount: 20,
      currency: 'USD',
      fulfilled_from: 'cache',
      vouchers: placed.body.vouchers.map((v: any) => ({ product_id: 'sbx-instant', expiry: v.expiry })),
    });
  });

  it('stores the same payloads for processing, partial delivery, cancellation and refund', async () => {
    sb = await documentSandbox();
    const partial = await order(sb, item('sbx-partial', 10, 3));
    const gated = await order(sb, item('sbx-gated', 25, 1));
    await advance(sb, 10);
    await admin(sb, 'POST', `/orders/${gated.body.order_id}/reject`, { reason: 'not today' });
    const events = (await admin(sb, 'GET', '/events')).body.data;
    const of = (orderId: string, type: string) =>
      events.filter((e: any) => e.data.order_id === orderId && e.event === type).map((e: any) => e.data);
    expect(of(partial.body.order_id, 'order.processing')).toEqual([{ order_id: partial.body.order_id, status: 'IN_PROGRESS' }]);
    expect(of(partial.body.order_id, 'order.partially_delivered')).toEqual([
      { order_id: partial.body.order_id, status: 'PARTIALLY_DELIVERED', delivered: 2, failed: 1 },
    ]);
    expect(of(partial.body.order_id, 'order.refunded')).toEqual([
      { order_id: partial.body.order_id, status: 'PARTIALLY_DELIVERED', amount_refunded: '10.00' },
    ]);
    expect(of(gated.body.order_id, 'order.cancelled')).toEqual([
      { order_id: gated.body.order_id, status: 'CANCELLED', reason: 'not today' },
    ]);
    expect(of(gated.body.order_id, 'order.refunded')).toEqual([
      { order_id: gated.body.order_id, status: 'REFUNDED', amount_refunded: '25.00' },
    ]);
  });
});

describe('document dialect: endpoints and errors', () => {
  it('answers the extensions and the planned report 404, as unknown paths', async () => {
    sb = await documentSandbox();
    const placed = await order(sb, item('sbx-gated'));
    const id = placed.body.order_id;
    const calls: [string, string, unknown?][] = [
      ['GET', '/orders'],
      ['GET', `/orders/${id}/vouchers`],
      ['POST', `/orders/${id}/cancel`, {}],
      ['GET', '/webhooks'],
      ['DELETE', '/webhooks'],
      ['GET', '/reconciliation/2026-01-01'],
      ['HEAD', '/orders'],
    ];
    for (const [method, path, body] of calls) {
      const r = await api(sb, method, path, { body });
      expect(r.status, `${method} ${path}`).toBe(404);
      expect(r.headers.get('content-type')).toBe('application/problem+json');
      if (method !== 'HEAD')
        expect(r.body).toMatchObject({
          title: 'Not Found',
          status: 404,
          detail: `No endpoint at ${method} /api/v1${path}; see the endpoint list in the API document`,
        });
    }
    // The gated order was not cancelled by the 404.
    expect((await api(sb, 'GET', `/orders/${id}`)).body.status).toBe('PENDING');
    // A method the path does not take at all is still 405, naming only the document's method.
    const put = await api(sb, 'PUT', '/webhooks', { body: {} });
    expectProblem(put, 405, 'Method Not Allowed');
    expect(put.headers.get('allow')).toBe('POST');
  });

  it('serves the planned report with its document shape on request', async () => {
    sb = await documentSandbox({ enablePlanned: true });
    const r = await api(sb, 'GET', '/reconciliation/2026-01-01');
    expect(r.status).toBe(200);
    expect(keysOf(r.body)).toEqual(['date', 'summary', 'drifts', 'generated_at']);
  });

  it('writes the errors the document does not name as RFC 9457 problem details', async () => {
    sb = await documentSandbox();
    const invalid = await api(sb, 'POST', '/orders', { body: { items: item('sbx-instant', 11) }, idempotencyKey: key() });
    expectProblem(invalid, 422, 'Unprocessable Entity');
    expect(keysOf(invalid.body)).toEqual(['type', 'title', 'status', 'detail', 'errors']);
    expect(invalid.body.errors).toEqual([
      { field: 'items.0.denomination', message: '11 is not a denomination of sbx-instant; choose one of 10, 25, 50, 100' },
    ]);
    const wrong = await api(sb, 'GET', '/wallets', { creds: { apiKey: sb.apiKey, apiSecret: 'wrong' } });
    expectProblem(wrong, 401, 'Unauthorized');
    expect(keysOf(wrong.body)).toEqual(['type', 'title', 'status', 'detail']);
    expect(wrong.headers.get('ratelimit-limit')).toBe('5');
    expectProblem(await api(sb, 'GET', '/orders/ord_1'), 404, 'Not Found');
    expectProblem(await api(sb, 'POST', '/orders', { body: { items: item('sbx-instant') } }), 400, 'Bad Request');
    expectProblem(
      await api(sb, 'POST', '/payouts', { body: { currency: 'JPY', amount: 99_999_999 }, idempotencyKey: key() }),
      402,
      'Payment Required',
    );
    const unavailable = await api(sb, 'GET', '/wallets', { headers: { 'X-Sandbox-Simulate': 'server_error' } });
    expectProblem(unavailable, 503, 'Service Unavailable');
    expect(unavailable.headers.get('retry-after')).toBe('1');
    const outside = await fetch(sb.baseUrl.replace('/api/v1', '/elsewhere'));
    expect(outside.headers.get('content-type')).toBe('application/problem+json');
  });

  it("answers a 429 with the document's envelope, TooManyRequests, and Retry-After", async () => {
    sb = await documentSandbox({ limits: { generalPerHour: 2 } });
    const simulated = await api(sb, 'GET', '/wallets', { headers: { 'X-Sandbox-Simulate': 'rate_limit' } });
    expect(simulated.status).toBe(429);
    expect(simulated.headers.get('retry-after')).toBe('1');
    expect(simulated.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(simulated.body).toEqual({ error: { name: 'TooManyRequests', code: 'TOO_MANY_REQUESTS', message: expect.any(String) } });
    await api(sb, 'GET', '/wallets');
    const limited = await api(sb, 'GET', '/wallets');
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('TOO_MANY_REQUESTS');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');
  });
});

describe('document dialect: ids and state', () => {
  it('orders decimal ids by number and ULIDs as strings', () => {
    expect(compareIds('txn_99999', 'txn_100000')).toBeLessThan(0);
    expect(compareIds('txn_100000', 'txn_99999')).toBeGreaterThan(0);
    expect(compareIds('ord_981234', 'ord_981235')).toBeLessThan(0);
    expect(compareIds('txn_01JDQ5N7ZS3QK6V9W2X4Y8B1CE', 'txn_01JDQ5N7ZS3QK6V9W2X4Y8B1CF')).toBeLessThan(0);
    expect(compareIds('sandbox', 'retail')).toBeGreaterThan(0);
    expect(compareIds('a', 'a')).toBe(0);
  });

  it('keeps its ids in the state file, remembers the dialect, refuses the other one, and restarts counters on reset', async () => {
    const file = join(dir, 'document.json');
    const first = await sandbox({ dialect: 'document', stateFile: file });
    expect((await order(first, item('sbx-instant'))).body.order_id).toBe('ord_981234');
    await first.close();
    const saved = JSON.parse(readFileSync(file, 'utf8'));
    expect(saved.dialect).toBe('document');
    expect(Object.keys(saved.orders)).toEqual(['ord_981234']);
    expect(saved.events.every((e: any) => /^evt_[0-9a-f]{32}$/.test(e.event_id))).toBe(true);

    await expect(sandbox({ dialect: 'decisions', stateFile: file })).rejects.toThrow(ConfigError);
    sb = await sandbox({ stateFile: file });
    expect(sb.dialect).toBe('document');
    expect((await order(sb, item('sbx-instant'))).body.order_id).toBe('ord_981235');
    expect((await api(sb, 'GET', '/orders/ord_981234')).body.status).toBe('DELIVERED');
    expect((await admin(sb, 'POST', '/reset', {})).status).toBe(200);
    expect((await order(sb, item('sbx-instant'))).body.order_id).toBe('ord_981234');
    expect((await api(sb, 'GET', '/transactions?limit=1')).body.transactions[0].id).toBe('txn_99999');

    // A decisions state file has no dialect field and is refused to the document dialect.
    const other = join(dir, 'decisions.json');
    await (await sandbox({ stateFile: other })).close();
    expect(JSON.parse(readFileSync(other, 'utf8')).dialect).toBeUndefined();
    await expect(sandbox({ dialect: 'document', stateFile: other })).rejects.toThrow(/holds a sandbox of the decisions dialect/);
  });
});

describe('decisions dialect (the default) is unchanged', () => {
  interface Answer {
    status: number;
    type: string | null;
    location: string | null;
    text: string;
    body: any;
  }

  /** The same requests against a sandbox on a fixed clock and seed: every answer, to compare byte for byte. */
  async function transcript(options: SandboxOptions): Promise<Answer[]> {
    const now = Date.UTC(2026, 10, 22, 9, 30);
    const s = await sandbox({ ...options, now: () => now, apiKey: 'vk_same', apiSecret: 'vs_same', adminToken: 'adm_same', timeScale: 1 });
    const ts = { timestamp: Math.floor(now / 1000) };
    const out: Answer[] = [];
    const note = (r: { status: number; headers: Headers; text: string; body: any }) => {
      out.push({ status: r.status, type: r.headers.get('content-type'), location: r.headers.get('location'), text: r.text, body: r.body });
    };
    try {
      for (const path of ['/categories?limit=2', '/products', '/products/northwind-store-us', '/wallets', '/products/nope'])
        note(await api(s, 'GET', path));
      const hit = await api(s, 'POST', '/orders', { body: { items: item('sbx-instant') }, idempotencyKey: 'same-1', ...ts });
      note(hit);
      note(await api(s, 'POST', '/orders', { body: { items: item('sbx-async') }, idempotencyKey: 'same-2', ...ts }));
      note(await api(s, 'POST', '/orders', { body: { items: item('sbx-out-of-stock') }, idempotencyKey: 'same-3', ...ts }));
      await admin(s, 'POST', '/clock/advance', { seconds: 10 });
      note(await api(s, 'GET', '/orders'));
      note(await api(s, 'GET', `/orders/${hit.body.order_id}/vouchers`));
      note(await api(s, 'GET', '/transactions?limit=2'));
      note(
        await api(s, 'POST', '/payouts', { body: { currency: 'USD', amount: 5 }, idempotencyKey: 'same-4', timestamp: ts.timestamp + 10 }),
      );
      note(await api(s, 'GET', '/wallets', { headers: { 'X-Sandbox-Simulate': 'rate_limit' } }));
      return out;
    } finally {
      await s.close();
    }
  }

  it('answers as before: the default and an explicit decisions dialect agree byte for byte, in the decisions shapes', async () => {
    const implicit = await transcript({});
    const explicit = await transcript({ dialect: 'decisions' });
    expect(explicit.map((a) => [a.status, a.type, a.location, a.text])).toEqual(
      implicit.map((a) => [a.status, a.type, a.location, a.text]),
    );
    const [categories, products, , wallets, missing, hit, miss, none, orders, codes, transactions, payout, limited] = implicit;
    expect(categories!.body).toMatchObject({
      data: [{ category_id: 'entertainment', name: 'Entertainment' }, { category_id: 'retail' }],
      has_more: true,
    });
    expect(products!.body.data.find((p: any) => p.product_id === 'northwind-store-us')).toMatchObject({
      denominations_truncated: true,
      expiry_policy: { type: 'months_from_issue', months: 12 },
    });
    expect(wallets!.body.data[0]).toMatchObject({ currency: 'EUR', available: 50000 });
    expect(missing!.type).toBe('application/json; charset=utf-8');
    expect(missing!.body.error).toMatchObject({ code: 'NOT_FOUND', name: 'NotFound' });
    expect(hit!.status).toBe(201);
    expect(hit!.location).toBe(`/api/v1/orders/${hit!.body.order_id}`);
    expect(hit!.body.order_id).toMatch(issuedIdPattern('ord'));
    expect(hit!.body.vouchers[0]).toHaveProperty('code');
    expect(miss!.status).toBe(202);
    expect(none!.body.error.code).toBe('INSUFFICIENT_INVENTORY');
    expect(orders!.body.data).toHaveLength(2);
    expect(codes!.body.data).toHaveLength(1);
    expect(transactions!.body.data[0].transaction_id).toMatch(issuedIdPattern('txn'));
    expect(payout!.status).toBe(201);
    expect(limited!.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
  });
});
