import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReconciliationReport } from '../../src/contract/reconciliation.js';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { admin, api, balance, order, sandbox, waitStatus } from './helpers.js';

let sb: SandboxHandle;
const now = Date.parse('2026-06-10T12:00:00Z');
const ts = () => Math.floor((now + (sb?.state.clock_offset_ms ?? 0)) / 1000);
beforeAll(async () => {
  sb = await sandbox({ now: () => now, enablePlanned: true });
});
afterAll(async () => {
  await sb.close();
});

describe('admin surface', () => {
  it('requires the bearer token', async () => {
    const r = await fetch(`${sb.adminUrl}/orders`, { headers: { Authorization: 'Bearer wrong' } });
    expect(r.status).toBe(401);
    expect(((await r.json()) as any).error.code).toBe('AUTHENTICATION_FAILED');
    expect((await admin(sb, 'GET', '/nothing')).status).toBe(404);
    expect((await admin(sb, 'DELETE', '/orders')).status).toBe(405);
    expect((await admin(sb, 'POST', '/wallets/fund', { currency: 'USD' })).status).toBe(422);
  });

  it('a path parameter that is not valid percent-encoding names nothing: 404 in the envelope, not 500', async () => {
    for (const [method, path] of [
      ['GET', '/orders/%E0%A4%A'],
      ['GET', '/partners/%zz'],
      ['POST', '/keys/%E0%A4%A/revoke'],
      ['POST', '/drifts/%zz/resolve'],
      ['POST', '/events/%E0%A4%A/redeliver'],
    ] as const) {
      const r = await admin(sb, method, path, method === 'POST' ? (path.includes('drifts') ? { resolution: 'resolved' } : {}) : undefined);
      expect(r.status, `${method} ${path}`).toBe(404);
      expect(r.body.error, path).toMatchObject({ code: 'NOT_FOUND' });
    }
  });

  it('ids that every object inherits (__proto__, constructor, toString) name nothing: 404, never 500, nothing inherited changed', async () => {
    for (const id of ['__proto__', 'constructor', 'toString']) {
      const calls: [string, string, unknown?][] = [
        ['GET', `/orders/${id}`],
        ['POST', `/orders/${id}/complete`, {}],
        ['GET', `/partners/${id}`],
        ['POST', `/partners/${id}/keys`, {}],
        ['POST', `/keys/${id}/revoke`],
        ['PUT', `/keys/${id}/allowlist`, { allowlist: [] }],
        ['POST', '/wallets/fund', { partner_id: id, currency: 'USD', amount: 5 }],
        ['PUT', '/stock', { product_id: id, cached: 1 }],
        ['POST', '/drifts', { order_id: id }],
        ['POST', `/drifts/${id}/resolve`, { resolution: 'resolved' }],
      ];
      for (const [method, path, body] of calls) {
        const r = await admin(sb, method, path, body);
        expect(r.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(404);
        expect(r.body.error.code).toBe('NOT_FOUND');
      }
    }
    expect(Object.keys(Object.prototype)).toEqual([]);
    expect(({} as Record<string, unknown>).wallets).toBeUndefined();
  });

  it('shows an overview and inspects orders', async () => {
    const info = await admin(sb, 'GET', '/');
    expect(info.body).toMatchObject({ partner_id: sb.partnerId, api_key: sb.apiKey, time_scale: 0.01 });
    expect(info.text).not.toContain(sb.apiSecret);
    const o = await order(sb, [{ product_id: 'sbx-instant', denomination: 10, quantity: 1 }], {}, { timestamp: ts() });
    const got = await admin(sb, 'GET', `/orders/${o.body.order_id}`);
    expect(got.body).toMatchObject({ order_id: o.body.order_id, partner_id: sb.partnerId, status: 'DELIVERED' });
    expect(got.text).not.toContain(o.body.vouchers[0].code);
  });

  it('completes, partially completes and fails pending orders, advancing the clock runs due steps', async () => {
    const mk = () => order(sb, [{ product_id: 'sbx-gated', denomination: 10, quantity: 4 }], {}, { timestamp: ts() });
    const before = balance(sb);
    const [a, b, c, d] = [await mk(), await mk(), await mk(), await mk()];
    expect((await admin(sb, 'POST', `/orders/${a.body.order_id}/complete`)).body.status).toBe('DELIVERED');
    const partial = await admin(sb, 'POST', `/orders/${b.body.order_id}/partial`, { failed_count: 1 });
    expect(partial.body).toMatchObject({ status: 'PARTIALLY_DELIVERED', refunded_amount: 10 });
    expect((await admin(sb, 'POST', `/orders/${c.body.order_id}/fail`, { reason: 'vendor down' })).body.status).toBe('REFUNDED');
    expect((await admin(sb, 'POST', `/orders/${c.body.order_id}/complete`)).status).toBe(409);
    expect(balance(sb)).toBe(before - 4000 - 3000 - 4000);
    // With a frozen base clock nothing moves until the admin advances the sandbox clock.
    await admin(sb, 'POST', `/orders/${d.body.order_id}/approve`);
    // Its next step is due after the sandbox's (frozen) time, and the scheduler runs only due steps.
    expect((await api(sb, 'GET', `/orders/${d.body.order_id}`)).body.status).toBe('PENDING');
    expect(sb.state.orders[d.body.order_id]!.next_step!.at).toBeGreaterThan(now + sb.state.clock_offset_ms);
    const adv = await admin(sb, 'POST', '/clock/advance', { seconds: 60 });
    expect(adv.body.offset_ms).toBeGreaterThanOrEqual(60_000);
    await waitStatus(sb, d.body.order_id, ['DELIVERED']);
  });

  it('funds wallets and sets stock', async () => {
    const before = balance(sb, 'GBP');
    const f = await admin(sb, 'POST', '/wallets/fund', { currency: 'GBP', amount: 25.5 });
    expect(f.body.transaction).toMatchObject({ type: 'TOP_UP', amount: 25.5 });
    expect(balance(sb, 'GBP')).toBe(before + 2550);
    const txnsBefore = sb.state.transactions.length;
    const many = await admin(sb, 'POST', '/wallets/fund', { currency: 'GBP', amount: 1, count: 250 });
    expect(many.status).toBe(200);
    expect(sb.state.transactions.length).toBe(txnsBefore + 250);
    expect(balance(sb, 'GBP')).toBe(before + 2550 + 25_000);
    const tooMuch = await admin(sb, 'POST', '/wallets/fund', { currency: 'GBP', amount: -1_000_000, count: 1_000 });
    expect(tooMuch.status).toBe(402);
    expect(sb.state.transactions.length).toBe(txnsBefore + 250);
    const s = await admin(sb, 'PUT', '/stock', { product_id: 'sbx-instant', cached: 0, vendor_available: false });
    expect(s.body.availability.status).toBe('out_of_stock');
    expect((await order(sb, [{ product_id: 'sbx-instant', denomination: 10, quantity: 1 }], {}, { timestamp: ts() })).status).toBe(409);
    await admin(sb, 'PUT', '/stock', { product_id: 'sbx-instant', denomination: 10, cached: 1 });
    expect((await order(sb, [{ product_id: 'sbx-instant', denomination: 10, quantity: 1 }], {}, { timestamp: ts() })).status).toBe(201);
    expect((await admin(sb, 'PUT', '/stock', { product_id: 'sbx-instant', denomination: 11, cached: 1 })).status).toBe(422);
  });

  it('creates partners and keys, rotates and revokes keys', async () => {
    const p = await admin(sb, 'POST', '/partners', { name: 'Travel Co', categories: ['travel'], wallets: { EUR: 500 } });
    expect(p.status).toBe(201);
    const creds = { apiKey: p.body.key.api_key, apiSecret: p.body.key.api_secret };
    expect((await api(sb, 'GET', '/products/skyline-hotels-eu', { creds })).status).toBe(200);
    const keys = await admin(sb, 'GET', `/keys?partner_id=${p.body.partner.partner_id}`);
    expect(keys.body.data).toHaveLength(1);
    expect(keys.text).not.toContain(creds.apiSecret);
    const rotated = await admin(sb, 'POST', `/keys/${creds.apiKey}/rotate`);
    expect(rotated.status).toBe(201);
    expect((await api(sb, 'GET', '/wallets', { creds })).status).toBe(401);
    const next = { apiKey: rotated.body.api_key, apiSecret: rotated.body.api_secret };
    expect((await api(sb, 'GET', '/wallets', { creds: next })).status).toBe(200);
    await admin(sb, 'POST', `/keys/${next.apiKey}/revoke`);
    expect((await api(sb, 'GET', '/wallets', { creds: next })).status).toBe(401);
    expect((await admin(sb, 'POST', '/partners', { name: 'X', categories: ['nope'] })).status).toBe(422);
  });

  it('makes and resolves drifts reported by the planned reconciliation endpoint', async () => {
    const o = await order(sb, [{ product_id: 'northwind-store-us', denomination: 5, quantity: 1 }], {}, { timestamp: ts() });
    expect(o.status).toBe(201);
    const date = new Date(now + sb.state.clock_offset_ms).toISOString().slice(0, 10);
    const drift = await admin(sb, 'POST', '/drifts', { order_id: o.body.order_id });
    expect(drift.status).toBe(201);
    const report = await api(sb, 'GET', `/reconciliation/${date}`);
    expect(report.status).toBe(200);
    ReconciliationReport.parse(report.body);
    expect(report.body.summary.drifted).toBe(1);
    expect(report.body.drifts[0]).toMatchObject({ order_id: o.body.order_id, resolution: 'pending' });
    await admin(sb, 'POST', `/drifts/${drift.body.drift_id}/resolve`, { resolution: 'resolved' });
    expect((await api(sb, 'GET', `/reconciliation/${date}`)).body.drifts[0].resolution).toBe('resolved');
    expect((await api(sb, 'GET', '/reconciliation/2026-13-45')).status).toBe(422);
  });

  it('resets to the seed, keeping the credentials', async () => {
    const r = await admin(sb, 'POST', '/reset');
    expect(r.status).toBe(200);
    expect(Object.keys(sb.state.orders)).toHaveLength(0);
    expect(sb.state.clock_offset_ms).toBe(0);
    expect(balance(sb)).toBe(10_000_000);
    expect((await api(sb, 'GET', '/wallets')).status).toBe(200);
  });

  it('a rotated default key survives a reset: the reset answers it, it still works, the revoked one stays refused', async () => {
    const own = await sandbox({ now: () => now });
    try {
      const before = await admin(own, 'GET', '/');
      const original = { apiKey: own.apiKey, apiSecret: own.apiSecret };
      expect(before.body.api_key).toBe(original.apiKey);
      const rotated = await admin(own, 'POST', `/keys/${original.apiKey}/rotate`);
      expect(rotated.status).toBe(201);
      const next = { apiKey: rotated.body.api_key as string, apiSecret: rotated.body.api_secret as string };
      // The overview names the key in force, not the revoked one.
      expect((await admin(own, 'GET', '/')).body.api_key).toBe(next.apiKey);
      const reset = await admin(own, 'POST', '/reset');
      expect(reset.status).toBe(200);
      expect(reset.body.api_key).toBe(next.apiKey);
      expect((await api(own, 'GET', '/wallets', { creds: next })).status).toBe(200);
      expect((await api(own, 'GET', '/wallets', { creds: original })).status).toBe(401);
    } finally {
      await own.close();
    }
  });
});

describe('clock advance', () => {
  it('moves the clock by exactly the amount, however much real time passes while due steps run', async () => {
    // A base clock that moves 1 ms on every read, as real time does while an advance runs.
    let t = Date.parse('2026-06-10T12:00:00Z');
    const moving = await sandbox({ now: () => t++ });
    try {
      const ticket = await order(
        moving,
        [{ product_id: 'sbx-async', denomination: 10, quantity: 1 }],
        {},
        { timestamp: Math.floor(t / 1000) },
      );
      expect(ticket.status).toBe(202);
      const first = await admin(moving, 'POST', '/clock/advance', { seconds: 7200 });
      expect(first.body.offset_ms).toBe(7_200_000);
      const second = await admin(moving, 'POST', '/clock/advance', { seconds: 1.5 });
      expect(second.body.offset_ms).toBe(7_201_500);
      expect((await admin(moving, 'GET', `/orders/${ticket.body.order_id}`)).body.status).toBe('DELIVERED');
    } finally {
      await moving.close();
    }
  });
});
