import { describe, expect, it } from 'vitest';
import { LEDGER_CHECKS } from '../../src/certify/checks/ledger.js';
import { LIFECYCLE_CHECKS } from '../../src/certify/checks/lifecycle.js';
import { REPORT_CHECKS } from '../../src/certify/checks/report.js';
import { placeOrder } from '../../src/certify/checks/support.js';
import { WEBHOOK_CHECKS } from '../../src/certify/checks/webhooks.js';
import { ApiError } from '../../src/core/errors/index.js';
import type { ApiClient } from '../../src/core/http/types.js';
import type { ContractDrift } from '../../src/core/http/validate.js';
import type { CheckDef } from '../../src/certify/types.js';
import { runChecks } from './helpers.js';

const check = (list: readonly CheckDef[], id: string) => list.find((c) => c.id === id)!;
const BASELINE = check(LEDGER_CHECKS, 'ledger.baseline');
const REGISTER = check(WEBHOOK_CHECKS, 'webhooks.register');
const LEDGER = LEDGER_CHECKS.filter((c) => c !== BASELINE);

/** What the orders group does before these groups run: a cache-hit order and a cache-miss one, whose delivery webhook is awaited. */
const ORDERS: CheckDef = {
  id: 'test.orders',
  title: 'orders of this run',
  proves: 'the test has orders',
  async run(ctx) {
    await placeOrder(ctx, { product: ctx.fixtures.instant });
    const miss = await placeOrder(ctx, { product: ctx.fixtures.async });
    const delivered = await ctx.listener!.waitFor(
      (e) => e.event === 'order.delivered' && e.data.order_id === miss.data.order_id,
      10_000,
      ctx.signal,
    );
    if (!delivered) throw new Error('the cache-miss order was not delivered');
  },
};

