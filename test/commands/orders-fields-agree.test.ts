/**
 * `--fields` on an order: the plain view takes any field the order has, as --json does (a
 * server's own `webhook_secret`, `currency`), its value masked as --json masks it (secrets
 * always, codes unless --reveal). After orders create or cancel, a field checked before the
 * write that the answer does not show is printed empty: never an "unknown field" error
 * (exit 2) once the order was placed, which a script would retry under a fresh key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/run-cli.js';
import { quickClock } from '../helpers/sandbox.js';
import { sendJson, startLoopbackServer, type LoopbackServer, cliEnvFor } from '../helpers/loopback-server.js';
import { contractOrder } from '../helpers/contract-order.js';

const ORDER = 'ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CF';
const SECRET = 'whsec_ORDERSECRET1234567890';
const CLAIM = 'CLAIM-LEAK-ABCD-9876';
// The contract's order, plus fields of the server's own: a secret and a code at its top.
const order = contractOrder({
  order_id: ORDER,
  vouchers: [{ voucher_id: 'vch_1', product_id: 'p1', denomination: 25, expiry: null, status: 'ISSUED', code_last4: '9876' }],
  timeline: [],
  webhook_secret: SECRET,
  claim_code: CLAIM,
});
// An answer to POST /orders without `reference` (and the other fields a server may leave out).
const { reference: _r, ...placed } = order;

let server: LoopbackServer;
const cli = (argv: string[]): Promise<CliResult> => runCli(argv, { env: cliEnvFor(server), overrides: { clock: quickClock() } });

beforeAll(async () => {
  server = await startLoopbackServer((req, res) => {
    const path = req.target.split('?')[0];
    if (req.method === 'POST' && path === '/api/v1/orders') return sendJson(res, 201, placed);
    if (req.method === 'POST' && path === `/api/v1/orders/${ORDER}/cancel`) return sendJson(res, 200, { ...placed, status: 'REFUNDED' });
    if (req.method === 'GET' && path === `/api/v1/orders/${ORDER}`) return sendJson(res, 200, order);
    res.writeHead(404);
    res.end();
  });
});
afterAll(async () => {
  await server.close();
});

describe('orders get and wait --fields: the plain view and --json agree', () => {
  it('a secret of the server is taken by both, masked in both', async () => {
    for (const verb of ['get', 'wait']) {
      const plain = await cli(['orders', verb, ORDER, '--fields', 'order_id,webhook_secret']);
      expect(plain.code, plain.stderr).toBe(0);
      expect(plain.stdout).toContain(`order_id\t${ORDER}\nwebhook_secret\twhse…7890\n`);
      const json = await cli(['orders', verb, ORDER, '--fields', 'order_id,webhook_secret', '--json']);
      expect(json.code, json.stderr).toBe(0);
      expect(JSON.parse(json.stdout)).toEqual({ order_id: ORDER, webhook_secret: 'whse…7890' });
      for (const r of [plain, json]) expect(r.stdout + r.stderr).not.toContain(SECRET);
    }
  });

  it('a code at the top of the order is masked in both, and a field the order does not have is refused by both', async () => {
    const plain = await cli(['orders', 'get', ORDER, '--fields', 'claim_code,currency']);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).toBe('claim_code\t••••••••9876\ncurrency\tUSD\n');
    const json = await cli(['orders', 'get', ORDER, '--fields', 'claim_code', '--json']);
    expect(JSON.parse(json.stdout)).toEqual({ claim_code: '••••••••9876' });
    for (const argv of [[], ['--json']]) {
      const r = await cli(['orders', 'get', ORDER, '--fields', 'nope', ...argv]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('unknown field: nope');
      expect(r.stdout + r.stderr).not.toContain(SECRET);
      expect(r.stdout + r.stderr).not.toContain(CLAIM);
    }
  });
});

describe('orders create and cancel --fields: a field the answer does not show', () => {
  it('is printed empty (null in JSON) with exit 0 once the order was placed or cancelled', async () => {
    const writes = [
      ['orders', 'create', '--product', 'p1', '--denomination', '25'],
      ['orders', 'cancel', ORDER, '--yes'],
    ];
    for (const argv of writes) {
      const plain = await cli([...argv, '--fields', 'order_id,reference']);
      expect(plain.code, `${argv.join(' ')}: ${plain.stderr}`).toBe(0);
      expect(plain.stdout).toBe(`order_id\t${ORDER}\nreference\t\n`);
      const json = await cli([...argv, '--fields', 'order_id,reference', '--json']);
      expect(json.code, `${argv.join(' ')}: ${json.stderr}`).toBe(0);
      expect(JSON.parse(json.stdout)).toEqual({ order_id: ORDER, reference: null });
    }
  });

  it('a field this version does not know is still refused before anything is sent', async () => {
    const before = server.requests.length;
    const r = await cli(['orders', 'create', '--product', 'p1', '--denomination', '25', '--fields', 'order_id,bogus']);
    expect(r.code).toBe(2);
    expect(server.requests.length).toBe(before);
  });
});
