/**
 * A server without the secure code endpoint (404) whose order lists its vouchers as bare
 * codes (`"vouchers": ["X7K2-…", …]`): `orders codes` reads them from the order, as it reads
 * voucher records there and a bare list from the secure endpoint, and says so; masked unless
 * --reveal, in full in --codes-out. A list of voucher ids is no list of codes.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { cliEnvFor, sendError, sendJson, startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.js';

const CODES = ['X7K2-Q9ZT-1111-2222', 'X7K2-Q9ZT-3333-4444'];
const ORDER = {
  order_id: 'ord_bare',
  status: 'DELIVERED',
  items: [{ product_id: 'A', denomination: 10, quantity: 2 }],
  total_amount: 20,
  currency: 'USD',
  vouchers: CODES,
};

let server: LoopbackServer;
let env: Record<string, string>;

beforeAll(async () => {
  server = await startLoopbackServer((req, res) => {
    if (req.target.endsWith('/vouchers')) return sendError(res, 404, 'NotFound', 'NOT_FOUND', 'no such route');
    if (req.target === '/api/v1/orders/ord_bare') return sendJson(res, 200, ORDER);
    if (req.target === '/api/v1/orders/ord_ids') return sendJson(res, 200, { ...ORDER, order_id: 'ord_ids', vouchers: ['vch_1', 'vch_2'] });
    res.writeHead(404);
    res.end();
  });
  env = cliEnvFor(server);
});
afterAll(async () => {
  await server.close();
});

describe('orders codes: an order that lists its vouchers as bare codes', () => {
  it('prints them masked, from the order, and says where they came from', async () => {
    const r = await runCli(['orders', 'codes', 'ord_bare'], { env });
    expect(r.code, r.stderr).toBe(0);
    for (const c of CODES) expect(r.stdout + r.stderr).not.toContain(c);
    expect(r.stdout).toContain('2222');
    expect(r.stdout).toContain('4444');
    expect(r.stderr).toContain('the codes come from the order itself');
  });

  it('--json: each as {"code": …}, masked', async () => {
    const r = await runCli(['orders', 'codes', 'ord_bare', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    const body = JSON.parse(r.stdout);
    expect(body.data).toHaveLength(2);
    for (const c of CODES) expect(r.stdout).not.toContain(c);
  });

  it('--reveal shows them', async () => {
    const r = await runCli(['orders', 'codes', 'ord_bare', '--reveal'], { env });
    expect(r.code, r.stderr).toBe(0);
    for (const c of CODES) expect(r.stdout).toContain(c);
  });

  it('--codes-out writes them in full', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'codes-')), 'codes.csv');
    const r = await runCli(['orders', 'codes', 'ord_bare', '--codes-out', file], { env });
    expect(r.code, r.stderr).toBe(0);
    const text = readFileSync(file, 'utf8');
    for (const c of CODES) expect(text).toContain(c);
  });

  it('a list of voucher ids is not read as codes', async () => {
    const r = await runCli(['orders', 'codes', 'ord_ids', '--reveal'], { env });
    expect(r.code).not.toBe(0);
    expect(r.stdout).not.toContain('vch_1');
  });
});