describe('webhook, lifecycle, ledger and report checks against the embedded sandbox', () => {
  it("pass in the checklist's order, each with the trace IDs of its requests", async () => {
    const run = await runChecks(
      [BASELINE, REGISTER, ORDERS, ...WEBHOOK_CHECKS.filter((c) => c !== REGISTER), ...LIFECYCLE_CHECKS, ...LEDGER, ...REPORT_CHECKS],
      { keepOpen: true },
    );
    try {
      for (const r of run.results) expect(r.status, `${r.id}: ${r.message} ${r.actual ?? ''}`).toBe('pass');
      for (const id of [
        'webhooks.register',
        'lifecycle.admin-reject',
        'lifecycle.partial',
        'ledger.wallet-balance',
        'ledger.order-transactions',
        'ledger.filter-by-order',
      ]) {
        expect(run.result(id).trace_ids.length, id).toBeGreaterThan(0);
      }
      const shared = run.env.context.shared;
      expect(shared.webhookRegistered).toBe(true);
      // The reject credits the whole 10.00, the partial the failed one of its two 10.00 vouchers.
      expect(shared.refundsMinor).toEqual({ USD: 2000 });
      expect(shared.orders.length).toBe(4);
      expect(run.result('webhooks.register').message).toMatch(/^registered http:\/\/127\.0\.0\.1:\d+\/webhooks \(wh_\w+\): HTTP 201/);
      expect(run.result('webhooks.register').message).not.toContain('whsec_');
      expect(run.result('webhooks.endpoint-2xx').message).toMatch(/^\d+ delivery attempts, every one answered 2xx, the slowest in \d+ ms/);
      expect(run.result('webhooks.duplicate').message).toMatch(/recognised as a duplicate, stored once$/);
      expect(run.result('lifecycle.admin-reject').message).toContain(
        'order.cancelled then order.refunded (10.00 USD), status REFUNDED, 10.00 USD credited back (net 0.00 USD debited)',
      );
      expect(run.result('lifecycle.partial').message).toContain(
        'PARTIALLY_DELIVERED: order.refunded and a REFUND of 10.00 USD, the delivered part debited (net 10.00 USD debited)',
      );
      expect(run.result('ledger.wallet-balance').message).toMatch(
        /^4 orders: 100000\.00 USD → 99970\.00 USD, as their totals and refunds explain/,
      );
      expect(run.result('ledger.order-transactions').message).toBe('4 orders, each with one ORDER_DEBIT of its total');
      expect(run.result('report.trace-ids').message).toMatch(/^\d+ requests \(\d+ answered\), each with its trace ID$/);
      expect(run.result('report.contract').message).toBe('no answer differed from the contract');
      expect(run.warnings).toEqual([]);
      // The duplicate was answered and stored once; both refund webhooks arrived.
      const listener = run.env.listener!;
      expect(listener.duplicates.length).toBe(1);
      expect(listener.events.filter((e) => e.event_id === listener.duplicates[0]).length).toBe(1);
      expect(listener.events.filter((e) => e.event === 'order.refunded').length).toBe(2);
    } finally {
      await run.env.close();
    }
  });

  it('webhook and lifecycle checks skip with the reason until the endpoint is registered', async () => {
    const run = await runChecks([...WEBHOOK_CHECKS.filter((c) => c !== REGISTER), ...LIFECYCLE_CHECKS]);
    for (const r of run.results) {
      expect(r.status, r.id).toBe('skip');
      expect(r.message).toBe('the webhook endpoint is not registered (webhooks.register did not pass)');
    }
  });

  it('without the operator surface, endpoint-2xx says what the listener saw and the duplicate check skips', async () => {
    const run = await runChecks([REGISTER, ...WEBHOOK_CHECKS.filter((c) => c !== REGISTER)], { context: { admin: undefined } });
    expect(run.result('webhooks.register').status).toBe('pass');
    const r = run.result('webhooks.endpoint-2xx');
    expect(r.status).toBe('pass');
    // No event had come yet: the check placed a cache-hit order to have one.
    expect(r.message).toMatch(
      /^the listener acknowledged \d+ deliver(y|ies) with 2xx, none refused \(without the operator surface's delivery log/,
    );
    expect(run.result('webhooks.duplicate')).toMatchObject({ status: 'skip', message: 'needs the sandbox operator surface' });
  });

  it('wallet-balance fails with expected and actual money when the wallet moved by an order this run does not know', async () => {
    const stray: CheckDef = {
      id: 'test.stray',
      title: "an order placed behind the run's back",
      proves: '-',
      async run(ctx) {
        await placeOrder(ctx, { product: ctx.fixtures.instant });
        const res = await ctx.raw.send({
          method: 'POST',
          path: '/orders',
          body: { items: [{ product_id: ctx.fixtures.instant.id, denomination: 25, quantity: 1 }] },
        });
        if (res.status !== 201) throw new Error(`HTTP ${res.status}`);
      },
    };
    const run = await runChecks([BASELINE, stray, ...LEDGER]);
    const r = run.result('ledger.wallet-balance');
    expect(r.status).toBe('fail');
    expect(r.message).toContain("the wallet balance differs from what this run's orders and refunds explain in USD");
    expect(r.message).toContain('another client of the same partner account');
    expect(r.expected).toBe('USD: 100000.00 USD − orders 10.00 USD + refunds 0.00 USD = 99990.00 USD');
    expect(r.actual).toBe('USD: 99965.00 USD (-25.00 USD off)');
    expect(r.reproduce).toBe('vouchers api GET /wallets');
    // The order the run knows has its debit; the filter still works.
    expect(run.result('ledger.order-transactions').status).toBe('pass');
    expect(run.result('ledger.filter-by-order').status).toBe('pass');
  });

  it('filter-by-order fails when the server ignores the order_id filter; order-transactions still finds each debit', async () => {
    /** The client as a server that ignores the filter would answer: order_id dropped on the way. */
    const ignoring = (client: ApiClient): ApiClient => ({
      request: (o) => client.request(o.path === '/transactions' ? { ...o, query: { ...o.query, order_id: undefined } } : o),
      close: () => client.close(),
    });
    const twoOrders: CheckDef = {
      id: 'test.two-orders',
      title: '-',
      proves: '-',
      async run(ctx) {
        await placeOrder(ctx, { product: ctx.fixtures.instant });
        await placeOrder(ctx, { product: ctx.fixtures.instant, denomination: 25 });
      },
    };
    const run = await runChecks([
      BASELINE,
      twoOrders,
      ...LEDGER.map((c) => ({ ...c, run: (ctx: Parameters<CheckDef['run']>[0]) => c.run({ ...ctx, client: ignoring(ctx.client) }) })),
    ]);
    expect(run.result('ledger.wallet-balance').status).toBe('pass');
    expect(run.result('ledger.order-transactions').status).toBe('pass');
    const filter = run.result('ledger.filter-by-order');
    expect(filter.status).toBe('fail');
    expect(filter.message).toMatch(
      /^GET \/transactions\?order_id=ord_\w+ returned \d+ transactions? of other orders: the filter is ignored or wrong$/,
    );
    expect(filter.actual).toMatch(/^also ord_\w+/);
    expect(filter.reproduce).toMatch(/^vouchers api GET '?\/transactions\?order_id=ord_\w+'?$/);
  });

  it('report.trace-ids fails naming a request without one; report.contract warns naming each endpoint and its fields', async () => {
    const drift: ContractDrift = {
      where: 'GET /wallets (listWallets)',
      status: 200,
      traceId: 'a'.repeat(32),
      kind: 'shape',
      issues: ['data.available: expected number'],
      fields: ['data.available'],
      message: 'GET /wallets differs',
    };
    const run = await runChecks(REPORT_CHECKS, {
      context: {
        requests: () => [
          { method: 'GET', path: '/api/v1/wallets', status: 200, trace_id: 'b'.repeat(32), attempt: 1, idempotency_key: null },
          { method: 'POST', path: '/api/v1/orders', status: null, trace_id: null, attempt: 2, idempotency_key: 'k' },
        ],
        drifts: () => [drift, { ...drift, fields: ['data.reserved'] }],
      },
    });
    const trace = run.result('report.trace-ids');
    expect(trace).toMatchObject({
      status: 'fail',
      message: '1 of 2 requests have no trace ID',
      actual: 'POST /api/v1/orders (no answer, attempt 2)',
    });
    const contract = run.result('report.contract');
    expect(contract).toMatchObject({
      status: 'warn',
      required: false,
      message: '1 endpoint answered otherwise than the contract: GET /wallets (listWallets)',
    });
    expect(contract.warnings).toEqual([
      `GET /wallets (listWallets) differs in data.available, data.reserved (2 answers, trace ${'a'.repeat(32)})`,
    ]);
  });

  it('report.contract skips when no 2xx answer came before it (--only report): nothing was compared, so nothing passed', async () => {
    for (const requests of [
      [],
      [{ method: 'GET', path: '/api/v1/wallets', status: 401, trace_id: 'b'.repeat(32), attempt: 1, idempotency_key: null }],
    ]) {
      const run = await runChecks(REPORT_CHECKS, { context: { requests: () => requests, drifts: () => [] } });
      expect(run.result('report.contract')).toMatchObject({
        status: 'skip',
        message: 'no 2xx answer came before this check: nothing to compare with the contract',
      });
    }
  });

  it('ledger checks without a baseline or orders skip with the reason', async () => {
    /** A server that refuses every order (as one whose signature the profile gets wrong). */
    const refusing = (client: ApiClient): ApiClient => ({
      request: (o) =>
        o.method === 'POST' && o.path === '/orders'
          ? Promise.reject(
              new ApiError({ status: 401, name: 'InvalidSignature', code: 'INVALID_SIGNATURE', message: 'signature does not match' }),
            )
          : client.request(o),
      close: () => client.close(),
    });
    const run = await runChecks(
      LEDGER.map((c) => ({ ...c, run: (ctx: Parameters<CheckDef['run']>[0]) => c.run({ ...ctx, client: refusing(ctx.client) }) })),
    );
    expect(run.result('ledger.wallet-balance')).toMatchObject({
      status: 'skip',
      message: 'no balance was recorded before ordering (ledger.baseline did not run)',
    });
    expect(run.result('ledger.order-transactions')).toMatchObject({ status: 'skip', message: 'no order was placed by this run' });
    // Placing orders is what other checks prove: without two to compare, the filter check says why it cannot run.
    expect(run.result('ledger.filter-by-order')).toMatchObject({
      status: 'skip',
      message: 'this run has fewer than two orders to compare, and another could not be placed: signature does not match',
    });
  });
});
