/** `vouchers api` asks before a money-moving write on a production profile, as orders create does. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { moneyMove } from '../../src/commands/api/money-guard.js';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { runCli } from '../helpers/run-cli.js';
import { envOf, fastSandbox } from '../helpers/sandbox.js';

let sb: SandboxHandle;
let prod: Record<string, string>;
beforeAll(async () => {
  sb = await fastSandbox();
  prod = { ...envOf(sb), VOUCHERS_PRODUCTION: 'true' };
});
afterAll(async () => {
  await sb.close();
});

const recorded = () => ({
  txns: sb.state.transactions.length,
  payouts: Object.keys(sb.state.payouts).length,
  orders: Object.keys(sb.state.orders).length,
});
const ORDER = '{"items":[{"product_id":"sbx-instant","denomination":10,"quantity":1}]}';

describe('moneyMove: which requests move money', () => {
  it('orders, payouts and cancellations, however the path is spelled', () => {
    expect(moneyMove('POST', '/orders')).toBeDefined();
    expect(moneyMove('post', '/orders/?x=1')).toBeDefined();
    expect(moneyMove('POST', '//Orders')).toBeDefined();
    expect(moneyMove('POST', '/payouts')).toBeDefined();
    expect(moneyMove('POST', '/orders/ord_1/cancel')).toBeDefined();
    expect(moneyMove('PUT', '/payouts')).toBeDefined();
    expect(moneyMove('GET', '/orders')).toBeUndefined();
    expect(moneyMove('POST', '/webhooks')).toBeUndefined();
    expect(moneyMove('GET', '/wallets')).toBeUndefined();
  });
});

describe('vouchers api on a production profile', () => {
  it.each([
    ['/orders', ORDER],
    ['/orders/', ORDER],
    ['/payouts', '{"currency":"USD","amount":1}'],
    ['/orders/ord_00000000000000000000000000/cancel', undefined],
  ])('POST %s without --yes, not on a terminal: refused (exit 2), nothing sent', async (path, data) => {
    const before = recorded();
    const log = sb.state.transactions.length;
    const r = await runCli(['api', 'POST', path, ...(data ? ['-d', data] : [])], { env: prod });
    expect(r.code).toBe(2);
    // The environment marks it: the message says so.
    expect(r.stderr).toContain('VOUCHERS_PRODUCTION marks profile default production');
    expect(r.stderr).toContain('--yes');
    expect(r.stderr).not.toContain('Idempotency-Key:');
    expect(recorded()).toEqual(before);
    expect(sb.state.transactions.length).toBe(log);
  });

  it('with --yes the order is placed once', async () => {
    const before = recorded();
    const r = await runCli(['api', 'POST', '/orders', '-d', ORDER, '--yes'], { env: prod });
    expect(r.code).toBe(0);
    expect(recorded().orders).toBe(before.orders + 1);
  });

  it('reads and other writes are not asked about', async () => {
    expect((await runCli(['api', 'GET', '/wallets'], { env: prod })).code).toBe(0);
  });

  it('a profile not marked production is not asked', async () => {
    const before = recorded();
    const r = await runCli(['api', 'POST', '/orders', '-d', ORDER], { env: envOf(sb) });
    expect(r.code).toBe(0);
    expect(recorded().orders).toBe(before.orders + 1);
  });
});
