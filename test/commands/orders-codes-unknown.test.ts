/**
 * An order that says it was delivered, its vouchers listed without their codes, on a server
 * whose secure code endpoint answers 404 for it: `orders create` prints the order before the
 * error (its id above all), and the error says the codes endpoint does not know it and to ask
 * support with the trace ID; never to run `orders codes`, which meets the same 404.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { sendError, sendJson, startLoopbackServer, type LoopbackServer, cliEnvFor } from '../helpers/loopback-server.js';

const voucher = { voucher_id: 'vch_1', product_id: 'p', denomination: 25, expiry: null, status: 'ISSUED', code_last4: '1234' };
const order = (status: string, vouchers: unknown[]) => ({
  order_id: 'ord_1',
  status,
  items: [{ product_id: 'p', denomination: 25, quantity: 1 }],
  total_amount: 25,
  currency: 'USD',
  reference: null,
  fulfilled_from: status === 'DELIVERED' ? 'vendor' : null,
  created_at: '2026-11-22T10:00:00Z',
  updated_at: '2026-11-22T10:00:00Z',
  vouchers,
  timeline: [],
});
const CODES_TRACE = 'c'.repeat(32);

let server: LoopbackServer;
let env: Record<string, string>;

beforeAll(async () => {
  server = await startLoopbackServer((req, res) => {
    const trace = { 'x-trace-id': 'a'.repeat(32) };
    if (req.method === 'POST' && req.target === '/api/v1/orders') {
      // A cache-hit answered without codes, or an order accepted PENDING (followed with --wait).
      const product = (JSON.parse(req.body) as { items: { product_id: string }[] }).items[0]!.product_id;
      return product === 'hit' ? sendJson(res, 201, order('DELIVERED', [voucher]), trace) : sendJson(res, 202, order('PENDING', []), trace);
    }
    if (req.method === 'GET' && req.target === '/api/v1/orders/ord_1') return sendJson(res, 200, order('DELIVERED', [voucher]), trace);
    return sendError(res, 404, 'NotFound', 'NOT_FOUND', 'Not found', { 'x-trace-id': CODES_TRACE });
  });
  env = cliEnvFor(server);
});
afterAll(async () => {
  await server.close();
});

const MESSAGE =
  'order ord_1 is DELIVERED, but its codes cannot be fetched: the secure code endpoint (GET /orders/ord_1/vouchers) answered 404 for it (it does not know the order, or this server does not offer that endpoint), and the order itself (GET /orders/ord_1) lists its vouchers without their codes';

describe('a delivered order whose codes the secure endpoint does not know', () => {
  for (const [name, argv] of [
    ['--wait --codes-out', ['--product', 'async', '--wait', '--codes-out', 'FILE']],
    ['--wait --reveal', ['--product', 'async', '--wait', '--reveal']],
    ['a cache-hit with --codes-out', ['--product', 'hit', '--codes-out', 'FILE']],
  ] as const) {
    it(`orders create ${name}: the order printed first, then exit 4 saying to ask support with the trace ID`, async () => {
      const file = join(tempConfigDir(), 'codes.csv');
      const r = await runCli(['orders', 'create', '--denomination', '25', ...argv.map((a) => (a === 'FILE' ? file : a))], { env });
      expect(r.code, r.stderr).toBe(4);
      expect(r.stdout).toContain('order_id\tord_1');
      expect(r.stderr).toContain(`Error: ${MESSAGE}`);
      expect(r.stderr).toContain(
        `hint      do not order again: ask the service's support for the codes of order ord_1, quoting the trace ID ${CODES_TRACE}`,
      );
      expect(r.stderr).not.toContain('orders codes');
      expect(existsSync(file)).toBe(false);
    });
  }

  it('orders create --json: the order on stdout, the JSON error names it and CODES_NOT_FOUND', async () => {
    const r = await runCli(['orders', 'create', '--product', 'async', '--denomination', '25', '--wait', '--reveal', '--json'], { env });
    expect(r.code, r.stderr).toBe(4);
    expect((JSON.parse(r.stdout) as { order_id: string }).order_id).toBe('ord_1');
    const error = JSON.parse(r.stderr.trim().split('\n').at(-1)!) as Record<string, unknown>;
    expect(error).toMatchObject({ error: { code: 'CODES_NOT_FOUND', message: MESSAGE }, order_id: 'ord_1', trace_id: CODES_TRACE });
    expect(error.idempotency_key).toEqual(expect.any(String));
  });

  it('orders codes says the same, not that it should be run again', async () => {
    const file = join(tempConfigDir(), 'codes.csv');
    const r = await runCli(['orders', 'codes', 'ord_1', '--codes-out', file], { env });
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toContain(`Error: ${MESSAGE}`);
    expect(r.stderr).toContain(`hint      ask the service's support for the codes of order ord_1, quoting the trace ID ${CODES_TRACE}`);
    expect(existsSync(file)).toBe(false);
  });
});

describe('orders create --codes-out: an order whose codes come for only some of its vouchers', () => {
  it('writes those it has, says how many came without one, exit 8', async () => {
    const two = { ...order('DELIVERED', [voucher, { ...voucher, voucher_id: 'vch_2' }]), order_id: 'ord_2' };
    const partial = await startLoopbackServer((req, res) => {
      if (req.method === 'POST') return sendJson(res, 201, two);
      if (req.target === '/api/v1/orders/ord_2/vouchers')
        return sendJson(res, 200, {
          order_id: 'ord_2',
          data: [{ voucher_id: 'vch_1', product_id: 'p', denomination: 25, expiry: null, code: 'ONLY-CODE-1', pin: null }],
        });
      if (req.target === '/api/v1/orders/ord_2') return sendJson(res, 200, two);
      return sendError(res, 404, 'NotFound', 'NOT_FOUND', 'Not found');
    });
    try {
      const file = join(tempConfigDir(), 'codes.csv');
      const r = await runCli(['orders', 'create', '--product', 'p', '--denomination', '25', '--quantity', '2', '--codes-out', file], {
        env: cliEnvFor(partial),
      });
      expect(r.code, r.stderr).toBe(8);
      expect(r.stdout).toContain('order_id\tord_2');
      expect(r.stderr).toContain('Wrote 1 code to');
      expect(r.stderr).toContain(
        `1 of the 2 vouchers issued to order ord_2 came without a code this version of vouchers reads: ${file} holds the other 1`,
      );
      expect(r.stderr).not.toContain('ONLY-CODE-1');
      expect(existsSync(file)).toBe(true);
    } finally {
      await partial.close();
    }
  });
});
