/**
 * A server that sends an order's codes somewhere other than `vouchers[].code` (the document
 * leaves their field open): at the top (`codes`, `voucher_codes`) or per item
 * (`items[].vouchers`). `orders create --codes-out` and `orders codes --codes-out` write them;
 * an order that says it was delivered and holds no code where the CLI reads them is never a
 * success without the file: exit 8 (NO_CODES_FOUND), naming where it looked and how to fetch
 * them. Codes are never printed unasked.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempConfigDir, type CliResult } from '../helpers/run-cli.js';
import { sendJson, startLoopbackServer, type LoopbackServer, cliEnvFor } from '../helpers/loopback-server.js';

const order = (extra: Record<string, unknown>) => ({
  order_id: 'ord_1',
  status: 'DELIVERED',
  currency: 'USD',
  total_amount: 25,
  fulfilled_from: 'cache',
  ...extra,
});
/** The order as each server answers it, by the product ordered. */
const ANSWERS: Record<string, unknown> = {
  TOP: order({ codes: ['ELSEWHERE-TOP-1111'] }),
  NAMED: order({ voucher_codes: ['ELSEWHERE-NAMED-2222'] }),
  ITEMS: order({ items: [{ product_id: 'AMZ', denomination: 25, quantity: 1, vouchers: [{ code: 'ELSEWHERE-ITEM-3333' }] }] }),
  WRAPPED: { data: order({ vouchers: [{ product_id: 'AMZ', code: 'ELSEWHERE-DATA-4444' }] }) },
  // Codes under a name this version does not read: no guess.
  UNREAD: order({ gift_cards_issued: [{ serial: 'ELSEWHERE-UNREAD-5555' }] }),
  // Two places with codes: which are the order's is not clear, so neither is taken.
  BOTH: order({ codes: ['ELSEWHERE-BOTH-6666'], items: [{ product_id: 'AMZ', quantity: 1, vouchers: [{ code: 'ELSEWHERE-BOTH-7777' }] }] }),
};
const CODES = ['TOP-1111', 'NAMED-2222', 'ITEM-3333', 'DATA-4444', 'UNREAD-5555', 'BOTH-6666', 'BOTH-7777'].map((c) => `ELSEWHERE-${c}`);

let server: LoopbackServer;
let env: Record<string, string>;

beforeAll(async () => {
  server = await startLoopbackServer((req, res) => {
    const h = { 'x-trace-id': 'e'.repeat(32) };
    if (req.method === 'POST' && req.target === '/api/v1/orders') {
      const product = (JSON.parse(req.body) as { items: { product_id: string }[] }).items[0]!.product_id;
      return sendJson(res, 201, ANSWERS[product], h);
    }
    // No secure code endpoint: orders codes reads GET /orders/{id}.
    if (req.method === 'GET' && req.target === '/api/v1/orders/ord_top')
      return sendJson(res, 200, { ...order({ codes: ['ELSEWHERE-TOP-1111'] }), order_id: 'ord_top' }, h);
    // A secure code endpoint that lists the order's items, each with its vouchers.
    if (req.method === 'GET' && req.target === '/api/v1/orders/ord_items/vouchers')
      return sendJson(
        res,
        200,
        { order_id: 'ord_items', items: [{ product_id: 'AMZ', denomination: 25, vouchers: [{ code: 'ELSEWHERE-ITEM-3333' }] }] },
        h,
      );
    if (req.method === 'GET' && req.target === '/api/v1/orders/ord_items')
      return sendJson(
        res,
        200,
        { order_id: 'ord_items', status: 'DELIVERED', items: [{ product_id: 'AMZ', denomination: 25, quantity: 1 }] },
        h,
      );
    sendJson(res, 404, { error: { name: 'NotFound', code: 'NOT_FOUND', message: 'not found' } }, h);
  });
  env = cliEnvFor(server);
});
afterAll(async () => {
  await server.close();
});

const create = (product: string, file: string, ...extra: string[]): Promise<CliResult> =>
  runCli(['orders', 'create', '--product', product, '--denomination', '25', '--codes-out', file, ...extra], { env });
const leaked = (r: CliResult) => CODES.filter((c) => (r.stdout + r.stderr).includes(c));

describe('orders create --codes-out: codes where a server of another guess puts them', () => {
  for (const [product, code] of [
    ['TOP', 'ELSEWHERE-TOP-1111'],
    ['NAMED', 'ELSEWHERE-NAMED-2222'],
    ['ITEMS', 'ELSEWHERE-ITEM-3333'],
    ['WRAPPED', 'ELSEWHERE-DATA-4444'],
  ] as const) {
    it(`${product}: written to the file, masked on screen, exit 0`, async () => {
      const file = join(tempConfigDir(), 'codes.csv');
      const r = await create(product, file);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain(`Wrote 1 code to ${file}`);
      expect(readFileSync(file, 'utf8')).toContain(`,${code},`);
      expect(leaked(r)).toEqual([]);
    });
  }

  it('the item a voucher is listed under gives its product and denomination', async () => {
    const file = join(tempConfigDir(), 'codes.csv');
    const r = await create('ITEMS', file);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(file, 'utf8')).toContain('ord_1,,AMZ,25,,ELSEWHERE-ITEM-3333,');
  });

  for (const product of ['UNREAD', 'BOTH']) {
    it(`${product}: delivered and no code where it reads them: exit 8 naming where it looked and how to fetch them, no file`, async () => {
      const file = join(tempConfigDir(), 'codes.csv');
      const r = await create(product, file);
      expect(r.code, r.stderr).toBe(8);
      expect(r.stderr).toContain('NO_CODES_FOUND');
      expect(r.stderr).toContain(
        'order ord_1 is DELIVERED from cache, but its answer holds no codes where this version of vouchers reads them (vouchers[].code;',
      );
      expect(r.stderr).toContain(`nothing was written to ${file}`);
      expect(r.stderr).toContain(`vouchers orders codes ord_1 --codes-out ${file}`);
      // Printed before the error: the order placed is shown, its codes masked.
      expect(r.stdout).toContain('order_id\tord_1');
      expect(existsSync(file)).toBe(false);
      expect(leaked(r)).toEqual([]);

      const json = await create(product, join(tempConfigDir(), 'codes.csv'), '--json');
      expect(json.code).toBe(8);
      expect(json.stderr).toContain('"error":{"name":"NoCodesFound","code":"NO_CODES_FOUND"');
      expect(leaked(json)).toEqual([]);
    });
  }
});

describe('orders codes --codes-out: codes where a server of another guess puts them', () => {
  it('an order listing its codes under `codes`, read from GET /orders/{id} (no secure endpoint)', async () => {
    const file = join(tempConfigDir(), 'codes.csv');
    const r = await runCli(['orders', 'codes', 'ord_top', '--codes-out', file], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(file, 'utf8')).toContain('ord_top,,,,,ELSEWHERE-TOP-1111,');
    expect(leaked(r)).toEqual([]);
  });

  it("a secure endpoint listing the order's items with their vouchers: each voucher's code, never an item as an empty code", async () => {
    const file = join(tempConfigDir(), 'codes.csv');
    const r = await runCli(['orders', 'codes', 'ord_items', '--codes-out', file], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('Wrote 1 code to');
    expect(readFileSync(file, 'utf8')).toContain('ord_items,,AMZ,25,,ELSEWHERE-ITEM-3333,');
    expect(leaked(r)).toEqual([]);
  });
});
