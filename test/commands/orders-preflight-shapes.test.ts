/**
 * The checks before ordering (`orders create --dry-run`, a bulk file) against 2xx answers
 * this version cannot read: an empty product body, wallets in an empty body. A check that
 * cannot be made is said to be not made, never an unexpected error, never a refusal.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempConfigDir, type CliResult } from '../helpers/run-cli.js';
import { sendJson, startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.js';

let server: LoopbackServer;
/** The body of GET /wallets, per test. */
let wallets: unknown = { data: [{ currency: 'USD', available: 100 }] };

beforeAll(async () => {
  server = await startLoopbackServer((req, res) => {
    const path = req.target.split('?')[0] ?? '';
    if (req.method === 'GET' && path === '/api/v1/wallets') {
      if (wallets === undefined) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end();
        return;
      }
      return sendJson(res, 200, wallets);
    }
    if (req.method === 'GET' && path.startsWith('/api/v1/products/')) {
      // An empty 200: nothing of the product to read.
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end();
      return;
    }
    sendJson(res, 404, { error: { name: 'NotFound', code: 'NOT_FOUND', message: 'no route' } });
  });
});
afterAll(async () => {
  await server.close();
});

const env = () => ({
  VOUCHERS_BASE_URL: server.baseUrl,
  VOUCHERS_API_KEY: 'k',
  VOUCHERS_API_SECRET: 's',
  VOUCHERS_MAX_RETRIES: '0',
  NO_COLOR: '1',
});
const cli = (argv: string[]): Promise<CliResult> => runCli(argv, { env: env() });

function csv(rows: string[]): string {
  const path = join(tempConfigDir(), 'orders.csv');
  writeFileSync(path, ['product_id,denomination,quantity', ...rows].join('\n') + '\n');
  return path;
}

describe('checks before ordering, on answers that cannot be read', () => {
  it('an empty product body: the dry run says the product was not checked (exit 0), never an unexpected error', async () => {
    wallets = { data: [{ currency: 'USD', available: 100 }] };
    const r = await cli(['orders', 'create', '--product', 'sku-1', '--denomination', '10', '--dry-run']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('Unexpected error');
    expect(r.stdout).toContain("product sku-1 not checked: the catalog's answer held no record this version reads");
    expect(r.stdout).toContain('total and balance not checked: no product names its currency (give --currency)');
    expect(r.stdout).not.toContain('different currencies');
    // With the currency given, the balance is checked.
    const usd = await cli(['orders', 'create', '--product', 'sku-1', '--denomination', '10', '--currency', 'USD', '--dry-run', '--json']);
    expect(usd.code, usd.stderr).toBe(0);
    expect(JSON.parse(usd.stdout)).toMatchObject({ total_amount: 10, wallet_available: 100, balance_after: 90, sufficient_funds: true });
  });

  it('an empty product body in a bulk dry run: the file passes the checks it could make, saying which it could not', async () => {
    wallets = { data: [{ currency: 'USD', available: 100 }] };
    const r = await cli(['orders', 'create', '--from', csv(['sku-1,10,1', 'sku-2,10,2']), '--dry-run']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('Unexpected error');
    expect(r.stderr).toContain('product sku-1, sku-2 not checked');
    expect(r.stderr).toContain('2 rows of no known currency not costed');
    expect(r.stderr).not.toContain('the wallets cover the batch');
  });

  it('wallets in an empty body: balance not checked, never "there is no USD wallet"', async () => {
    wallets = undefined;
    const r = await cli(['orders', 'create', '--product', 'sku-1', '--denomination', '10', '--currency', 'USD', '--dry-run']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('balance not checked: the wallets are in a shape this version does not read');
    expect(r.stderr).not.toContain('there is no USD wallet');
  });
});
