/**
 * The ledger checks against a server whose transactions use names of their own (the
 * document leaves the types and the record's fields open): they are not failed for that.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { LEDGER_CHECKS } from '../../src/certify/checks/ledger.js';
import type { Shared } from '../../src/certify/types.js';
import { sendJson, startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.js';
import { emptyProfile, runChecks } from './helpers.js';

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function ledgerAgainst(rowsOf: (orderId: string) => unknown[], only: string) {
  server = await startLoopbackServer((req, res) => {
    const orderId = new URL(req.target, 'http://x').searchParams.get('order_id') ?? '';
    sendJson(res, 200, { data: rowsOf(orderId), has_more: false, next_cursor: null });
  });
  const orders = ['ord_1', 'ord_2'].map((order_id) => ({ order_id, status: 'DELIVERED', total_amount: 25, currency: 'USD', items: [] }));
  return runChecks(LEDGER_CHECKS, {
    mode: 'profile',
    profile: emptyProfile({ base_url: server.baseUrl, api_key: 'k', api_secret: 'sk_test_0123456789', exists: true }),
    only: [only],
    context: { shared: { orders, refundsMinor: {} } as unknown as Shared },
  });
}

describe('ledger checks and transactions of a server of its own names', () => {
  it("order-transactions: types of the server's own (purchase, deposit) — the debit is told by its amount, with a warning", async () => {
    const run = await ledgerAgainst(
      (id) => [
        { transaction_id: `t-${id}`, type: 'purchase', amount: -25, currency: 'USD', order_id: id },
        { transaction_id: `d-${id}`, type: 'deposit', amount: 100, currency: 'USD', order_id: id },
      ],
      'ledger.order-transactions',
    );
    const r = run.result('ledger.order-transactions');
    expect(r.status, r.message).toBe('warn');
    expect(r.warnings?.[0]).toContain("the transaction types are this server's own (purchase, deposit)");
  });

  it('filter-by-order: records without an order_id are not called "of other orders"', async () => {
    const run = await ledgerAgainst(() => [{ id: 'txn-1', kind: 'debit', amount: '-25.00', currency: 'usd' }], 'ledger.filter-by-order');
    const r = run.result('ledger.filter-by-order');
    expect(r.status).toBe('skip');
    expect(r.message).toContain('lists transactions without an order_id: whether the filter holds cannot be told');
  });
});
