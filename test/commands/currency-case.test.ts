/**
 * Currency codes in other letter case: the document says "currency code" and no more, so a
 * server may write `usd` for a product and `USD` for its wallet. The CLI matches them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendJson, startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { quickClock } from './orders-helpers.js';

const PRODUCT = {
  product_id: 'AMZ-US',
  name: 'Amazon US',
  category_id: 'retail',
  vendor: 'amazon',
  currency: 'usd',
  countries: ['US'],
  denominations: [10, 25],
  expiry_policy: { type: 'none' },
  availability: { status: 'in_stock', cached: { '25': 5 } },
};

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer((req, res) => {
    if (req.target.startsWith('/api/v1/products/')) sendJson(res, 200, PRODUCT);
    else if (req.target.startsWith('/api/v1/wallets'))
      sendJson(res, 200, {
        data: [{ currency: 'USD', available: 1000, reserved: 0, updated_at: '2026-11-22T09:30:00Z' }],
        has_more: false,
        next_cursor: null,
      });
    else sendJson(res, 404, { error: { name: 'NotFound', code: 'NOT_FOUND', message: 'no' } });
  });
});
afterAll(async () => {
  await server.close();
});

describe('currency letter case', () => {
  it('orders create --dry-run: a usd product is paid from the USD wallet', async () => {
    const r = await runCli(['orders', 'create', '--product', 'AMZ-US', '--denomination', '25', '--dry-run'], {
      configDir: tempConfigDir(),
      env: { VOUCHERS_BASE_URL: server.baseUrl, VOUCHERS_API_KEY: 'pk_test_1', VOUCHERS_API_SECRET: 'sk_test_1', NO_COLOR: '1' },
      overrides: { clock: quickClock() },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout + r.stderr).not.toMatch(/no usd wallet/i);
  });
});
