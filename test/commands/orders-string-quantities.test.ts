/**
 * A server that writes an order item's quantity as a string (`"quantity": "3"`), as it may
 * write amounts: the quantity is read as written. It used to be read as 1, so `orders codes`
 * took the one code of an order of 3 still PROCESSING for all of them (exit 0, a codes file
 * short of 2 codes), and `orders list --output csv` counted 1 voucher.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/run-cli.js';
import { quickClock } from '../helpers/sandbox.js';
import { sendJson, startLoopbackServer, type LoopbackServer, cliEnvFor } from '../helpers/loopback-server.js';

const ORDER = 'ord_981234';
const ORDER_BODY = {
  order_id: ORDER,
  status: 'PROCESSING',
  currency: 'USD',
  total_amount: '75.00',
  items: [{ product_id: 'AMZ-US', denomination: '25.00', quantity: '3' }],
};

let server: LoopbackServer;
let env: Record<string, string>;
let dir: string;
const cli = (argv: string[]): Promise<CliResult> => runCli(argv, { env, overrides: { clock: quickClock() } });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'string-quantities-'));
  server = await startLoopbackServer((req, res) => {
    const h = { 'x-trace-id': 'd'.repeat(32) };
    if (req.method === 'GET' && req.target === `/api/v1/orders/${ORDER}/vouchers`)
      return sendJson(
        res,
        200,
        {
          order_id: ORDER,
          data: [{ voucher_id: 'vch_1', product_id: 'AMZ-US', denomination: 25, expiry: null, code: 'CODE-1111', pin: null }],
        },
        h,
      );
    if (req.method === 'GET' && req.target === `/api/v1/orders/${ORDER}`) return sendJson(res, 200, ORDER_BODY, h);
    if (req.method === 'GET' && req.target.split('?')[0] === '/api/v1/orders')
      return sendJson(res, 200, { data: [ORDER_BODY], has_more: false, next_cursor: null }, h);
    res.writeHead(404, h);
    res.end();
  });
  env = cliEnvFor(server);
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('an order whose items give their quantity as a string', () => {
  it('orders codes says 1 of 3 codes while the order is PROCESSING (exit 8), the file holding the one issued', async () => {
    const file = join(dir, 'codes.csv');
    const r = await cli(['orders', 'codes', ORDER, '--codes-out', file]);
    expect(r.code, r.stderr).toBe(8);
    expect(r.stderr).toContain(`1 of 3 codes: order ${ORDER} is PROCESSING and the other 2 vouchers are not issued yet`);
    expect(readFileSync(file, 'utf8')).toContain('CODE-1111');
  });

  it('orders list --output csv counts the 3 vouchers ordered', async () => {
    const r = await cli(['orders', 'list', '--output', 'csv']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trimEnd().split('\n')[1]).toBe(`${ORDER},PROCESSING,75.00,USD,AMZ-US:25.00×3,3,,,`);
  });
});
