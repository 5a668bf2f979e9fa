/**
 * A server that names its fields in camelCase (`orderId`, `productId`, `voucherId`,
 * `expiresAt`, `createdAt`): each is read as its snake_case twin when that is absent, so the
 * order and its vouchers show their ids, product and expiry, and the codes file gets them.
 * Codes stay masked unless revealed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { sendJson, startLoopbackServer, type LoopbackServer, cliEnvFor } from '../helpers/loopback-server.js';

const CODE = 'CAMEL-CODE-98765432';
const VOUCHER = {
  voucherId: 'vch_camel1',
  productId: 'amazon-us',
  denomination: 25,
  expiresAt: '2027-01-31',
  status: 'ISSUED',
  code: CODE,
};
const ORDER = {
  orderId: 'ord_camel',
  status: 'DELIVERED',
  totalAmount: 25,
  currency: 'USD',
  createdAt: '2026-03-01T10:00:00Z',
  items: [{ productId: 'amazon-us', denomination: 25, quantity: 1 }],
  vouchers: [VOUCHER],
};

let server: LoopbackServer;
let env: Record<string, string>;

beforeAll(async () => {
  server = await startLoopbackServer((req, res) => {
    const h = { 'x-trace-id': 'e'.repeat(32) };
    if (req.method === 'GET' && req.target === '/api/v1/orders/ord_camel') return sendJson(res, 200, ORDER, h);
    if (req.method === 'GET' && req.target === '/api/v1/orders/ord_camel/vouchers') return sendJson(res, 200, { data: [VOUCHER] }, h);
    if (req.method === 'GET' && req.target.split('?')[0] === '/api/v1/orders')
      return sendJson(res, 200, { data: [ORDER], has_more: false }, h);
    res.writeHead(404, h);
    res.end();
  });
  env = cliEnvFor(server);
});
afterAll(async () => {
  await server.close();
});

describe('fields in camelCase are read as their snake_case twins', () => {
  it('orders get shows the vouchers with their id, product and expiry, the items with their product; the code masked', async () => {
    const r = await runCli(['orders', 'get', 'ord_camel'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('total_amount\t25.00 USD');
    expect(r.stdout).toContain('created_at\t2026-03-01 10:00:00Z');
    expect(r.stdout).toMatch(/^# items\nproduct_id\tdenomination\tquantity\namazon-us\t25\t1$/m);
    expect(r.stdout).toMatch(
      /^# vouchers\nvoucher_id\tproduct_id\tdenomination\tstatus\texpiry\tcode\nvch_camel1\tamazon-us\t25\tISSUED\t2027-01-31\t•+5432$/m,
    );
    // Read as its twin, a field is not shown again under its own name.
    expect(r.stdout).not.toMatch(/^(orderId|totalAmount|createdAt)\t/m);
    expect(r.stdout + r.stderr).not.toContain(CODE);
  });

  it('orders list shows the order id, total and time', async () => {
    const r = await runCli(['orders', 'list'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^ord_camel\tDELIVERED\t25\.00 USD\t1\t\t\t2026-03-01 10:00:00Z$/m);
  });

  it('orders codes writes the voucher id, product and expiry to --codes-out and shows them, masked', async () => {
    const file = join(tempConfigDir(), 'camel.csv');
    const r = await runCli(['orders', 'codes', 'ord_camel', '--codes-out', file], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(file, 'utf8')).toContain(`ord_camel,vch_camel1,amazon-us,25,2027-01-31,${CODE},`);
    expect(r.stdout).toMatch(/^vch_camel1\tamazon-us\t25\t2027-01-31\t•+5432$/m);
    expect(r.stdout + r.stderr).not.toContain(CODE);
  });

  it('--json --fields finds each field under its camelCase twin: orders codes, orders get, orders list', async () => {
    const codes = await runCli(['orders', 'codes', 'ord_camel', '--json', '--fields', 'voucher_id,product_id,denomination'], { env });
    expect(codes.code, codes.stderr).toBe(0);
    expect((JSON.parse(codes.stdout) as { data: unknown[] }).data).toEqual([
      { voucher_id: 'vch_camel1', product_id: 'amazon-us', denomination: 25 },
    ]);
    const ndjson = await runCli(['orders', 'codes', 'ord_camel', '-o', 'ndjson', '--fields', 'product_id'], { env });
    expect(ndjson.code, ndjson.stderr).toBe(0);
    expect(ndjson.stdout).toBe('{"product_id":"amazon-us"}\n');
    const get = await runCli(['orders', 'get', 'ord_camel', '--json', '--fields', 'order_id,total_amount'], { env });
    expect(get.code, get.stderr).toBe(0);
    expect(JSON.parse(get.stdout)).toEqual({ order_id: 'ord_camel', total_amount: 25 });
    const list = await runCli(['orders', 'list', '--json', '--fields', 'order_id,created_at'], { env });
    expect(list.code, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout)).toEqual([{ order_id: 'ord_camel', created_at: '2026-03-01T10:00:00Z' }]);
    // The code stays masked under --fields too.
    const code = await runCli(['orders', 'codes', 'ord_camel', '--json', '--fields', 'code'], { env });
    expect(code.stdout).not.toContain(CODE);
  });
});
