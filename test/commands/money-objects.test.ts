/**
 * A server that sends money as an object with its currency (`{"amount": "-25.00", "currency":
 * "USD"}`, `{"value": 100, …}`) in transactions, wallets and payouts, as it may an order's
 * total: each is shown as money in its currency, and the balance check before ordering reads
 * a wallet's available balance from it. They used to be shown as JSON, the balance unchecked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/run-cli.js';
import { sendJson, startLoopbackServer, type LoopbackServer, cliEnvFor } from '../helpers/loopback-server.js';

let wallets: unknown = {};
let server: LoopbackServer;
let env: Record<string, string>;
const cli = (argv: string[]): Promise<CliResult> => runCli(argv, { env });

beforeAll(async () => {
  server = await startLoopbackServer((req, res) => {
    const h = { 'x-trace-id': 'c'.repeat(32) };
    const path = req.target.split('?')[0] ?? '';
    if (req.method === 'GET' && path === '/api/v1/transactions')
      return sendJson(
        res,
        200,
        {
          data: [
            {
              transaction_id: 'txn_1',
              type: 'ORDER_DEBIT',
              amount: { amount: '-25.00', currency: 'USD' },
              currency: 'USD',
              balance_after: { value: 75, currency: 'USD' },
              created_at: '2026-03-01T10:00:00Z',
            },
            {
              transaction_id: 'txn_2',
              type: 'TOP_UP',
              amount: { value: 1000, currency: 'JPY' },
              currency: 'JPY',
              created_at: '2026-03-01T09:00:00Z',
            },
          ],
          has_more: false,
          next_cursor: null,
        },
        h,
      );
    if (req.method === 'GET' && path === '/api/v1/wallets') return sendJson(res, 200, wallets, h);
    if (req.method === 'GET' && path === '/api/v1/products/sku-1')
      return sendJson(res, 200, { product_id: 'sku-1', name: 'Card', currency: 'USD', denominations: [10, 25] }, h);
    if (req.method === 'POST' && path === '/api/v1/payouts')
      return sendJson(
        res,
        201,
        { payout_id: 'po_1', status: 'PENDING', amount: { amount: '12.50', currency: 'USD' }, created_at: '2026-03-01T10:00:00Z' },
        h,
      );
    sendJson(res, 404, { error: { name: 'NotFound', code: 'NOT_FOUND', message: 'no route' } }, h);
  });
  env = cliEnvFor(server);
});
afterAll(async () => {
  await server.close();
});

describe('money sent as an object with its currency', () => {
  it('transactions list: each amount and balance in its currency', async () => {
    const r = await cli(['transactions', 'list']);
    expect(r.code, r.stderr).toBe(0);
    const rows = r.stdout.trimEnd().split('\n');
    expect(rows[0]).toContain('\t-25.00 USD\t75.00 USD\t');
    expect(rows[1]).toContain('\tTOP_UP\t1000 JPY');
    expect(r.stdout).not.toContain('{');
  });

  it('wallets list: the available balance in its currency', async () => {
    wallets = { data: [{ currency: 'USD', available: { amount: '100.00', currency: 'USD' }, reserved: { value: 0, currency: 'USD' } }] };
    const r = await cli(['wallets', 'list']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('USD\t100.00 USD\t0.00 USD\t\n');
  });

  it('orders create --dry-run checks the balance read from the object: 5 USD does not cover 10 USD (exit 5); 100 USD does', async () => {
    wallets = { data: [{ currency: 'USD', available: { amount: 5, currency: 'USD' } }] };
    const r = await cli(['orders', 'create', '--product', 'sku-1', '--denomination', '10', '--dry-run']);
    expect(r.code, r.stderr).toBe(5);
    expect(r.stdout).toContain('checks\tthe USD wallet holds 5.00 USD; the order costs 10.00 USD');
    wallets = { data: [{ currency: 'USD', available: { value: '100.00', currency: 'USD' } }] };
    const ok = await cli(['orders', 'create', '--product', 'sku-1', '--denomination', '10', '--dry-run']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('balance_after\t90.00 USD');
    expect(ok.stdout).not.toContain('balance not checked');
  });

  it('payouts create: the amount paid out in its currency, not reported as another amount', async () => {
    const r = await cli(['payouts', 'create', '--currency', 'USD', '--amount', '12.50', '--yes']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('amount\t12.50 USD\n');
    expect(r.stdout + r.stderr).not.toContain('{"amount"');
  });
});
