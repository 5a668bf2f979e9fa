/**
 * An answer listing two wallets of one currency: which one pays an order is not known, so
 * the balance check before ordering is not made, and said so. Taking the last one listed
 * (as it was) could pass an order the paying wallet cannot cover, or stop one it can.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/run-cli.js';
import { sendJson, startLoopbackServer, type LoopbackServer, cliEnvFor } from '../helpers/loopback-server.js';

let server: LoopbackServer;

beforeAll(async () => {
  server = await startLoopbackServer((req, res) => {
    const path = req.target.split('?')[0] ?? '';
    if (req.method === 'GET' && path === '/api/v1/wallets')
      return sendJson(res, 200, {
        data: [
          { currency: 'USD', available: 5 },
          { currency: 'usd', available: 1000 },
        ],
      });
    if (req.method === 'GET' && path === '/api/v1/products/sku-1')
      return sendJson(res, 200, { product_id: 'sku-1', name: 'Card', currency: 'USD', denominations: [10, 25] });
    sendJson(res, 404, { error: { name: 'NotFound', code: 'NOT_FOUND', message: 'no route' } });
  });
});
afterAll(async () => {
  await server.close();
});

const cli = (argv: string[]): Promise<CliResult> =>
  runCli(argv, {
    env: cliEnvFor(server),
  });

describe('two wallets of one currency', () => {
  it('orders create --dry-run: the balance is not checked, and the note says why', async () => {
    const r = await cli(['orders', 'create', '--product', 'sku-1', '--denomination', '10', '--dry-run']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('checks\tok; balance not checked: the answer lists 2 USD wallets, and which one pays is not known');
    const json = await cli(['orders', 'create', '--product', 'sku-1', '--denomination', '10', '--dry-run', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ balance_after: null, sufficient_funds: null });
  });
});
