/**
 * The items line of an order and the vouchers column of a list count only what the server
 * sent: an order whose items are null is not "0 items, 0 vouchers" beside the vouchers the
 * same answer lists.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/run-cli.js';
import { sendJson, startLoopbackServer, type LoopbackServer, cliEnvFor } from '../helpers/loopback-server.js';

const voucher = (n: number) => ({ voucher_id: `vch_${n}`, product_id: 'A', denomination: 25, expiry: null, status: 'ISSUED' });
const base = { status: 'DELIVERED', total_amount: 50, currency: 'USD', fulfilled_from: 'cache', created_at: '2026-11-22T10:00:00Z' };
const ORDERS: Record<string, Record<string, unknown>> = {
  ord_nullitems: { order_id: 'ord_nullitems', ...base, items: null, vouchers: [voucher(1), voucher(2)] },
  ord_noquantity: {
    order_id: 'ord_noquantity',
    ...base,
    items: [{ product_id: 'A', denomination: 25 }],
    vouchers: [voucher(3), voucher(4)],
  },
  ord_counted: { order_id: 'ord_counted', ...base, items: [{ product_id: 'A', denomination: 25, quantity: 2 }], vouchers: [] },
  ord_unknown: { order_id: 'ord_unknown', ...base, items: null, vouchers: null },
  // Items named otherwise than the contract guessed: the parts not read are not known.
  ord_othernames: {
    order_id: 'ord_othernames',
    ...base,
    items: [
      { product_id: 'A', amount: 25, quantity: 2 },
      { sku: 'B', denomination: 10 },
    ],
    vouchers: [],
  },
};

let server: LoopbackServer;
let env: Record<string, string>;
const cli = (argv: string[]): Promise<CliResult> => runCli(argv, { env });

beforeAll(async () => {
  server = await startLoopbackServer((req, res) => {
    const h = { 'x-trace-id': 'd'.repeat(32) };
    const path = req.target.split('?')[0]!;
    if (req.method === 'GET' && path === '/api/v1/orders') return sendJson(res, 200, { data: Object.values(ORDERS), next_cursor: null }, h);
    const order = ORDERS[path.replace('/api/v1/orders/', '')];
    if (req.method === 'GET' && order) return sendJson(res, 200, order, h);
    res.writeHead(404, h);
    res.end();
  });
  env = cliEnvFor(server);
});
afterAll(async () => {
  await server.close();
});

const itemsLine = (r: CliResult) => r.stdout.split('\n').find((l) => l.startsWith('items\t'));

describe('counting the vouchers of an order', () => {
  it('orders get: items null counts the vouchers listed; items that are there are counted', async () => {
    const nullItems = await cli(['orders', 'get', 'ord_nullitems']);
    expect(nullItems.code).toBe(0);
    expect(itemsLine(nullItems)).toBe('items\t2 vouchers');
    // An item without a quantity is one voucher, as everywhere the order is read.
    const noQuantity = await cli(['orders', 'get', 'ord_noquantity']);
    expect(itemsLine(noQuantity)).toBe('items\t1 item, 1 voucher');
    const counted = await cli(['orders', 'get', 'ord_counted']);
    expect(itemsLine(counted)).toBe('items\t1 item, 2 vouchers');
    const unknown = await cli(['orders', 'get', 'ord_unknown']);
    expect(itemsLine(unknown)).toBe('items\t');
  });

  it('orders list: the vouchers column counts the listed vouchers when no items are known, and is empty when neither is', async () => {
    const r = await cli(['orders', 'list', '--output', 'csv', '--fields', 'order_id,vouchers']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n')).toEqual([
      'order_id,vouchers',
      'ord_nullitems,2',
      'ord_noquantity,1',
      'ord_counted,2',
      'ord_unknown,',
      'ord_othernames,3',
    ]);
  });

  it('orders list: an item whose product or denomination is not read shows ? for it, never "undefined"', async () => {
    const r = await cli(['orders', 'list', '--output', 'csv', '--fields', 'order_id,items']);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain('undefined');
    expect(r.stdout.trim().split('\n')).toContain('ord_othernames,A:?×2; ?:10×1');
    expect(r.stdout.trim().split('\n')).toContain('ord_counted,A:25×2');
  });
});
