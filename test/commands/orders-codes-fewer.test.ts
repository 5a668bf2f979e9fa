/**
 * `orders codes ID` for an order that says it was DELIVERED, whose secure code endpoint lists
 * fewer codes than the order's items ordered: never a success that passes for every code of
 * the order. The codes listed are shown (masked) or written, the error says how many of how
 * many, and the exit code is 8 (NO_CODES_FOUND), as `orders create --codes-out` ends when
 * codes are missing; the advice is not to order again.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { sendError, sendJson, startLoopbackServer, type LoopbackServer, cliEnvFor } from '../helpers/loopback-server.js';

const TRACE = 'e'.repeat(32);
const voucher = (n: number) => ({ voucher_id: `vch_${n}`, product_id: 'p', denomination: 25, expiry: null, status: 'ISSUED' });
const order = {
  order_id: 'ord_2',
  status: 'DELIVERED',
  items: [{ product_id: 'p', denomination: 25, quantity: 2 }],
  total_amount: 50,
  currency: 'USD',
  reference: null,
  fulfilled_from: 'vendor',
  created_at: '2026-11-22T10:00:00Z',
  updated_at: '2026-11-22T10:00:00Z',
  vouchers: [voucher(1), voucher(2)],
  timeline: [],
};
const CODE = 'ONLY-ONE-CODE-7781';

let server: LoopbackServer;
let env: Record<string, string>;

beforeAll(async () => {
  server = await startLoopbackServer((req, res) => {
    const trace = { 'x-trace-id': TRACE };
    if (req.method === 'GET' && req.target === '/api/v1/orders/ord_2') return sendJson(res, 200, order, trace);
    if (req.method === 'GET' && req.target === '/api/v1/orders/ord_2/vouchers')
      return sendJson(
        res,
        200,
        { order_id: 'ord_2', data: [{ voucher_id: 'vch_1', product_id: 'p', denomination: 25, expiry: null, code: CODE, pin: null }] },
        trace,
      );
    return sendError(res, 404, 'NotFound', 'NOT_FOUND', 'Not found', trace);
  });
  env = cliEnvFor(server);
});
afterAll(async () => {
  await server.close();
});

describe('a DELIVERED order whose code endpoint lists fewer codes than it ordered', () => {
  it('orders codes: the code shown masked, then exit 8 naming 1 of 2 codes and the trace ID', async () => {
    const r = await runCli(['orders', 'codes', 'ord_2'], { env });
    expect(r.code, r.stderr).toBe(8);
    expect(r.stdout).toContain('vch_1');
    expect(r.stdout + r.stderr).not.toContain(CODE);
    expect(r.stderr).toContain('1 of 2 codes: order ord_2 is DELIVERED');
    expect(r.stderr).toContain(TRACE);
    expect(r.stderr).toMatch(/do not order again/i);
  });

  it('orders codes --codes-out: the one code written, exit 8, the file not said to be all of them', async () => {
    const file = join(tempConfigDir(), 'codes.csv');
    const r = await runCli(['orders', 'codes', 'ord_2', '--codes-out', file], { env });
    expect(r.code, r.stderr).toBe(8);
    expect(readFileSync(file, 'utf8')).toContain(CODE);
    expect(r.stderr).toContain(`1 of 2 codes: order ord_2 is DELIVERED`);
    expect(r.stderr).toContain(file);
  });
});
