/**
 * A server that sends an order's total as an object with its currency (`total: {amount,
 * currency}`, `total: {value, currency}`, `total_amount: {amount, currency}`), the money as a
 * string or a number: `orders get`, `orders list` and `orders create` show it. Its total used
 * to be shown empty.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/run-cli.js';
import { sendJson, startLoopbackServer, type LoopbackServer, cliEnvFor } from '../helpers/loopback-server.js';

const order = (id: string, total: Record<string, unknown>) => ({ order_id: id, status: 'DELIVERED', fulfilled_from: 'cache', ...total });
/** Each order by its id: none sends `currency` at the top, only in its total. */
const ORDERS: Record<string, unknown> = {
  ord_amount: order('ord_amount', { total: { amount: '25.00', currency: 'USD' } }),
  ord_value: order('ord_value', { total: { value: 1250, currency: 'JPY' } }),
  ord_nested: order('ord_nested', { total_amount: { amount: 7.5, currency: 'EUR' } }),
};
const SHOWN: Record<string, string> = { ord_amount: '25.00 USD', ord_value: '1250 JPY', ord_nested: '7.50 EUR' };

let server: LoopbackServer;
let env: Record<string, string>;
const cli = (argv: string[]): Promise<CliResult> => runCli(argv, { env });

beforeAll(async () => {
  server = await startLoopbackServer((req, res) => {
    const h = { 'x-trace-id': 'f'.repeat(32) };
    const id = /^\/api\/v1\/orders\/([^/?]+)$/.exec(req.target)?.[1];
    if (req.method === 'GET' && id !== undefined && id in ORDERS) return sendJson(res, 200, ORDERS[id], h);
    if (req.method === 'GET' && req.target.startsWith('/api/v1/orders?')) return sendJson(res, 200, { data: Object.values(ORDERS) }, h);
    if (req.method === 'GET' && req.target === '/api/v1/orders') return sendJson(res, 200, { data: Object.values(ORDERS) }, h);
    if (req.method === 'POST' && req.target === '/api/v1/orders') return sendJson(res, 201, ORDERS.ord_amount, h);
    sendJson(res, 404, { error: { name: 'NotFound', code: 'NOT_FOUND', message: 'not found' } }, h);
  });
  env = cliEnvFor(server);
});
afterAll(async () => {
  await server.close();
});

describe('a total sent as an object with its currency', () => {
  for (const id of Object.keys(ORDERS)) {
    it(`orders get ${id}: shows ${SHOWN[id]}`, async () => {
      const r = await cli(['orders', 'get', id]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain(`total_amount\t${SHOWN[id]}\n`);
    });
  }

  it('orders list: each total in its currency', async () => {
    const r = await cli(['orders', 'list']);
    expect(r.code, r.stderr).toBe(0);
    for (const id of Object.keys(ORDERS)) expect(r.stdout.split('\n').find((l) => l.startsWith(`${id}\t`))).toContain(`\t${SHOWN[id]}\t`);
  });

  it('orders create: the placed order with its total', async () => {
    const r = await cli(['orders', 'create', '--product', 'AMZ', '--denomination', '25']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('total_amount\t25.00 USD\n');
  });
});
