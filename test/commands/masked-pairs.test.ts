/**
 * A server may carry a voucher's code in a list of key/value pairs (`"meta": [{"k": "code",
 * "v": "X7K2-…"}]`, `{"name": "pin", "value": …}`): the value of a pair that names a code or
 * pin is masked like a code's field, in every output, unless --reveal; a pair naming anything
 * else is shown as it is.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/run-cli.js';
import { cliEnvFor, sendJson, startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.js';
import { redactCodes } from '../../src/listener/redact.js';

const CODE = 'X7K2-Q9ZT-4471-ABCD';
const PIN = '99887766';
const CARD = 'ZZZZ-9999-8888-7777';
const PAIRS = [
  { k: 'code', v: CODE },
  { name: 'pin', value: PIN },
  { key: 'Card Number', value: CARD },
  { k: 'colour', v: 'blue' },
  { name: 'currency_code', value: 'USD' },
];
const ORDER = {
  order_id: 'ord_pairs',
  status: 'DELIVERED',
  items: [{ product_id: 'A', denomination: 10, quantity: 1 }],
  total_amount: 10,
  currency: 'USD',
  meta: PAIRS,
};

let server: LoopbackServer;
let env: Record<string, string>;
const leaked = (r: CliResult) => [CODE, PIN, CARD].filter((s) => (r.stdout + r.stderr).includes(s));

beforeAll(async () => {
  server = await startLoopbackServer((req, res) => {
    if (req.method === 'GET' && req.target === '/api/v1/orders/ord_pairs') return sendJson(res, 200, ORDER);
    if (req.method === 'GET' && req.target.startsWith('/api/v1/products/A'))
      return sendJson(res, 200, { product_id: 'A', name: 'A', currency: 'USD', denominations: [10] });
    if (req.method === 'POST' && req.target === '/api/v1/orders') return sendJson(res, 201, ORDER);
    if (req.method === 'GET' && req.target === '/api/v1/orders/ord_pairs/vouchers')
      return sendJson(res, 200, {
        order_id: 'ord_pairs',
        data: [{ voucher_id: 'vch_1', product_id: 'A', denomination: 10, attributes: PAIRS }],
      });
    res.writeHead(404);
    res.end();
  });
  env = cliEnvFor(server);
});
afterAll(async () => {
  await server.close();
});

describe('a code in a key/value pair', () => {
  for (const argv of [
    ['orders', 'get', 'ord_pairs'],
    ['orders', 'get', 'ord_pairs', '--json'],
    ['api', 'GET', '/orders/ord_pairs'],
    ['orders', 'create', '--product', 'A', '--denomination', '10', '--json'],
  ]) {
    it(`is masked: ${argv.join(' ')}`, async () => {
      const r = await runCli(argv, { env });
      expect(r.code, r.stderr).toBe(0);
      expect(leaked(r)).toEqual([]);
      expect(r.stdout).toContain('ABCD');
      expect(r.stdout).toContain('7777');
      // A pair naming anything else is shown as it is.
      expect(r.stdout).toContain('blue');
      expect(r.stdout).toContain('USD');
    });
  }

  it('is shown with --reveal', async () => {
    const r = await runCli(['api', 'GET', '/orders/ord_pairs', '--reveal'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).meta).toEqual(PAIRS);
  });

  it('is redacted in a webhook payload, a pair naming something else kept', () => {
    const { value, found } = redactCodes({ data: { meta: PAIRS } });
    expect(JSON.stringify(value)).not.toMatch(/X7K2|99887766|ZZZZ/);
    expect(found).toEqual(['data.meta.0.v', 'data.meta.1.value', 'data.meta.2.value']);
    expect(value.data.meta[3]).toEqual({ k: 'colour', v: 'blue' });
  });

  it('orders codes reads the code and pin from the pairs: masked, in full with --reveal and in --codes-out', async () => {
    const masked = await runCli(['orders', 'codes', 'ord_pairs'], { env });
    expect(masked.code, masked.stderr).toBe(0);
    expect(leaked(masked)).toEqual([]);
    expect(masked.stdout).toMatch(/^vch_1\tA\t10\t.*ABCD/m);
    const shown = await runCli(['orders', 'codes', 'ord_pairs', '--reveal'], { env });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(CODE);
    expect(shown.stdout).toContain(PIN);
    const file = join(mkdtempSync(join(tmpdir(), 'codes-')), 'codes.csv');
    const written = await runCli(['orders', 'codes', 'ord_pairs', '--codes-out', file], { env });
    expect(written.code, written.stderr).toBe(0);
    expect(readFileSync(file, 'utf8')).toContain(`,${CODE},${PIN}`);
  });
});
