/**
 * `orders create --from --strict-contract` against a server whose answers to POST /orders
 * differ from the contract: each order was placed and paid for all the same. Its row is
 * journalled ordered, named by the answer (its body, or its Location header), counted in the
 * totals and never sent again; the run fails for the differences, and so does a resume with
 * --strict-contract, which sends nothing.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { runCli, tempConfigDir, type CliResult } from '../helpers/run-cli.js';
import { forwardTo, sendJson, startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.js';
import { envOf, fastSandbox, quickClock } from './orders-helpers.js';

const order = (id: string) => ({
  order_id: id,
  status: 'DELIVERED',
  total_amount: 10,
  currency: 'USD',
  fulfilled_from: 'cache',
  vouchers: [{ voucher_id: 'vch_1', product_id: 'sbx-instant', denomination: 10, expiry: null, status: 'ISSUED' }],
});

let sb: SandboxHandle;
let proxy: LoopbackServer;
const cli = (argv: string[], configDir: string): Promise<CliResult> =>
  runCli(argv, { env: { ...envOf(sb), VOUCHERS_BASE_URL: proxy.baseUrl, NO_COLOR: '1' }, configDir, overrides: { clock: quickClock() } });
const posts = () => proxy.requests.filter((r) => r.method === 'POST' && r.target === '/api/v1/orders').length;

beforeAll(async () => {
  sb = await fastSandbox();
  const target = new URL(sb.baseUrl).origin;
  // The sandbox behind, but for POST /orders, answered in other shapes than the contract's.
  proxy = await startLoopbackServer(async (req, res) => {
    if (req.method === 'POST' && req.target === '/api/v1/orders') {
      const { reference } = JSON.parse(req.body) as { reference: string };
      // One answer wraps the order in "data"; the other is an empty 202 naming it in its Location header.
      if (reference === 'r1') return sendJson(res, 201, { data: order('ord_r1') });
      res.writeHead(202, { location: `/api/v1/orders/ord_${reference}`, 'content-length': '0' });
      res.end();
      return;
    }
    await forwardTo(target, req, res);
  });
});
afterAll(async () => {
  await proxy.close();
  await sb.close();
});

describe('bulk --strict-contract, answers that differ from the contract', () => {
  it('journals each row ordered and named, fails the run for the differences, and a resume sends nothing', async () => {
    const dir = tempConfigDir();
    const file = join(dir, 'bulk.csv');
    writeFileSync(file, 'product_id,denomination,quantity,reference\nsbx-instant,10,1,r1\nsbx-instant,10,1,r2\n');
    const results = join(dir, 'res.csv');
    const before = posts();
    const r = await cli(['orders', 'create', '--from', file, '--results', results, '--strict-contract', '--json'], dir);
    expect(posts() - before, r.stderr).toBe(2);
    expect(r.code, r.stderr).toBe(1);
    const summary = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(summary).toMatchObject({ rows: 2, ordered: 2, failed: 0, unknown: 0, not_done: 0, contract_mismatch: 2 });
    expect(summary.totals).toEqual([{ currency: 'USD', orders: 1, total_amount: 10 }]);
    const rows = readFileSync(results, 'utf8').trim().split('\n');
    expect(rows.slice(1).map((l) => l.split(',').slice(0, 3).join(','))).toEqual(['2,ord_r1,DELIVERED', '3,ord_r2,']);
    const error = JSON.parse(r.stderr.trim().split('\n').at(-1)!) as { error: { code: string; message: string; hint: string } };
    expect(error.error.message).toContain('both rows were ordered, but their answers differ from the contract');
    expect(error.error.hint).toContain('not sent again');

    const batch = /bat_[a-z0-9]+/.exec(r.stderr + r.stdout)![0];
    const resumed = await cli(['orders', 'create', '--resume', batch, '--strict-contract', '--json'], dir);
    expect(posts() - before).toBe(2);
    expect(resumed.code).toBe(r.code);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ ordered: 2, unknown: 0, contract_mismatch: 2 });
    // Without --strict-contract the batch is done: its orders exist.
    const plain = await cli(['orders', 'create', '--resume', batch, '--json'], dir);
    expect(plain.code, plain.stderr).toBe(0);
    expect(posts() - before).toBe(2);
    expect(JSON.parse(plain.stdout)).toMatchObject({ ordered: 2, contract_mismatch: 2 });
    // The summary's table says it too.
    const table = await cli(['orders', 'create', '--resume', batch, '--strict-contract'], dir);
    expect(table.stdout).toMatch(/^contract_mismatch\t2 \(ordered; the answer differs from the contract\)$/m);
    expect(table.stderr).not.toContain('--resume bat_');
  });
});
