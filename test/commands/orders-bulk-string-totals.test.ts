/**
 * A server that sends an order's total as a numeric string (`"25.00"`; the CLI reads amounts
 * so, see README): a bulk run counts what it spent from those digits, in its summary and on
 * a resume, as it does for a JSON number. Such orders used to be left out of the totals.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { quickClock } from '../helpers/sandbox.js';
import { cliEnvFor, sendJson, startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.js';

const h = { 'x-trace-id': 'req-7F3A9C21' };
const PRODUCT = { product_id: 'p', name: 'P', vendor: 'v', currency: 'USD', denominations: [25] };

let server: LoopbackServer;
let placed = 0;

beforeAll(async () => {
  server = await startLoopbackServer((req, res) => {
    const path = req.target.split('?')[0];
    if (req.method === 'POST' && path === '/api/v1/orders') {
      placed += 1;
      return sendJson(
        res,
        201,
        { order_id: `ord_${placed}`, status: 'DELIVERED', total_amount: '25.00', currency: 'USD', vouchers: [] },
        h,
      );
    }
    if (path === '/api/v1/products') return sendJson(res, 200, { data: [PRODUCT] }, h);
    if (path === '/api/v1/products/p') return sendJson(res, 200, PRODUCT, h);
    if (path === '/api/v1/wallets') return sendJson(res, 200, { data: [{ currency: 'USD', available: '1000.00' }] }, h);
    return sendJson(res, 404, { error: { name: 'NotFound', code: 'NOT_FOUND', message: 'no' } }, h);
  });
});
afterAll(() => server.close());

describe('bulk totals of orders whose total is a numeric string', () => {
  it('are counted in the summary, and again on a resume that orders nothing', async () => {
    const dir = tempConfigDir();
    const file = join(dir, 'rows.csv');
    writeFileSync(file, 'product_id,denomination,quantity,reference\np,25,1,r-1\np,25,1,r-2\np,25,1,r-3\n');
    const run = () =>
      runCli(['orders', 'create', '--from', file, '--yes', '--json'], {
        configDir: dir,
        env: cliEnvFor(server),
        overrides: { clock: quickClock() },
      });
    const first = await run();
    expect(first.code, first.stderr).toBe(0);
    expect(placed).toBe(3);
    expect(JSON.parse(first.stdout)).toMatchObject({ ordered: 3, totals: [{ currency: 'USD', orders: 3, total_amount: 75 }] });
    const again = await run();
    expect(again.code, again.stderr).toBe(0);
    expect(placed).toBe(3);
    expect(JSON.parse(again.stdout)).toMatchObject({ skipped: 3, totals: [{ currency: 'USD', orders: 3, total_amount: 75 }] });
  });
});
