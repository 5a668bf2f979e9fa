/**
 * The secure code endpoint is not shown in the API document: a server may list the codes
 * under another key (`results`, `items`) or one level down (`{"data": {"vouchers": […]}}`,
 * `{"order": {"vouchers": […]}}`). The codes are found there and written, masked on screen.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { sendJson, startLoopbackServer, type LoopbackServer, cliEnvFor } from '../helpers/loopback-server.js';

const CODE = 'SECURE-CODE-4444';
const entries = [{ product_id: 'A', code: CODE }];
const CODELESS = { voucher_id: 'vch_2', product_id: 'A', note: 'ask your account manager' };
const SHAPES: Record<string, unknown> = {
  ord_results: { order_id: 'ord_results', results: entries, has_more: false },
  ord_items: { items: entries },
  ord_datav: { data: { vouchers: entries } },
  ord_orderv: { order: { order_id: 'ord_orderv', vouchers: entries } },
  // Wrapped beside a record of metadata: one record of the two holds a list.
  ord_wrapped: { codes: { codes: entries }, meta: { request_id: 'r-1' } },
};

let server: LoopbackServer;
let env: Record<string, string>;

beforeAll(async () => {
  server = await startLoopbackServer((req, res) => {
    const m = /^\/api\/v1\/orders\/([^/]+)\/vouchers$/.exec(req.target);
    if (req.method === 'GET' && m && m[1]! in SHAPES) return sendJson(res, 200, SHAPES[m[1]!], { 'x-trace-id': 'd'.repeat(32) });
    // A codes answer holding no list, of an order the server says is delivered.
    if (req.method === 'GET' && req.target === '/api/v1/orders/ord_nolist/vouchers') return sendJson(res, 200, { status: 'ok', count: 1 });
    if (req.method === 'GET' && req.target === '/api/v1/orders/ord_nolist')
      return sendJson(res, 200, { order_id: 'ord_nolist', status: 'DELIVERED', vouchers: [{ product_id: 'A' }] });
    // Two vouchers listed, one of them without any field this version reads as a code.
    if (req.method === 'GET' && req.target === '/api/v1/orders/ord_codeless/vouchers')
      return sendJson(res, 200, { order_id: 'ord_codeless', data: [{ voucher_id: 'vch_1', code: CODE }, CODELESS] });
    if (req.method === 'GET' && req.target === '/api/v1/orders/ord_nocode/vouchers')
      return sendJson(res, 200, { order_id: 'ord_nocode', data: [CODELESS] });
    const codeless = /^\/api\/v1\/orders\/(ord_codeless|ord_nocode)$/.exec(req.target);
    if (req.method === 'GET' && codeless)
      return sendJson(res, 200, {
        order_id: codeless[1],
        status: 'DELIVERED',
        items: [{ product_id: 'A', denomination: 25, quantity: 2 }],
      });
    res.writeHead(404);
    res.end();
  });
  env = cliEnvFor(server);
});
afterAll(async () => {
  await server.close();
});

describe('orders codes reads the codes from any list the answer holds', () => {
  for (const id of Object.keys(SHAPES)) {
    it(`${id}: written to --codes-out, masked in --json, the difference reported`, async () => {
      const file = join(tempConfigDir(), `${id}.csv`);
      const r = await runCli(['orders', 'codes', id, '--codes-out', file], { env });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain('Wrote 1 code to');
      expect(readFileSync(file, 'utf8')).toContain(`${id},,A,,,${CODE},`);
      expect(r.stderr).toMatch(/^Warning: GET \/orders\/\w+\/vouchers \(getOrderCodes\) answered in a shape that differs/m);
      expect(r.stdout + r.stderr).not.toContain(CODE);

      const json = await runCli(['orders', 'codes', id, '--json'], { env });
      expect(json.code, json.stderr).toBe(0);
      const shown = JSON.parse(json.stdout) as { order_id: string; data: { product_id: string; code: string }[] };
      expect(shown.order_id).toBe(id);
      expect(shown.data).toHaveLength(1);
      expect(shown.data[0]!.product_id).toBe('A');
      expect(shown.data[0]!.code).toMatch(/^•+4444$/);

      const revealed = await runCli(['orders', 'codes', id, '--reveal', '--json'], { env });
      expect((JSON.parse(revealed.stdout) as { data: { code: string }[] }).data[0]!.code).toBe(CODE);
    });
  }
});

describe('orders codes with an answer that holds no list of codes', () => {
  it('says it found none in the answer and how to see it; writes no file, claims no write (exit 8 with --codes-out), JSON null', async () => {
    const file = join(tempConfigDir(), 'nolist.csv');
    // Codes asked for into a file, none came: exit 8 (not whole), never 0.
    const r = await runCli(['orders', 'codes', 'ord_nolist', '--codes-out', file], { env });
    expect(r.code, r.stderr).toBe(8);
    expect(r.stderr).not.toContain('Wrote');
    expect(r.stderr).toContain(
      `Error: Found no codes in the answer of GET /orders/ord_nolist/vouchers: it holds no list this version of vouchers recognises; nothing was written to ${file}`,
    );
    expect(r.stderr).toContain('see the answer as sent with: vouchers api GET /orders/ord_nolist/vouchers');
    const shown = await runCli(['orders', 'codes', 'ord_nolist'], { env });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stderr).toContain(
      'Found no codes in the answer of GET /orders/ord_nolist/vouchers: it holds no list this version of vouchers recognises. See the answer as sent with: vouchers api GET /orders/ord_nolist/vouchers',
    );
    expect(r.stderr).toMatch(/^Warning: GET \/orders\/ord_nolist\/vouchers \(getOrderCodes\) answered in a shape that differs/m);
    expect(existsSync(file)).toBe(false);

    const json = await runCli(['orders', 'codes', 'ord_nolist', '--json'], { env });
    expect(json.code, json.stderr).toBe(0);
    expect(json.stdout).toBe('null\n');
    expect(json.stderr).toContain('"code":"NO_CODES_FOUND"');
    const jsonOut = await runCli(['orders', 'codes', 'ord_nolist', '--json', '--codes-out', file], { env });
    expect(jsonOut.code, jsonOut.stderr).toBe(8);
    expect(jsonOut.stdout).toBe('null\n');
    expect(jsonOut.stderr).toContain('"error":{"name":"NoCodesFound","code":"NO_CODES_FOUND"');
    expect(existsSync(file)).toBe(false);
  });
});

describe('orders codes --codes-out with entries that hold no code', () => {
  it('writes only the rows with a code, says how many had none, exit 8', async () => {
    const file = join(tempConfigDir(), 'codeless.csv');
    const r = await runCli(['orders', 'codes', 'ord_codeless', '--codes-out', file], { env });
    expect(r.code, r.stderr).toBe(8);
    expect(r.stderr).toContain('Wrote 1 code to');
    expect(r.stderr).toContain(
      `1 of the 2 entries of the answer of GET /orders/ord_codeless/vouchers holds no code this version of vouchers reads: it was not written to ${file}, which holds the other 1`,
    );
    expect(r.stderr).toContain('NO_CODES_FOUND');
    expect(readFileSync(file, 'utf8').trim().split('\n')).toEqual([
      'order_id,voucher_id,product_id,denomination,expiry,code,pin',
      `ord_codeless,vch_1,,,,${CODE},`,
    ]);
    expect(r.stdout + r.stderr).not.toContain(CODE);

    const json = await runCli(['orders', 'codes', 'ord_codeless', '--json', '--codes-out', join(tempConfigDir(), 'c.csv')], { env });
    expect(json.code, json.stderr).toBe(8);
    expect(json.stderr).toContain('"error":{"name":"NoCodesFound","code":"NO_CODES_FOUND"');
    expect(json.stdout + json.stderr).not.toContain(CODE);
  });

  it('an answer whose entries all hold no code: no file, exit 8', async () => {
    const file = join(tempConfigDir(), 'nocode.csv');
    const r = await runCli(['orders', 'codes', 'ord_nocode', '--codes-out', file], { env });
    expect(r.code, r.stderr).toBe(8);
    expect(r.stderr).not.toContain('Wrote');
    expect(r.stderr).toContain(
      `The one entry of the answer of GET /orders/ord_nocode/vouchers holds no code this version of vouchers reads: nothing was written to ${file}`,
    );
    expect(existsSync(file)).toBe(false);
  });
});
