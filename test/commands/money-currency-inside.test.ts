/**
 * Rows whose currency is named only inside their amount (`{"amount": {"amount": 25,
 * "currency": "EUR"}}`, no top-level `currency`): transactions and wallets get their usual
 * layout, the currency read from the amount, in the table, TSV and CSV. They used to fall
 * back to the generic layout (the amount as JSON), and `--fields currency` was refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/run-cli.js';
import { cliEnvFor, sendJson, startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.js';

let server: LoopbackServer;
let env: Record<string, string>;
const cli = (argv: string[]): Promise<CliResult> => runCli(argv, { env });

beforeAll(async () => {
  server = await startLoopbackServer((req, res) => {
    const path = req.target.split('?')[0];
    if (path === '/api/v1/transactions')
      return sendJson(res, 200, {
        data: [
          {
            transaction_id: 'txn_1',
            type: 'ORDER_DEBIT',
            amount: { amount: -25, currency: 'EUR' },
            balance_after: 75,
            created_at: '2026-03-01T10:00:00Z',
          },
        ],
        has_more: false,
        next_cursor: null,
      });
    sendJson(res, 200, { data: [{ available: { amount: 25, currency: 'EUR' }, reserved: { amount: 0, currency: 'EUR' } }] });
  });
  env = cliEnvFor(server);
});
afterAll(async () => {
  await server.close();
});

describe('the currency named only inside the amount', () => {
  it('transactions list: the ledger layout, the balance in the currency of the amount', async () => {
    const r = await cli(['transactions', 'list']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('2026-03-01 10:00:00Z\ttxn_1\tORDER_DEBIT\t-25.00 EUR\t75.00 EUR\t\t\n');
    const csv = await cli(['transactions', 'list', '--output', 'csv']);
    expect(csv.code, csv.stderr).toBe(0);
    expect(csv.stdout.split('\n')[1]).toBe('2026-03-01T10:00:00Z,txn_1,ORDER_DEBIT,-25,EUR,75,,');
    const fields = await cli(['transactions', 'list', '--json', '--fields', 'transaction_id,currency']);
    expect(fields.code, fields.stderr).toBe(0);
    expect(JSON.parse(fields.stdout)).toEqual([{ transaction_id: 'txn_1', currency: 'EUR' }]);
  });

  it('wallets list: the wallet layout, its currency from its balance', async () => {
    const r = await cli(['wallets', 'list']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('EUR\t25.00 EUR\t0.00 EUR\t\n');
    const csv = await cli(['wallets', 'list', '--output', 'csv']);
    expect(csv.stdout).toBe('currency,available,reserved,updated_at\nEUR,25,0,\n');
  });
});
