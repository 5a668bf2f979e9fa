import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventEnvelope } from '../../src/contract/events.js';
import { Order, OrderCodes } from '../../src/contract/orders.js';
import { Transaction } from '../../src/contract/money.js';
import { verifyWebhookSignature } from '../../src/core/signer/webhook.js';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { admin, api, balance, ledgerConsistent, order, receiver, sandbox, waitStatus, type Receiver } from './helpers.js';
import { until } from '../helpers/until.js';

let sb: SandboxHandle;
let hooks: Receiver;
let secret: string;
beforeAll(async () => {
  sb = await sandbox();
  hooks = await receiver();
  const reg = await api(sb, 'POST', '/webhooks', { body: { url: hooks.url } });
  expect(reg.status).toBe(201);
  secret = reg.body.signing_secret;
});
afterAll(async () => {
  await sb.close();
  await hooks.close();
});

const eventsOf = (orderId: string) => hooks.received.filter((r) => r.body.data.order_id === orderId);
const typesOf = (orderId: string) =>
  eventsOf(orderId)
    .map((r) => r.body.event)
    .sort();

describe('cache-hit', () => {
  it('answers 201 DELIVERED with codes and pins, debits the total, emits created/issued/delivered', async () => {
    const before = balance(sb);
    const r = await order(sb, [{ product_id: 'sbx-instant', denomination: 25, quantity: 3 }], { reference: 'po-1' });
    expect(r.status).toBe(201);
    Order.parse(r.body);
    expect(r.body).toMatchObject({ status: 'DELIVERED', fulfilled_from: 'cache', total_amount: 75, currency: 'USD', reference: 'po-1' });
    expect(r.body.vouchers).toHaveLength(3);
    for (const v of r.body.vouchers) {
      expect(v.code).toMatch(/^SBX-/);
      expect(v.pin).toMatch(/^\d{4}$/);
      expect(v.status).toBe('ISSUED');
      expect(v.expiry).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    }
    expect(balance(sb)).toBe(before - 7500);
    const got = await api(sb, 'GET', `/orders/${r.body.order_id}`);
    expect(got.text).not.toContain(r.body.vouchers[0].code);
    expect(got.body.vouchers[0].code_last4).toBe(r.body.vouchers[0].code.slice(-4));
    await until(() => typesOf(r.body.order_id).length === 5, 'events', 5000);
    expect(typesOf(r.body.order_id)).toEqual(['order.created', 'order.delivered', 'voucher.issued', 'voucher.issued', 'voucher.issued']);
  });

  it('serves codes from the secure endpoint and records every access with its trace id', async () => {
    const r = await order(sb, [{ product_id: 'sbx-instant', denomination: 10, quantity: 1 }]);
    const trace = 'aaaabbbbccccddddeeeeffff00001111';
    const codes = await api(sb, 'GET', `/orders/${r.body.order_id}/vouchers`, {
      headers: { traceparent: `00-${trace}-00f067aa0ba902b7-01` },
    });
    expect(codes.status).toBe(200);
    OrderCodes.parse(codes.body);
    expect(codes.body.data[0].code).toBe(r.body.vouchers[0].code);
    const accesses = await admin(sb, 'GET', `/code-accesses?order_id=${r.body.order_id}`);
    expect(accesses.body.data).toEqual([
      expect.objectContaining({ order_id: r.body.order_id, trace_id: trace, api_key: sb.apiKey, voucher_count: 1 }),
    ]);
    expect(accesses.text).not.toContain(r.body.vouchers[0].code);
  });

  it('fulfils an ordinary product from cache when it fits, else asynchronously', async () => {
    const p = sb.state.products['blue-harbor-games-us']!;
    const inCache = p.cached['10']!;
    const fits = await order(sb, [{ product_id: p.product_id, denomination: 10, quantity: 1 }]);
    expect(fits.status).toBe(201);
    expect(sb.state.products['blue-harbor-games-us']!.cached['10']).toBe(inCache - 1);
    const miss = await order(sb, [{ product_id: p.product_id, denomination: 10, quantity: inCache + 5 }]);
    expect(miss.status).toBe(202);
    const done = await waitStatus(sb, miss.body.order_id, ['DELIVERED']);
    expect(['vendor', 'mixed']).toContain(done.fulfilled_from);
  });
});

