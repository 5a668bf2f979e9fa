/**
 * Exact amounts in the sandbox (decisions file, "Settled since the first build"): amounts
 * that cannot be held exactly get 422 VALIDATION_FAILED naming the field, never a 500 and
 * never a rounded amount; a payout in a currency without a wallet is refused without
 * creating one; the ledger balances after every refusal.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { admin, api, balance, key, ledgerConsistent, sandbox } from './helpers.js';

let sb: SandboxHandle;
beforeAll(async () => {
  sb = await sandbox({ limits: { ordersPerMinute: 100_000, generalPerHour: 1_000_000 } });
});
afterAll(async () => {
  await sb.close();
});

const counts = () => ({
  txns: sb.state.transactions.length,
  payouts: Object.keys(sb.state.payouts).length,
  orders: Object.keys(sb.state.orders).length,
});

describe('amounts the sandbox refuses', () => {
  it.each(['1e14', '1e-10', '0', '-5', '12.505', '90071992547409930', '90071992547409.92'])(
    'POST /payouts with amount %s: 422 naming amount, nothing recorded',
    async (amount) => {
      const before = counts();
      const usd = balance(sb, 'USD');
      const r = await api(sb, 'POST', '/payouts', { rawBody: `{"currency":"USD","amount":${amount}}`, idempotencyKey: key() });
      expect(r.status).toBe(422);
      expect(r.body.error.code).toBe('VALIDATION_FAILED');
      expect(r.body.error.details).toEqual([expect.objectContaining({ path: 'amount' })]);
      expect(counts()).toEqual(before);
      expect(balance(sb, 'USD')).toBe(usd);
      expect(ledgerConsistent(sb)).toBe(true);
    },
  );

  it('a payout in a currency without a wallet: 402 naming the wallet, no wallet created', async () => {
    const before = counts();
    expect(sb.state.partners[sb.partnerId]!.wallets.CHF).toBeUndefined();
    const r = await api(sb, 'POST', '/payouts', { body: { currency: 'CHF', amount: 5 }, idempotencyKey: key() });
    expect(r.status).toBe(402);
    expect(r.body.error.code).toBe('INSUFFICIENT_FUNDS');
    expect(r.body.error.message).toContain('no CHF wallet');
    expect(sb.state.partners[sb.partnerId]!.wallets.CHF).toBeUndefined();
    expect(counts()).toEqual(before);
    expect(ledgerConsistent(sb)).toBe(true);
  });

  it.each(['1e-10', '25.001', '1e14'])('POST /orders with denomination %s: 422 naming the item', async (denomination) => {
    const before = counts();
    const r = await api(sb, 'POST', '/orders', {
      rawBody: `{"items":[{"product_id":"sbx-instant","denomination":${denomination},"quantity":1}]}`,
      idempotencyKey: key(),
    });
    expect(r.status).toBe(422);
    expect(r.body.error.details).toEqual([expect.objectContaining({ path: 'items.0.denomination' })]);
    expect(counts()).toEqual(before);
    expect(ledgerConsistent(sb)).toBe(true);
  });

  it('admin fund: inexact, out-of-range and overflowing amounts are 422, never 500', async () => {
    const before = counts();
    for (const body of [
      { currency: 'USD', amount: 1e-10 },
      // eslint-disable-next-line no-loss-of-precision -- past 2^53 on purpose: the value JSON carries
      { currency: 'USD', amount: 90071992547409930 },
      { currency: 'USD', amount: 1e14 },
      { currency: 'JPY', amount: 10.5 },
      { currency: 'USD', amount: 90071992547409, count: 1000 },
    ]) {
      const r = await admin(sb, 'POST', '/wallets/fund', body);
      expect(r.status, JSON.stringify(body)).toBe(422);
      expect(r.body.error.code).toBe('VALIDATION_FAILED');
    }
    // In range on its own, but the balance would pass 2^53 − 1 minor units.
    expect((await admin(sb, 'POST', '/wallets/fund', { currency: 'SEK', amount: 90071992547409 })).status).toBe(200);
    const over = await admin(sb, 'POST', '/wallets/fund', { currency: 'SEK', amount: 90071992547409 });
    expect(over.status).toBe(422);
    expect(over.body.error.details).toEqual([expect.objectContaining({ path: 'amount' })]);
    expect(counts().txns).toBe(before.txns + 1);
    expect(ledgerConsistent(sb)).toBe(true);
  });
});
