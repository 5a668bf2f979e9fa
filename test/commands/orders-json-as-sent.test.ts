/**
 * With --json (and --output ndjson) an order or code entry of a server's own shape is
 * printed as the server sent it: the fields the reading fills for its own use (an empty
 * voucher_id, a null expiry or pin, empty items, currency and times) are not added. Codes
 * stay masked unless revealed, secrets always.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { sendJson, startLoopbackServer, type LoopbackServer, cliEnvFor } from '../helpers/loopback-server.js';

const CODE = 'ASSENT-CODE-12344444';
const SECRET = 'ASSENT-SECRET-77778888';
const VOUCHER = { product_id: 'A', code: CODE, client_secret: SECRET };
const ORDER = { order_id: 'ord_sent', status: 'DELIVERED', vouchers: [VOUCHER] };
const MASKED = /^•+4444$/;
/** A voucher as sent, its code masked (unless revealed) and its secret masked. */
const sentVoucher = (code: unknown = expect.stringMatching(MASKED)) => ({ product_id: 'A', code, client_secret: 'ASS…888' });
const leaked = (out: string) => [CODE, SECRET].filter((s) => out.includes(s));

let server: LoopbackServer;
let env: Record<string, string>;

beforeAll(async () => {
  server = await startLoopbackServer((req, res) => {
    const h = { 'x-trace-id': 'f'.repeat(32) };
    if (req.method === 'GET' && req.target === '/api/v1/orders/ord_sent') return sendJson(res, 200, ORDER, h);
    if (req.method === 'GET' && req.target === '/api/v1/orders/ord_sent/vouchers') return sendJson(res, 200, { data: [VOUCHER] }, h);
    if (req.method === 'GET' && req.target.split('?')[0] === '/api/v1/orders')
      return sendJson(res, 200, { data: [ORDER], has_more: false }, h);
    // Placed: the vouchers listed by id without their codes, fetched from the secure endpoint.
    if (req.method === 'POST' && req.target === '/api/v1/orders')
      return sendJson(
        res,
        201,
        { order_id: 'ord_placed', status: 'DELIVERED', vouchers: [{ voucher_id: 'vch_1', code_last4: '4444' }] },
        h,
      );
    if (req.method === 'GET' && req.target === '/api/v1/orders/ord_placed/vouchers')
      return sendJson(res, 200, { data: [{ voucher_id: 'vch_1', code: CODE }] }, h);
    res.writeHead(404, h);
    res.end();
  });
  env = cliEnvFor(server);
});
afterAll(async () => {
  await server.close();
});

/** The order as sent, its code masked. */
const maskedOrder = (o: unknown) => {
  expect(o).toEqual({ ...ORDER, vouchers: [sentVoucher()] });
};

describe('JSON prints what the server sent, no field added', () => {
  it('orders codes --json and --output ndjson: the entries as sent, the code masked; --reveal shows it', async () => {
    const json = await runCli(['orders', 'codes', 'ord_sent', '--json'], { env });
    expect(json.code, json.stderr).toBe(0);
    const shown = JSON.parse(json.stdout) as { data: unknown[] };
    expect(shown.data).toEqual([sentVoucher()]);
    expect(leaked(json.stdout + json.stderr)).toEqual([]);

    const lines = await runCli(['orders', 'codes', 'ord_sent', '--output', 'ndjson'], { env });
    expect(lines.code, lines.stderr).toBe(0);
    expect(
      lines.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as unknown),
    ).toEqual([sentVoucher()]);
    expect(leaked(lines.stdout + lines.stderr)).toEqual([]);

    const revealed = await runCli(['orders', 'codes', 'ord_sent', '--json', '--reveal'], { env });
    expect((JSON.parse(revealed.stdout) as { data: unknown[] }).data).toEqual([sentVoucher(CODE)]);
  });

  it('orders list --json, --all --json and --output ndjson: the orders as sent, codes masked', async () => {
    for (const extra of [['--json'], ['--all', '--json']]) {
      const r = await runCli(['orders', 'list', ...extra], { env });
      expect(r.code, r.stderr).toBe(0);
      const rows = JSON.parse(r.stdout) as unknown[];
      expect(rows, extra.join(' ')).toHaveLength(1);
      maskedOrder(rows[0]);
      expect(leaked(r.stdout + r.stderr)).toEqual([]);
    }
    const lines = await runCli(['orders', 'list', '--output', 'ndjson'], { env });
    expect(lines.code, lines.stderr).toBe(0);
    maskedOrder(JSON.parse(lines.stdout));
    expect(leaked(lines.stdout + lines.stderr)).toEqual([]);
  });

  it('orders get --json: the order as sent, its code masked', async () => {
    const r = await runCli(['orders', 'get', 'ord_sent', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    maskedOrder(JSON.parse(r.stdout));
    expect(leaked(r.stdout + r.stderr)).toEqual([]);
  });

  it('orders create --reveal --json: the order as sent, with the codes fetched for it', async () => {
    const r = await runCli(['orders', 'create', '--product', 'A', '--denomination', '25', '--reveal', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    const shown = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(shown).toEqual({
      order_id: 'ord_placed',
      status: 'DELIVERED',
      vouchers: [{ voucher_id: 'vch_1', code_last4: '4444', code: CODE }],
      idempotency_key: expect.any(String),
    });
  });
});