describe('cache-miss', () => {
  it('goes PENDING → PROCESSING → DELIVERED with signed webhooks that carry no code', async () => {
    const r = await order(sb, [{ product_id: 'sbx-async', denomination: 50, quantity: 2 }]);
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({ status: 'PENDING', vouchers: [], fulfilled_from: null });
    const done = await waitStatus(sb, r.body.order_id, ['DELIVERED']);
    expect(done.fulfilled_from).toBe('vendor');
    expect(done.timeline.map((t: any) => t.status)).toEqual(['PENDING', 'PROCESSING', 'DELIVERED']);
    await until(() => eventsOf(r.body.order_id).length === 5, 'webhooks', 5000);
    expect(typesOf(r.body.order_id)).toEqual(['order.created', 'order.delivered', 'order.processing', 'voucher.issued', 'voucher.issued']);
    const codes = await api(sb, 'GET', `/orders/${r.body.order_id}/vouchers`);
    for (const d of eventsOf(r.body.order_id)) {
      expect(() => verifyWebhookSignature(d.raw, d.headers['x-webhook-signature'] as string, secret)).not.toThrow();
      // And independently of our signer: t=<X-Webhook-Timestamp>,v1=hex HMAC-SHA256(secret, `${t}.${raw body}`).
      const t = d.headers['x-webhook-timestamp'] as string;
      expect(d.headers['x-webhook-signature']).toBe(`t=${t},v1=${createHmac('sha256', secret).update(`${t}.${d.raw}`).digest('hex')}`);
      expect(d.headers['x-webhook-id']).toBe(d.body.event_id);
      expect(d.headers['x-webhook-timestamp']).toMatch(/^\d+$/);
      EventEnvelope.parse(d.body);
      expect(d.raw).not.toMatch(/"(code|pin|code_last4)"/);
      for (const c of codes.body.data) {
        expect(d.raw).not.toContain(c.code);
      }
    }
    const delivered = eventsOf(r.body.order_id).find((d) => d.body.event === 'order.delivered')!;
    expect(delivered.body.data).toEqual({
      order_id: r.body.order_id,
      status: 'DELIVERED',
      total_amount: 100,
      currency: 'USD',
      reference: null,
      fulfilled_from: 'vendor',
      vouchers: [
        { product_id: 'sbx-async', expiry: done.vouchers[0].expiry },
        { product_id: 'sbx-async', expiry: done.vouchers[1].expiry },
      ],
    });
  });

  it('partial delivery refunds the failed part', async () => {
    const before = balance(sb);
    const r = await order(sb, [{ product_id: 'sbx-partial', denomination: 10, quantity: 4 }]);
    expect(r.status).toBe(202);
    const done = await waitStatus(sb, r.body.order_id, ['PARTIALLY_DELIVERED']);
    expect(done.vouchers.filter((v: any) => v.status === 'ISSUED')).toHaveLength(2);
    expect(done.vouchers.filter((v: any) => v.status === 'FAILED')).toHaveLength(2);
    expect(balance(sb)).toBe(before - 2000);
    const txns = await api(sb, 'GET', `/transactions?order_id=${r.body.order_id}`);
    expect(txns.body.data.map((t: any) => [t.type, t.amount])).toEqual([
      ['REFUND', 20],
      ['ORDER_DEBIT', -40],
    ]);
    await until(() => typesOf(r.body.order_id).includes('order.refunded'), 'refund event', 5000);
    const partial = eventsOf(r.body.order_id).find((d) => d.body.event === 'order.partially_delivered')!;
    expect(partial.body.data).toMatchObject({ delivered_count: 2, failed_count: 2, status: 'PARTIALLY_DELIVERED' });
    const refunded = eventsOf(r.body.order_id).find((d) => d.body.event === 'order.refunded')!;
    expect(refunded.body.data).toMatchObject({ refund_amount: 20, transaction_id: txns.body.data[0].transaction_id });
  });

  it('vendor failure cancels and refunds in full', async () => {
    const before = balance(sb);
    const r = await order(sb, [{ product_id: 'sbx-vendor-fail', denomination: 100, quantity: 1 }]);
    expect(r.status).toBe(202);
    const done = await waitStatus(sb, r.body.order_id, ['REFUNDED']);
    expect(done.timeline.map((t: any) => t.status)).toEqual(['PENDING', 'PROCESSING', 'CANCELLED', 'REFUNDED']);
    expect(balance(sb)).toBe(before);
    await until(() => typesOf(r.body.order_id).includes('order.refunded'), 'refund event', 5000);
    const cancelled = eventsOf(r.body.order_id).find((d) => d.body.event === 'order.cancelled')!;
    expect(cancelled.body.data).toMatchObject({ status: 'CANCELLED', cancelled_by: 'admin' });
    const refunded = eventsOf(r.body.order_id).find((d) => d.body.event === 'order.refunded')!;
    expect(refunded.body.data).toMatchObject({ status: 'REFUNDED', refund_amount: 100 });
  });

  it('holds gated orders until the admin approves or rejects them', async () => {
    const before = balance(sb);
    const a = await order(sb, [{ product_id: 'sbx-gated', denomination: 10, quantity: 1 }]);
    const b = await order(sb, [{ product_id: 'sbx-gated', denomination: 25, quantity: 1 }]);
    expect(a.status).toBe(202);
    // Held: no fulfilment step is scheduled, so nothing moves it before a decision.
    expect((await api(sb, 'GET', `/orders/${a.body.order_id}`)).body.status).toBe('PENDING');
    expect(sb.state.orders[a.body.order_id]!.next_step).toBeNull();
    expect(sb.state.orders[b.body.order_id]!.next_step).toBeNull();
    const held = await admin(sb, 'GET', '/orders?gate=held');
    expect(held.body.data.map((o: any) => o.order_id)).toEqual(expect.arrayContaining([a.body.order_id, b.body.order_id]));
    expect((await admin(sb, 'POST', `/orders/${a.body.order_id}/approve`)).status).toBe(200);
    const rej = await admin(sb, 'POST', `/orders/${b.body.order_id}/reject`, { reason: 'risk check failed' });
    expect(rej.body.status).toBe('REFUNDED');
    await waitStatus(sb, a.body.order_id, ['DELIVERED']);
    expect(balance(sb)).toBe(before - 1000);
    const twice = await admin(sb, 'POST', `/orders/${a.body.order_id}/approve`);
    expect(twice.status).toBe(409);
    expect(twice.body.error).toMatchObject({ name: 'OrderNotHeld', code: 'ORDER_NOT_HELD' });
    // The gate shows its decision: neither order is listed as still held.
    expect((await admin(sb, 'GET', `/orders/${a.body.order_id}`)).body.gate).toBe('approved');
    expect((await admin(sb, 'GET', `/orders/${b.body.order_id}`)).body.gate).toBe('rejected');
    const stillHeld = (await admin(sb, 'GET', '/orders?gate=held')).body.data.map((o: any) => o.order_id);
    expect(stillHeld).not.toContain(a.body.order_id);
    expect(stillHeld).not.toContain(b.body.order_id);
    expect((await admin(sb, 'GET', '/orders?gate=rejected')).body.data.map((o: any) => o.order_id)).toContain(b.body.order_id);
    expect((await admin(sb, 'GET', '/orders?gate=maybe')).status).toBe(422);
    await until(() => typesOf(b.body.order_id).includes('order.refunded'), 'refund event', 5000);
    expect(eventsOf(b.body.order_id).find((d) => d.body.event === 'order.cancelled')!.body.data).toMatchObject({
      reason: 'risk check failed',
      cancelled_by: 'admin',
    });
  });

  it('409 INSUFFICIENT_INVENTORY when nothing is in stock, nothing debited', async () => {
    const before = balance(sb);
    const orders = Object.keys(sb.state.orders).length;
    const r = await order(sb, [{ product_id: 'sbx-out-of-stock', denomination: 10, quantity: 1 }]);
    expect(r.status).toBe(409);
    expect(r.body.error).toMatchObject({ name: 'InsufficientInventory', code: 'INSUFFICIENT_INVENTORY' });
    expect(balance(sb)).toBe(before);
    expect(Object.keys(sb.state.orders)).toHaveLength(orders);
  });
});

