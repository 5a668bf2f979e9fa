/**
 * A server that sends money as an object with its currency (`{"amount": "-25.00", "currency":
 * "USD"}`, `{"value": 100, …}`) in transactions, wallets and payouts, as it may an order's
 * total: each is shown as money in its currency, and the balance check before ordering reads
 * a wallet's available balance from it. They used to be shown as JSON, the balance unchecked.
 * CSV carries such an amount as a plain amount is, a bare number beside its currency column
 * (it used to be the object's JSON text); JSON output keeps the object as sent.
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

  it('transactions list --output csv: each amount and balance a bare number, its currency in its own column, as plain amounts are', async () => {
    const r = await cli(['transactions', 'list', '--output', 'csv']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n').slice(0, 3)).toEqual([
      'created_at,transaction_id,type,amount,currency,balance_after,reference,description',
      '2026-03-01T10:00:00Z,txn_1,ORDER_DEBIT,-25.00,USD,75,,',
      '2026-03-01T09:00:00Z,txn_2,TOP_UP,1000,JPY,,,',
    ]);
    expect(r.stdout).not.toContain('{');
  });

  it('transactions list --json --fields: the money object as the server sent it (JSON carries the records as sent)', async () => {
    for (const argv of [['--json'], ['--all', '--json'], ['--output', 'ndjson']]) {
      const r = await cli(['transactions', 'list', ...argv, '--fields', 'transaction_id,amount,currency,balance_after']);
      expect(r.code, r.stderr).toBe(0);
      const rows = (
        argv[0] === '--output'
          ? r.stdout
              .trim()
              .split('\n')
              .map((l) => JSON.parse(l) as unknown)
          : JSON.parse(r.stdout)
      ) as unknown[];
      expect(rows[0], argv.join(' ')).toEqual({
        transaction_id: 'txn_1',
        amount: { amount: '-25.00', currency: 'USD' },
        currency: 'USD',
        balance_after: { value: 75, currency: 'USD' },
      });
    }
  });

  it('wallets list --output csv: each balance a bare number beside its currency', async () => {
    wallets = { data: [{ currency: 'USD', available: { amount: '100.00', currency: 'USD' }, reserved: { value: 0, currency: 'USD' } }] };
    const r = await cli(['wallets', 'list', '--output', 'csv']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('currency,available,reserved,updated_at\nUSD,100.00,0,\n');
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

  it('orders create --dry-run reads the wallet of a currency named only inside its amount: 5 USD does not cover 10 USD (exit 5)', async () => {
    wallets = { data: [{ available: { amount: 5, currency: 'USD' }, reserved: { amount: 0, currency: 'USD' } }] };
    const r = await cli(['orders', 'create', '--product', 'sku-1', '--denomination', '10', '--dry-run']);
    expect(r.code, r.stderr).toBe(5);
    expect(r.stdout).toContain('checks\tthe USD wallet holds 5.00 USD; the order costs 10.00 USD');
    expect(r.stdout).not.toContain('balance not checked');
  });

  it('payouts create: the amount paid out in its currency, not reported as another amount', async () => {
    const r = await cli(['payouts', 'create', '--currency', 'USD', '--amount', '12.50', '--yes']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('amount\t12.50 USD\n');
    expect(r.stdout + r.stderr).not.toContain('{"amount"');
  });
});
