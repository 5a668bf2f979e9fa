/**
 * An order answer that matches the contract may still carry fields of the server's own, one
 * of them named as a secret (`webhook_secret`, a voucher's `client_secret`): masked in
 * orders get, wait and list, plain, with --fields and as JSON, as it is in an answer of
 * another shape and in vouchers api. --reveal shows codes, never secrets.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/run-cli.js';
import { sendJson, startLoopbackServer, type LoopbackServer, cliEnvFor } from '../helpers/loopback-server.js';

const SECRETS = ['ORDER-SECRET-11112222', 'VOUCHER-SECRET-33334444'];
const ORDER = {
  order_id: 'ord_secret',
  status: 'DELIVERED',
  items: [{ product_id: 'A', denomination: 10, quantity: 1 }],
  total_amount: 10,
  currency: 'USD',
  reference: null,
  fulfilled_from: 'cache',
  created_at: '2026-03-01T10:00:00Z',
  updated_at: '2026-03-01T10:00:01Z',
  vouchers: [
    {
      voucher_id: 'vch_1',
      product_id: 'A',
      denomination: 10,
      expiry: null,
      status: 'ISSUED',
      code_last4: '7890',
      client_secret: SECRETS[1],
    },
  ],
  timeline: [{ status: 'DELIVERED', at: '2026-03-01T10:00:01Z', note: null }],
  webhook_secret: SECRETS[0],
};

let server: LoopbackServer;
let env: Record<string, string>;
const leaked = (r: CliResult) => SECRETS.filter((s) => (r.stdout + r.stderr).includes(s));

beforeAll(async () => {
  server = await startLoopbackServer((req, res) => {
    if (req.method === 'GET' && req.target === '/api/v1/orders/ord_secret') return sendJson(res, 200, ORDER);
    if (req.method === 'GET' && req.target.split('?')[0] === '/api/v1/orders')
      return sendJson(res, 200, { data: [ORDER], has_more: false, next_cursor: null });
    res.writeHead(404);
    res.end();
  });
  env = cliEnvFor(server);
});
afterAll(async () => {
  await server.close();
});

describe("secrets among an order's fields stay masked", () => {
  it('the answer matches the contract: no warning', async () => {
    const r = await runCli(['orders', 'get', 'ord_secret'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('Warning');
  });

  for (const argv of [
    ['orders', 'get', 'ord_secret'],
    ['orders', 'get', 'ord_secret', '--json'],
    ['orders', 'get', 'ord_secret', '--fields', 'webhook_secret', '--json'],
    ['orders', 'wait', 'ord_secret', '--json'],
    ['orders', 'list'],
    ['orders', 'list', '--json'],
    ['orders', 'list', '--all', '--output', 'ndjson'],
    ['orders', 'list', '--fields', 'order_id,webhook_secret'],
  ]) {
    it(argv.slice(1).join(' '), async () => {
      const r = await runCli(argv, { env });
      expect(r.code, r.stderr).toBe(0);
      expect(leaked(r)).toEqual([]);
    });
  }

  it('the secret is shown masked, where the field is', async () => {
    const r = await runCli(['orders', 'get', 'ord_secret', '--json'], { env });
    const shown = JSON.parse(r.stdout) as typeof ORDER;
    expect(shown.webhook_secret).toBe('ORD…222');
    expect(shown.vouchers[0]!.client_secret).toBe('VOU…444');
  });
});