describe('cancel, funds, payouts, transactions', () => {
  it('cancels a PENDING order (partner) with a full refund; 409 otherwise', async () => {
    const before = balance(sb);
    const r = await order(sb, [{ product_id: 'sbx-gated', denomination: 50, quantity: 2 }]);
    const c = await api(sb, 'POST', `/orders/${r.body.order_id}/cancel`);
    expect(c.status).toBe(200);
    expect(c.body.status).toBe('REFUNDED');
    expect(balance(sb)).toBe(before);
    const again = await api(sb, 'POST', `/orders/${r.body.order_id}/cancel`);
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ name: 'OrderNotCancellable', code: 'ORDER_NOT_CANCELLABLE' });
    await until(() => typesOf(r.body.order_id).includes('order.cancelled'), 'cancel event', 5000);
    expect(eventsOf(r.body.order_id).find((d) => d.body.event === 'order.cancelled')!.body.data.cancelled_by).toBe('partner');
  });

  it('402 INSUFFICIENT_FUNDS creates nothing; the ledger never goes negative under concurrent orders', async () => {
    const p = await admin(sb, 'POST', '/partners', { name: 'Small Co', wallets: { USD: 100 } });
    expect(p.status).toBe(201);
    const creds = { apiKey: p.body.key.api_key, apiSecret: p.body.key.api_secret };
    const partnerId = p.body.partner.partner_id;
    const big = await order(sb, [{ product_id: 'sbx-instant', denomination: 100, quantity: 2 }], {}, { creds });
    expect(big.status).toBe(402);
    expect(big.body.error).toMatchObject({ name: 'InsufficientFunds', code: 'INSUFFICIENT_FUNDS' });
    const results = await Promise.all(
      Array.from({ length: 8 }, () => order(sb, [{ product_id: 'sbx-instant', denomination: 25, quantity: 1 }], {}, { creds })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(4);
    expect(results.filter((r) => r.status === 402)).toHaveLength(4);
    expect(balance(sb, 'USD', partnerId)).toBe(0);
    expect(ledgerConsistent(sb, partnerId)).toBe(true);
  });

  it('pays out with a PAYOUT transaction, 402 when the wallet is too low', async () => {
    const before = balance(sb, 'EUR');
    const r = await api(sb, 'POST', '/payouts', { body: { currency: 'EUR', amount: 12.5, reference: 'w-1' }, idempotencyKey: 'payout-1' });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ status: 'PAID', amount: 12.5, currency: 'EUR', reference: 'w-1' });
    expect(r.body.payout_id).toMatch(/^po_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(balance(sb, 'EUR')).toBe(before - 1250);
    const txns = await api(sb, 'GET', '/transactions?type=PAYOUT');
    expect(txns.body.data[0]).toMatchObject({ type: 'PAYOUT', amount: -12.5, payout_id: r.body.payout_id });
    const tooMuch = await api(sb, 'POST', '/payouts', { body: { currency: 'EUR', amount: 10_000_000 }, idempotencyKey: 'payout-2' });
    expect(tooMuch.status).toBe(402);
    expect(tooMuch.body.error.message).toMatch(
      /^The EUR wallet holds .*, less than the 10000000\.00 EUR needed; top it up or pay out less$/,
    );
    const noWallet = await api(sb, 'POST', '/payouts', { body: { currency: 'CHF', amount: 1 }, idempotencyKey: 'payout-4' });
    expect(noWallet.status).toBe(402);
    expect(noWallet.body.error.message).toBe('There is no CHF wallet: the 1.00 CHF needed cannot be debited');
    const digits = await api(sb, 'POST', '/payouts', { body: { currency: 'JPY', amount: 1.5 }, idempotencyKey: 'payout-3' });
    expect(digits.status).toBe(422);
    expect(digits.body.error.details[0].path).toBe('amount');
  });

  it('lists transactions newest first with cursor pagination and filters', async () => {
    const all: any[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await api(sb, 'GET', `/transactions?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      all.push(...page.body.data);
      cursor = page.body.next_cursor;
      expect(page.body.has_more).toBe(cursor !== null);
    } while (cursor);
    for (const t of all) Transaction.parse(t);
    const mine = sb.state.transactions.filter((t) => t.partner_id === sb.partnerId);
    expect(all).toHaveLength(mine.length);
    const ids = all.map((t) => t.transaction_id);
    expect([...ids].sort().reverse()).toEqual(ids);
    const today = new Date().toISOString().slice(0, 10);
    expect((await api(sb, 'GET', `/transactions?from=${today}&to=${today}&limit=200`)).body.data).toHaveLength(mine.length);
    expect((await api(sb, 'GET', '/transactions?to=2000-01-01')).body.data).toHaveLength(0);
    const topUps = await api(sb, 'GET', '/transactions?type=TOP_UP');
    expect(topUps.body.data.every((t: any) => t.type === 'TOP_UP')).toBe(true);
    expect((await api(sb, 'GET', '/transactions?type=BOGUS')).status).toBe(422);
    expect(ledgerConsistent(sb)).toBe(true);
  });

  it('lists orders newest first with filters', async () => {
    const r = await order(sb, [{ product_id: 'sbx-instant', denomination: 10, quantity: 1 }], { reference: 'find-me' });
    const byRef = await api(sb, 'GET', '/orders?reference=find-me');
    expect(byRef.body.data.map((o: any) => o.order_id)).toEqual([r.body.order_id]);
    expect(byRef.text).not.toContain(r.body.vouchers[0].code);
    const delivered = await api(sb, 'GET', '/orders?status=DELIVERED&limit=2');
    expect(delivered.body.data).toHaveLength(2);
    expect(delivered.body.data[0].order_id > delivered.body.data[1].order_id).toBe(true);
    expect((await api(sb, 'GET', '/orders?created_to=2000-01-01')).body.data).toHaveLength(0);
  });

  it('wallets list every currency with available and reserved', async () => {
    const w = await api(sb, 'GET', '/wallets');
    expect(w.body.data.map((x: any) => x.currency)).toEqual(['EUR', 'GBP', 'JPY', 'USD']);
    expect(w.body.data.find((x: any) => x.currency === 'JPY')).toMatchObject({ available: 10_000_000, reserved: 0 });
  });
});

describe('isolation', () => {
  it("never shows one partner's orders, codes, wallets or webhook to another (404)", async () => {
    const p = await admin(sb, 'POST', '/partners', { name: 'Other Co', wallets: { USD: 50 } });
    const creds = { apiKey: p.body.key.api_key, apiSecret: p.body.key.api_secret };
    const mine = await order(sb, [{ product_id: 'sbx-gated', denomination: 10, quantity: 1 }]);
    for (const path of [`/orders/${mine.body.order_id}`, `/orders/${mine.body.order_id}/vouchers`]) {
      const r = await api(sb, 'GET', path, { creds });
      expect(r.status).toBe(404);
    }
    expect((await api(sb, 'POST', `/orders/${mine.body.order_id}/cancel`, { creds })).status).toBe(404);
    expect((await api(sb, 'GET', '/orders', { creds })).body.data).toEqual([]);
    expect((await api(sb, 'GET', '/wallets', { creds })).body.data.map((w: any) => [w.currency, w.available])).toEqual([['USD', 50]]);
    expect((await api(sb, 'GET', '/webhooks', { creds })).status).toBe(404);
    expect((await api(sb, 'GET', '/transactions', { creds })).body.data.every((t: any) => t.order_id === undefined)).toBe(true);
    expect((await api(sb, 'GET', `/transactions?order_id=${mine.body.order_id}`, { creds })).body.data).toEqual([]);
    // The other partner's own webhook endpoint never receives this partner's events.
    const theirs = await receiver();
    try {
      expect((await api(sb, 'POST', '/webhooks', { body: { url: theirs.url }, creds })).status).toBe(201);
      await admin(sb, 'POST', `/orders/${mine.body.order_id}/reject`);
      await until(() => typesOf(mine.body.order_id).includes('order.refunded'), 'refund event at our endpoint', 5000);
      expect(theirs.received.filter((r) => r.raw.includes(mine.body.order_id))).toEqual([]);
      expect((await admin(sb, 'GET', `/events?order_id=${mine.body.order_id}&partner_id=${p.body.partner.partner_id}`)).body.data).toEqual(
        [],
      );
    } finally {
      await theirs.close();
    }
  });
});
