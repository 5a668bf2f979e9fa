/**
 * A server that wraps each single resource in one key (`{"data": {…}}`, `{"order": {…}}`):
 * the document does not show the bodies, so every command that reads one order or product
 * reads it from inside the wrapper, and says the answer differs (one contract warning).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempConfigDir, type CliResult } from '../helpers/run-cli.js';
import { quickClock } from '../helpers/sandbox.js';
import { sendJson, startLoopbackServer, type LoopbackServer, cliEnvFor } from '../helpers/loopback-server.js';

const TRACE = 'c'.repeat(32);
const CODE = 'SECRETCODE-AAAA-1111';
const order = (id: string, status: string, withCode = false) => ({
  order_id: id,
  status,
  total_amount: 25,
  currency: 'USD',
  fulfilled_from: status === 'DELIVERED' ? 'cache' : null,
  vouchers:
    status === 'DELIVERED'
      ? [{ voucher_id: 'vch_1', product_id: 'A', denomination: 25, expiry: null, status: 'ISSUED', ...(withCode ? { code: CODE } : {}) }]
      : [],
});

const RECON_SUMMARY = { orders_total: 12, vouchers_allocated: 30, matched: 29, drifted: 1, unmatched: 0 };

let server: LoopbackServer;
let env: Record<string, string>;
const cli = (argv: string[]): Promise<CliResult> => runCli(argv, { env, overrides: { clock: quickClock() } });

beforeAll(async () => {
  server = await startLoopbackServer((req, res) => {
    const h = { 'x-trace-id': TRACE };
    const path = req.target.split('?')[0]!;
    if (req.method === 'POST' && path === '/api/v1/orders') {
      const body = JSON.parse(req.body) as { reference?: string; items: { product_id: string }[] };
      if (body.items[0]!.product_id === 'slow') return sendJson(res, 202, { order: order('ord_981234', 'PENDING') }, h);
      if (body.reference) return sendJson(res, 201, { data: order(`ord_${body.reference}`, 'DELIVERED') }, h);
      return sendJson(res, 201, { data: order('ord_777', 'DELIVERED', true) }, h);
    }
    // The order wrapped in "data", codes only as the order's vouchers (no secure code endpoint).
    if (req.method === 'GET' && path === '/api/v1/orders/ord_981234')
      return sendJson(res, 200, { data: order('ord_981234', 'DELIVERED', true) }, h);
    if (req.method === 'GET' && path === '/api/v1/wallets')
      return sendJson(res, 200, { data: [{ currency: 'USD', available: 1000, reserved: 0, updated_at: '2026-01-01T00:00:00Z' }] }, h);
    if (req.method === 'GET' && path === '/api/v1/reconciliation/2026-11-21')
      return sendJson(
        res,
        200,
        { data: { date: '2026-11-21', summary: RECON_SUMMARY, drifts: [], generated_at: '2026-11-22T01:00:00Z' } },
        h,
      );
    if (req.method === 'GET' && path === '/api/v1/products/A')
      return sendJson(res, 200, { data: { product_id: 'A', name: 'Alpha', currency: 'USD', denominations: [25, 50] } }, h);
    res.writeHead(404, h);
    res.end();
  });
  env = cliEnvFor(server);
});
afterAll(async () => {
  await server.close();
});

const gets = () => server.requests.filter((r) => r.method === 'GET' && r.target === '/api/v1/orders/ord_981234').length;

describe('a single resource wrapped in one key is read from inside', () => {
  it('orders create --wait: a 202 {"order": {…}} is followed until the order is delivered', async () => {
    const before = gets();
    const r = await cli(['orders', 'create', '--product', 'slow', '--denomination', '25', '--wait', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(gets() - before).toBeGreaterThan(0);
    const shown = JSON.parse(r.stdout) as { order_id: string; status: string };
    expect(shown).toMatchObject({ order_id: 'ord_981234', status: 'DELIVERED' });
    expect(r.stderr).toContain('the order is under \\"order\\"');
    const text = await cli(['orders', 'create', '--product', 'slow', '--denomination', '25']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stderr).not.toContain('names no order id');
    expect(text.stderr).toContain('Order ord_981234 accepted: PENDING');
    expect(text.stderr).toMatch(/^Warning: POST \/orders \(createOrder\) .*the order is under "order", not at the top of the body/m);
  });

  it('orders create --codes-out: the codes of a 201 {"data": {…}} are written, masked on screen', async () => {
    const file = join(tempConfigDir(), 'codes.csv');
    const r = await cli(['orders', 'create', '--product', 'A', '--denomination', '25', '--codes-out', file]);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(file, 'utf8')).toContain(`ord_777,vch_1,A,25,,${CODE},`);
    expect(r.stdout + r.stderr).not.toContain(CODE);
    expect(r.stdout).toMatch(/^status\tDELIVERED$/m);
  });

  it('orders get, wait and codes read a GET {"data": {…}}', async () => {
    const get = await cli(['orders', 'get', 'ord_981234']);
    expect(get.code, get.stderr).toBe(0);
    expect(get.stdout).toMatch(/^status\tDELIVERED$/m);
    expect(get.stdout).not.toMatch(/^data\t/m);
    expect(get.stderr).toContain('the order is under "data"');
    const wait = await cli(['orders', 'wait', 'ord_981234']);
    expect(wait.code, wait.stderr).toBe(0);
    const file = join(tempConfigDir(), 'codes.csv');
    const codes = await cli(['orders', 'codes', 'ord_981234', '--codes-out', file]);
    expect(codes.code, codes.stderr).toBe(0);
    expect(codes.stderr).toContain('Wrote 1 code');
    expect(readFileSync(file, 'utf8')).toContain(CODE);
  });

  it('orders create --from --results: each row gets the order id and status from inside "data"', async () => {
    const file = join(tempConfigDir(), 'bulk.csv');
    writeFileSync(file, 'product_id,denomination,quantity,reference\nA,25,1,5\nA,25,1,6\n');
    const results = join(tempConfigDir(), 'res.csv');
    const r = await cli(['orders', 'create', '--from', file, '--results', results]);
    expect(r.code, r.stderr).toBe(0);
    const rows = readFileSync(results, 'utf8').trim().split('\n');
    expect(rows.slice(1).map((l) => l.split(',').slice(0, 3).join(','))).toEqual(['2,ord_5,DELIVERED', '3,ord_6,DELIVERED']);
  });

  it('products get shows the product inside {"data": {…}}, the wrapper named in the warning', async () => {
    const r = await cli(['products', 'get', 'A']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^product_id\tA$/m);
    expect(r.stdout).toMatch(/^name\tAlpha$/m);
    expect(r.stdout).not.toMatch(/^data\t/m);
    expect(r.stderr).toContain('the product is under "data"');
    expect(r.stderr).not.toContain('product_id: missing');
  });

  it('reconciliation get shows the report inside {"data": {…}}, the wrapper named in the warning', async () => {
    const r = await cli(['reconciliation', 'get', '2026-11-21']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^date\t2026-11-21$/m);
    expect(r.stdout).toMatch(/^matched\t29$/m);
    expect(r.stdout).not.toMatch(/^data\t/m);
    expect(r.stderr).toContain('the answer is under "data", not at the top of the body');
    expect(r.stderr).not.toContain('summary: missing');
    const json = await cli(['reconciliation', 'get', '2026-11-21', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ date: '2026-11-21', summary: RECON_SUMMARY });
  });
});
