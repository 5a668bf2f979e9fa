/**
 * A voucher status of ours in another case (`issued`): the voucher is issued, as `ISSUED`
 * is. orders create --codes-out and --reveal fetch its code; the answer is no unknown value.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { sendJson, startLoopbackServer, type LoopbackServer, cliEnvFor } from '../helpers/loopback-server.js';

const CODE = 'LOWER-CODE-99994321';
const ORDER = {
  order_id: 'ord_low',
  status: 'DELIVERED',
  items: [{ product_id: 'A', denomination: 10, quantity: 1 }],
  total_amount: 10,
  currency: 'USD',
  reference: null,
  fulfilled_from: 'cache',
  created_at: '2026-03-01T10:00:00Z',
  updated_at: '2026-03-01T10:00:00Z',
  vouchers: [{ voucher_id: 'vch_1', product_id: 'A', denomination: 10, expiry: null, status: 'issued', code_last4: '4321' }],
  timeline: [],
};

let server: LoopbackServer;
let env: Record<string, string>;

beforeAll(async () => {
  server = await startLoopbackServer((req, res) => {
    if (req.method === 'POST' && req.target === '/api/v1/orders') return sendJson(res, 201, ORDER);
    if (req.method === 'GET' && req.target === '/api/v1/orders/ord_low/vouchers')
      return sendJson(res, 200, {
        order_id: 'ord_low',
        data: [{ voucher_id: 'vch_1', product_id: 'A', denomination: 10, expiry: null, code: CODE, pin: null }],
      });
    res.writeHead(404);
    res.end();
  });
  env = cliEnvFor(server);
});
afterAll(async () => {
  await server.close();
});

describe('a voucher status in another case', () => {
  it('orders create --codes-out fetches and writes the code of a voucher "issued"; no warning', async () => {
    const file = join(tempConfigDir(), 'low.csv');
    const r = await runCli(['orders', 'create', '--product', 'A', '--denomination', '10', '--codes-out', file], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('No codes written');
    expect(r.stderr).not.toContain('Warning');
    expect(existsSync(file)).toBe(true);
    expect(readFileSync(file, 'utf8')).toContain(`ord_low,vch_1,A,10,,${CODE},`);
    expect(r.stdout + r.stderr).not.toContain(CODE);
  });

  it('orders create --reveal shows it', async () => {
    const r = await runCli(['orders', 'create', '--product', 'A', '--denomination', '10', '--reveal'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(CODE);
  });
});
