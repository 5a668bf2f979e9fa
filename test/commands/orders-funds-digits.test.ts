/**
 * A server's amount of more digits than its currency has (a float sum: 0.1 + 0.2 =
 * 0.30000000000000004 USD) cannot be compared exactly: the balance check before ordering is
 * not made, and said so (the currency as written, USD); a payout answered with one is
 * reported as differing. Never an unexpected error.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempConfigDir, type CliResult } from '../helpers/run-cli.js';
import { sendJson, startLoopbackServer, type LoopbackServer, cliEnvFor } from '../helpers/loopback-server.js';

let server: LoopbackServer;

beforeAll(async () => {
  server = await startLoopbackServer((req, res) => {
    const path = req.target.split('?')[0] ?? '';
    if (req.method === 'GET' && path === '/api/v1/wallets')
      return sendJson(res, 200, { data: [{ currency: 'USD', available: 0.1 + 0.2 }] });
    if (req.method === 'GET' && path === '/api/v1/products/sku-1')
      return sendJson(res, 200, { product_id: 'sku-1', name: 'Card', currency: 'USD', denominations: [10, 25] });
    if (req.method === 'POST' && path === '/api/v1/payouts')
      return sendJson(res, 201, { payout_id: 'po_1', status: 'PENDING', amount: 0.1 + 0.2, currency: 'USD' });
    sendJson(res, 404, { error: { name: 'NotFound', code: 'NOT_FOUND', message: 'no route' } });
  });
});
afterAll(async () => {
  await server.close();
});

const cli = (argv: string[]): Promise<CliResult> =>
  runCli(argv, {
    env: cliEnvFor(server),
  });

const NOTE = "balance not checked: the USD wallet's balance 0.30000000000000004 has more than 2 decimal digits, the most USD allows";

describe('a wallet balance of more digits than its currency has', () => {
  it('orders create --dry-run: the balance is not checked, said so; exit 0', async () => {
    const r = await cli(['orders', 'create', '--product', 'sku-1', '--denomination', '10', '--dry-run']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('Unexpected error');
    expect(r.stdout).toContain(`checks\tok; ${NOTE}`);
    const json = await cli(['orders', 'create', '--product', 'sku-1', '--denomination', '10', '--dry-run', '--json']);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ total_amount: 10, balance_after: null, sufficient_funds: null });
  });

  it('a bulk file: its dry run passes the checks it could make, naming the balance', async () => {
    const path = join(tempConfigDir(), 'orders.csv');
    writeFileSync(path, 'product_id,denomination,quantity\nsku-1,10,1\n');
    const dry = await cli(['orders', 'create', '--from', path, '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stderr).not.toContain('Unexpected error');
    expect(dry.stderr).toContain(`Dry run passed the checks it could make (${NOTE}): nothing was ordered.`);
  });

  it('payouts create answered with such an amount: the payout is shown and reported as differing, exit 0', async () => {
    const r = await cli(['payouts', 'create', '--amount', '0.30', '--currency', 'USD', '--yes']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('Unexpected error');
    expect(r.stderr).toContain('the payout was made, but the answer says 0.30000000000000004 USD where 0.30 USD was asked');
  });
});
